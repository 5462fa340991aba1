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
	wantKF  atomic.Bool // the pump forces a keyframe before its next frame
	started sync.Once
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once

	frames, keyframes, keyRequests atomic.Uint64
	oversize                       atomic.Uint64 // frames dropped as oversized
	bytes                          atomic.Uint64
	lastKeyBytes                   atomic.Int64 // size of the last keyframe
	lastKeyRate                    atomic.Int64 // the bit rate asked for when it was written (0: none)
	lastKeyAt                      atomic.Int64 // when it was written (Unix ns)
	lastErr                        atomic.Value // error

	// congestion control: the bit rate asked for (SetTarget) and the
	// one the encoder was last given (libvpx's units, see applyRate; the
	// pump's)
	wantRate atomic.Int64
	given    int
	// periodic keyframes: every kfEvery frames, forced by the pump (so
	// that they get KeyFrameBudget too; libvpx's own are disabled)
	kfEvery, sinceKey int

	// keyframes asked for by receivers, rate-limited (kfMu guards them)
	kfMu         sync.Mutex
	kfGap        time.Duration
	lastForced   time.Time
	kfTimer      *time.Timer
	kfTimerGen   uint64 // the pending timer's; a keyframe written moves it on
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
	kfEvery := params.KeyFrameInterval
	params.KeyFrameInterval = 1 << 30 // the pump forces them
	src.pumped = true                 // and applies the source's limits
	sel := mediadevices.NewCodecSelector(mediadevices.WithVideoEncoders(&params))
	p := &Publisher{
		src:     src,
		track:   mediadevices.NewVideoTrack(src, sel),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		kfGap:   gap,
		given:   params.BitRate,
		kfEvery: kfEvery,
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
			gen := p.kfTimerGen
			p.kfTimer = time.AfterFunc(wait, func() {
				p.kfMu.Lock()
				if gen != p.kfTimerGen {
					p.kfMu.Unlock()
					return // a keyframe written meanwhile answered the requests
				}
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
// and the queue of keyframes would freeze the picture longer). The rate
// is the higher of today's target and the one the keyframe was made for:
// a keyframe made for a faster link just before the uplink fell is mostly
// lost there, and counted at the new rate it held back the keyframe that
// repairs the picture (bench: 13 KB made at 730 kbit/s, then a 120 kbit/s
// target: 1.35 s, the picture frozen 1.98 s).
func (p *Publisher) keyFrameGap() time.Duration {
	gap := p.kfGap
	if rate, kb := max(p.wantRate.Load(), p.lastKeyRate.Load()), p.lastKeyBytes.Load(); rate > 0 && kb > 0 {
		gap = max(gap, min(maxKeyFrameGap, time.Duration(1.5*float64(kb*8)/float64(rate)*float64(time.Second))))
	}
	return gap
}

// maxKeyFrameGap bounds keyFrameGap: a keyframe made at a higher rate
// than today's (just before the uplink fell) would otherwise hold back the
// receivers' requests for many seconds; the keyframe they get is made at
// today's rate (keyFrameBudget) and replaces what is left of the old one
// in the pacer.
const maxKeyFrameGap = 1500 * time.Millisecond

// SuppressedKeyFrames counts PLI/FIR requests merged into a later keyframe
// by the rate limit.
func (p *Publisher) SuppressedKeyFrames() uint64 { return p.kfSuppressed.Load() }

// RequestKeyFrame makes the next frame a keyframe, and has the source
// hand on a frame now even if the screen did not change. It never blocks:
// the pump hands the request to the encoder between frames (mediadevices'
// encoder holds its lock while it waits for the source's next frame, up to
// the refresh interval of a still screen, so calling its ForceKeyFrame
// here would stall the caller: the RTCP reader that brings the PLI and the
// TWCC feedback, or the call's goroutine).
func (p *Publisher) RequestKeyFrame() {
	p.src.RequestFrame()
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

// LastKeyFrameAt is when the last keyframe was written (zero: none yet).
func (p *Publisher) LastKeyFrameAt() time.Time {
	if ns := p.lastKeyAt.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// LastKeyFrameSize is the size in bytes of the last keyframe written.
func (p *Publisher) LastKeyFrameSize() int { return int(p.lastKeyBytes.Load()) }

// BytesSent counts the bytes of the VP8 frames written to the track.
func (p *Publisher) BytesSent() uint64 { return p.bytes.Load() }

// KeyFrameBudget is about how much of the target bit rate a keyframe
// gets under congestion control (after SetTarget): WebRTC's VP8 encoder
// caps an intra frame at half its 600 ms optimal buffer (libvpx's
// rc_max_intra_bitrate_pct), so that a keyframe leaves a link at the
// target rate in ~0.3 s. mediadevices does not expose that control; the
// pump instead gives the encoder a lower bit rate for the one frame that
// will be a keyframe (libvpx's keyframe target is a multiple of the
// per-frame budget, below). Left alone, libvpx made keyframes of 1–3 s
// of the rate (≈ 7 frame budgets; the first frame of an encoder restarted
// for a new size 1.5 s of its (30/fps-scaled) rate, i.e. 9 s at 5 fps),
// which froze the picture for as long under a capped uplink. At its top
// quantizer a keyframe cannot get smaller than the picture allows.
const KeyFrameBudget = 300 * time.Millisecond

// libvpx's VP8 keyframe targets (vp8/encoder/ratectrl.c,
// calc_iframe_target_size) for a given bit rate b: a keyframe of a
// running encoder ≈ (16 + kf_boost)/16 per-frame budgets, kf_boost ≈
// 44 × 2.2 near the top quantizer at the 30 fps it assumes (≈ 7 × b/30);
// the first frame of a new encoder 1.5 × b.
const (
	vp8KeyFrameBudgets   = 7.0
	vp8FirstFrameSeconds = 1.5
)

// applyRate hands the encoder the bit rate for its next frame, when it
// changed (on the pump goroutine, between frames: the encoder holds its
// lock while it waits for a frame): the rate asked for scaled by 30/fps
// like VP8Params', or, when the next frame will be a keyframe (key: one
// was forced; restart: the frame size changes, so the encoder starts
// over), the rate that makes it about KeyFrameBudget of the target.
func (p *Publisher) applyRate(bc codec.BitRateController, key, restart bool) {
	want := float64(p.wantRate.Load())
	fps := p.src.CurrentLimits().FPS
	if want <= 0 || fps <= 0 {
		return
	}
	given := int(want * vp8AssumedFPS / fps)
	switch kf := want * KeyFrameBudget.Seconds(); {
	case restart:
		given = int(kf / vp8FirstFrameSeconds)
	case key:
		given = int(kf * vp8AssumedFPS / vp8KeyFrameBudgets)
	}
	given = max(given, 1000) // libvpx takes kbit/s, ≥ 1
	if given != p.given {
		if err := bc.SetBitRate(given); err == nil {
			p.given = given
		}
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
	kc, _ := enc.Controller().(codec.KeyFrameController)
	bc, _ := enc.Controller().(codec.BitRateController)
	var carry time.Duration // of the frames dropped as oversized since the last written
	for {
		key := false
		if kc != nil && (p.wantKF.Swap(false) || p.sinceKey+1 >= p.kfEvery) {
			key = kc.ForceKeyFrame() == nil
		}
		restart := p.src.takeLimits()
		if bc != nil {
			p.applyRate(bc, key, restart)
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
			d := time.Duration(buf.Samples)*time.Second/90000 + carry
			carry = 0
			if p.oversized(buf.Data) {
				carry = d // the next frame's timestamp keeps the pace
				p.oversize.Add(1)
				p.RequestKeyFrame()
			} else {
				p.write(buf.Data, d)
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

// oversized reports whether an encoded frame is a delta frame larger than
// a second of the target bit rate (under congestion control). libvpx
// makes some (measured: 58 KB at 960×540 among 3–6 KB frames, at a
// target of 170 kbit/s, i.e. 2.7 s of the link); sent, it would hold the
// picture for as long. It is dropped instead and the next frame made a
// keyframe at once (nothing after it then refers to the dropped frame),
// as WebRTC's frame dropper drops frames while its encoder overshoots.
func (p *Publisher) oversized(frame []byte) bool {
	want := p.wantRate.Load()
	return want > 0 && frame[0]&1 == 1 && int64(len(frame))*8 > want
}

// OversizedFrames counts the frames dropped as oversized.
func (p *Publisher) OversizedFrames() uint64 { return p.oversize.Load() }

// write writes an encoded frame lasting d to the current track.
func (p *Publisher) write(frame []byte, d time.Duration) {
	lt := p.cur.Load()
	if lt == nil || lt.WriteSample(media.Sample{Data: frame, Duration: d}, nil) != nil {
		return
	}
	p.frames.Add(1)
	p.bytes.Add(uint64(len(frame)))
	p.sinceKey++
	if frame[0]&1 != 0 {
		return
	}
	p.keyFrameWritten(len(frame), time.Now())
}

// keyFrameWritten records a keyframe of n bytes written at now. It
// answers the requests made while it was encoded, and those held back by
// the rate limit (all made before it): a held-back request forced later
// made a keyframe that replaced this one in the pacer before it was sent
// (measured in TestVideoBenchCongestion: three keyframes within 0.6 s
// after the uplink fell, the picture waiting for the last).
func (p *Publisher) keyFrameWritten(n int, now time.Time) {
	p.wantKF.Store(false)
	p.sinceKey = 0
	p.keyframes.Add(1)
	p.lastKeyBytes.Store(int64(n))
	p.lastKeyRate.Store(p.wantRate.Load())
	p.lastKeyAt.Store(now.UnixNano())
	// the gap to the next forced keyframe counts from this one
	p.kfMu.Lock()
	p.lastForced = now
	if p.kfTimer != nil {
		p.kfTimer.Stop()
		p.kfTimer = nil
	}
	p.kfTimerGen++
	p.kfMu.Unlock()
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
