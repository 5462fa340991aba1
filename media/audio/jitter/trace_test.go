package jitter

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/hraban/opus.v2"
)

// The traces in testdata are real Opus packets recorded from hraban/opus
// (libopus) with the options below; `go test -run TestTraces -update`
// re-records them. Format: "AJT1", then per packet u32 timestamp offset,
// u16 length, payload (little endian). Sequence numbers are consecutive.

var update = flag.Bool("update", false, "re-record testdata traces")

type tracePkt struct {
	ts      uint32 // offset from the first packet, 48 kHz
	payload []byte
}

type traceSpec struct {
	name   string
	secs   int
	signal func(n int) float64 // sample n at 48 kHz, -1..1
	fec    bool
	dtx    bool
}

var traceSpecs = []traceSpec{
	{name: "voice_fec", secs: 4, signal: voicedSignal, fec: true},
	{name: "voice_nofec", secs: 4, signal: voicedSignal},
	{name: "speech_dtx", secs: 6, signal: speechSignal, fec: true, dtx: true},
}

// voicedSignal is a continuous voiced sound (harmonics of a gliding
// pitch, amplitude-modulated, never quiet): any hole in the playout is a
// run of zeros. libopus' SILK VAD sees it as speech, so FEC is coded.
func voicedSignal(n int) float64 {
	t := float64(n) / Rate
	f0 := 130 + 30*math.Sin(2*math.Pi*0.7*t)
	v := 0.0
	for h := 1; h <= 10; h++ {
		v += math.Sin(2*math.Pi*f0*float64(h)*t+float64(h)) / float64(h)
	}
	return 0.2 * (0.7 + 0.3*math.Sin(2*math.Pi*3*t)) * v
}

// speechSignal is speech-like: voiced syllables (harmonics of a gliding
// pitch, 250 ms with a smooth envelope, 150 ms apart) in words of four,
// separated by 1 s of silence.
func speechSignal(n int) float64 {
	t := float64(n) / Rate
	word := math.Mod(t, 2.6) // 4 syllables of 0.4 s, then 1 s pause
	if word >= 1.6 {
		return 0
	}
	syl := math.Mod(word, 0.4)
	if syl >= 0.25 {
		return 0
	}
	env := math.Sin(math.Pi * syl / 0.25)
	f0 := 120 + 40*math.Sin(2*math.Pi*1.3*t)
	v := 0.0
	for h := 1; h <= 8; h++ {
		v += math.Sin(2*math.Pi*f0*float64(h)*t) / float64(h)
	}
	return 0.25 * env * v
}

func record(s traceSpec) ([]tracePkt, error) {
	enc, err := opus.NewEncoder(Rate, 1, opus.AppVoIP)
	if err != nil {
		return nil, err
	}
	for _, set := range []error{
		enc.SetBitrate(24000), enc.SetMaxBandwidth(opus.Wideband), enc.SetInBandFEC(s.fec),
		enc.SetPacketLossPerc(map[bool]int{true: 20, false: 0}[s.fec]), enc.SetDTX(s.dtx), enc.SetComplexity(5),
	} {
		if set != nil {
			return nil, set
		}
	}
	var out []tracePkt
	pcm := make([]int16, stdFrame)
	buf := make([]byte, 1500)
	inDTX := false
	for f := 0; f < s.secs*50; f++ {
		for i := range pcm {
			pcm[i] = int16(32767 * s.signal(f*stdFrame+i))
		}
		n, err := enc.Encode(pcm, buf)
		if err != nil {
			return nil, err
		}
		// as WebRTC does: a 1–2 byte packet means DTX; send the first only
		if n <= 2 {
			if inDTX {
				continue
			}
			inDTX = true
		} else {
			inDTX = false
		}
		out = append(out, tracePkt{ts: uint32(f * stdFrame), payload: bytes.Clone(buf[:n])})
	}
	return out, nil
}

func tracePath(name string) string { return filepath.Join("testdata", name+".ajt") }

func writeTrace(path string, pkts []tracePkt) error {
	var b bytes.Buffer
	b.WriteString("AJT1")
	for _, p := range pkts {
		_ = binary.Write(&b, binary.LittleEndian, p.ts)
		_ = binary.Write(&b, binary.LittleEndian, uint16(len(p.payload)))
		b.Write(p.payload)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func readTrace(path string) ([]tracePkt, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, []byte("AJT1")) {
		return nil, fmt.Errorf("%s: not a trace", path)
	}
	r := bytes.NewReader(data[4:])
	var out []tracePkt
	for {
		var ts uint32
		var n uint16
		if err := binary.Read(r, binary.LittleEndian, &ts); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return nil, err
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(r, p); err != nil {
			return nil, err
		}
		out = append(out, tracePkt{ts: ts, payload: p})
	}
}

func loadTrace(t testing.TB, name string) []tracePkt {
	t.Helper()
	p, err := readTrace(tracePath(name))
	if err != nil {
		t.Fatalf("%v (record with -update)", err)
	}
	return p
}

// TestTraces re-records the traces with -update and checks what they hold:
// FEC (LBRR) where asked for and detected by hasFEC, DTX pauses as
// timestamp jumps with consecutive packets.
func TestTraces(t *testing.T) {
	for _, s := range traceSpecs {
		t.Run(s.name, func(t *testing.T) {
			if *update {
				pkts, err := record(s)
				if err != nil {
					t.Fatal(err)
				}
				if err := writeTrace(tracePath(s.name), pkts); err != nil {
					t.Fatal(err)
				}
			}
			pkts := loadTrace(t, s.name)
			fec, jumps := 0, 0
			for i, p := range pkts {
				if hasFEC(p.payload) {
					fec++
				}
				if i > 0 && p.ts-pkts[i-1].ts > stdFrame {
					jumps++
				}
			}
			t.Logf("%s: %d packets, %d with FEC, %d DTX jumps", s.name, len(pkts), fec, jumps)
			if s.fec && fec < len(pkts)/2 {
				t.Errorf("FEC in %d of %d packets, want at least half", fec, len(pkts))
			}
			if !s.fec && fec != 0 {
				t.Errorf("FEC detected in %d packets of a trace without FEC", fec)
			}
			if s.dtx && jumps < s.secs/3 {
				t.Errorf("%d DTX jumps, want at least %d", jumps, s.secs/3)
			}
			if !s.dtx && jumps != 0 {
				t.Errorf("%d timestamp jumps without DTX", jumps)
			}
		})
	}
}
