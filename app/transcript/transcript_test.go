package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func aim(role, text string, final bool) Update {
	return Update{Source: SourceAIM, Role: role, Text: text, Final: final}
}

func lk(seg, role, text string, final bool) Update {
	return Update{Source: SourceLiveKit, Role: role, Text: text, Final: final, SegmentID: seg}
}

// step is an update after a pause.
type step struct {
	after time.Duration
	u     Update
}

func render(t *Transcript) []string {
	var out []string
	for _, l := range t.Lines() {
		s := l.Role + ": " + l.Text
		if !l.Final {
			s += " …"
		}
		if l.Typed {
			s += " (typed)"
		}
		out = append(out, s)
	}
	return out
}

func changeWord(c Change) string {
	switch {
	case c.Index < 0:
		return "-"
	case c.Added && c.Final:
		return "add-final"
	case c.Added:
		return "add"
	case c.Final:
		return "final"
	}
	return "upd"
}

func TestMerge(t *testing.T) {
	const played = "(your words, played back)"
	tests := []struct {
		name    string
		steps   []step
		want    []string
		changes string // what each step did
	}{
		{
			name: "AIM final first, then the same segment streamed",
			steps: []step{
				{0, aim(RoleAgent, "You said: hi", true)},
				{50 * time.Millisecond, lk("SG_1", RoleAgent, "You", false)},
				{50 * time.Millisecond, lk("SG_1", RoleAgent, "You said:", false)},
				{50 * time.Millisecond, lk("SG_1", RoleAgent, "You said: hi", true)},
			},
			want:    []string{"agent: You said: hi"},
			changes: "add-final - - -",
		},
		{
			name: "streamed interim then final, then the AIM final",
			steps: []step{
				{0, lk("SG_1", RoleAgent, "Hello", false)},
				{50 * time.Millisecond, lk("SG_1", RoleAgent, "Hello there", false)},
				{50 * time.Millisecond, lk("SG_1", RoleAgent, "Hello there.", true)},
				{time.Second, aim(RoleAgent, "Hello there.", true)},
			},
			want:    []string{"agent: Hello there."},
			changes: "add upd final -",
		},
		{
			name: "the AIM final closes the open streamed line; the stream's final changes nothing",
			steps: []step{
				{0, lk("SG_1", RoleAgent, "Hello", false)},
				{10 * time.Millisecond, aim(RoleAgent, "Hello there.", true)},
				{10 * time.Millisecond, lk("SG_1", RoleAgent, "Hello there!", true)},
			},
			want:    []string{"agent: Hello there."},
			changes: "add final -",
		},
		{
			name: "the same words said twice are two lines",
			steps: []step{
				{0, aim(RoleAgent, played, true)},
				{0, lk("SG_1", RoleAgent, played, false)},
				{0, lk("SG_1", RoleAgent, played, true)},
				{2 * time.Second, lk("SG_2", RoleAgent, "(your words,", false)},
				{0, lk("SG_2", RoleAgent, played, true)},
				{0, aim(RoleAgent, played, true)},
			},
			want:    []string{"agent: " + played, "agent: " + played},
			changes: "add-final - - add final -",
		},
		{
			name: "punctuation, case and spacing do not count",
			steps: []step{
				{0, lk("SG_1", RoleUser, "you said  HI", true)},
				{time.Second, aim(RoleUser, "You said: hi!", true)},
			},
			want:    []string{"user: you said  HI"},
			changes: "add-final -",
		},
		{
			name: "outside the window the same words are a new line",
			steps: []step{
				{0, lk("SG_1", RoleAgent, "Goodbye!", true)},
				{Window + time.Second, aim(RoleAgent, "Goodbye!", true)},
			},
			want:    []string{"agent: Goodbye!", "agent: Goodbye!"},
			changes: "add-final add-final",
		},
		{
			name: "typed text is confirmed once by the user's transcript, from either source",
			steps: []step{
				{0, Update{Source: SourceTyped, Role: RoleUser, Text: "hello"}},
				{30 * time.Second, aim(RoleUser, "hello", true)},
				{0, lk("SG_9", RoleUser, "hello", true)},
				{time.Second, Update{Source: SourceTyped, Role: RoleUser, Text: "hello"}},
				{time.Second, lk("SG_10", RoleUser, "hello", true)},
				{0, aim(RoleUser, "hello", true)},
			},
			want:    []string{"user: hello", "user: hello"},
			changes: "add - - add - -",
		},
		{
			name: "speakers have their own open lines",
			steps: []step{
				{0, lk("SG_u", RoleUser, "what is", false)},
				{0, lk("SG_a", RoleAgent, "One", false)},
				{0, lk("SG_u", RoleUser, "what is the time", true)},
				{0, lk("SG_a", RoleAgent, "One moment.", true)},
			},
			want:    []string{"user: what is the time", "agent: One moment."},
			changes: "add add final final",
		},
		{
			name: "a final line stays final with its first text",
			steps: []step{
				{0, lk("SG_1", RoleAgent, "a b", true)},
				{0, lk("SG_1", RoleAgent, "a b c", true)},
				{0, lk("SG_1", RoleAgent, "a", false)},
			},
			want:    []string{"agent: a b"},
			changes: "add-final - -",
		},
		{
			name: "AIM interim lines are replaced by the speaker's next update",
			steps: []step{
				{0, aim(RoleUser, "I", false)},
				{0, aim(RoleUser, "I want", false)},
				{0, lk("SG_3", RoleUser, "I want tea", false)},
				{0, aim(RoleUser, "I want tea.", true)},
				{0, lk("SG_3", RoleUser, "I want tea", true)},
			},
			want:    []string{"user: I want tea."},
			changes: "add upd upd final -",
		},
		{
			name: "notes are lines of their own",
			steps: []step{
				{0, Update{Source: SourceNote, Text: "The agent asks for your approval."}},
				{0, aim(RoleAgent, "The agent asks for your approval.", true)},
			},
			want:    []string{": The agent asks for your approval.", "agent: The agent asks for your approval."},
			changes: "add add-final",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
			tr := New(0, func() time.Time { return now })
			var changes []string
			for _, s := range tc.steps {
				now = now.Add(s.after)
				changes = append(changes, changeWord(tr.Apply(s.u)))
			}
			if got := render(tr); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if got := strings.Join(changes, " "); got != tc.changes {
				t.Errorf("changes %q, want %q", got, tc.changes)
			}
		})
	}
}

func TestBound(t *testing.T) {
	tr := New(3, nil)
	var last Change
	for i := range 5 {
		last = tr.Apply(aim(RoleAgent, fmt.Sprint("line ", i), true))
	}
	if tr.Len() != 3 || last.Dropped != 1 || last.Index != 2 || tr.Lines()[0].Text != "line 2" {
		t.Fatalf("len %d, last change %+v, first %q", tr.Len(), last, tr.Lines()[0].Text)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"You said: hi!":                "you said hi",
		"  (your words, played back) ": "your words played back",
		"Größe 12×3":                   "größe 12 3",
		"…":                            "",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
