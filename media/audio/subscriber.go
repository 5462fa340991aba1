package audio

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pion/webrtc/v4"

	"aimdesk/media/audio/jitter"
)

// ErrCodec: a remote track is not Opus.
var ErrCodec = errors.New("not an Opus track")

// Subscriber plays one remote Opus track: a goroutine reads its RTP
// packets into an adaptive jitter buffer ([jitter.Buffer]) and the
// playback clock pulls decoded audio out of it through Read (a [Mixer]
// input). Every frame entering the playout is metered and shown to OnPCM.
type Subscriber struct {
	track  *webrtc.TrackRemote
	buf    *jitter.Buffer
	meter  *Meter
	onPCM  func([]int16)
	lastAt atomic.Int64 // unix nanos of the last audible block
	frames atomic.Uint64
	closed atomic.Bool
	done   chan struct{}
}

// SubscriberConfig configures Subscribe.
type SubscriberConfig struct {
	// Meter, if not nil, is updated with every frame played.
	Meter *Meter
	// OnPCM, if not nil, sees every frame played (decoded or concealed),
	// on the playback thread: it must not block.
	OnPCM func([]int16)
	// Jitter configures the buffer (zero: defaults; Decoder, Now and
	// OnFrame are set by Subscribe).
	Jitter jitter.Config
}

// Subscribe starts reading track until it ends or Close is called. Add the
// subscriber to a Mixer to play it.
func Subscribe(track *webrtc.TrackRemote, cfg SubscriberConfig) (*Subscriber, error) {
	if mt := track.Codec().MimeType; !strings.EqualFold(mt, webrtc.MimeTypeOpus) {
		return nil, fmt.Errorf("audio: subscribe %s: %w: %s", track.ID(), ErrCodec, mt)
	}
	s := &Subscriber{track: track, meter: cfg.Meter, onPCM: cfg.OnPCM, done: make(chan struct{})}
	jc := cfg.Jitter
	jc.Now = time.Now
	jc.OnFrame = s.onFrame
	buf, err := jitter.New(jc)
	if err != nil {
		return nil, fmt.Errorf("audio: subscribe %s: %w", track.ID(), err)
	}
	s.buf = buf
	// a previous subscriber of the same track may have set a deadline to stop
	_ = track.SetReadDeadline(time.Time{})
	go s.readLoop()
	return s, nil
}

// readLoop moves packets from the network into the buffer. It only
// copies: decoding happens in Read, paced by the playback clock.
func (s *Subscriber) readLoop() {
	defer close(s.done)
	for {
		p, _, err := s.track.ReadRTP()
		if err != nil { // the track ended, or Close set a deadline
			return
		}
		if len(p.Payload) == 0 {
			continue
		}
		s.buf.Push(jitter.Packet{Seq: p.SequenceNumber, TS: p.Timestamp, Arrival: time.Now().UnixNano(), Payload: p.Payload})
	}
}

// Read implements a Mixer input: the next len(p) samples of the playout.
func (s *Subscriber) Read(p []int16) int { return s.buf.Read(p) }

// Stats are the jitter buffer's counters.
func (s *Subscriber) Stats() jitter.Stats { return s.buf.Stats() }

// Close stops reading (the mixer should drop the subscriber first) and
// waits (up to a second) for the reading goroutine to end, so that a new
// subscriber of the same track is its only reader.
func (s *Subscriber) Close() {
	if s.closed.Swap(true) {
		return
	}
	_ = s.track.SetReadDeadline(time.Now())
	select {
	case <-s.done:
	case <-time.After(time.Second):
	}
}

// Frames is the number of frames played so far (decoded, concealed or
// silent).
func (s *Subscriber) Frames() uint64 { return s.frames.Load() }

// LastAudible is when a frame above silence (-50 dBFS) was last played.
func (s *Subscriber) LastAudible() time.Time {
	n := s.lastAt.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// onFrame runs on the playback thread for every frame entering the playout.
func (s *Subscriber) onFrame(p []int16) {
	s.frames.Add(1)
	if s.meter != nil {
		s.meter.Update(p)
	}
	if RMS(p) > 0.003 { // about -50 dBFS
		s.lastAt.Store(time.Now().UnixNano())
	}
	if s.onPCM != nil {
		s.onPCM(p)
	}
}
