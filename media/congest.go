//go:build !nomedia

package media

import (
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/interceptor"

	"aimdesk/media/congestion"
)

// interceptorsHook lets tests put their own interceptors on every
// connection of a call, closest to the network (before congestion
// control's pacer, so they see packets as they leave).
var interceptorsHook func() []interceptor.Factory

// adaptEvery is how often (in level ticks of 1/30 s) the video targets
// follow the estimate: about 10 times a second.
const adaptEvery = 3

// overshoot: an encoder making this many times its target over a second
// steps its ladder down (congestion.Ladder.Overshoot).
const overshoot = 1.5

// staleQueue is how much queued video (at the pacing rate) makes
// adaptVideo ask for a keyframe instead.
const staleQueue = time.Second

// ccOptions are the SDK options that put congestion control (and the
// test interceptors) on a new connection. The SDK's own interceptors
// (NACK, RTCP reports, TWCC feedback for what we receive) stay.
func (c *Call) ccOptions() []lksdk.ConnectOption {
	var fs []interceptor.Factory
	if h := interceptorsHook; h != nil {
		fs = append(fs, h()...)
	}
	ccs, err := c.cc.Interceptors()
	if err != nil {
		c.log.Warn("congestion control off", "err", err)
	} else {
		fs = append(fs, ccs...)
	}
	if len(fs) == 0 {
		return nil
	}
	return []lksdk.ConnectOption{lksdk.WithInterceptors(fs), lksdk.WithIncludeDefaultInterceptors(true)}
}

// videoLimit is what a video track may use at most: its preset's (or
// options') bit rate, size and frame rate.
func (v *videoOut) limitOr(bitRate int) congestion.Video {
	l := v.limit
	if l.BitRate == 0 {
		l.BitRate = bitRate
	}
	return l
}

// adaptVideo sets the video encoders' targets from the send-side
// estimate: the estimate minus audio and headroom (congestion.VideoBudget)
// goes to the screen share (70 % of it when the camera is on too) and the
// camera; each track's ladder lowers its frame rate and size when its
// share is small. Nothing changes before the first TWCC feedback.
func (c *Call) adaptVideo() {
	st := c.cc.Stats()
	if st.Estimate <= 0 || (c.screen == nil && c.camera == nil) {
		return
	}
	budget := congestion.VideoBudget(st.Estimate, st.AudioBitRate)
	now := time.Now()
	shares := map[*videoOut]float64{c.screen: 1, c.camera: 1}
	if c.screen != nil && c.camera != nil {
		shares[c.screen], shares[c.camera] = 0.7, 0.3
	}
	total := 0
	for _, v := range []*videoOut{c.screen, c.camera} {
		if v == nil {
			continue
		}
		// the encoder's output over ≥ 1 s: far above its target, fewer frames
		if b := v.pub.BytesSent(); v.rateAt.IsZero() {
			v.rateAt, v.rateBytes = now, b
		} else if dt := now.Sub(v.rateAt); dt >= time.Second {
			made := float64(b-v.rateBytes) * 8 / dt.Seconds()
			v.rateAt, v.rateBytes = now, b
			if made > overshoot*float64(v.target.BitRate) && v.target.BitRate < v.limit.BitRate {
				v.ladder.Overshoot(now)
			}
		}
		t := v.ladder.Next(int(shares[v]*float64(budget)), v.limitOr(1_000_000), now)
		total += t.BitRate // the pacer drains at the rate before pushback
		t.BitRate = congestion.Pushback(t.BitRate, st.QueueDelay)
		if t != v.target {
			v.target = t
			v.pub.SetTarget(t.BitRate, t.MaxWidth, t.MaxHeight, t.FPS)
		}
	}
	c.cc.SetVideoTarget(total)
	c.videoKeyFrames(st, now)
}

// videoKeyFrames asks the video encoders for the keyframes congestion
// control needs (adaptVideo).
func (c *Call) videoKeyFrames(st congestion.Stats, now time.Time) {
	// a lossy feedback report (≥ 10 %: the odd loss is repaired by a
	// retransmission, keyframe packets only, or the receiver's PLI), or a
	// lossy window of the SFU's NACKs (≥ 30 %, often 0.5 s before the
	// report: congestion.nackMeter), said a
	// packet was lost that left after the track's last keyframe (the
	// receiver is missing part of a frame: every frame after
	// it is undecodable until a keyframe, and on a full link a
	// retransmission comes late or is lost too), or the pacer dropped an
	// overlong queue: a keyframe now, made at the new rate and to
	// KeyFrameBudget (the pacer drops the video it makes useless). A loss
	// from before the last keyframe needs none: that keyframe repairs it
	// (a keyframe per lossy report after the uplink fell made each new one
	// replace the last before it arrived). Seconds of old video queued
	// (the estimate fell) ask for one too when the last keyframe was well
	// smaller than the queue (else the keyframe takes longer).
	lost := st.LastLoss.After(c.ccLossAt)
	if lost {
		c.ccLossAt = st.LastLoss
	}
	overflow := st.QueueOverflows > c.ccOverflows
	c.ccOverflows = st.QueueOverflows
	stale := st.QueueDelay > staleQueue && now.Sub(c.ccKeyAt) > 2*staleQueue
	if stale {
		c.ccKeyAt = now
	}
	for _, v := range []*videoOut{c.screen, c.camera} {
		if v == nil {
			continue
		}
		if overflow || (lost && st.LastLoss.After(v.pub.LastKeyFrameAt())) ||
			(stale && st.Queued > 2*v.pub.LastKeyFrameSize()) {
			v.pub.RequestKeyFrameLimited()
		}
	}
}

// sendVideoStats fills the congestion-control figures of the call
// statistics.
func (c *Call) sendVideoStats(cs *CallStats) {
	st := c.cc.Stats()
	cs.UplinkEstimate = st.Estimate
	cs.VideoTargetBitRate = 0
	for _, v := range []*videoOut{c.screen, c.camera} {
		if v != nil {
			cs.VideoTargetBitRate += v.target.BitRate
		}
	}
}

// uplinkEstimate is the send-side estimate in bit/s, 0 before feedback.
func (c *Call) uplinkEstimate() int { return c.cc.Stats().Estimate }
