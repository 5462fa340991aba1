package video

import (
	"errors"
	"image"
	"io"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/pion/mediadevices/pkg/codec/vpx"
	mdvideo "github.com/pion/mediadevices/pkg/io/video"
	"github.com/pion/mediadevices/pkg/prop"
)

// vp8Run encodes frames with the settings a Publisher uses for kind at fps
// (one frame per 1/fps of wall time: the encoder takes its timestamps from
// the clock) and decodes them with libvpx's decoder. It returns the
// decoded frames and the encoded size of each.
func vp8Run(t testing.TB, kind Kind, o EncoderOptions, fps float64, frames []*image.YCbCr) ([]*image.YCbCr, []int) {
	t.Helper()
	params, err := VP8Params(kind, o, fps)
	if err != nil {
		t.Fatal(err)
	}
	w, h := frames[0].Rect.Dx(), frames[0].Rect.Dy()
	i := 0
	period := time.Duration(float64(time.Second) / fps)
	next := time.Now()
	src := mdvideo.ReaderFunc(func() (image.Image, func(), error) {
		if i >= len(frames) {
			return nil, nil, io.EOF
		}
		time.Sleep(time.Until(next))
		next = next.Add(period)
		f := frames[i]
		i++
		return f, func() {}, nil
	})
	enc, err := params.BuildVideoEncoder(src, prop.Media{Video: prop.Video{Width: w, Height: h}})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	pkts := &packetReader{}
	dec, err := vpx.NewDecoder(pkts, prop.Media{Video: prop.Video{Width: w, Height: h}})
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var out []*image.YCbCr
	var sizes []int
	for range frames {
		b, release, err := enc.Read()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		sizes = append(sizes, len(b))
		if len(b) == 0 {
			release()
			continue
		}
		pkts.push(b)
		release()
		img, _, err := dec.Read()
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		out = append(out, img.(*image.YCbCr))
	}
	return out, sizes
}

// packetReader hands the decoder one encoded frame per Read.
type packetReader struct {
	mu sync.Mutex
	q  [][]byte
}

func (r *packetReader) push(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.q = append(r.q, append([]byte(nil), b...))
}

func (r *packetReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.q) == 0 {
		return 0, errors.New("no frame queued")
	}
	b := r.q[0]
	r.q = r.q[1:]
	if len(b) > len(p) {
		return 0, io.ErrShortBuffer
	}
	return copy(p, b), nil
}

// psnrY is the PSNR in dB of the luma of got against ref (float luma).
func psnrY(got *image.YCbCr, ref []float64) float64 {
	w, h := got.Rect.Dx(), got.Rect.Dy()
	var se float64
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d := float64(got.Y[y*got.YStride+x]) - ref[y*w+x]
			se += d * d
		}
	}
	mse := se / float64(w*h)
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

// noiseFrame is grey with a block of noise of side×side/2 pixels: content
// whose size at a given quantizer the encoder cannot shrink by prediction.
func noiseFrame(w, h, side int, r *rand.Rand) *image.YCbCr {
	f := newI420(w, h)
	for i := range f.Y {
		f.Y[i] = 128
	}
	for i := range f.Cb {
		f.Cb[i], f.Cr[i] = 128, 128
	}
	for y := 0; y < side/2; y++ {
		for x := 0; x < side; x++ {
			f.Y[y*f.YStride+x] = uint8(16 + r.IntN(220))
		}
	}
	return f
}

// TestEncoderBitRate: a stream of changing frames carries about the bit
// rate asked for, at the frame rate of the source (see vp8AssumedFPS).
func TestEncoderBitRate(t *testing.T) {
	const fps, n, target, noiseSide = 5.0, 16, 400_000, 320
	r := rand.New(rand.NewPCG(1, 2))
	frames := make([]*image.YCbCr, n)
	for i := range frames {
		frames[i] = noiseFrame(640, 360, noiseSide, r)
	}
	_, sizes := vp8Run(t, KindScreen, EncoderOptions{BitRate: target}, fps, frames)
	var bytes int
	tail := sizes[len(sizes)/2:] // once the rate control has settled
	for _, s := range tail {
		bytes += s
	}
	got := float64(bytes*8) / (float64(len(tail)) / fps)
	t.Logf("VP8 at %d bit/s asked, %.0f bit/s sent (frame sizes %v)", target, got, sizes)
	if got < 0.5*target || got > 1.6*target {
		t.Errorf("bit rate %.0f, want within 0.5–1.6× of %d", got, target)
	}
}
