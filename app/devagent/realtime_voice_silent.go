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

// voicedBytes: Opus DTX silence is a few bytes; without an Opus decoder
// larger packets count as voice.
const voicedBytes = 12

// opusSilence is one 20 ms Opus frame of silence (TOC 0xf8: CELT
// fullband 20 ms, mono, one frame).
var opusSilence = []byte{0xf8, 0xff, 0xfe}

type silentVoice struct {
	track *webrtc.TrackLocalStaticSample

	play   sync.Mutex // one utterance at a time
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
	v.play.Lock()
	defer v.play.Unlock()
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

// Play sends as much silence as pcm lasts (there is no encoder).
func (v *silentVoice) Play(ctx context.Context, pcm []int16) error {
	return v.Speak(ctx, time.Duration(len(pcm))*time.Second/voiceRate)
}

func (v *silentVoice) Close() error {
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	return nil
}

// ear, without an Opus decoder, takes every packet larger than Opus DTX
// silence (voicedBytes) for a voiced frame at full level and has no PCM. A
// client that sends encoded silence (libopus without DTX) sounds like a
// steady tone to the VAD, which its noise floor then ignores.
type ear struct{}

func newEar() *ear { return &ear{} }

func (e *ear) hear(payload []byte) ([]int16, float64) {
	if len(payload) > voicedBytes {
		return nil, 1
	}
	return nil, 0
}
