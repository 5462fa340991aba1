//go:build !nomedia

package media

import (
	"context"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"aimdesk/media/lkroom"
)

// LiveKit Agents interop of a call: lk.transcription text streams become
// Event.Transcriptions, typed text goes on lk.chat to the agent that reads
// it (SendText), and the participants' connection quality is kept.

// streamTopics are the text stream topics a call reads.
var streamTopics = []string{TopicTranscription}

// parseTranscription reads a transcription update from a text stream (the
// speaker is not resolved: Speaker is the sender). ok is false for another
// topic.
func parseTranscription(st lkroom.StreamText) (Transcription, bool) {
	if st.Topic != TopicTranscription {
		return Transcription{}, false
	}
	t := Transcription{
		SegmentID: st.Attributes[AttrSegmentID],
		StreamID:  st.ID,
		TrackID:   st.Attributes[AttrTranscribedTrackID],
		Speaker:   st.Sender,
		Sender:    st.Sender,
		Text:      st.Text,
		At:        st.At,
	}
	if t.SegmentID == "" {
		t.SegmentID = st.ID
	}
	// final once the stream ended with lk.transcription_final "true" (or
	// without the attribute: a sender that does not mark interim text)
	v, has := st.Attributes[AttrTranscriptionFinal]
	t.Final = st.Done && (v == "true" || !has)
	return t, true
}

// maxSegments bounds the segments whose newest stream time is kept.
const maxSegments = 1024

// onTextStream handles a TextStream signal on the call goroutine.
func (c *Call) onTextStream(st *lkroom.StreamText) {
	t, ok := parseTranscription(*st)
	if !ok {
		return
	}
	if !st.Done && st.Text == "" {
		return
	}
	// The SDK reads each stream on its own goroutine: updates of a segment
	// sent as separate streams may come out of order. The newest stream
	// (by the sender's header time) wins; older ones are dropped.
	key := st.Sender + "\x00" + t.SegmentID
	if newest, ok := c.segments[key]; ok && st.At.Before(newest) {
		return
	}
	if c.segments == nil || len(c.segments) > maxSegments {
		c.segments = map[string]time.Time{}
	}
	c.segments[key] = st.At
	c.resolveSpeaker(&t)
	c.n.send(Event{Transcriptions: []Transcription{t}})
}

// resolveSpeaker ties a transcription to the owner of the transcribed
// track: our microphone (we spoke), or a remote participant's track.
func (c *Call) resolveSpeaker(t *Transcription) {
	if c.room == nil {
		return
	}
	me := c.room.LocalParticipant.Identity()
	if t.TrackID != "" {
		for _, tp := range c.room.LocalParticipant.TrackPublications() {
			if tp.SID() == t.TrackID {
				t.Speaker, t.Local = me, true
				return
			}
		}
		for _, rp := range c.room.GetRemoteParticipants() {
			for _, tp := range rp.TrackPublications() {
				if tp.SID() == t.TrackID {
					t.Speaker = rp.Identity()
					return
				}
			}
		}
	}
	t.Local = t.Speaker == me
}

// onQuality records a participant's connection quality.
func (c *Call) onQuality(s lkroom.Signal) {
	q := ConnQuality(s.Quality)
	if c.room != nil && s.Identity == c.room.LocalParticipant.Identity() {
		if c.st.Conn.Quality == q {
			return
		}
		ci := *c.st.Conn
		ci.Quality = q
		c.st.Conn = &ci
		cp := ci
		c.n.send(Event{Conn: &cp})
		return
	}
	if c.quality == nil {
		c.quality = map[string]ConnQuality{}
	}
	c.quality[s.Identity] = q
	c.reconcile()
}

// SendText sends a typed message one way only: as an lk.chat text stream
// to the participant that reads it (ChatReader), else with other (the AIM
// interaction). It returns the way it went. A message that could not go
// on lk.chat is not sent the other way: the error says so.
func (c *Call) SendText(ctx context.Context, text string, other SendOther) (TextRoute, error) {
	var room *lksdk.Room
	var to string
	err := c.do(ctx, func() error {
		if id, ok := ChatReader(c.st.Participants); ok && c.room != nil {
			room, to = c.room, id
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if room == nil {
		if other == nil {
			return "", ErrNoTextRoute
		}
		return RouteOther, other(ctx, text)
	}
	// SendText queues the stream (header, chunks, trailer) on the reliable
	// data channel; it reports no error of its own.
	room.LocalParticipant.SendText(text, lksdk.StreamTextOptions{Topic: TopicChat, DestinationIdentities: []string{to}})
	return RouteLiveKitChat, nil
}
