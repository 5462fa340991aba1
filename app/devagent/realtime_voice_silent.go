//go:build !cgo || nomedia

package devagent

import (
	"context"
	"sync"
	"time"

	"github.com/pion/webrtc/v4"
	pmedia "github.com/pion/webrtc/v4/pkg/media"
)

// VoiceEnabled reports whether the agent speaks with a synthetic voice.
// This build (no cgo, or -tags nomedia) has no Opus encoder: the agent
// publishes Opus silence frames while it "speaks", so its track, its
// lk.agent.state attribute and barge-in still work.
const VoiceEnabled = false

// opusSilence is one 20 ms Opus frame of silence (TOC 0xf8: CELT
// fullband 20 ms, mono, one frame).
var opusSilence = []byte{0xf8, 0xff, 0xfe}

type silentVoice struct {
	track *webrtc.TrackLocalStaticSample

	mu     sync.Mutex
	closed bool
}

func newVoiceTrack() (voiceTrack, error) {
	t, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2},
		"agent-voice", "agent")
	if err != nil {
		return nil, err
	}
	return &silentVoice{track: t}, nil
}

func (v *silentVoice) Track() webrtc.TrackLocal { return v.track }

// Speak sends d of silence frames in real time.
func (v *silentVoice) Speak(ctx context.Context, d time.Duration) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for left := d; left > 0; left -= 20 * time.Millisecond {
		v.mu.Lock()
		closed := v.closed
		v.mu.Unlock()
		if closed {
			return errVoiceClosed
		}
		if err := v.track.WriteSample(pmedia.Sample{Data: opusSilence, Duration: 20 * time.Millisecond}); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

func (v *silentVoice) Close() error {
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	return nil
}

// newVoiceMeter, without an Opus decoder, takes every packet larger than
// Opus DTX silence for voice; a client that sends encoded silence (libopus
// without DTX) is "heard" too.
func newVoiceMeter() func(payload []byte) bool {
	return func(p []byte) bool { return len(p) > voicedBytes }
}
