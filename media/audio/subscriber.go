package audio

import (
	"fmt"
	"sync/atomic"
	"time"

	msdk "github.com/livekit/media-sdk"
	lkmedia "github.com/livekit/server-sdk-go/v2/pkg/media"
	"github.com/pion/webrtc/v4"
)

// Subscriber decodes one remote Opus track (with the SDK's jitter buffer)
// into a ring that a Mixer plays, metering it on the way.
type Subscriber struct {
	track  *lkmedia.PCMRemoteTrack
	out    *Ring
	meter  *Meter
	onPCM  func([]int16)
	lastAt atomic.Int64 // unix nanos of the last audible block
	frames atomic.Uint64
}

// SubscriberConfig configures Subscribe.
type SubscriberConfig struct {
	// Out receives the decoded audio (nil: decoded and metered only).
	Out *Ring
	// Meter, if not nil, is updated with every decoded block.
	Meter *Meter
	// OnPCM, if not nil, sees every decoded block (valid during the call).
	OnPCM func([]int16)
}

// Subscribe starts decoding track until it ends or Close is called.
func Subscribe(track *webrtc.TrackRemote, cfg SubscriberConfig) (*Subscriber, error) {
	s := &Subscriber{out: cfg.Out, meter: cfg.Meter, onPCM: cfg.OnPCM}
	t, err := lkmedia.NewPCMRemoteTrack(track, pcmWriter{s},
		lkmedia.WithTargetSampleRate(SampleRate),
		lkmedia.WithTargetChannels(1),
		lkmedia.WithHandleJitter(true),
	)
	if err != nil {
		return nil, fmt.Errorf("audio: subscribe %s: %w", track.ID(), err)
	}
	s.track = t
	return s, nil
}

// Close stops decoding.
func (s *Subscriber) Close() { s.track.Close() }

// Frames is the number of decoded blocks so far.
func (s *Subscriber) Frames() uint64 { return s.frames.Load() }

// LastAudible is when a block above silence (-50 dBFS) was last decoded.
func (s *Subscriber) LastAudible() time.Time {
	n := s.lastAt.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

type pcmWriter struct{ s *Subscriber }

func (w pcmWriter) WriteSample(p msdk.PCM16Sample) error {
	s := w.s
	s.frames.Add(1)
	if s.out != nil {
		s.out.Write(p)
	}
	if s.meter != nil {
		s.meter.Update(p)
	}
	if RMS(p) > 0.003 { // about -50 dBFS
		s.lastAt.Store(time.Now().UnixNano())
	}
	if s.onPCM != nil {
		s.onPCM(p)
	}
	return nil
}

func (w pcmWriter) Close() error { return nil }
