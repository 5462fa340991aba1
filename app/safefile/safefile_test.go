package safefile

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"
)

func TestSanitizeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"evil.exe.", "evil.exe"},
		{"evil.exe. . .", "evil.exe"},
		{"evil.exe   ", "evil.exe"},
		{".bashrc", "bashrc"},
		{"..", DefaultName},
		{"../../etc/passwd", "passwd"},
		{`..\..\Windows\System32\evil.dll`, "evil.dll"},
		{"C:evil.txt", "C_evil.txt"},
		{"CON", "_CON"},
		{"con.txt", "_con.txt"},
		{"Aux.tar.gz", "_Aux.tar.gz"},
		{"COM1", "_COM1"},
		{"lpt9.log", "_lpt9.log"},
		{"COM10", "COM10"},
		{"CONSOLE.txt", "CONSOLE.txt"},
		{"photo\u202Egnp.exe", "photognp.exe"}, // right-to-left override
		{"inv\u200Boice.pdf", "invoice.pdf"},   // zero-width space
		{"a\x00b\x1f\x7fc.txt", "abc.txt"},     // control characters
		{"tab\tname.txt", "tab name.txt"},      // whitespace made a space
		{"what?<>|*.txt", "what_____.txt"},     // reserved on Windows
		{"", DefaultName},
		{"   ", DefaultName},
		{"/", DefaultName},
		{strings.Repeat("a", 300) + ".txt", strings.Repeat("a", 196) + ".txt"},
	} {
		if got := SanitizeName(tc.in); got != tc.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestOpenable(t *testing.T) {
	pngData := pngBytes(t)
	mz := append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00"), make([]byte, 200)...)
	elf := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 200)...)
	pdf := []byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n")
	html := []byte("<!DOCTYPE html><html><script>alert(1)</script></html>")
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"photo.png", pngData, true},
		{"PHOTO.PNG", pngData, true},
		{"report.pdf", pdf, true},
		{"notes.txt", []byte("hello\n"), true},
		{"data.csv", []byte("a,b\n1,2\n"), true},
		{"evil.exe", mz, false},
		{"evil.exe.", mz, false},          // Windows drops the trailing dot
		{"evil.exe ", mz, false},          // and trailing spaces
		{"photo.png", mz, false},          // a program named like a picture
		{"photo.png.exe", pngData, false}, // the real extension is .exe
		{"photo\u202Egnp.exe", mz, false}, // bidi override hiding .exe
		{"notes.txt", elf, false},         // binary content
		{"notes.txt", html, false},        // HTML sniffed, not plain text
		{"page.html", html, false},        // scripts
		{"drawing.svg", []byte("<svg/>"), false},
		{"setup.msi", mz, false},
		{"script.ps1", []byte("Write-Host hi"), false},
		{"run.sh", []byte("#!/bin/sh\nrm -rf ~\n"), false},
		{"Shortcut.lnk", []byte("L\x00\x00\x00"), false},
		{"doc.docm", []byte("PK\x03\x04"), false},
		{"archive.zip", []byte("PK\x03\x04"), false},
		{"app.jar", []byte("PK\x03\x04"), false},
		{"x.desktop", []byte("[Desktop Entry]\nExec=sh\n"), false},
		{"x.scf", []byte("[Shell]\n"), false},
		{"x.url", []byte("[InternetShortcut]\n"), false},
		{"noext", []byte("hello"), false},
		{"empty.txt", nil, false},
	} {
		if _, ok := Openable(tc.name, tc.data); ok != tc.ok {
			t.Errorf("Openable(%q, %.12q…) = %v, want %v", tc.name, tc.data, ok, tc.ok)
		}
	}
}
