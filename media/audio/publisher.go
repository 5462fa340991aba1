package audio

import (
	"sync"
	"sync/atomic"
	"time"
)

// FrameDuration is the length of one Opus packet.
const FrameDuration = 20 * time.Millisecond

// FrameSamples is the number of samples in one Opus packet.
var FrameSamples = SamplesPer(FrameDuration)

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
	DTX  bool // encoded, but withheld by DTX (silence)
	// Voice: the echo canceller's voice activity detector heard speech in
	// the frame (after echo cancellation); always false without one.
	Voice bool
}

// PublisherConfig configures a Publisher.
type PublisherConfig struct {
	// Bitrate of the Opus encoder in bit/s; 0 means DefaultBitrate.
	Bitrate int
	// DisableDTX sends every frame, silence included (DTX is on by default).
	DisableDTX bool
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
// them with libopus (in-band FEC, DTX, expected loss from the receiver
// reports) into the current sink, with RTP timestamps and audio levels.
type Publisher struct {
	cfg    PublisherConfig
	ring   *Ring
	wake   chan struct{}
	meter  Meter
	sink   atomic.Pointer[PacketSink]
	tx     *sender
	closed chan struct{}
	done   chan struct{}

	srcMu sync.Mutex
	src   Source

	sent    atomic.Uint64
	dropped atomic.Uint64 // frames not sent (gate closed, no sink or DTX)
	dtx     atomic.Uint64 // frames withheld by DTX
	encLoss atomic.Int64  // the encoder's expected loss, percent

	echo *echoState // nil without an echo canceller; used by run only
}

// NewPublisher starts the drain goroutine. Until SetSource and SetSink are
// called nothing is captured or sent.
func NewPublisher(cfg PublisherConfig) (*Publisher, error) {
	tx, err := newSender(cfg)
	if err != nil {
		return nil, err
	}
	p := &Publisher{
		tx:     tx,
		cfg:    cfg,
		ring:   NewRing(SampleRate / 2), // 500 ms: the drain never lags that much
		wake:   make(chan struct{}, 1),
		closed: make(chan struct{}),
		done:   make(chan struct{}),
	}
	p.encLoss.Store(int64(tx.enc.LossPercent()))
	p.echo = newEchoState(cfg.Echo)
	go p.run()
	return p, nil
}

// notify is the sources' wake-up call, made after every write (every
// 10 ms capture period). The drain works in 20 ms frames, so it is woken
// only when a whole frame is waiting: every other period's wake-up (a
// goroutine handoff, often a thread wake-up) would find nothing to do.
func (p *Publisher) notify() {
	if p.ring.Len() < FrameSamples {
		return
	}
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
func (p *Publisher) SetSink(s PacketSink) {
	if s == nil {
		p.sink.Store(nil)
		return
	}
	p.sink.Store(&s)
}

// Meter is the microphone level meter.
func (p *Publisher) Meter() *Meter { return &p.meter }

// Stats reports frames sent and frames withheld (gate closed, no sink, or
// DTX).
func (p *Publisher) Stats() (sent, withheld uint64) { return p.sent.Load(), p.dropped.Load() }

// DTXFrames is the number of frames withheld by DTX.
func (p *Publisher) DTXFrames() uint64 { return p.dtx.Load() }

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
	// safety net only: notify cannot lose a wake-up (a full channel means
	// one is pending), so this rarely finds work
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.closed:
			return
		case <-p.wake:
		case <-t.C:
		}
		p.echo.trim(p.ring.Len())
		for p.ring.Len() >= FrameSamples {
			p.ring.Read(frame)
			now := time.Now()
			ts := p.tx.clock.next(now, p.ring.Len())
			voice := p.processCapture(frame)
			p.meter.Update(frame)
			sent, dtx := false, false
			g := GateOpen
			if p.cfg.Gate != nil {
				g = p.cfg.Gate()
			}
			if sp := p.sink.Load(); sp != nil && g != GateClosed {
				f := frame
				if g == GateSilence {
					f = silence
				}
				sent, dtx, _ = p.tx.frame(*sp, f, ts) // an error (no track yet) just drops the frame
				p.encLoss.Store(int64(p.tx.enc.LossPercent()))
			} else {
				p.tx.skip()
			}
			if dtx {
				p.dtx.Add(1)
			}
			if sent {
				p.sent.Add(1)
			} else {
				p.dropped.Add(1)
			}
			if p.cfg.OnFrame != nil {
				p.cfg.OnFrame(Frame{PCM: frame, At: now, Sent: sent, DTX: dtx, Voice: voice})
			}
		}
	}
}
