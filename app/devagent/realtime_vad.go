package devagent

import (
	"math"
	"time"
)

// The agent's ear: a voice activity detector (VAD) over the user's decoded
// audio, 20 ms frame by frame, and a recorder of each turn for the parrot
// reply. It is written by hand because it is a dozen lines of arithmetic:
// the VADs of the libraries in go.mod (WebRTC's, inside the app's audio
// processing) live on the app's side or need cgo on both.
//
// A frame is voiced when its RMS is at least vadThreshold (−36 dBFS) and at
// least vadSNR (+9 dB) above the noise floor, which is the quietest frame
// of the last vadFloorFrames (2 s; "minimum statistics"): steady sounds
// (a fan, a hum, a test tone) raise the floor within 2 s and stop counting
// as voice, while speech keeps dipping between syllables and words.
//
// Speech starts (vadOnset) when 6 of the last 8 frames are voiced, i.e.
// 120 ms of voice within 160 ms: the earliest onset is 120 ms after the
// first voiced frame. It ends (vadTurnEnd) after vadHangover (500 ms) of
// frames without voice. A turn is something the agent answers when it held
// at least vadMinTurn (300 ms) of voiced frames; shorter ones (a cough, a
// click) are ignored.
const (
	vadFrame       = 20 * time.Millisecond
	vadThreshold   = voiceRMS / 32768.0 // RMS as a fraction of full scale
	vadSNR         = 2.8                // amplitude ratio: +9 dB
	vadFloorFrames = 100                // 2 s
	vadWindow      = 8                  // frames looked at for the onset
	vadOnsetFrames = 6                  // voiced frames among them
	vadHangover    = 25                 // 500 ms
	vadMinTurn     = 15                 // 300 ms
	// voiceRMS is −36 dBFS as a 16-bit RMS.
	voiceRMS = 500
)

// Turn recording.
const (
	// maxClip caps the recording of one turn (10 s at 48 kHz).
	maxClip = 10 * voiceRate
	// clipTail is how much of the hangover's silence the clip keeps.
	clipTail = 5 // frames
)

type vadEvent int

const (
	vadNone    vadEvent = iota
	vadOnset            // the user started speaking
	vadTurnEnd          // the user stopped speaking (turn.voiced says how much)
)

// vad classifies frames by their level (RMS, 0..1 of full scale).
type vad struct {
	levels   [vadFloorFrames]float64 // the last frames' levels, for the floor
	n        int                     // frames seen
	recent   uint16                  // bit i: the frame i frames ago was voiced
	speaking bool
	quiet    int // frames without voice since the last voiced one (in a turn)
	voiced   int // voiced frames in the current turn
}

// floor is the quietest level of the frames before this one (0 until the
// detector has heard any: the absolute threshold decides alone).
func (v *vad) floor() float64 {
	if v.n == 0 {
		return 0
	}
	f := v.levels[0]
	for i := 1; i < min(v.n, vadFloorFrames); i++ {
		f = min(f, v.levels[i])
	}
	return f
}

// push takes the next frame's level and says whether speech started or a
// turn ended with it.
func (v *vad) push(level float64) vadEvent {
	on := level >= vadThreshold && level >= vadSNR*v.floor()
	v.levels[v.n%vadFloorFrames] = level
	v.n++
	v.recent <<= 1
	if on {
		v.recent |= 1
	}
	if !v.speaking {
		if ones(v.recent&(1<<vadWindow-1)) >= vadOnsetFrames {
			v.speaking, v.quiet = true, 0
			v.voiced = ones(v.recent & (1<<vadWindow - 1))
			return vadOnset
		}
		return vadNone
	}
	if on {
		v.voiced++
		v.quiet = 0
		return vadNone
	}
	v.quiet++
	if v.quiet >= vadHangover {
		v.speaking = false
		v.recent = 0
		return vadTurnEnd
	}
	return vadNone
}

func ones(x uint16) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// turnRecorder keeps the user's audio of the current turn: the frames of
// the onset window before speech was detected (so the first syllable is
// not cut), then every frame until the turn ends, at most maxClip.
type turnRecorder struct {
	pre    [vadWindow][]int16 // the last frames before the onset (ring)
	preN   int                // frames put in pre since the last onset
	clip   []int16
	frames int // frames in the turn
}

// add records one frame (pcm may be nil: no decoder) given what the VAD
// said of it; speaking says the VAD is in a turn.
func (t *turnRecorder) add(pcm []int16, ev vadEvent, speaking bool) {
	switch {
	case ev == vadOnset:
		t.clip, t.frames = t.clip[:0], 0
		for i := max(0, t.preN-(vadWindow-1)); i < t.preN; i++ {
			t.record(t.pre[i%vadWindow])
		}
		t.preN = 0
		t.record(pcm)
	case speaking || ev == vadTurnEnd:
		t.record(pcm)
	default:
		slot := t.preN % vadWindow
		t.pre[slot] = append(t.pre[slot][:0], pcm...)
		t.preN++
	}
}

func (t *turnRecorder) record(pcm []int16) {
	t.frames++
	if len(t.clip)+len(pcm) <= maxClip {
		t.clip = append(t.clip, pcm...)
	}
}

// take returns the turn's recording without most of the trailing silence
// (a copy; nil without a decoder) and the turn's length.
func (t *turnRecorder) take() ([]int16, time.Duration) {
	frames := max(0, t.frames-(vadHangover-clipTail))
	t.frames = 0
	d := time.Duration(frames) * vadFrame
	if len(t.clip) == 0 {
		return nil, d
	}
	n := min(len(t.clip), frames*voiceFrame)
	out := append([]int16(nil), t.clip[:n]...)
	t.clip = t.clip[:0]
	return out, d
}

// rmsLevel is the RMS of pcm as a fraction of full scale.
func rmsLevel(pcm []int16) float64 {
	if len(pcm) == 0 {
		return 0
	}
	var sum float64
	for _, v := range pcm {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum/float64(len(pcm))) / 32768
}
