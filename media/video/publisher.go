package video

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/mediadevices"
	"github.com/pion/mediadevices/pkg/codec"
	"github.com/pion/mediadevices/pkg/codec/vpx"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// EncoderOptions tunes VP8.
type EncoderOptions struct {
	// BitRate in bit/s; 0 means 1 Mbit/s for screens and 600 kbit/s for cameras.
	BitRate int
	// KeyFrameInterval in frames; 0 means every 10 s of frames. PLI/FIR
	// requests force one sooner.
	KeyFrameInterval int
	// KeyFrameGap is the least time between keyframes forced by PLI/FIR;
	// requests inside it are merged into one keyframe at its end. 0 means
	// DefaultKeyFrameGap.
	KeyFrameGap time.Duration
}

// DefaultKeyFrameGap rate-limits keyframes asked for by receivers: a
// receiver that loses packets sends a PLI per lost frame, and each keyframe
// is many times the size of a delta frame.
const DefaultKeyFrameGap = 700 * time.Millisecond

// vp8TimeScale undoes a unit mismatch in mediadevices' VP8 encoder (v0.9):
// it declares a time base of 1/1000 s but passes timestamps in µs, so libvpx
// sees frame durations 1000× too long, takes any rate under 0.1 fps for
// invalid and budgets every frame as if at 30 fps. The target bit rate it
// is given is therefore scaled by 30/fps so that the stream carries the
// rate asked for (TestEncoderBitRate measures it).
const vp8AssumedFPS = 30

// VP8Params returns the libvpx settings used for a source of kind at fps
// frames a second.
//
// For screens: error resilience on (a lost packet spoils only what
// references it), no lag (realtime), quantizer 12–63 (below 12 a keyframe
// of a text-heavy screen grows past 2 s of the bit rate for ~1 dB more:
// measured 250 KB and 38.5 dB at 1280×720 with 2, 150 KB and 37.3 dB with
// 12), undershoot allowed (static content needs few bits) and a keyframe
// only every 20 s of frames unless asked for. What mediadevices' params do not expose is left at libvpx's
// defaults: screen-content mode, static threshold, noise sensitivity and
// cpu-used need vpx_codec_control on its private encoder context. Frames
// that did not change are not encoded at all (see Source), which is most of
// what a static threshold would save.
func VP8Params(kind Kind, o EncoderOptions, fps float64) (vpx.VP8Params, error) {
	params, err := vpx.NewVP8Params()
	if err != nil {
		return params, fmt.Errorf("video: vp8 params: %w", err)
	}
	if fps <= 0 {
		fps = DefaultCameraFPS
	}
	bitrate := o.BitRate
	if bitrate == 0 {
		bitrate = 600_000
		if kind == KindScreen {
			bitrate = 1_000_000
		}
	}
	params.BitRate = int(float64(bitrate) * vp8AssumedFPS / fps)
	params.KeyFrameInterval = o.KeyFrameInterval
	kfSeconds := 10.0
	if kind == KindScreen {
		kfSeconds = 20
		params.ErrorResilient = vpx.ErrorResilientDefault
		params.LagInFrames = 0
		params.RateControlEndUsage = vpx.RateControlVBR
		params.RateControlMinQuantizer = 12
		params.RateControlMaxQuantizer = 63 // lower caps break the bit rate on busy screens
		params.RateControlUndershootPercent = 100
		params.RateControlOvershootPercent = 15
	}
	if params.KeyFrameInterval == 0 {
		params.KeyFrameInterval = max(1, int(fps*kfSeconds))
	}
	return params, nil
}

// Publisher encodes a Source to VP8 and writes it to its current LocalTrack.
type Publisher struct {
	src   *Source
	track mediadevices.Track

	cur     atomic.Pointer[lksdk.LocalTrack]
	kfc     atomic.Value // codec.KeyFrameController
	wantKF  atomic.Bool
	started sync.Once
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once

	frames, keyframes, keyRequests atomic.Uint64
	bytes                          atomic.Uint64
	lastKeyBytes                   atomic.Int64 // size of the last keyframe
	lastErr                        atomic.Value // error

	// congestion control: the bit rate asked for (SetTarget) and the
	// one the encoder was last given (the pump's)
	wantRate atomic.Int64
	rate     int
	rateFPS  float64

	// keyframes asked for by receivers, rate-limited (kfMu guards them)
	kfMu         sync.Mutex
	kfGap        time.Duration
	lastForced   time.Time
	kfTimer      *time.Timer
	kfSuppressed atomic.Uint64
}

// NewPublisher wraps src (which it now owns) in a VP8 encoder. Nothing is
// captured or encoded until a track from NewLocalTrack is bound.
func NewPublisher(src *Source, o EncoderOptions) (*Publisher, error) {
	params, err := VP8Params(src.kind, o, src.o.FPS)
	if err != nil {
		return nil, err
	}
	gap := o.KeyFrameGap
	if gap <= 0 {
		gap = DefaultKeyFrameGap
	}
	sel := mediadevices.NewCodecSelector(mediadevices.WithVideoEncoders(&params))
	p := &Publisher{
		src:     src,
		track:   mediadevices.NewVideoTrack(src, sel),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		kfGap:   gap,
		rate:    params.BitRate * int(src.o.FPS) / vp8AssumedFPS,
		rateFPS: src.o.FPS,
	}
	if p.rate <= 0 || src.o.FPS <= 0 {
		p.rate, p.rateFPS = 0, 0
	}
	return p, nil
}

// Source is the captured source.
func (p *Publisher) Source() *Source { return p.src }

// NewLocalTrack returns a new lksdk track fed by this publisher. Publish it;
// when it is bound it becomes the publisher's output (replacing the previous
// track, e.g. after a reconnect) and a keyframe is forced.
func (p *Publisher) NewLocalTrack() (*lksdk.LocalTrack, error) {
	var lt *lksdk.LocalTrack
	lt, err := lksdk.NewLocalTrack(
		webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000},
		lksdk.WithRTCPHandler(p.onRTCP),
	)
	if err != nil {
		return nil, fmt.Errorf("video: local track: %w", err)
	}
	lt.OnBind(func() {
		p.cur.Store(lt)
		p.RequestKeyFrame()
		p.started.Do(func() { go p.pump() })
	})
	return lt, nil
}

func (p *Publisher) onRTCP(pkt rtcp.Packet) {
	switch pkt.(type) {
	case *rtcp.PictureLossIndication, *rtcp.FullIntraRequest:
		p.keyRequests.Add(1)
		p.requestKeyFrameLimited(time.Now())
	}
}

// RequestKeyFrameLimited asks for a keyframe under the same rate limit as
// the receivers' PLI/FIR (congestion control uses it: a keyframe that
// replaced a half-sent one would never arrive).
func (p *Publisher) RequestKeyFrameLimited() { p.requestKeyFrameLimited(time.Now()) }

// requestKeyFrameLimited forces a keyframe unless one was forced less
// than kfGap ago; then one keyframe is forced when the gap ends, for all
// the requests inside it (each counted as suppressed).
func (p *Publisher) requestKeyFrameLimited(now time.Time) {
	p.kfMu.Lock()
	defer p.kfMu.Unlock()
	if wait := p.keyFrameGap() - now.Sub(p.lastForced); !p.lastForced.IsZero() && wait > 0 {
		p.kfSuppressed.Add(1)
		if p.kfTimer == nil {
			p.kfTimer = time.AfterFunc(wait, func() {
				p.kfMu.Lock()
				p.kfTimer = nil
				p.lastForced = time.Now()
				p.kfMu.Unlock()
				p.RequestKeyFrame()
			})
		}
		return
	}
	p.lastForced = now
	p.RequestKeyFrame()
}

// keyFrameGap is the least time between forced keyframes: kfGap, or 1.5×
// the time the last keyframe takes at the target bit rate when that is
// longer (under a low congestion-control target a keyframe takes seconds
// to send; a receiver that asks again meanwhile would get another one,
// and the queue of keyframes would freeze the picture longer).
func (p *Publisher) keyFrameGap() time.Duration {
	gap := p.kfGap
	if rate, kb := p.wantRate.Load(), p.lastKeyBytes.Load(); rate > 0 && kb > 0 {
		gap = max(gap, time.Duration(1.5*float64(kb*8)/float64(rate)*float64(time.Second)))
	}
	return gap
}

// SuppressedKeyFrames counts PLI/FIR requests merged into a later keyframe
// by the rate limit.
func (p *Publisher) SuppressedKeyFrames() uint64 { return p.kfSuppressed.Load() }

// RequestKeyFrame makes the next frame a keyframe, and has the source
// hand on a frame now even if the screen did not change.
func (p *Publisher) RequestKeyFrame() {
	p.src.RequestFrame()
	if k, ok := p.kfc.Load().(codec.KeyFrameController); ok && k != nil {
		_ = k.ForceKeyFrame()
		return
	}
	p.wantKF.Store(true)
}

// SetTarget asks for a new bit rate (bit/s), frame size bound and frame
// rate (congestion control). The source takes the size and rate from its
// next frame (a new size makes the encoder start over with a keyframe);
// the encoder takes the bit rate before its next frame.
func (p *Publisher) SetTarget(bitRate, maxWidth, maxHeight int, fps float64) {
	p.src.SetLimits(Limits{MaxWidth: maxWidth, MaxHeight: maxHeight, FPS: fps})
	p.wantRate.Store(int64(bitRate))
}

// Target is the bit rate asked for by SetTarget (0: none, the one the
// publisher was made with).
func (p *Publisher) Target() int { return int(p.wantRate.Load()) }

// LastKeyFrameSize is the size in bytes of the last keyframe written.
func (p *Publisher) LastKeyFrameSize() int { return int(p.lastKeyBytes.Load()) }

// BytesSent counts the bytes of the VP8 frames written to the track.
func (p *Publisher) BytesSent() uint64 { return p.bytes.Load() }

// applyRate hands the bit rate asked for to the encoder when it or the
// frame rate changed (on the pump goroutine, between frames: the encoder
// holds its lock while it waits for a frame). The rate is scaled by
// 30/fps like VP8Params'.
func (p *Publisher) applyRate(bc codec.BitRateController) {
	want := int(p.wantRate.Load())
	fps := p.src.CurrentLimits().FPS
	if want <= 0 || fps <= 0 || (want == p.rate && fps == p.rateFPS) {
		return
	}
	if err := bc.SetBitRate(int(float64(want) * vp8AssumedFPS / fps)); err == nil {
		p.rate, p.rateFPS = want, fps
	}
}

// Stats reports frames written, keyframes among them, and PLI/FIR received.
func (p *Publisher) Stats() (frames, keyframes, keyRequests uint64) {
	return p.frames.Load(), p.keyframes.Load(), p.keyRequests.Load()
}

// Err is the error that stopped the encoder, if any.
func (p *Publisher) Err() error {
	err, _ := p.lastErr.Load().(error)
	return err
}

func (p *Publisher) pump() {
	defer close(p.done)
	enc, err := p.track.NewEncodedReader(webrtc.MimeTypeVP8)
	if err != nil {
		p.lastErr.Store(fmt.Errorf("video: vp8 encoder: %w", err))
		return
	}
	defer enc.Close()
	if k, ok := enc.Controller().(codec.KeyFrameController); ok {
		p.kfc.Store(k)
		if p.wantKF.Swap(false) {
			_ = k.ForceKeyFrame()
		}
	}
	bc, _ := enc.Controller().(codec.BitRateController)
	for {
		if bc != nil {
			p.applyRate(bc)
		}
		buf, release, err := enc.Read()
		if err != nil {
			select {
			case <-p.stop:
			default:
				p.lastErr.Store(err)
			}
			return
		}
		if len(buf.Data) > 0 {
			if lt := p.cur.Load(); lt != nil {
				d := time.Duration(buf.Samples) * time.Second / 90000
				if err := lt.WriteSample(media.Sample{Data: buf.Data, Duration: d}, nil); err == nil {
					p.frames.Add(1)
					p.bytes.Add(uint64(len(buf.Data)))
					if buf.Data[0]&1 == 0 {
						p.keyframes.Add(1)
						p.lastKeyBytes.Store(int64(len(buf.Data)))
						// the gap to the next forced keyframe counts from this one
						p.kfMu.Lock()
						p.lastForced = time.Now()
						p.kfMu.Unlock()
					}
				}
			}
		}
		release()
		select {
		case <-p.stop:
			return
		default:
		}
	}
}

// Close stops capturing and encoding.
func (p *Publisher) Close() error {
	var err error
	p.once.Do(func() {
		close(p.stop)
		p.kfMu.Lock()
		if p.kfTimer != nil {
			p.kfTimer.Stop()
			p.kfTimer = nil
		}
		p.kfMu.Unlock()
		err = p.src.Close()
		started := true
		p.started.Do(func() { started = false; close(p.done) })
		if started {
			select {
			case <-p.done:
			case <-time.After(5 * time.Second):
				err = errors.Join(err, errors.New("video: encoder did not stop"))
			}
		}
		_ = p.track.Close()
	})
	return err
}
