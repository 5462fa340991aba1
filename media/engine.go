//go:build !nomedia

package media

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"os"
	"reflect"
	"sync"
	"time"

	"aimdesk/media/audio"
	"aimdesk/media/audio/apm"
	"aimdesk/media/lkroom"
	"aimdesk/media/pulse"
	"aimdesk/media/video"
)

// Enabled reports whether the media engine is built in.
const Enabled = true

// VideoEnabled reports whether camera and screen sharing are built in.
const VideoEnabled = true

var sdkLogOnce sync.Once

// Engine owns the audio context and creates calls. One per application.
type Engine struct {
	cfg Config
	log *slog.Logger

	actx     *audio.Context // nil: no audio backend
	audioErr error

	mu     sync.Mutex
	closed bool
	calls  map[*Call]struct{}
}

// New initialises the engine. It never fails because a device is missing:
// an unusable audio backend leaves Capabilities().Audio false and calls
// join in text-only mode.
func New(cfg Config) (*Engine, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Period <= 0 {
		cfg.Period = 10 * time.Millisecond
	}
	cfg.Period = max(10*time.Millisecond, min(20*time.Millisecond, cfg.Period))
	if cfg.MaxPlaybackLatency <= 0 {
		cfg.MaxPlaybackLatency = 120 * time.Millisecond
	}
	if cfg.DevicePoll <= 0 {
		cfg.DevicePoll = 2 * time.Second
	}
	if cfg.Reconnect <= 0 {
		cfg.Reconnect = 2 * time.Minute
	}
	// cfg.Screen stays as given: StartScreen applies it under its own options
	e := &Engine{cfg: cfg, log: cfg.Logger.With("component", "media"), calls: map[*Call]struct{}{}}
	sdkLogOnce.Do(func() { lkroom.UseForSDK(cfg.Logger) })
	actx, err := audio.OpenContext(audio.Backend(cfg.AudioBackend), e.log)
	if err != nil {
		e.audioErr = err
		e.log.Warn("no audio: calls will be text-only", "err", err)
	} else {
		e.actx = actx
	}
	return e, nil
}

// Capabilities says what works on this machine.
func (e *Engine) Capabilities() Capabilities {
	c := Capabilities{Audio: e.actx != nil}
	if e.actx != nil {
		c.AudioBackend = e.actx.Backend().String()
		c.EchoCanceller = apm.Library
	} else {
		c.AudioReason = fmt.Sprintf("No sound system: %v", e.audioErr)
	}
	var cams, screens int
	for _, d := range video.Devices() {
		switch d.Kind {
		case video.KindCamera:
			cams++
		case video.KindScreen:
			screens++
		}
	}
	c.Camera, c.Screen = cams > 0, screens > 0
	if !c.Camera {
		c.CameraReason = "No camera found."
	}
	c.ScreenCapture = e.screenCapture()
	c.ScreenCaptureLabel = screenLabel(c.ScreenCapture)
	if c.ScreenCapture == ScreenCapturePortal {
		c.ScreenReason = e.portalCheck()
		c.Screen = c.ScreenReason == ""
	} else if !c.Screen {
		c.ScreenReason = "No screen to share (screen sharing needs an X11 display)."
		if os.Getenv("DISPLAY") == "" {
			c.ScreenReason = "No screen to share: DISPLAY is not set (screen sharing needs X11)."
		}
	}
	return c
}

// Devices lists microphones, speakers, cameras and screens (see
// sysdevices.go for how microphones and speakers are found and named).
func (e *Engine) Devices(ctx context.Context) (Devices, error) {
	if err := ctx.Err(); err != nil {
		return Devices{}, err
	}
	var ds Devices
	mics, spks, err := e.audioDevices(ctx)
	ds.Mics, ds.Speakers = mics, spks
	portalScreens := e.screenCapture() == ScreenCapturePortal
	for _, d := range video.Devices() {
		md := Device{ID: d.ID, Name: d.Name}
		if d.Kind == video.KindCamera {
			md.Kind = DeviceCamera
			ds.Cameras = append(ds.Cameras, md)
		} else if !portalScreens {
			md.Kind = DeviceScreen
			ds.Screens = append(ds.Screens, md)
		}
	}
	if portalScreens {
		ds.Screens = []Device{{ID: portalDeviceID, Name: "Chosen in the desktop's picker", Kind: DeviceScreen, Default: true}}
	}
	return ds, err
}

// WatchDevices calls fn with the device list now and whenever it changes
// until ctx ends; it returns ctx's error. Changes the sound server
// announces (pactl subscribe) are read at once; everything else (cameras,
// screens, ALSA) is polled every Config.DevicePoll. fn runs on
// WatchDevices' goroutine.
func (e *Engine) WatchDevices(ctx context.Context, fn func(Devices)) error {
	var last Devices
	first := true
	t := time.NewTicker(e.cfg.DevicePoll)
	defer t.Stop()
	poke := make(chan struct{}, 1)
	if e.actx != nil && e.actx.Backend() == audio.BackendPulse {
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			err := pulse.Subscribe(sctx, func() {
				select {
				case poke <- struct{}{}:
				default:
				}
			})
			if err != nil {
				e.log.Debug("no sound server events, polling", "err", err)
			}
		}()
	}
	for {
		ds, err := e.Devices(ctx)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if first || !reflect.DeepEqual(ds, last) {
			fn(ds)
			last, first = ds, false
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-poke:
		case <-t.C:
			video.Refresh() // cameras plugged in since, a display that appeared
		}
	}
}

// Preview shows the camera for the pre-join screen: fn receives frames (at
// most 640 wide, 15 fps) as images it may keep, until ctx ends. It returns
// nil when ctx ends, ErrNoCamera if there is none.
func (e *Engine) Preview(ctx context.Context, cameraID string, fn func(image.Image)) error {
	err := video.Preview(ctx, cameraID, 640, 15, fn)
	if errors.Is(err, video.ErrNoCamera) {
		return fmt.Errorf("media: preview: %w", ErrNoCamera)
	}
	return err
}

// MicLevel meters the microphone micID ("" = default) for the pre-join
// screen: fn receives the level (0..1) at most 30 times a second until ctx
// ends. It returns nil when ctx ends.
func (e *Engine) MicLevel(ctx context.Context, micID string, fn func(float64)) error {
	if e.actx == nil {
		return fmt.Errorf("media: mic level: %w", e.noSound())
	}
	micID, err := e.resolveMic(ctx, micID)
	if err != nil {
		return fmt.Errorf("media: mic level: %w", err)
	}
	ring := audio.NewRing(audio.SampleRate / 2)
	wake := make(chan struct{}, 1)
	lost := make(chan error, 1)
	src := e.actx.NewCapture(micID, e.cfg.Period, func(err error) {
		select {
		case lost <- err:
		default:
		}
	})
	if err := src.Start(ring, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}); err != nil {
		return fmt.Errorf("media: mic level: %w: %w", ErrNoAudioDevice, err)
	}
	defer src.Stop()
	var m audio.Meter
	buf := make([]int16, audio.SamplesPer(10*time.Millisecond))
	t := time.NewTicker(time.Second / 30)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-lost:
			return fmt.Errorf("media: mic level: %w", err)
		case <-wake:
			for ring.Len() >= len(buf) {
				ring.Read(buf)
				m.Update(buf)
			}
		case <-t.C:
			fn(m.Level())
		}
	}
}

// noSound is the error for "no audio backend at all".
func (e *Engine) noSound() error {
	return fmt.Errorf("%w: %w: %w", ErrNoSoundSystem, ErrNoAudioDevice, e.audioErr)
}

// Close leaves every call and releases the audio context.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	calls := make([]*Call, 0, len(e.calls))
	for c := range e.calls {
		calls = append(calls, c)
	}
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	for _, c := range calls {
		errs = append(errs, c.Leave(ctx))
	}
	if e.actx != nil {
		errs = append(errs, e.actx.Close())
	}
	return errors.Join(errs...)
}

func (e *Engine) register(c *Call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	e.calls[c] = struct{}{}
	return nil
}

func (e *Engine) unregister(c *Call) {
	e.mu.Lock()
	delete(e.calls, c)
	e.mu.Unlock()
}
