//go:build cgo && !nomedia

package devagent

import (
	"errors"
	"fmt"
	"image"
	"sync"
	"sync/atomic"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/mediadevices/pkg/codec"
	"github.com/pion/mediadevices/pkg/codec/vpx"
	mdvideo "github.com/pion/mediadevices/pkg/io/video"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
	pmedia "github.com/pion/webrtc/v4/pkg/media"
)

// VideoEnabled reports whether the agent can publish its synthetic video
// (VP8 through libvpx; not without cgo or with -tags nomedia).
const VideoEnabled = true

// vp8AssumedFPS: mediadevices' VP8 encoder (v0.9) budgets every frame as
// if at 30 fps (see media/video.VP8Params, which this mirrors: app/ does
// not import the app's media code), so the target is scaled by 30/fps.
const vp8AssumedFPS = 30

// synthVideo encodes videoSynth's frames with libvpx (mediadevices' VP8
// encoder, the one media/video uses for the user's camera and screen) and
// writes them to an lksdk track, AgentVideoFPS a second. PLI and FIR from
// the SFU force a keyframe.
type synthVideo struct {
	track *lksdk.LocalTrack
	enc   codec.ReadCloser
	kfc   codec.KeyFrameController

	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	started atomic.Bool
}

// newVideoTrack builds the encoder and the track; frames flow once the
// track is bound (published).
func newVideoTrack() (*synthVideo, error) {
	params, err := vpx.NewVP8Params()
	if err != nil {
		return nil, fmt.Errorf("devagent: vp8 params: %w", err)
	}
	params.BitRate = agentVideoBitRate * vp8AssumedFPS / AgentVideoFPS
	params.KeyFrameInterval = AgentVideoFPS * 5
	params.LagInFrames = 0
	v := &synthVideo{stop: make(chan struct{}), done: make(chan struct{})}
	var synth videoSynth
	tick := time.NewTicker(time.Second / AgentVideoFPS)
	src := mdvideo.ReaderFunc(func() (image.Image, func(), error) {
		select {
		case <-v.stop:
			return nil, nil, errVideoClosed
		case <-tick.C:
		}
		return synth.next(), func() {}, nil
	})
	enc, err := params.BuildVideoEncoder(src, prop.Media{Video: prop.Video{Width: AgentVideoWidth, Height: AgentVideoHeight, FrameRate: AgentVideoFPS}})
	if err != nil {
		tick.Stop()
		return nil, fmt.Errorf("devagent: vp8 encoder: %w", err)
	}
	v.enc = enc
	v.kfc, _ = enc.Controller().(codec.KeyFrameController)
	v.track, err = lksdk.NewLocalTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: vp8ClockRate},
		lksdk.WithRTCPHandler(v.onRTCP))
	if err != nil {
		tick.Stop()
		_ = enc.Close()
		return nil, fmt.Errorf("devagent: video track: %w", err)
	}
	v.track.OnBind(func() {
		v.keyFrame()
		if v.started.CompareAndSwap(false, true) {
			go v.pump(tick)
		}
	})
	return v, nil
}

// Track is the track to publish.
func (v *synthVideo) Track() *lksdk.LocalTrack { return v.track }

func (v *synthVideo) onRTCP(pkt rtcp.Packet) {
	switch pkt.(type) {
	case *rtcp.PictureLossIndication, *rtcp.FullIntraRequest:
		v.keyFrame()
	}
}

func (v *synthVideo) keyFrame() {
	if v.kfc != nil {
		_ = v.kfc.ForceKeyFrame()
	}
}

func (v *synthVideo) pump(tick *time.Ticker) {
	defer close(v.done)
	defer tick.Stop()
	for {
		b, release, err := v.enc.Read()
		if err != nil {
			return
		}
		if len(b) > 0 {
			_ = v.track.WriteSample(pmedia.Sample{Data: b, Duration: time.Second / AgentVideoFPS}, nil)
		}
		release()
	}
}

// Close stops the encoder.
func (v *synthVideo) Close() error {
	v.once.Do(func() {
		close(v.stop)
		if v.started.Swap(true) { // a pump runs: it ends at the next frame
			<-v.done
		}
		_ = v.enc.Close()
	})
	return nil
}

var errVideoClosed = errors.New("devagent: the video track is closed")
