//go:build !nomedia

package media

import (
	"testing"

	"aimdesk/media/lkroom"
)

func TestParseTranscription(t *testing.T) {
	attrs := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		st   lkroom.StreamText
		ok   bool
		want Transcription
	}{
		{
			name: "interim text of a delta stream",
			st: lkroom.StreamText{
				ID: "st1", Topic: TopicTranscription, Sender: "agent", Text: "Hel",
				Attributes: attrs(AttrTranscriptionFinal, "false", AttrSegmentID, "SG_1", AttrTranscribedTrackID, "TR_a"),
			},
			ok:   true,
			want: Transcription{SegmentID: "SG_1", StreamID: "st1", TrackID: "TR_a", Speaker: "agent", Sender: "agent", Text: "Hel"},
		},
		{
			name: "the delta stream's end with final in the trailer",
			st: lkroom.StreamText{
				ID: "st1", Topic: TopicTranscription, Sender: "agent", Text: "Hello.", Done: true,
				Attributes: attrs(AttrTranscriptionFinal, "true", AttrSegmentID, "SG_1", AttrTranscribedTrackID, "TR_a"),
			},
			ok:   true,
			want: Transcription{SegmentID: "SG_1", StreamID: "st1", TrackID: "TR_a", Speaker: "agent", Sender: "agent", Text: "Hello.", Final: true},
		},
		{
			name: "a whole interim update (non-delta stream) stays interim at its end",
			st: lkroom.StreamText{
				ID: "st2", Topic: TopicTranscription, Sender: "agent", Text: "what is", Done: true,
				Attributes: attrs(AttrTranscriptionFinal, "false", AttrSegmentID, "SG_2", AttrTranscribedTrackID, "TR_me"),
			},
			ok:   true,
			want: Transcription{SegmentID: "SG_2", StreamID: "st2", TrackID: "TR_me", Speaker: "agent", Sender: "agent", Text: "what is"},
		},
		{
			name: "a final stream is interim until it ends",
			st: lkroom.StreamText{
				ID: "st3", Topic: TopicTranscription, Sender: "agent", Text: "what is the",
				Attributes: attrs(AttrTranscriptionFinal, "true", AttrSegmentID, "SG_2"),
			},
			ok:   true,
			want: Transcription{SegmentID: "SG_2", StreamID: "st3", Speaker: "agent", Sender: "agent", Text: "what is the"},
		},
		{
			name: "no attributes: the stream is its own segment, final at its end",
			st:   lkroom.StreamText{ID: "st4", Topic: TopicTranscription, Sender: "bot", Text: "hi", Done: true},
			ok:   true,
			want: Transcription{SegmentID: "st4", StreamID: "st4", Speaker: "bot", Sender: "bot", Text: "hi", Final: true},
		},
		{
			name: "another topic",
			st:   lkroom.StreamText{ID: "st5", Topic: TopicChat, Text: "hi", Done: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseTranscription(tc.st)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("got %+v %v\nwant %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestMergeTranscriptions(t *testing.T) {
	seg := func(id, text string, final bool) Transcription {
		return Transcription{SegmentID: id, Speaker: "agent", Text: text, Final: final}
	}
	var e Event
	e.Merge(Event{Transcriptions: []Transcription{seg("a", "He", false)}})
	e.Merge(Event{Transcriptions: []Transcription{seg("b", "Yes", false), seg("a", "Hello", false)}})
	e.Merge(Event{Transcriptions: []Transcription{seg("a", "Hello.", true)}})
	e.Merge(Event{Transcriptions: []Transcription{seg("a", "Hello", false)}}) // late interim: final stays
	want := []Transcription{seg("a", "Hello.", true), seg("b", "Yes", false)}
	if len(e.Transcriptions) != len(want) {
		t.Fatalf("got %+v", e.Transcriptions)
	}
	for i := range want {
		if e.Transcriptions[i] != want[i] {
			t.Fatalf("segment %d: got %+v, want %+v", i, e.Transcriptions[i], want[i])
		}
	}
	if eventEmpty(Event{Transcriptions: want}) {
		t.Fatal("an event with transcriptions is empty")
	}
}

func TestChatReader(t *testing.T) {
	tests := []struct {
		name string
		ps   []Participant
		want string
	}{
		{"none", nil, ""},
		{"a standard participant", []Participant{{Identity: "bob", Kind: "standard"}}, ""},
		{"an agent without a session (avatar worker)", []Participant{{Identity: "avatar", Kind: "agent"}}, ""},
		{"a standard participant that claims a state", []Participant{{Identity: "eve", Kind: "standard", AgentState: "listening"}}, ""},
		{"an agent session", []Participant{{Identity: "avatar", Kind: "agent"}, {Identity: "agent-1", Kind: "agent", AgentState: "initializing"}}, "agent-1"},
		{"the first of two", []Participant{{Identity: "a", Kind: "agent", AgentState: "speaking"}, {Identity: "b", Kind: "agent", AgentState: "listening"}}, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ChatReader(tc.ps)
			if got != tc.want || ok != (tc.want != "") {
				t.Fatalf("ChatReader = %q %v, want %q", got, ok, tc.want)
			}
		})
	}
}
