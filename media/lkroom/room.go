// Package lkroom wraps a LiveKit room (server-sdk-go) for the media engine:
// a ctx-aware join, and a callback funnel that turns every SDK callback into
// a Signal handed to a non-blocking sink, so SDK goroutines never run engine
// code. Handlers re-read authoritative state (Room.ConnectionState, remote
// participants) instead of trusting callback order. MicWriter writes the
// microphone's Opus frames as RTP with RFC 6464 audio levels.
package lkroom

import (
	"context"
	"fmt"
	"sync"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
)

// Kind says what happened.
type Kind int

// Signal kinds. They are not serialised.
const (
	Reconnecting Kind = iota + 1
	Reconnected
	Disconnected
	ParticipantsChanged // joined, left, attributes, metadata, speaking, track published/unpublished/muted
	TrackSubscribed
	TrackUnsubscribed
	LocalTrackPublished
	LocalTrackUnpublished
	QualityChanged // a participant's connection quality (Identity, Quality, LocalQuality)
	TextStream     // a text stream's text so far, or its end (TextStream field; streams.go)
)

var kindNames = map[Kind]string{
	Reconnecting: "reconnecting", Reconnected: "reconnected", Disconnected: "disconnected",
	ParticipantsChanged: "participants-changed", TrackSubscribed: "track-subscribed",
	TrackUnsubscribed: "track-unsubscribed", LocalTrackPublished: "local-track-published",
	LocalTrackUnpublished: "local-track-unpublished", QualityChanged: "quality-changed",
	TextStream: "text-stream",
}

// String implements fmt.Stringer.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Signal is one funnelled callback. Room identifies the room it came from
// (a reconnect creates a new one; stale signals can be dropped).
type Signal struct {
	Kind        Kind
	Room        *lksdk.Room
	Track       *webrtc.TrackRemote
	Publication *lksdk.RemoteTrackPublication
	Participant *lksdk.RemoteParticipant
	Local       *lksdk.LocalTrackPublication
	Reason      string
	// QualityChanged: whose quality ("excellent", "good", "poor", "lost");
	// ours too (the SDK hands its base participant, not the local one:
	// compare the identity).
	Identity string
	Quality  string
	// Stream is set for TextStream.
	Stream *StreamText
}

// Sink receives signals; it must not block.
type Sink func(Signal)

// Queue is an unbounded FIFO of signals: Push never blocks, so SDK
// callbacks return at once; the engine drains it from one goroutine.
type Queue struct {
	mu    sync.Mutex
	items []Signal
	wake  chan struct{}
}

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{wake: make(chan struct{}, 1)} }

// Push appends s.
func (q *Queue) Push(s Signal) {
	q.mu.Lock()
	q.items = append(q.items, s)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Wake is signalled after a Push.
func (q *Queue) Wake() <-chan struct{} { return q.wake }

// Drain returns and removes everything queued.
func (q *Queue) Drain() []Signal {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.items
	q.items = nil
	return s
}

// Callback returns a room callback whose every handler only builds a
// Signal and hands it to sink. room is filled in later by Connect.
func Callback(sink Sink, room **lksdk.Room) *lksdk.RoomCallback {
	cb := lksdk.NewRoomCallback() // no-op handlers, never nil
	send := func(s Signal) {
		s.Room = *room
		sink(s)
	}
	changed := func() { send(Signal{Kind: ParticipantsChanged}) }
	cb.OnReconnecting = func() { send(Signal{Kind: Reconnecting}) }
	cb.OnReconnected = func() { send(Signal{Kind: Reconnected}) }
	cb.OnDisconnectedWithReason = func(r lksdk.DisconnectionReason) {
		send(Signal{Kind: Disconnected, Reason: string(r)})
	}
	cb.OnParticipantConnected = func(*lksdk.RemoteParticipant) { changed() }
	cb.OnParticipantDisconnected = func(*lksdk.RemoteParticipant) { changed() }
	cb.OnActiveSpeakersChanged = func([]lksdk.Participant) { changed() }
	cb.OnTrackMuted = func(lksdk.TrackPublication, lksdk.Participant) { changed() }
	cb.OnTrackUnmuted = func(lksdk.TrackPublication, lksdk.Participant) { changed() }
	cb.OnMetadataChanged = func(string, lksdk.Participant) { changed() }
	cb.OnAttributesChanged = func(map[string]string, lksdk.Participant) { changed() }
	cb.OnIsSpeakingChanged = func(lksdk.Participant) { changed() }
	cb.OnTrackPublished = func(*lksdk.RemoteTrackPublication, *lksdk.RemoteParticipant) { changed() }
	cb.OnTrackUnpublished = func(*lksdk.RemoteTrackPublication, *lksdk.RemoteParticipant) { changed() }
	cb.OnTrackSubscriptionFailed = func(string, *lksdk.RemoteParticipant) { changed() }
	cb.OnTrackSubscribed = func(t *webrtc.TrackRemote, p *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		send(Signal{Kind: TrackSubscribed, Track: t, Publication: p, Participant: rp})
	}
	cb.OnTrackUnsubscribed = func(t *webrtc.TrackRemote, p *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		send(Signal{Kind: TrackUnsubscribed, Track: t, Publication: p, Participant: rp})
	}
	cb.OnLocalTrackPublished = func(p *lksdk.LocalTrackPublication, _ *lksdk.LocalParticipant) {
		send(Signal{Kind: LocalTrackPublished, Local: p})
	}
	cb.OnLocalTrackUnpublished = func(p *lksdk.LocalTrackPublication, _ *lksdk.LocalParticipant) {
		send(Signal{Kind: LocalTrackUnpublished, Local: p})
	}
	cb.OnConnectionQualityChanged = func(u *livekit.ConnectionQualityInfo, p lksdk.Participant) {
		send(Signal{Kind: QualityChanged, Identity: p.Identity(), Quality: QualityName(u.GetQuality())})
	}
	return cb
}

// Connect joins the room at url with token; every callback becomes a
// Signal for sink. Cancelling ctx aborts the join.
func Connect(ctx context.Context, url, token string, sink Sink, opts ...lksdk.ConnectOption) (*lksdk.Room, error) {
	return ConnectTopics(ctx, url, token, sink, nil, opts...)
}

// ConnectTopics is Connect that also reads the text streams of topics
// (registered before joining, so none sent at once is missed): each
// becomes TextStream signals (see ReadTextStream).
func ConnectTopics(ctx context.Context, url, token string, sink Sink, topics []string, opts ...lksdk.ConnectOption) (*lksdk.Room, error) {
	var room *lksdk.Room
	var mu sync.Mutex
	// the callback may fire before NewRoom returns to us: guard the pointer
	guarded := func(s Signal) {
		mu.Lock()
		s.Room = room
		mu.Unlock()
		sink(s)
	}
	var placeholder *lksdk.Room
	cb := Callback(guarded, &placeholder)
	r := lksdk.NewRoom(cb)
	mu.Lock()
	room = r
	mu.Unlock()
	for _, topic := range topics {
		if err := r.RegisterTextStreamHandler(topic, textStreamHandler(guarded)); err != nil {
			return nil, fmt.Errorf("lkroom: text streams of %s: %w", topic, err)
		}
	}
	if err := r.JoinWithContextAndToken(ctx, url, token, opts...); err != nil {
		r.Disconnect()
		return nil, fmt.Errorf("lkroom: join: %w", err)
	}
	return r, nil
}
