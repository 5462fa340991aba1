package audio

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"aimdesk/media/audio/apm"
)

func TestMixerCopiesPlayoutToFarEnd(t *testing.T) {
	m := NewMixer(200 * time.Millisecond)
	far := NewRing(4096)
	m.SetFarEnd(far)
	a, b := m.NewInput(), m.NewInput()
	in := make([]int16, 480)
	for i := range in {
		in[i] = int16(i * 60) // up to 28740: the sum clips
	}
	a.Write(in)
	b.Write(in)
	out := make([]int16, 480)
	m.Fill(out)
	got := make([]int16, 480)
	if n := far.Read(got); n != 480 {
		t.Fatalf("far end got %d samples, want 480", n)
	}
	for i := range out {
		if got[i] != out[i] {
			t.Fatalf("far end sample %d = %d, played %d", i, got[i], out[i])
		}
	}
	if out[479] != 32767 {
		t.Fatalf("mix did not clip: %d", out[479])
	}
	m.SetFarEnd(nil)
	m.Fill(out)
	if far.Len() != 0 {
		t.Fatalf("far end still fed after SetFarEnd(nil)")
	}
}

// roomSource is a capture Source that plays the mixer in lockstep with
// capture, 10 ms at a time in real time, as a playback and a capture
// device on one clock would: what Fill plays reaches the "microphone"
// delay later at half amplitude. It stands in for a sound card and a room,
// which do not exist here; the publisher, rings and canceller are real.
type roomSource struct {
	m     *Mixer
	delay int // samples

	mu      sync.Mutex
	echoE   float64 // energy of the echo captured after skip samples
	skip    int
	stop    chan struct{}
	done    chan struct{}
	written int
}

func (r *roomSource) Name() string { return "room" }

func (r *roomSource) Start(out *Ring, notify func()) error {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.done)
		line := make([]int16, r.delay) // the acoustic path's delay line
		pos := 0
		play := make([]int16, 480)
		mic := make([]int16, 480)
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-tk.C:
			}
			r.m.Fill(play)
			for i, v := range play {
				mic[i] = line[pos] / 2
				line[pos] = v
				pos = (pos + 1) % len(line)
			}
			r.mu.Lock()
			if r.written >= r.skip {
				for _, v := range mic {
					r.echoE += float64(v) * float64(v)
				}
			}
			r.written += len(mic)
			r.mu.Unlock()
			out.Write(mic)
			notify()
		}
	}()
	return nil
}

func (r *roomSource) Stop() error {
	if r.stop != nil {
		close(r.stop)
		<-r.done
		r.stop = nil
	}
	return nil
}

// TestPublisherCancelsEcho wires a real WebRTC APM, configured as calls
// configure it (apm.CallConfig), between the mixer's far-end tap and the
// publisher: the agent's voice (noise shaped like speech syllables) is
// played, echoed 60 ms later into the microphone, and must be gone from
// what the publisher meters and encodes. The echo reaches the canceller
// through the real feed (real-time callbacks, the far-end lead), so this
// also checks that the double-talk detector (apm.Config.DoubleTalk) does
// not mistake echo for the user.
func TestPublisherCancelsEcho(t *testing.T) {
	if !apm.Available {
		t.Skip("built without WebRTC APM (tag noapm)")
	}
	proc, err := apm.New(apm.CallConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	m := NewMixer(200 * time.Millisecond)
	far := NewRing(SampleRate / 2)
	m.SetFarEnd(far)
	agent := m.NewInput()

	const converge = 2 * time.Second
	room := &roomSource{m: m, delay: SamplesPer(60 * time.Millisecond), skip: SamplesPer(converge)}
	var mu sync.Mutex
	var outE float64
	frames := 0
	pub, err := NewPublisher(PublisherConfig{
		Echo: &EchoConfig{Canceller: proc, FarEnd: far, DeviceDelay: func() time.Duration { return 40 * time.Millisecond }},
		OnFrame: func(f Frame) {
			mu.Lock()
			defer mu.Unlock()
			frames++
			if frames > int(converge/FrameDuration) {
				for _, v := range f.PCM {
					outE += float64(v) * float64(v)
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()

	// the agent talks: band-limited noise in 200 ms syllables, fed in real
	// time a little ahead of playback
	rng := rand.New(rand.NewPCG(1, 2))
	speech := make([]int16, SamplesPer(4*time.Second))
	var lp float64
	for i := range speech {
		env := math.Max(0, math.Sin(2*math.Pi*float64(i)/float64(SamplesPer(400*time.Millisecond))))
		lp = 0.7*lp + 0.3*rng.NormFloat64()
		speech[i] = int16(max(-32767, min(32767, 6000*env*lp)))
	}
	if err := pub.SetSource(room); err != nil {
		t.Fatal(err)
	}
	chunk := SamplesPer(20 * time.Millisecond)
	start := time.Now()
	for off := 0; off < len(speech); off += chunk {
		for agent.Len() > SamplesPer(60*time.Millisecond) {
			time.Sleep(5 * time.Millisecond)
		}
		agent.Write(speech[off:min(len(speech), off+chunk)])
	}
	for agent.Len() > 0 && time.Since(start) < 10*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	_ = pub.SetSource(nil)

	room.mu.Lock()
	echoE := room.echoE
	room.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	refused, _ := pub.EchoErrors()
	st := proc.Stats()
	if echoE == 0 || st.Reverse < 100 || st.Capture < 100 {
		t.Fatalf("no echo simulated: echo energy %v, canceller saw %d far-end and %d capture blocks", echoE, st.Reverse, st.Capture)
	}
	erle := 10 * math.Log10(echoE/math.Max(outE, 1))
	t.Logf("ERLE through the publisher %.1f dB (%d frames; canceller: %d far-end, %d capture blocks, %d refused; suppressor softened for double talk in %d of %d partitions)", erle, frames, st.Reverse, st.Capture, refused, st.DoubleTalkParts, st.SuppressorParts)
	if st.DoubleTalkParts > 50 {
		t.Errorf("the double-talk detector softened the suppressor in %d partitions of echo alone", st.DoubleTalkParts)
	}
	if refused != 0 {
		t.Errorf("%d blocks refused by the canceller", refused)
	}
	if erle < 20 {
		t.Errorf("echo reduced by %.1f dB through the publisher, want ≥ 20 dB", erle)
	}
}

func TestFarEndTrimmedWithoutCapture(t *testing.T) {
	far := NewRing(SampleRate / 2)
	e := newEchoState(&EchoConfig{Canceller: nopCanceller{}, FarEnd: far})
	far.Write(make([]int16, SamplesPer(300*time.Millisecond)))
	e.trim(0)
	if far.Len() != farKeep {
		t.Fatalf("far end holds %d samples after trim, want %d", far.Len(), farKeep)
	}
	if newEchoState(nil) != nil || newEchoState(&EchoConfig{}) != nil {
		t.Fatal("echo state without a canceller")
	}
}

type nopCanceller struct{}

func (nopCanceller) ProcessReverse([]int16) error                        { return nil }
func (nopCanceller) ProcessCapture([]int16, time.Duration) (bool, error) { return false, nil }

// countingCanceller records, for every capture block, how many far-end
// blocks it had been given so far, and the delay it was told.
type countingCanceller struct {
	reverse int
	seen    []int
	delays  []time.Duration
}

func (c *countingCanceller) ProcessReverse([]int16) error { c.reverse++; return nil }
func (c *countingCanceller) ProcessCapture(_ []int16, d time.Duration) (bool, error) {
	c.seen = append(c.seen, c.reverse)
	c.delays = append(c.delays, d)
	return false, nil
}

// TestFarEndFedOncePerCaptureBlock: the playback callback delivers the far
// end in bursts (0 to 4 blocks between two capture frames, as the null
// device and a loaded machine do); the canceller must still get exactly one
// far-end block per capture block once the lead is reached, so the far/near
// offset it sees stays constant, and a steady delay.
func TestFarEndFedOncePerCaptureBlock(t *testing.T) {
	far := NewRing(SampleRate / 2)
	c := &countingCanceller{}
	p := &Publisher{ring: NewRing(SampleRate / 2)}
	p.echo = newEchoState(&EchoConfig{Canceller: c, FarEnd: far, DeviceDelay: func() time.Duration { return 40 * time.Millisecond }})
	blk := make([]int16, echoBlockSamples)
	frame := make([]int16, FrameSamples)
	bursts := []int{4, 0, 2, 0, 4, 1, 3, 2, 0, 4} // 2 blocks per 20 ms frame on average
	for i := 0; i < 500; i++ {
		for range bursts[i%len(bursts)] {
			far.Write(blk)
		}
		p.processCapture(frame)
	}
	// the lead (30 ms) is smaller than this pattern's jitter (40 ms): it
	// grows by a block each time the ring runs dry, then holds
	const settle = 100
	if c.seen[10] == 0 {
		t.Fatalf("far end not fed in the first 10 capture blocks: %v", c.seen[:10])
	}
	for i := settle; i < len(c.seen); i++ {
		if got := c.seen[i] - c.seen[i-1]; got != 1 {
			t.Fatalf("capture block %d: %d far-end blocks since the previous one, want 1", i, got)
		}
	}
	if dry := p.EchoFarDry(); dry > 3 {
		t.Errorf("%d capture blocks without far end, want ≤ 3 (while the lead settles)", dry)
	}
	if _, dropped := p.EchoErrors(); dropped != 0 {
		t.Errorf("%d far-end samples dropped", dropped)
	}
	// the reported delay is steady: the device share minus the lead, within a block
	lo, hi := time.Hour, time.Duration(0)
	for _, d := range c.delays[len(c.delays)/2:] {
		lo, hi = min(lo, d), max(hi, d)
	}
	if hi-lo > 2*time.Millisecond {
		t.Errorf("reported delay varies %v..%v", lo, hi)
	}
}

// TestFarEndDriftStepsOneBlock: when the playback clock runs ahead the
// lead is cut by one block at a time, not back to the start.
func TestFarEndDriftStepsOneBlock(t *testing.T) {
	far := NewRing(SampleRate / 2)
	c := &countingCanceller{}
	p := &Publisher{ring: NewRing(SampleRate / 2)}
	p.echo = newEchoState(&EchoConfig{Canceller: c, FarEnd: far})
	blk := make([]int16, echoBlockSamples)
	frame := make([]int16, FrameSamples)
	for i := 0; i < 300; i++ {
		n := 2
		if i%10 == 0 {
			n = 3 // playback 5 % fast
		}
		for range n {
			far.Write(blk)
		}
		p.processCapture(frame)
		if l := far.Len(); l > farDrift+10*echoBlockSamples { // the average lags
			t.Fatalf("frame %d: far end holds %d samples, drift bound %d", i, l, farDrift)
		}
	}
	_, dropped := p.EchoErrors()
	if dropped == 0 || dropped%uint64(echoBlockSamples) != 0 {
		t.Fatalf("dropped %d far-end samples, want whole blocks", dropped)
	}
	if l := far.Len(); l < farKeep {
		t.Fatalf("far end holds %d samples after drift: cut back too far", l)
	}
}
