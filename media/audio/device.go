package audio

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gen2brain/malgo"
)

// Capture is a malgo capture device as a [Source].
type Capture struct {
	ctx    *Context
	id     string
	period time.Duration
	onLost func(error) // called (once, from a malgo thread) when the device stops by itself

	mu       sync.Mutex
	dev      *malgo.Device
	st       *stream // the C data callback's Go side (nil: malgo's Go callback)
	stopping atomic.Bool
}

// NewCapture returns a capture source for device id ("" = default) with
// the given period (0 = 10 ms). onLost, if not nil, is called when the
// device stops without Stop (unplugged); it must not block.
func (c *Context) NewCapture(id string, period time.Duration, onLost func(error)) *Capture {
	if period <= 0 {
		period = 10 * time.Millisecond
	}
	return &Capture{ctx: c, id: id, period: period, onLost: onLost}
}

// Name implements Source.
func (c *Capture) Name() string {
	if c.id == "" {
		return "default input"
	}
	return "input " + c.id
}

// Start implements Source: it opens and starts the device. Its C callback
// copies into a C ring; a goroutine moves each Opus frame's worth into out
// and calls notify (stream.go). Should the ma_device not be the one
// stream.c knows, malgo's Go callback copies into out instead.
func (c *Capture) Start(out *Ring, notify func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dev != nil {
		return nil
	}
	c.ctx.mu.Lock()
	actx := c.ctx.ctx
	c.ctx.mu.Unlock()
	if actx == nil {
		return ErrClosed
	}
	idp, free, err := deviceIDPtr(c.id)
	if err != nil {
		return err
	}
	defer free()
	cfg := malgo.DefaultDeviceConfig(malgo.Capture)
	cfg.SampleRate = SampleRate
	cfg.PeriodSizeInMilliseconds = uint32(c.period / time.Millisecond) // #nosec G115 -- 10..20 ms
	cfg.Periods = DevicePeriods
	cfg.Capture.Format = malgo.FormatS16
	cfg.Capture.Channels = 1
	cfg.Capture.DeviceID = idp
	c.stopping.Store(false)
	dev, err := malgo.InitDevice(actx.Context, cfg, malgo.DeviceCallbacks{
		Data: func(_, in []byte, frames uint32) {
			if len(in) < 2 {
				return
			}
			// #nosec G103 -- reinterpret malgo's S16 buffer as samples (same memory, same length)
			out.Write(unsafe.Slice((*int16)(unsafe.Pointer(&in[0])), len(in)/2))
			notify()
		},
		Stop: func() {
			if !c.stopping.Load() && c.onLost != nil {
				c.onLost(fmt.Errorf("%w: %s stopped", ErrNoDevice, c.Name()))
			}
		},
	})
	if err != nil {
		return fmt.Errorf("audio: open %s: %w", c.Name(), err)
	}
	st := c.ctx.captureStream(dev, c.period, out, notify)
	if err := dev.Start(); err != nil {
		dev.Uninit()
		if st != nil {
			st.close(true)
		}
		return fmt.Errorf("audio: start %s: %w", c.Name(), err)
	}
	c.dev, c.st = dev, st
	return nil
}

// Stop implements Source.
func (c *Capture) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dev == nil {
		return nil
	}
	c.stopping.Store(true)
	err := c.dev.Stop()
	c.dev.Uninit()
	if c.st != nil {
		c.st.close(true) // after Uninit: the callback no longer runs
	}
	c.dev, c.st = nil, nil
	return err
}

// CallbackInC reports whether the running device's data callback is the C
// one of stream.c (false: malgo's Go callback, or not running).
func (c *Capture) CallbackInC() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st != nil
}

// MixerInput is a source a Mixer plays: Read fills p with the next samples and
// returns how many it had. It runs on the playback thread: it must not
// block. A [Ring] and a [Subscriber] (jitter-buffered playout) are inputs.
type MixerInput interface {
	Read(p []int16) int
}

// Mixer sums any number of inputs into the playback stream. Inputs are
// added and removed with copy-on-write, so the device callback never locks.
type Mixer struct {
	inputs atomic.Pointer[[]MixerInput]
	mu     sync.Mutex // serialises Add/Remove

	maxLatency int // samples; the size of rings made by NewInput

	scratch []int16 // only used by the callback

	tap atomic.Pointer[func([]int16, time.Time)]
	// far, if set, gets a copy of everything played: the echo canceller's
	// far end (see SetFarEnd)
	far atomic.Pointer[Ring]

	played  atomic.Uint64 // samples played
	audible atomic.Uint64 // samples played that were not silence
	under   atomic.Uint64 // callbacks with less data than asked for (while an input existed)
}

// NewMixer returns a mixer whose ring inputs (NewInput) hold maxLatency
// (0 = 200 ms) of audio.
func NewMixer(maxLatency time.Duration) *Mixer {
	if maxLatency <= 0 {
		maxLatency = 200 * time.Millisecond
	}
	m := &Mixer{maxLatency: SamplesPer(maxLatency), scratch: make([]int16, 4096)}
	m.inputs.Store(&[]MixerInput{})
	return m
}

// NewInput returns a ring sized for the mixer's latency, already added.
func (m *Mixer) NewInput() *Ring {
	r := NewRing(2 * m.maxLatency)
	m.Add(r)
	return r
}

// Add adds an input.
func (m *Mixer) Add(r MixerInput) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.inputs.Load()
	next := append(append(make([]MixerInput, 0, len(old)+1), old...), r)
	m.inputs.Store(&next)
}

// Remove removes an input.
func (m *Mixer) Remove(r MixerInput) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.inputs.Load()
	next := make([]MixerInput, 0, len(old))
	for _, x := range old {
		if x != r {
			next = append(next, x)
		}
	}
	m.inputs.Store(&next)
}

// SetTap installs fn (nil: none) to see the mixed output of every Fill in
// blocks of at most 10 ms, each with the time it leaves the mixer (the
// callback's time plus the block's offset). fn runs on the playback
// thread: it must copy what it keeps and must not block.
func (m *Mixer) SetTap(fn func(block []int16, at time.Time)) {
	if fn == nil {
		m.tap.Store(nil)
		return
	}
	m.tap.Store(&fn)
}

// Fill writes the next len(out) samples: the sum of the inputs, silence
// where they run dry. It is the playback callback's body.
func (m *Mixer) Fill(out []int16) {
	clear(out)
	ins := *m.inputs.Load()
	if len(m.scratch) < len(out) {
		m.scratch = make([]int16, len(out))
	}
	s := m.scratch[:len(out)]
	for _, r := range ins {
		n := r.Read(s)
		if n < len(out) {
			m.under.Add(1)
		}
		for i := 0; i < n; i++ {
			v := int32(out[i]) + int32(s[i])
			out[i] = int16(max(-32768, min(32767, v)))
		}
	}
	var loud uint64
	for _, v := range out {
		if v > 64 || v < -64 {
			loud++
		}
	}
	m.played.Add(uint64(len(out)))
	m.audible.Add(loud)
	if tap := m.tap.Load(); tap != nil {
		now := time.Now()
		const block = SampleRate / 100
		for i := 0; i < len(out); i += block {
			(*tap)(out[i:min(i+block, len(out))], now.Add(time.Duration(i)*time.Second/SampleRate))
		}
	}
	if far := m.far.Load(); far != nil {
		far.Write(out) // a copy, no lock: the echo canceller's far end
	}
}

// SetFarEnd makes Fill copy everything it plays (after mixing) into r, the
// far-end reference of an echo canceller; nil stops the copy. Fill is r's
// only writer; one other goroutine may read it.
func (m *Mixer) SetFarEnd(r *Ring) { m.far.Store(r) }

// Stats reports samples played, samples above silence, and underruns.
func (m *Mixer) Stats() (played, audible, underruns uint64) {
	return m.played.Load(), m.audible.Load(), m.under.Load()
}

// Playback is a malgo playback device that drains a Mixer.
type Playback struct {
	ctx    *Context
	id     string
	period time.Duration
	mixer  *Mixer
	onLost func(error)

	mu       sync.Mutex
	dev      *malgo.Device
	st       *stream // the C data callback's Go side (nil: malgo's Go callback)
	stopping atomic.Bool
	late     atomic.Uint64 // late periods of streams already closed
}

// NewPlayback returns a playback device for id ("" = default).
func (c *Context) NewPlayback(id string, period time.Duration, m *Mixer, onLost func(error)) *Playback {
	if period <= 0 {
		period = 10 * time.Millisecond
	}
	return &Playback{ctx: c, id: id, period: period, mixer: m, onLost: onLost}
}

// Name describes the device.
func (p *Playback) Name() string {
	if p.id == "" {
		return "default output"
	}
	return "output " + p.id
}

// Start opens and starts the device.
func (p *Playback) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dev != nil {
		return nil
	}
	p.ctx.mu.Lock()
	actx := p.ctx.ctx
	p.ctx.mu.Unlock()
	if actx == nil {
		return ErrClosed
	}
	idp, free, err := deviceIDPtr(p.id)
	if err != nil {
		return err
	}
	defer free()
	cfg := malgo.DefaultDeviceConfig(malgo.Playback)
	cfg.SampleRate = SampleRate
	cfg.PeriodSizeInMilliseconds = uint32(p.period / time.Millisecond) // #nosec G115 -- 10..20 ms
	cfg.Periods = DevicePeriods
	cfg.Playback.Format = malgo.FormatS16
	cfg.Playback.Channels = 1
	cfg.Playback.DeviceID = idp
	p.stopping.Store(false)
	m := p.mixer
	dev, err := malgo.InitDevice(actx.Context, cfg, malgo.DeviceCallbacks{
		Data: func(out, _ []byte, frames uint32) {
			if len(out) < 2 {
				return
			}
			// #nosec G103 -- reinterpret malgo's S16 buffer as samples (same memory, same length)
			m.Fill(unsafe.Slice((*int16)(unsafe.Pointer(&out[0])), len(out)/2))
		},
		Stop: func() {
			if !p.stopping.Load() && p.onLost != nil {
				p.onLost(fmt.Errorf("%w: %s stopped", ErrNoDevice, p.Name()))
			}
		},
	})
	if err != nil {
		return fmt.Errorf("audio: open %s: %w", p.Name(), err)
	}
	st := p.ctx.playbackStream(dev, p.period, m)
	if err := dev.Start(); err != nil {
		dev.Uninit()
		if st != nil {
			st.close(true)
		}
		return fmt.Errorf("audio: start %s: %w", p.Name(), err)
	}
	p.dev, p.st = dev, st
	return nil
}

// Late is the number of periods the device played as silence because the
// mixer did not deliver them within a period (the Go side was stalled).
func (p *Playback) Late() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.late.Load()
	if p.st != nil {
		n += p.st.late()
	}
	return n
}

// CallbackInC reports whether the running device's data callback is the C
// one of stream.c (false: malgo's Go callback, or not running).
func (p *Playback) CallbackInC() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st != nil
}

// Stop stops and closes the device.
func (p *Playback) Stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dev == nil {
		return nil
	}
	p.stopping.Store(true)
	err := p.dev.Stop()
	p.dev.Uninit()
	if p.st != nil {
		p.late.Add(p.st.late())
		p.st.close(true) // after Uninit: the callback no longer runs
	}
	p.dev, p.st = nil, nil
	return err
}
