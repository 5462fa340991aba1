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
	lastErr                        atomic.Value // error
}

// NewPublisher wraps src (which it now owns) in a VP8 encoder. Nothing is
// captured or encoded until a track from NewLocalTrack is bound.
func NewPublisher(src *Source, o EncoderOptions) (*Publisher, error) {
	params, err := vpx.NewVP8Params()
	if err != nil {
		return nil, fmt.Errorf("video: vp8 params: %w", err)
	}
	fps := src.o.FPS
	params.BitRate = o.BitRate
	if params.BitRate == 0 {
		params.BitRate = 600_000
		if src.kind == KindScreen {
			params.BitRate = 1_000_000
		}
	}
	params.KeyFrameInterval = o.KeyFrameInterval
	if params.KeyFrameInterval == 0 {
		params.KeyFrameInterval = max(1, int(fps*10))
	}
	sel := mediadevices.NewCodecSelector(mediadevices.WithVideoEncoders(&params))
	p := &Publisher{
		src:   src,
		track: mediadevices.NewVideoTrack(src, sel),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
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
		p.RequestKeyFrame()
	}
}

// RequestKeyFrame makes the next frame a keyframe.
func (p *Publisher) RequestKeyFrame() {
	if k, ok := p.kfc.Load().(codec.KeyFrameController); ok && k != nil {
		_ = k.ForceKeyFrame()
		return
	}
	p.wantKF.Store(true)
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
	for {
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
					if buf.Data[0]&1 == 0 {
						p.keyframes.Add(1)
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
