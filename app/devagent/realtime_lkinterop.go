package devagent

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// LiveKit Agents conventions the reference agent follows besides the AIM
// events, so that a client made for a standard LiveKit agent works with it
// and the app's reading of them is tested against a real room: what it
// says is published as lk.transcription text streams, and typed text is
// read from lk.chat (as a LiveKit Agents session's room I/O does). The
// names are LiveKit's (livekit/agents constants); app/ may not import the
// media package that holds them too.
const (
	topicTranscription     = "lk.transcription"
	topicChat              = "lk.chat"
	attrTranscriptionFinal = "lk.transcription_final"
	attrSegmentID          = "lk.segment_id"
	attrTranscribedTrackID = "lk.transcribed_track_id"
)

// maxChatText bounds an lk.chat message the agent reads (as
// input.text's own bound does for the AIM way).
const maxChatText = 16 << 10

// transcriber is a media room that publishes the agent's transcript the
// LiveKit way.
type transcriber interface {
	// Transcribe publishes text as one segment spoken over about d:
	// interim updates as the words are spoken, then the final text (the
	// words spoken so far when ctx ends first: interrupted).
	Transcribe(ctx context.Context, text string, d time.Duration)
}

// transcribeStep bounds the pace of interim updates.
const (
	transcribeMinStep = 60 * time.Millisecond
	transcribeMaxStep = 300 * time.Millisecond
)

// Transcribe implements transcriber with the non-delta form of LiveKit
// Agents' text output: one text stream per update carrying the segment's
// whole text so far, lk.transcription_final "false" on interim updates and
// "true" on the last, all with the same lk.segment_id and the agent's
// voice track as lk.transcribed_track_id. (The delta form, one stream with
// "true" in its trailer, needs trailer attributes, which server-sdk-go's
// writer does not send; the app reads both.)
func (r *liveKitRoom) Transcribe(ctx context.Context, text string, d time.Duration) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return
	}
	seg := "SG_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	track := ""
	if pub := r.room.LocalParticipant.GetTrackPublication(livekit.TrackSource_MICROPHONE); pub != nil {
		track = pub.SID()
	}
	send := func(t string, final bool) {
		attrs := map[string]string{attrSegmentID: seg, attrTranscriptionFinal: "false"}
		if final {
			attrs[attrTranscriptionFinal] = "true"
		}
		if track != "" {
			attrs[attrTranscribedTrackID] = track
		}
		r.room.LocalParticipant.SendText(t, lksdk.StreamTextOptions{Topic: topicTranscription, Attributes: attrs})
	}
	step := min(max(d/time.Duration(len(words)), transcribeMinStep), transcribeMaxStep)
	tick := time.NewTicker(step)
	defer tick.Stop()
	for n := 1; n < len(words); n++ {
		send(strings.Join(words[:n], " "), false)
		select {
		case <-ctx.Done():
			send(strings.Join(words[:n], " "), true)
			return
		case <-tick.C:
		}
	}
	send(text, true)
}

// chatHandler reads lk.chat messages into RoomChat events.
func (r *liveKitRoom) chatHandler(reader *lksdk.TextStreamReader, sender string) {
	buf := make([]byte, 4096)
	var b strings.Builder
	for {
		n, err := reader.Read(buf)
		if b.Len()+n <= maxChatText {
			b.Write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	if text := strings.TrimSpace(strings.ToValidUTF8(b.String(), "\uFFFD")); text != "" {
		r.events(RoomEvent{Kind: RoomChat, Identity: sender, Text: text})
	}
}
