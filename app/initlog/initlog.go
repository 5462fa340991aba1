// Package initlog holds back what the standard logger prints while Go
// initialises packages, so the command line stays quiet in any locale.
//
// Fyne's lang package reads the locale in its init function and logs
// "Fyne error: Error parsing user locale C" through the standard logger when
// LANG is C.UTF-8 (or LANGUAGE/LC_ALL name a locale it cannot parse). The
// package is linked into the one aimdesk binary (main → fyne.io/fyne/v2/app
// → widget, dialog, the GLFW driver → lang), so its init runs for every CLI
// command too, before main can do anything; there is no Fyne call to avoid.
//
// Import this package from main only. Go initialises packages in the order
// of their import paths where dependencies allow (the Go spec, "Package
// initialization", since Go 1.21), and "aimdesk/…" sorts before "fyne.io/…",
// while this package depends only on the standard library; so its init
// runs first and points the logger at a buffer. main then calls Release: the
// desktop app replays the buffered lines to stderr (nothing is lost), a CLI
// command drops them. main_test.go's TestCLIQuietInCLocale checks the order
// holds in the built program.
package initlog

import (
	"bytes"
	"io"
	"log"
	"os"
	"sync"
)

var held = struct {
	sync.Mutex
	buf      bytes.Buffer
	released bool
}{}

type heldWriter struct{}

func (heldWriter) Write(p []byte) (int, error) {
	held.Lock()
	defer held.Unlock()
	if held.released {
		return os.Stderr.Write(p)
	}
	return held.buf.Write(p)
}

func init() { log.SetOutput(heldWriter{}) }

// Release points the standard logger back at stderr. When replay is true
// the lines held since start-up are written to w first.
func Release(w io.Writer, replay bool) {
	held.Lock()
	defer held.Unlock()
	if held.released {
		return
	}
	held.released = true
	if replay && w != nil {
		_, _ = w.Write(held.buf.Bytes())
	}
	held.buf = bytes.Buffer{}
	log.SetOutput(os.Stderr)
}
