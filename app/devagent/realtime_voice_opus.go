//go:build cgo && !nomedia

package devagent

import (
	"context"
	"sync"
	"time"

	msdk "github.com/livekit/media-sdk"
	"github.com/livekit/media-sdk/opus"
	"github.com/livekit/protocol/logger"
	lkmedia "github.com/livekit/server-sdk-go/v2/pkg/media"
	"github.com/pion/webrtc/v4"
)

// VoiceEnabled reports whether the agent speaks with a synthetic voice
// (Opus through the SDK's PCMLocalTrack and libopus). Without cgo, or with
// -tags nomedia, it publishes Opus silence instead.
const VoiceEnabled = true

// pcmVoice feeds synthetic speech into the SDK's PCM track, which encodes
// it to Opus in 20 ms frames (silence between utterances).
type pcmVoice struct {
	track *lkmedia.PCMLocalTrack

	mu     sync.Mutex
	synth  voiceSynth
	closed bool
}

func newVoiceTrack() (voiceTrack, error) {
	t, err := lkmedia.NewPCMLocalTrack(voiceRate, 1, logger.GetDiscardLogger())
	if err != nil {
		return nil, err
	}
	return &pcmVoice{track: t, synth: voiceSynth{seed: 7}}, nil
}

func (v *pcmVoice) Track() webrtc.TrackLocal { return v.track }

// Speak writes d of speech, paced in 100 ms chunks so that an interrupt
// silences it within about 100 ms, then waits for it to play out.
func (v *pcmVoice) Speak(ctx context.Context, d time.Duration) error {
	const chunk = 100 * time.Millisecond
	tick := time.NewTicker(chunk)
	defer tick.Stop()
	for left := d; left > 0; left -= chunk {
		n := int(min(left, chunk).Seconds() * voiceRate)
		buf := make(msdk.PCM16Sample, n)
		v.mu.Lock()
		if v.closed {
			v.mu.Unlock()
			return errVoiceClosed
		}
		v.synth.fill(buf)
		v.mu.Unlock()
		if err := v.track.WriteSample(buf); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			v.track.ClearQueue()
			return ctx.Err()
		case <-tick.C:
		}
	}
	// What is still queued plays within about one chunk.
	select {
	case <-ctx.Done():
		v.track.ClearQueue()
		return ctx.Err()
	case <-time.After(chunk):
		return nil
	}
}

func (v *pcmVoice) Close() error {
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	return v.track.Close()
}

// voiceMeter decodes Opus and reports frames louder than voiceRMS: a
// user's voice, not the encoded silence of a muted or idle microphone
// (libopus without DTX sends about 60 bytes per silent frame).
type voiceMeter struct {
	dec  opus.Writer
	loud bool
}

// voiceRMS is about -36 dBFS.
const voiceRMS = 500

func newVoiceMeter() func(payload []byte) bool {
	m := &voiceMeter{}
	dec, err := opus.Decode(m, 1, logger.GetDiscardLogger())
	if err != nil {
		return func(p []byte) bool { return len(p) > voicedBytes }
	}
	m.dec = dec
	return func(p []byte) bool {
		m.loud = false
		if m.dec.WriteSample(opus.Sample(p)) != nil {
			return false
		}
		return m.loud
	}
}

func (m *voiceMeter) WriteSample(pcm msdk.PCM16Sample) error {
	var sum float64
	for _, v := range pcm {
		sum += float64(v) * float64(v)
	}
	m.loud = len(pcm) > 0 && sum/float64(len(pcm)) > voiceRMS*voiceRMS
	return nil
}

func (m *voiceMeter) SampleRate() int { return voiceRate }
func (m *voiceMeter) String() string  { return "voiceMeter" }
func (m *voiceMeter) Close() error    { return nil }
