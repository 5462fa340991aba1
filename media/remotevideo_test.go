//go:build !nomedia

package media

import (
	"context"
	"image"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/mediadevices/pkg/codec"
	mdvideo "github.com/pion/mediadevices/pkg/io/video"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
	pmedia "github.com/pion/webrtc/v4/pkg/media"

	"aimdesk/media/video"
)

// publishVideo makes the checker publish a 320×240 VP8 camera at 10 fps
// (libvpx, the settings of our camera) whose luma is the frame number
// times 9 modulo 200 plus 30, flat: a decoded frame tells which frame it
// was. PLI from the SFU forces a keyframe. It returns the frames written.
func (c *checker) publishVideo() *atomic.Int64 {
	c.t.Helper()
	const w, h, fps = 320, 240, 10
	params, err := video.VP8Params(video.KindCamera, video.EncoderOptions{BitRate: 200_000}, fps)
	if err != nil {
		c.t.Fatal(err)
	}
	stop := make(chan struct{})
	tick := time.NewTicker(time.Second / fps)
	n := 0
	src := mdvideo.ReaderFunc(func() (image.Image, func(), error) {
		select {
		case <-stop:
			return nil, nil, context.Canceled
		case <-tick.C:
		}
		img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
		for i := range img.Y {
			img.Y[i] = uint8(30 + (n*9)%200)
		}
		for i := range img.Cb {
			img.Cb[i], img.Cr[i] = 128, 128
		}
		n++
		return img, func() {}, nil
	})
	enc, err := params.BuildVideoEncoder(src, prop.Media{Video: prop.Video{Width: w, Height: h, FrameRate: fps}})
	if err != nil {
		c.t.Fatal(err)
	}
	kfc, _ := enc.Controller().(codec.KeyFrameController)
	var plis atomic.Int64
	lt, err := lksdk.NewLocalTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000},
		lksdk.WithRTCPHandler(func(p rtcp.Packet) {
			if _, ok := p.(*rtcp.PictureLossIndication); ok && kfc != nil {
				plis.Add(1)
				_ = kfc.ForceKeyFrame()
			}
		}))
	if err != nil {
		c.t.Fatal(err)
	}
	written := &atomic.Int64{}
	var once sync.Once
	lt.OnBind(func() {
		once.Do(func() {
			go func() {
				for {
					b, release, err := enc.Read()
					if err != nil {
						return
					}
					if len(b) > 0 && lt.WriteSample(pmedia.Sample{Data: b, Duration: time.Second / fps}, nil) == nil {
						written.Add(1)
					}
					release()
				}
			}()
		})
	})
	if _, err := c.room.LocalParticipant.PublishTrack(lt, &lksdk.TrackPublicationOptions{
		Name: "agent-video", Source: livekit.TrackSource_CAMERA, VideoWidth: w, VideoHeight: h,
	}); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() {
		close(stop)
		tick.Stop()
		time.Sleep(150 * time.Millisecond) // the encoder's Read returns
		_ = enc.Close()
	})
	return written
}

// TestRemoteVideo: a participant's VP8 camera is decoded; RemoteVideo
// hands on the newest frame at a bounded rate with its pixels; a slow
// reader skips frames instead of queueing them; hiding the video
// (ViewRemoteVideo 0×0) disables the track at the SFU so no more packets
// arrive, and showing it again brings frames back.
func TestRemoteVideo(t *testing.T) {
	const room = "remote-video"
	chk := newChecker(t, room)
	written := chk.publishVideo()
	_, call, _ := joinTestCall(t, room, JoinParams{Mic: MicOptions{Disabled: true}, Speaker: SpeakerOptions{Disabled: true}})

	var mu sync.Mutex
	var frames []RemoteFrame
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = call.RemoteVideo(ctx, func(f RemoteFrame) {
			mu.Lock()
			frames = append(frames, f)
			mu.Unlock()
		})
	}()
	got := func() []RemoteFrame {
		mu.Lock()
		defer mu.Unlock()
		return append([]RemoteFrame(nil), frames...)
	}
	waitFor(t, 15*time.Second, "10 decoded frames of the checker's camera", func() bool { return len(got()) >= 10 })
	fs := got()
	f := fs[len(fs)-1]
	if f.Identity != "checker" || f.Source != SourceCamera || f.Image.Rect.Dx() != 320 || f.Image.Rect.Dy() != 240 {
		t.Fatalf("frame %+v (%v)", f, f.Image.Rect)
	}
	distinct := map[uint8]bool{}
	for _, f := range fs {
		distinct[f.Image.Y[120*f.Image.YStride+160]] = true
		if f.Seq == 0 {
			t.Fatal("a frame without its number")
		}
	}
	if len(distinct) < 5 {
		t.Fatalf("the pixels do not change: %d distinct centre lumas in %d frames", len(distinct), len(fs))
	}
	// each handed-on frame is newer than the last; none repeats
	for i := 1; i < len(fs); i++ {
		if fs[i].Seq <= fs[i-1].Seq {
			t.Fatalf("frame %d after %d", fs[i].Seq, fs[i-1].Seq)
		}
	}
	sid := f.TrackSID

	// a slow reader: 3 calls in 1.5 s while 15 frames arrive, and the
	// frames it gets are the newest (Seq skips)
	var slow []uint64
	sctx, scancel := context.WithTimeout(context.Background(), 1600*time.Millisecond)
	_ = call.RemoteVideo(sctx, func(f RemoteFrame) {
		slow = append(slow, f.Seq)
		time.Sleep(500 * time.Millisecond)
	})
	scancel()
	if len(slow) < 2 || len(slow) > 4 || slow[len(slow)-1]-slow[0] < 5 {
		t.Fatalf("slow reader got frames %v, want 2..4 calls that skip to the newest", slow)
	}

	// adaptive stream: the size shown, then hidden
	if err := call.ViewRemoteVideo(sid, 160, 120); err != nil {
		t.Fatal(err)
	}
	if err := call.ViewRemoteVideo("TR_nonesuch", 1, 1); err != ErrUnknownTrack {
		t.Fatalf("unknown track: %v", err)
	}
	if err := call.ViewRemoteVideo(sid, 0, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // what was in flight arrives
	st0, w0 := call.RemoteVideoStats()[sid], written.Load()
	time.Sleep(2 * time.Second)
	st1, w1 := call.RemoteVideoStats()[sid], written.Load()
	t.Logf("hidden: %d packets, %d frames arrived in 2 s while the checker wrote %d frames", st1.Packets-st0.Packets, st1.Frames-st0.Frames, w1-w0)
	if st1.Enabled || w1-w0 < 10 {
		t.Fatalf("stats %+v, checker wrote %d frames", st1, w1-w0)
	}
	if st1.Frames != st0.Frames || st1.Packets-st0.Packets > 5 {
		t.Fatalf("video still arrives while hidden: %d packets, %d frames", st1.Packets-st0.Packets, st1.Frames-st0.Frames)
	}
	if err := call.ViewRemoteVideo(sid, 320, 240); err != nil {
		t.Fatal(err)
	}
	// decoding resumes from a key frame: the first frame seen (polled
	// every 50 ms, at 10 frames a second) comes with one more key frame
	waitFor(t, 10*time.Second, "a frame once shown", func() bool { return call.RemoteVideoStats()[sid].Frames > st1.Frames })
	if st := call.RemoteVideoStats()[sid]; st.KeyFrames == st1.KeyFrames {
		t.Fatalf("decoding resumed without a key frame: %+v, before %+v", st, st1)
	}
	waitFor(t, 10*time.Second, "frames again once shown", func() bool { return call.RemoteVideoStats()[sid].Frames >= st1.Frames+5 })
	if st := call.RemoteVideoStats()[sid]; !st.Enabled || st.Width != 320 || st.Height != 240 {
		t.Fatalf("stats after showing: %+v", st)
	}
}
