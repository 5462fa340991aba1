package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// MaxReplyText is how much text of one part of a reply the app keeps in
// memory (and in the conversation's history). A hostile or runaway agent
// streaming appended chunks without end would otherwise grow memory, the
// store and every redraw with it. Past the cap the text goes on to a file
// the user can open; the reply says so.
const MaxReplyText = 4 << 20

// spill is the file that receives a part's text past MaxReplyText.
type spill struct {
	path string
	f    *os.File
	n    int64 // bytes written to the file
	err  error // the first write error; later text is dropped
}

// note is what the kept text ends with once it spilled.
func (s *spill) note() string {
	if s.err != nil {
		return fmt.Sprintf("[aimdesk: the reply is longer than %d MiB; the rest was not kept: %v]", MaxReplyText>>20, s.err)
	}
	return fmt.Sprintf("[aimdesk: the reply is longer than %d MiB; the rest (%d bytes so far) is in %s]", MaxReplyText>>20, s.n, s.path)
}

// appendText adds chunk to a text part: to memory up to MaxReplyText, then
// to the part's spill file (created in r.spillDir, mode 0600).
func (r *reply) appendText(p *partAcc, chunk string) {
	if p.spill == nil {
		room := MaxReplyText - p.text.Len()
		if len(chunk) <= room {
			p.text.WriteString(chunk)
			return
		}
		// Cut at a rune boundary so the kept text stays valid UTF-8.
		for room > 0 && !utf8.RuneStart(chunk[room]) {
			room--
		}
		p.text.WriteString(chunk[:room])
		chunk = chunk[room:]
		p.spill = r.openSpill()
	}
	s := p.spill
	if s.f == nil { // closed: a write failed, or the reply ended or was replaced
		return
	}
	n, err := s.f.WriteString(chunk)
	s.n += int64(n)
	if err != nil {
		s.err = err
		_ = s.f.Close()
		s.f = nil
	}
}

func (r *reply) openSpill() *spill {
	if r.spillDir == "" {
		return &spill{err: errors.New("no folder for long replies")}
	}
	if err := os.MkdirAll(r.spillDir, 0o700); err != nil {
		return &spill{err: err}
	}
	name := "reply-" + safeName(r.msg.ID) + "-" + uuid.NewString()[:8] + ".txt"
	path := filepath.Join(r.spillDir, name)
	f, err := os.OpenFile(filepath.Clean(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return &spill{err: err}
	}
	return &spill{path: path, f: f}
}

// closeSpills closes the reply's spill files (the text in them stays).
func (r *reply) closeSpills() {
	for _, a := range r.artifacts {
		closePartSpills(a.parts)
	}
}

func closePartSpills(parts []*partAcc) {
	for _, p := range parts {
		if s := p.spill; s != nil && s.f != nil {
			_ = s.f.Close()
			s.f = nil
		}
	}
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, s)
}
