package devagent

import (
	"context"
	"sync"
	"time"

	"aimdesk/app/aim"
)

// MediaRoom is the agent's side of one session's media room: the agent
// participant in a LiveKit room (see liveKitRoom), or a stand-in for tests
// (NullRoom). A realtime session opens one per epoch.
type MediaRoom interface {
	// SetState publishes what the agent does (the lk.agent.state attribute).
	SetState(state aim.AgentState)
	// Speak plays a voice-like utterance of about d and returns when it has
	// played, or early with ctx's error when ctx ends (response.interrupt):
	// queued audio is then dropped at once.
	Speak(ctx context.Context, d time.Duration) error
	// Play plays recorded audio (48 kHz mono, the Clip of a RoomHeard
	// event) as the agent's voice, with Speak's rules.
	Play(ctx context.Context, pcm []int16) error
	// Ignore stops (true) or resumes (false) looking at a user source:
	// after media.revoke the agent unsubscribes from it.
	Ignore(source aim.MediaSource, ignore bool)
	// Close leaves the room and deletes it on the server.
	Close() error
}

// RoomSpec is what opening a room needs.
type RoomSpec struct {
	// Room is the LiveKit room name: "aim-" + session id + "-" + epoch.
	Room string
	// Identity is the agent participant's identity.
	Identity string
	// SessionID and Epoch say which session and epoch the room serves.
	SessionID string
	Epoch     int64
}

// RoomEventKind names what happened in a media room.
type RoomEventKind string

// Room events.
const (
	// RoomParticipantJoined: a user endpoint's participant joined (Identity).
	RoomParticipantJoined RoomEventKind = "participant.joined"
	// RoomParticipantLeft: it left (Identity).
	RoomParticipantLeft RoomEventKind = "participant.left"
	// RoomVideo: the agent receives a user video source (Source, Width,
	// Height, FPS measured over the first seconds).
	RoomVideo RoomEventKind = "video"
	// RoomSpeechStarted: the user started speaking (the agent's VAD saw
	// 120 ms of voice): while the agent speaks, this is a barge-in.
	RoomSpeechStarted RoomEventKind = "speech.started"
	// RoomHeard: the user spoke and stopped (a turn of at least 300 ms of
	// voice, ended by 500 ms without): Clip is the recording (nil when the
	// agent cannot decode audio), Speech its length.
	RoomHeard RoomEventKind = "heard"
	// RoomLost: the agent lost the room for good (Reason); the session
	// restarts it under a new epoch.
	RoomLost RoomEventKind = "lost"
	// RoomChat: a participant (Identity) typed Text on lk.chat (LiveKit
	// Agents' text input; realtime_lkinterop.go).
	RoomChat RoomEventKind = "chat"
)

// RoomEvent is one thing that happened in a media room. Rooms call their
// event function from SDK callbacks; the session only enqueues it.
type RoomEvent struct {
	Kind     RoomEventKind
	Identity string
	Source   aim.MediaSource
	Width    int
	Height   int
	FPS      float64
	Reason   string
	Clip     []int16 // RoomHeard: 48 kHz mono
	Speech   time.Duration
	Text     string // RoomChat
}

// RoomOpener opens a session's media room. events receives what happens
// in it until Close; it never blocks.
type RoomOpener func(ctx context.Context, spec RoomSpec, events func(RoomEvent)) (MediaRoom, error)

// NullRoom is a media room without media: it records the agent's states
// and speaks in silence for the given time. Tests use it (through
// Hooks.Room) to exercise the realtime protocol without a LiveKit server.
type NullRoom struct {
	Spec RoomSpec

	mu      sync.Mutex
	states  []aim.AgentState
	ignored map[aim.MediaSource]bool
	closed  bool
	events  func(RoomEvent)
}

// OpenNullRoom is a RoomOpener of NullRooms; rooms, when not nil, receives
// each room opened (for tests to inspect or to inject events with Emit).
func OpenNullRoom(rooms chan<- *NullRoom) RoomOpener {
	return func(_ context.Context, spec RoomSpec, events func(RoomEvent)) (MediaRoom, error) {
		r := &NullRoom{Spec: spec, ignored: map[aim.MediaSource]bool{}, events: events}
		if rooms != nil {
			select {
			case rooms <- r:
			default:
			}
		}
		return r, nil
	}
}

// SetState records the state.
func (r *NullRoom) SetState(s aim.AgentState) {
	r.mu.Lock()
	r.states = append(r.states, s)
	r.mu.Unlock()
}

// States returns the states set so far.
func (r *NullRoom) States() []aim.AgentState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]aim.AgentState(nil), r.states...)
}

// Speak waits d unless ctx ends first.
func (r *NullRoom) Speak(ctx context.Context, d time.Duration) error { return sleepCtx(ctx, d) }

// Play waits as long as pcm lasts (48 kHz) unless ctx ends first.
func (r *NullRoom) Play(ctx context.Context, pcm []int16) error {
	return sleepCtx(ctx, time.Duration(len(pcm))*time.Second/voiceRate)
}

// Ignore records the choice.
func (r *NullRoom) Ignore(s aim.MediaSource, ignore bool) {
	r.mu.Lock()
	r.ignored[s] = ignore
	r.mu.Unlock()
}

// Ignored reports whether the source is ignored.
func (r *NullRoom) Ignored(s aim.MediaSource) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ignored[s]
}

// Emit injects an event as if it happened in the room.
func (r *NullRoom) Emit(ev RoomEvent) { r.events(ev) }

// Close marks the room closed.
func (r *NullRoom) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return nil
}

// Closed reports whether Close was called.
func (r *NullRoom) Closed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}
