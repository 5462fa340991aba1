//go:build !nomedia

package media

import (
	"context"
	"errors"
	"image"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/mediadevices/pkg/codec"
	"github.com/pion/mediadevices/pkg/codec/vpx"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v4"
	pmedia "github.com/pion/webrtc/v4/pkg/media"
	"github.com/pion/webrtc/v4/pkg/media/samplebuilder"
)

// Remote video: every subscribed VP8 track of another participant (the
// agent's avatar or a diagram it shares) is depacketized (pion's sample
// builder), decoded (libvpx through mediadevices, the library that encodes
// ours) and kept as its newest frame only. RemoteVideo hands frames on at
// a bounded rate, newest first: a slow reader skips frames, nothing
// queues. ViewRemoteVideo is adaptive stream: the size shown goes to the
// SFU, and a hidden track is disabled so the SFU stops forwarding it.

// remoteVideoMaxLate is the sample builder's reorder window in packets.
const remoteVideoMaxLate = 128

// pliGap is the least time between two keyframe requests of one track.
const pliGap = 500 * time.Millisecond

// remoteVideo decodes one remote video track on its own goroutine.
type remoteVideo struct {
	sid, identity string
	source        TrackSource
	pub           *lksdk.RemoteTrackPublication
	rp            *lksdk.RemoteParticipant
	track         *webrtc.TrackRemote

	latest                        atomic.Pointer[RemoteFrame]
	packets, frames, keys, errors atomic.Uint64
	closed                        atomic.Bool
	// resumed: the track was enabled again; the receiver waits for a key
	// frame (and asks for one if a delta frame comes first)
	resumed atomic.Bool

	mu      sync.Mutex // guards the view
	enabled bool
	w, h    int
}

// startRemoteVideo starts decoding track (VP8 only; other codecs are read
// and dropped so the receive buffers do not fill).
func startRemoteVideo(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) *remoteVideo {
	v := &remoteVideo{
		sid: pub.SID(), identity: rp.Identity(), source: TrackSource(lowerSource(pub)),
		pub: pub, rp: rp, track: track, enabled: true,
	}
	go v.run()
	return v
}

func lowerSource(pub *lksdk.RemoteTrackPublication) string {
	return strings.ToLower(pub.Source().String())
}

// frameReader hands the decoder the one frame pushed before each Read.
type frameReader struct{ b []byte }

var errNoFrame = errors.New("media: no frame queued")

func (r *frameReader) Read(p []byte) (int, error) {
	if r.b == nil {
		return 0, errNoFrame
	}
	if len(r.b) > len(p) {
		r.b = nil
		return 0, io.ErrShortBuffer
	}
	n := copy(p, r.b)
	r.b = nil
	return n, nil
}

func (v *remoteVideo) run() {
	if !isVP8(v.track.Codec().MimeType) {
		for !v.closed.Load() {
			if _, _, err := v.track.ReadRTP(); err != nil {
				return
			}
			v.packets.Add(1)
		}
		return
	}
	r := &vp8Receiver{v: v, in: &frameReader{}, sb: samplebuilder.New(remoteVideoMaxLate, &codecs.VP8Packet{}, 90000), needKey: true}
	defer r.close()
	for !v.closed.Load() {
		pkt, _, err := v.track.ReadRTP()
		if err != nil {
			return
		}
		v.packets.Add(1)
		r.sb.Push(pkt)
		for s := r.sb.Pop(); s != nil; s = r.sb.Pop() {
			if !r.take(s) {
				return
			}
		}
	}
}

// vp8Receiver decodes a remote VP8 track's frames into remoteVideo.latest,
// asking the sender for a key frame (PLI, at most one per pliGap) after a
// loss until one arrives.
type vp8Receiver struct {
	v       *remoteVideo
	in      *frameReader
	dec     codec.VideoDecoder // made on the first frame to decode
	sb      *samplebuilder.SampleBuilder
	needKey bool
	lastPLI time.Time
}

func (r *vp8Receiver) close() {
	if r.dec != nil {
		_ = r.dec.Close()
	}
}

func (r *vp8Receiver) askKey() {
	r.needKey = true
	if time.Since(r.lastPLI) >= pliGap {
		r.lastPLI = time.Now()
		r.v.rp.WritePLI(r.v.track.SSRC())
	}
}

// take decodes one frame; false when no decoder can be made.
func (r *vp8Receiver) take(s *pmedia.Sample) bool {
	v := r.v
	if s.PrevDroppedPackets > 0 {
		r.askKey()
	}
	if v.resumed.Swap(false) {
		r.needKey = true
	}
	if len(s.Data) == 0 {
		return true
	}
	key := s.Data[0]&1 == 0
	if r.needKey && !key {
		r.askKey()
		return true
	}
	if r.dec == nil {
		d, err := vpx.NewDecoder(r.in, prop.Media{})
		if err != nil {
			v.errors.Add(1)
			return false
		}
		r.dec = d
	}
	r.in.b = s.Data
	img, _, err := r.dec.Read()
	r.in.b = nil
	if errors.Is(err, errNoFrame) {
		return true // a frame that is not shown (VP8 altref)
	}
	if err != nil {
		v.errors.Add(1)
		r.askKey()
		return true
	}
	r.needKey = false
	y, ok := img.(*image.YCbCr)
	if !ok {
		return true
	}
	if key {
		v.keys.Add(1)
	}
	n := v.frames.Add(1)
	v.latest.Store(&RemoteFrame{TrackSID: v.sid, Identity: v.identity, Source: v.source, Image: y, Seq: n})
	return true
}

func isVP8(mime string) bool { return strings.EqualFold(mime, webrtc.MimeTypeVP8) }

// view applies the size shown, or disables the track (w or h ≤ 0).
// Unchanged views send nothing. A track enabled again is decoded from a
// key frame on: the SFU resumes forwarding at one (LiveKit does), and
// should a delta frame come first, it is dropped and a key frame asked
// for, so that nothing is decoded against the picture from before.
func (v *remoteVideo) view(w, h int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if w <= 0 || h <= 0 {
		if v.enabled {
			v.enabled = false
			v.pub.SetEnabled(false)
		}
		return
	}
	if !v.enabled {
		v.enabled = true
		v.resumed.Store(true)
		v.pub.SetEnabled(true)
	}
	if w != v.w || h != v.h {
		v.w, v.h = w, h
		v.pub.SetVideoDimensions(uint32(w), uint32(h)) // #nosec G115 -- positive
	}
}

func (v *remoteVideo) stats() RemoteVideoStats {
	v.mu.Lock()
	defer v.mu.Unlock()
	return RemoteVideoStats{
		Packets: v.packets.Load(), Frames: v.frames.Load(), KeyFrames: v.keys.Load(), Errors: v.errors.Load(),
		Enabled: v.enabled, Width: v.w, Height: v.h,
	}
}

// reconcileVideo starts decoding subscribed remote video tracks and stops
// the ones that went away (call goroutine; see reconcile).
func (c *Call) reconcileVideo(pubs map[string]remoteVideoPub) {
	c.vmu.Lock()
	defer c.vmu.Unlock()
	for sid, p := range pubs {
		if v, ok := c.vids[sid]; ok && v.track == p.track {
			continue
		} else if ok {
			v.closed.Store(true)
		}
		if c.vids == nil {
			c.vids = map[string]*remoteVideo{}
		}
		c.vids[sid] = startRemoteVideo(p.track, p.pub, p.rp)
	}
	for sid, v := range c.vids {
		if _, ok := pubs[sid]; !ok {
			v.closed.Store(true)
			delete(c.vids, sid)
		}
	}
}

// remoteVideoPub is a subscribed remote video track found by reconcile.
type remoteVideoPub struct {
	track *webrtc.TrackRemote
	pub   *lksdk.RemoteTrackPublication
	rp    *lksdk.RemoteParticipant
}

func (c *Call) closeVideos() {
	c.vmu.Lock()
	defer c.vmu.Unlock()
	for sid, v := range c.vids {
		v.closed.Store(true)
		delete(c.vids, sid)
	}
}

func (c *Call) videos() []*remoteVideo {
	c.vmu.Lock()
	defer c.vmu.Unlock()
	out := make([]*remoteVideo, 0, len(c.vids))
	for _, v := range c.vids {
		out = append(out, v)
	}
	return out
}

// RemoteVideo calls fn with the newest decoded frame of each remote video
// track, at most RemoteVideoFPS times a second per track and only when it
// changed, until ctx ends or the call is left. Frames decoded between two
// calls are skipped (the newest wins), so a slow fn never makes frames
// queue. fn runs on RemoteVideo's goroutine.
func (c *Call) RemoteVideo(ctx context.Context, fn func(RemoteFrame)) error {
	seen := map[*remoteVideo]uint64{}
	return c.everyTick(ctx, time.Second/RemoteVideoFPS, func() {
		vs := c.videos()
		live := map[*remoteVideo]bool{}
		for _, v := range vs {
			live[v] = true
			f := v.latest.Load()
			if f == nil || f.Seq == seen[v] {
				continue
			}
			seen[v] = f.Seq
			fn(*f)
		}
		for v := range seen {
			if !live[v] {
				delete(seen, v)
			}
		}
	})
}

// everyTick calls step every interval until ctx ends (its error) or the
// call is left (nil). A slow step may return after ctx ended with a tick
// waiting, and select picks at random: step never runs after the end.
func (c *Call) everyTick(ctx context.Context, interval time.Duration, step func()) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.done:
			return nil
		case <-t.C:
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		step()
	}
}

// ViewRemoteVideo is adaptive stream for the remote video track sid: it
// asks the SFU for the layer that fits w×h pixels (the size shown), or,
// with w or h ≤ 0 (hidden, minimised), disables the track so the SFU
// stops forwarding it until it is shown again. ErrUnknownTrack when the
// call receives no such track.
func (c *Call) ViewRemoteVideo(sid string, w, h int) error {
	c.vmu.Lock()
	v := c.vids[sid]
	c.vmu.Unlock()
	if v == nil {
		return ErrUnknownTrack
	}
	v.view(w, h)
	return nil
}

// RemoteVideoStats reports what arrived of each remote video track, by
// track SID.
func (c *Call) RemoteVideoStats() map[string]RemoteVideoStats {
	out := map[string]RemoteVideoStats{}
	for _, v := range c.videos() {
		out[v.sid] = v.stats()
	}
	return out
}
