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

// VoiceEnabled reports whether the agent speaks with a synthetic voice and
// the user's own voice played back (Opus through the SDK's PCMLocalTrack
// and libopus), and hears the user by decoding the user's Opus. Without
// cgo, or with -tags nomedia, it publishes Opus silence instead and only
// guesses voice from packet sizes.
const VoiceEnabled = true

// pcmVoice feeds speech into the SDK's PCM track, which encodes it to Opus
// in 20 ms frames (silence between utterances).
type pcmVoice struct {
	track *lkmedia.PCMLocalTrack

	play   sync.Mutex // one utterance at a time
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

// Speak writes d of synthetic speech (see play).
func (v *pcmVoice) Speak(ctx context.Context, d time.Duration) error {
	return v.write(ctx, int(d.Seconds()*voiceRate), v.synth.fill)
}

// Play writes recorded audio (48 kHz mono) as the agent's voice (see play).
func (v *pcmVoice) Play(ctx context.Context, pcm []int16) error {
	off := 0
	return v.write(ctx, len(pcm), func(buf []int16) {
		off += copy(buf, pcm[off:])
	})
}

// write writes n samples made by fill, paced in 100 ms chunks so that an
// interrupt silences it within about 100 ms, then waits for them to play
// out. When ctx ends the queued audio is dropped at once.
func (v *pcmVoice) write(ctx context.Context, n int, fill func([]int16)) error {
	const chunk = 100 * time.Millisecond
	v.play.Lock()
	defer v.play.Unlock()
	tick := time.NewTicker(chunk)
	defer tick.Stop()
	per := int(chunk.Seconds() * voiceRate)
	for left := n; left > 0; left -= per {
		buf := make(msdk.PCM16Sample, min(left, per))
		v.mu.Lock()
		if v.closed {
			v.mu.Unlock()
			return errVoiceClosed
		}
		fill(buf)
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

// ear decodes the user's Opus packets with libopus (through media-sdk) to
// 48 kHz mono PCM.
type ear struct {
	dec opus.Writer
	pcm []int16
}

func newEar() *ear {
	e := &ear{}
	if dec, err := opus.Decode(earSink{e}, 1, logger.GetDiscardLogger()); err == nil {
		e.dec = dec
	}
	return e
}

// hear decodes one packet: its PCM (valid until the next call; nil when
// it does not decode) and its level (RMS, 0..1 of full scale).
func (e *ear) hear(payload []byte) ([]int16, float64) {
	e.pcm = e.pcm[:0]
	if e.dec == nil || e.dec.WriteSample(opus.Sample(payload)) != nil || len(e.pcm) == 0 {
		return nil, 0
	}
	return e.pcm, rmsLevel(e.pcm)
}

type earSink struct{ e *ear }

func (s earSink) WriteSample(pcm msdk.PCM16Sample) error {
	s.e.pcm = append(s.e.pcm, pcm...)
	return nil
}

func (s earSink) SampleRate() int { return voiceRate }
func (s earSink) String() string  { return "devagent-ear" }
func (s earSink) Close() error    { return nil }
