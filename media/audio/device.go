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

// Start implements Source: it opens and starts the device. The callback
// copies into out and returns.
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
	if err := dev.Start(); err != nil {
		dev.Uninit()
		return fmt.Errorf("audio: start %s: %w", c.Name(), err)
	}
	c.dev = dev
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
	c.dev = nil
	return err
}

// Mixer sums any number of rings into the playback stream. Inputs are added
// and removed with copy-on-write, so the device callback never locks.
type Mixer struct {
	inputs atomic.Pointer[[]*Ring]
	mu     sync.Mutex // serialises Add/Remove

	maxLatency int // samples; a ring holding more is trimmed to target
	target     int

	scratch []int16 // only used by the callback
	tap     atomic.Pointer[func([]int16, time.Time)]

	played  atomic.Uint64 // samples played
	audible atomic.Uint64 // samples played that were not silence
	under   atomic.Uint64 // callbacks with less data than asked for (while an input existed)
}

// NewMixer returns a mixer whose inputs are held to at most maxLatency
// (0 = 200 ms) of audio.
func NewMixer(maxLatency time.Duration) *Mixer {
	if maxLatency <= 0 {
		maxLatency = 200 * time.Millisecond
	}
	m := &Mixer{maxLatency: SamplesPer(maxLatency), target: SamplesPer(maxLatency / 4), scratch: make([]int16, 4096)}
	m.inputs.Store(&[]*Ring{})
	return m
}

// NewInput returns a ring sized for the mixer's latency, already added.
func (m *Mixer) NewInput() *Ring {
	r := NewRing(2 * m.maxLatency)
	m.Add(r)
	return r
}

// Add adds an input.
func (m *Mixer) Add(r *Ring) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.inputs.Load()
	next := append(append(make([]*Ring, 0, len(old)+1), old...), r)
	m.inputs.Store(&next)
}

// Remove removes an input.
func (m *Mixer) Remove(r *Ring) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.inputs.Load()
	next := make([]*Ring, 0, len(old))
	for _, x := range old {
		if x != r {
			next = append(next, x)
		}
	}
	m.inputs.Store(&next)
}

// SetTap sets a function that sees every block Fill writes (nil: none).
// It runs in the playback callback and must not block.
func (m *Mixer) SetTap(fn func(p []int16, at time.Time)) {
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
		if l := r.Len(); l > m.maxLatency {
			r.Skip(l - m.target)
		}
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
		(*tap)(out, time.Now())
	}
}

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
	stopping atomic.Bool
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
	if err := dev.Start(); err != nil {
		dev.Uninit()
		return fmt.Errorf("audio: start %s: %w", p.Name(), err)
	}
	p.dev = dev
	return nil
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
	p.dev = nil
	return err
}
