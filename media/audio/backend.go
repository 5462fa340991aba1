package audio

import (
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"unsafe"

	"github.com/gen2brain/malgo"
)

// #include <stdlib.h>
import "C"

// Backend names a miniaudio backend. The values are the spelling used in
// settings files.
type Backend string

// Backends.
const (
	BackendAuto  Backend = ""           // PulseAudio, then ALSA, then JACK
	BackendPulse Backend = "pulseaudio" //
	BackendALSA  Backend = "alsa"       //
	BackendJACK  Backend = "jack"       //
	// BackendNull is miniaudio's null device: silence in, audio discarded,
	// both in real time. Headless tests and machines without sound use it.
	BackendNull Backend = "null"
)

// String implements fmt.Stringer.
func (b Backend) String() string {
	if b == BackendAuto {
		return "auto"
	}
	return string(b)
}

// malgoNull is miniaudio's ma_backend_null. malgo.BackendNull (13) is in fact
// ma_backend_custom, which fails without callbacks.
const malgoNull = malgo.Backend(14)

func (b Backend) malgo() (malgo.Backend, error) {
	switch b {
	case BackendPulse:
		return malgo.BackendPulseaudio, nil
	case BackendALSA:
		return malgo.BackendAlsa, nil
	case BackendJACK:
		return malgo.BackendJack, nil
	case BackendNull:
		return malgoNull, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownBackend, string(b))
}

// Errors.
var (
	ErrUnknownBackend = errors.New("audio: unknown backend")
	ErrNoBackend      = errors.New("audio: no audio backend works")
	ErrNoDevice       = errors.New("audio: no such device")
	ErrClosed         = errors.New("audio: closed")
)

// Context is an initialised miniaudio context: one per engine.
type Context struct {
	mu      sync.Mutex
	ctx     *malgo.AllocatedContext
	backend Backend
	log     *slog.Logger
}

// OpenContext initialises the first backend that works, trying the
// automatic order for BackendAuto. A machine without sound yields
// ErrNoBackend; callers fall back to text-only mode.
func OpenContext(b Backend, log *slog.Logger) (*Context, error) {
	if log == nil {
		log = slog.Default()
	}
	order := []Backend{b}
	if b == BackendAuto {
		order = []Backend{BackendPulse, BackendALSA, BackendJACK}
	}
	var errs []error
	for _, cand := range order {
		mb, err := cand.malgo()
		if err != nil {
			return nil, err
		}
		ctx, err := malgo.InitContext([]malgo.Backend{mb}, malgo.ContextConfig{}, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cand, err))
			continue
		}
		return &Context{ctx: ctx, backend: cand, log: log}, nil
	}
	return nil, fmt.Errorf("%w: %w", ErrNoBackend, errors.Join(errs...))
}

// Backend is the backend in use.
func (c *Context) Backend() Backend { return c.backend }

// Close releases the context. Devices must be closed first.
func (c *Context) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil {
		return nil
	}
	err := c.ctx.Uninit()
	c.ctx.Free()
	c.ctx = nil
	return err
}

// Direction says whether a device records or plays.
type Direction int

// Directions.
const (
	Input Direction = iota + 1
	Output
)

// String implements fmt.Stringer.
func (d Direction) String() string {
	switch d {
	case Input:
		return "input"
	case Output:
		return "output"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

func (d Direction) malgo() malgo.DeviceType {
	if d == Input {
		return malgo.Capture
	}
	return malgo.Playback
}

// DeviceInfo describes an input or output device.
type DeviceInfo struct {
	ID        string // hex of miniaudio's device id; stable while the device is present
	Name      string
	Direction Direction
	Default   bool
	Headset   bool // the name suggests a headset or headphones
}

// Devices lists the devices of one direction.
func (c *Context) Devices(d Direction) ([]DeviceInfo, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil {
		return nil, ErrClosed
	}
	infos, err := c.ctx.Devices(d.malgo())
	if err != nil {
		return nil, fmt.Errorf("audio: list %s devices: %w", d, err)
	}
	out := make([]DeviceInfo, 0, len(infos))
	for _, in := range infos {
		out = append(out, DeviceInfo{
			ID:        in.ID.String(),
			Name:      in.Name(),
			Direction: d,
			Default:   in.IsDefault != 0,
			Headset:   LooksLikeHeadset(in.Name()),
		})
	}
	return out, nil
}

// LooksLikeHeadset guesses from a device name whether it is worn (so the
// microphone does not hear the speaker).
func LooksLikeHeadset(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"headset", "headphone", "earphone", "earbud", "airpods", "hands-free", "handsfree", "bluez", "bluetooth", "a2dp", "hfp", "hsp"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// deviceIDPtr returns a C copy of the device id for id ("" → nil, the
// default device) and a function that frees it.
func deviceIDPtr(id string) (unsafe.Pointer, func(), error) {
	if id == "" {
		return nil, func() {}, nil
	}
	b, err := hex.DecodeString(id)
	var did malgo.DeviceID
	if err != nil || len(b) > len(did) {
		return nil, nil, fmt.Errorf("%w: %q", ErrNoDevice, id)
	}
	copy(did[:], b)
	p := did.Pointer()
	return p, func() { C.free(p) }, nil
}

// headsetByID reports whether the device id (or the default when id is "")
// of direction d looks like a headset.
func (c *Context) IsHeadset(d Direction, id string) bool {
	devs, err := c.Devices(d)
	if err != nil {
		return false
	}
	for _, dv := range devs {
		if (id == "" && dv.Default) || (id != "" && dv.ID == id) {
			return dv.Headset
		}
	}
	return false
}
