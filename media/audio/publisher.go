package audio

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	msdk "github.com/livekit/media-sdk"
	"github.com/livekit/media-sdk/opus"
	protoLogger "github.com/livekit/protocol/logger"
	"github.com/pion/webrtc/v4/pkg/media"
)

// FrameDuration is the length of one Opus packet.
const FrameDuration = 20 * time.Millisecond

// FrameSamples is the number of samples in one Opus packet.
var FrameSamples = SamplesPer(FrameDuration)

// SampleSink receives encoded samples, e.g. an lksdk LocalTrack's
// WriteSample with nil options.
type SampleSink func(media.Sample) error

// Gate decides what happens to a captured frame.
type Gate int

// Gate values.
const (
	GateOpen    Gate = iota // encode and send the frame
	GateClosed              // send nothing (muted: the stream stops)
	GateSilence             // send silence instead (ducked: the stream goes on)
)

// Frame is one block of captured audio handed to observers.
type Frame struct {
	PCM  []int16 // FrameSamples samples; valid only during the call
	At   time.Time
	Sent bool // encoded and written to the sink
	// Voice: the echo canceller's voice activity detector heard speech in
	// the frame (after echo cancellation); always false without one.
	Voice bool
}

// PublisherConfig configures a Publisher.
type PublisherConfig struct {
	// Bitrate of the Opus encoder in bit/s; 0 means 32000.
	Bitrate int
	// Gate, if not nil, is asked before each frame (mute, push-to-talk,
	// half-duplex ducking); nil means always GateOpen.
	Gate func() Gate
	// OnFrame, if not nil, sees every frame after metering (tests, latency marks).
	OnFrame func(Frame)
	// Echo, if not nil, runs every frame through an echo canceller before
	// metering and encoding (see EchoConfig).
	Echo *EchoConfig
}

// Publisher drains a capture ring in 20 ms frames, meters them and encodes
// them with libopus (through livekit/media-sdk) into the current sink.
type Publisher struct {
	cfg    PublisherConfig
	ring   *Ring
	wake   chan struct{}
	meter  Meter
	sink   atomic.Pointer[SampleSink]
	enc    msdk.PCM16Writer
	closed chan struct{}
	done   chan struct{}

	srcMu sync.Mutex
	src   Source

	sent    atomic.Uint64
	dropped atomic.Uint64 // frames not sent (gate closed or no sink)

	echo *echoState // nil without an echo canceller; used by run only
}

// NewPublisher starts the drain goroutine. Until SetSource and SetSink are
// called nothing is captured or sent.
func NewPublisher(cfg PublisherConfig) (*Publisher, error) {
	if cfg.Bitrate <= 0 {
		cfg.Bitrate = 32000
	}
	p := &Publisher{
		cfg:    cfg,
		ring:   NewRing(SampleRate / 2), // 500 ms: the drain never lags that much
		wake:   make(chan struct{}, 1),
		closed: make(chan struct{}),
		done:   make(chan struct{}),
	}
	enc, err := opus.EncodeWith(opusSink{p}, 1, opus.EncodeOptions{Bitrate: cfg.Bitrate, FEC: true, PacketLossPercent: 5}, protoLogger.GetLogger())
	if err != nil {
		return nil, fmt.Errorf("audio: opus encoder: %w", err)
	}
	p.enc = enc
	p.echo = newEchoState(cfg.Echo)
	go p.run()
	return p, nil
}

func (p *Publisher) notify() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// SetSource stops the current source (if any) and starts s. The published
// track is untouched, so a device switch does not drop the call. A nil s
// just stops capturing.
func (p *Publisher) SetSource(s Source) error {
	p.srcMu.Lock()
	defer p.srcMu.Unlock()
	if p.src != nil {
		_ = p.src.Stop()
		p.src = nil
	}
	if s == nil {
		p.meter.Reset()
		return nil
	}
	if err := s.Start(p.ring, p.notify); err != nil {
		return err
	}
	p.src = s
	return nil
}

// Source is the current source or nil.
func (p *Publisher) Source() Source {
	p.srcMu.Lock()
	defer p.srcMu.Unlock()
	return p.src
}

// SetSink sets where encoded packets go (nil: nowhere).
func (p *Publisher) SetSink(s SampleSink) {
	if s == nil {
		p.sink.Store(nil)
		return
	}
	p.sink.Store(&s)
}

// Meter is the microphone level meter.
func (p *Publisher) Meter() *Meter { return &p.meter }

// Stats reports frames sent and frames withheld.
func (p *Publisher) Stats() (sent, withheld uint64) { return p.sent.Load(), p.dropped.Load() }

// Close stops the source and the drain goroutine.
func (p *Publisher) Close() error {
	err := p.SetSource(nil)
	select {
	case <-p.closed:
	default:
		close(p.closed)
	}
	<-p.done
	return err
}

func (p *Publisher) run() {
	defer close(p.done)
	frame := make([]int16, FrameSamples)
	silence := make([]int16, FrameSamples)
	t := time.NewTicker(50 * time.Millisecond) // safety net if a wake-up is lost
	defer t.Stop()
	for {
		select {
		case <-p.closed:
			return
		case <-p.wake:
		case <-t.C:
		}
		p.echo.trim()
		for p.ring.Len() >= FrameSamples {
			p.ring.Read(frame)
			now := time.Now()
			voice := p.processCapture(frame)
			p.meter.Update(frame)
			sent := false
			g := GateOpen
			if p.cfg.Gate != nil {
				g = p.cfg.Gate()
			}
			if sp := p.sink.Load(); sp != nil && g != GateClosed {
				f := frame
				if g == GateSilence {
					f = silence
				}
				if err := p.enc.WriteSample(f); err == nil {
					sent = true
				}
			}
			if sent {
				p.sent.Add(1)
			} else {
				p.dropped.Add(1)
			}
			if p.cfg.OnFrame != nil {
				p.cfg.OnFrame(Frame{PCM: frame, At: now, Sent: sent, Voice: voice})
			}
		}
	}
}

// opusSink is the media-sdk writer at the end of the encoder: it hands the
// Opus packet to the current sink.
type opusSink struct{ p *Publisher }

func (o opusSink) String() string  { return "aimdesk-sink" }
func (o opusSink) SampleRate() int { return SampleRate }
func (o opusSink) Close() error    { return nil }
func (o opusSink) WriteSample(s opus.Sample) error {
	sp := o.p.sink.Load()
	if sp == nil {
		return errNoSink
	}
	return (*sp)(media.Sample{Data: s, Duration: FrameDuration})
}

var errNoSink = errors.New("audio: no sink")
