// Package transcript is a call's transcript as shown: the lines of what
// the user and the agent said or typed, merged from two sources that may
// both carry the same utterance, each shown once:
//
//   - the AIM session's transcript events (app/aim: role, text, final),
//   - LiveKit Agents' lk.transcription text streams (media: a segment id,
//     the speaker, text, final), which a standard LiveKit agent publishes
//     and the reference agent publishes too.
//
// It is plain Go (no Fyne, no media): the call window feeds it and renders
// the lines it reports changed.
//
// The merge key of an update, tried in order:
//
//  1. its LiveKit segment id: later updates of a segment change its line;
//  2. the speaker's open line: a speaker has at most one interim line,
//     which the next update of that speaker (from either source) replaces
//     or makes final;
//  3. a recent final line of the speaker with the same words (compared
//     without case, punctuation or spacing; within Window of its last
//     update), or, for interim text, whose words it starts: the update is
//     the same utterance from the other source and changes nothing (its
//     segment id is attached to the line, so the segment's later updates
//     land there too);
//  4. a line the user typed here with the same words, confirmed once by
//     the user's final transcript (not time-bound: the agent may answer
//     late);
//
// otherwise the update is a new line. A final line never goes back to
// interim, and the first final text of a line stays.
package transcript

import (
	"strings"
	"time"
	"unicode"
)

// Roles of a line: who spoke. "" is the app's own note.
const (
	RoleUser  = "user"
	RoleAgent = "agent"
)

// Source says where an update came from.
type Source int

// Sources.
const (
	SourceAIM     Source = iota + 1 // an AIM transcript event
	SourceLiveKit                   // an lk.transcription text stream
	SourceTyped                     // typed in the call window
	SourceNote                      // the app's own note
)

// Window is how long after its last update a final line still absorbs the
// same words from the other source.
const Window = 15 * time.Second

// DefaultMaxLines bounds the lines kept when New is given 0.
const DefaultMaxLines = 500

// Update is one transcript update.
type Update struct {
	Source    Source
	Role      string // RoleUser, RoleAgent, "" for a note
	Text      string
	Final     bool
	SegmentID string // SourceLiveKit: lk.segment_id
}

// Line is a line as shown.
type Line struct {
	Role   string
	Text   string
	Final  bool
	Typed  bool // typed here and not yet confirmed by the agent's transcript
	Source Source
	// Segments are the LiveKit segment ids merged into the line.
	Segments []string
	last     time.Time
	norm     string
	from     uint8 // the sources that updated it (bits 1<<Source)
}

// Change says what an update did to the lines.
type Change struct {
	// Index of the changed or added line (after Dropped lines were removed
	// from the front); -1 when nothing changed.
	Index int
	Added bool // the line is new (appended at Index)
	// Dropped lines were removed from the front to stay within the bound.
	Dropped int
	// Final: the line became final with this update (keep it once).
	Final bool
}

// Transcript is the merged transcript. It is not safe for concurrent use:
// the call window uses it from its UI goroutine.
type Transcript struct {
	lines []*Line
	max   int
	now   func() time.Time
}

// New returns an empty transcript keeping at most max lines (0:
// DefaultMaxLines); now is the clock (nil: time.Now).
func New(max int, now func() time.Time) *Transcript {
	if max <= 0 {
		max = DefaultMaxLines
	}
	if now == nil {
		now = time.Now
	}
	return &Transcript{max: max, now: now}
}

// Lines are the lines as shown (do not modify them).
func (t *Transcript) Lines() []*Line { return t.lines }

// Len is the number of lines.
func (t *Transcript) Len() int { return len(t.lines) }

// Apply merges one update and says what changed.
func (t *Transcript) Apply(u Update) Change {
	now := t.now()
	norm := normalize(u.Text)
	if u.Source == SourceNote || u.Source == SourceTyped || u.Role == "" {
		return t.add(&Line{Role: u.Role, Text: u.Text, Final: true, Typed: u.Source == SourceTyped, Source: u.Source, last: now, norm: norm})
	}
	if strings.TrimSpace(u.Text) == "" && !u.Final {
		return Change{Index: -1}
	}
	// 1. the segment's line
	if u.SegmentID != "" {
		if i := t.find(func(l *Line) bool { return hasSegment(l, u.SegmentID) }); i >= 0 {
			return t.update(i, u, norm, now)
		}
	}
	// 2. the speaker's open line
	if i := t.open(u.Role); i >= 0 {
		return t.update(i, u, norm, now)
	}
	// 3. the same utterance, already final from the other source
	if i := t.sameUtterance(u, norm, now); i >= 0 {
		t.lines[i].join(u)
		return Change{Index: -1}
	}
	// 4. what the user typed here, confirmed
	if u.Role == RoleUser && u.Final {
		if i := t.find(func(l *Line) bool { return l.Typed && l.norm == norm }); i >= 0 {
			l := t.lines[i]
			l.Typed, l.last = false, now
			l.join(u)
			return Change{Index: -1}
		}
	}
	l := &Line{Role: u.Role, Text: u.Text, Final: u.Final, Source: u.Source, last: now, norm: norm, from: bit(u.Source)}
	if u.SegmentID != "" {
		l.Segments = []string{u.SegmentID}
	}
	return t.add(l)
}

// sameUtterance is the index of a final line of u's speaker, within
// Window, that another source already gave for the same words (or, for
// an interim u, words u begins); -1 if none.
func (t *Transcript) sameUtterance(u Update, norm string, now time.Time) int {
	if norm == "" {
		return -1
	}
	return t.find(func(l *Line) bool {
		if l.Role != u.Role || !l.Final || l.Typed || l.from&bit(u.Source) != 0 || now.Sub(l.last) > Window {
			return false
		}
		return l.norm == norm || !u.Final && strings.HasPrefix(l.norm, norm)
	})
}

// join records that u's source (and segment) gave this line too.
func (l *Line) join(u Update) {
	l.from |= bit(u.Source)
	if u.SegmentID != "" {
		l.Segments = append(l.Segments, u.SegmentID)
	}
}

// update applies u to line i.
func (t *Transcript) update(i int, u Update, norm string, now time.Time) Change {
	l := t.lines[i]
	l.from |= bit(u.Source)
	if u.SegmentID != "" && !hasSegment(l, u.SegmentID) {
		l.Segments = append(l.Segments, u.SegmentID)
	}
	if l.Final {
		return Change{Index: -1} // final stays final, with its first text
	}
	if u.Text == l.Text && u.Final == l.Final {
		return Change{Index: -1}
	}
	if strings.TrimSpace(u.Text) != "" || u.Final {
		l.Text, l.norm = u.Text, norm
	}
	l.Final, l.last = u.Final, now
	return Change{Index: i, Final: u.Final}
}

func (t *Transcript) add(l *Line) Change {
	t.lines = append(t.lines, l)
	c := Change{Index: len(t.lines) - 1, Added: true, Final: l.Final && l.Role != "" && !l.Typed}
	if n := len(t.lines) - t.max; n > 0 {
		clear(t.lines[:n])
		t.lines = t.lines[n:]
		c.Dropped, c.Index = n, c.Index-n
	}
	return c
}

// open is the index of the role's interim line, or -1.
func (t *Transcript) open(role string) int {
	return t.find(func(l *Line) bool { return l.Role == role && !l.Final })
}

// find is the index of the last line matching f, or -1.
func (t *Transcript) find(f func(*Line) bool) int {
	for i := len(t.lines) - 1; i >= 0; i-- {
		if f(t.lines[i]) {
			return i
		}
	}
	return -1
}

func bit(s Source) uint8 { return 1 << uint(s) }

func hasSegment(l *Line, id string) bool {
	for _, s := range l.Segments {
		if s == id {
			return true
		}
	}
	return false
}

// normalize keeps the letters and digits of s, in lower case, words
// separated by one space: two sources may punctuate or space the same
// words differently.
func normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}
