package mediaapi

import (
	"context"
	"errors"
	"time"
)

// ErrNoTextRoute: no participant reads lk.chat and the caller gave no
// other way to send typed text.
var ErrNoTextRoute = errors.New("media: no participant reads lk.chat, and no other way to send text")

// LiveKit Agents conventions (livekit/agents, agents-js constants and
// room_io; livekit/client-sdk-js): an agent publishes what was said as
// text streams on TopicTranscription, one segment per utterance, with the
// attributes below; it reads typed text from TopicChat; it publishes its
// state in the participant attribute lk.agent.state (AgentStateAttribute)
// and joins with participant kind AGENT.
const (
	// TopicTranscription is the text stream topic of transcriptions.
	TopicTranscription = "lk.transcription"
	// TopicChat is the text stream topic of typed text.
	TopicChat = "lk.chat"
	// AttrTranscriptionFinal is "true" on a segment's final text, "false"
	// on interim text. A delta stream (the agent's own speech, written as
	// it is spoken) carries "false" in its header and "true" in its
	// trailer; a non-delta stream (speech-to-text of the user) carries the
	// whole text so far, one stream per update.
	AttrTranscriptionFinal = "lk.transcription_final"
	// AttrSegmentID ties the streams of one segment together.
	AttrSegmentID = "lk.segment_id"
	// AttrTranscribedTrackID is the SID of the audio track that was
	// transcribed: the speaker's microphone.
	AttrTranscribedTrackID = "lk.transcribed_track_id"
)

// Transcription is one update of a transcription segment received as an
// lk.transcription text stream.
type Transcription struct {
	// SegmentID is lk.segment_id (the stream id when the sender set none):
	// later updates of the same segment replace its text.
	SegmentID string
	StreamID  string
	// TrackID is lk.transcribed_track_id: the speaker's audio track.
	TrackID string
	// Speaker is the identity of who spoke: the owner of TrackID when the
	// call knows it, else the stream's sender.
	Speaker string
	// Local: we spoke (TrackID is our microphone, or we are the speaker):
	// the agent transcribes the user's speech.
	Local bool
	// Sender is the identity of the participant that sent the stream.
	Sender string
	Text   string
	// Final: the segment's text is stable (lk.transcription_final "true"
	// and the stream ended).
	Final bool
	At    time.Time // when the sender opened the stream
}

// TextRoute says which way a typed message went.
type TextRoute string

// Text routes.
const (
	RouteLiveKitChat TextRoute = TopicChat // an lk.chat text stream to the agent participant
	RouteOther       TextRoute = "other"   // the caller's own way (the AIM interaction)
)

// ChatReader returns the participant that reads typed text on lk.chat:
// a participant of kind agent that publishes lk.agent.state. That
// attribute comes from the LiveKit Agents session's room I/O, the same
// part that reads lk.chat (text input is on by default); an agent without
// it (an avatar worker, a recorder) reads no chat. With several, the first
// by identity (ps is sorted so).
func ChatReader(ps []Participant) (identity string, ok bool) {
	for _, p := range ps {
		if p.Kind == "agent" && p.AgentState != "" {
			return p.Identity, true
		}
	}
	return "", false
}

// SendOther is how a typed message goes when no participant reads lk.chat
// (the AIM interaction input.text).
type SendOther func(ctx context.Context, text string) error
