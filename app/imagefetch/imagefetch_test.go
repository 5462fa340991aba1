package imagefetch

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.NRGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngClaiming is a 1×1 PNG whose header says w×h (a pixel bomb when big).
func pngClaiming(t *testing.T, w, h uint32) []byte {
	t.Helper()
	b := pngOf(t, 1, 1)
	// signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), …, CRC over type and data
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// imageServer serves the test images and failures on loopback.
func imageServer(t *testing.T, small []byte) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(small)
	})
	mux.HandleFunc("/octet", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(small)
	})
	mux.HandleFunc("/declared-big.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", strconv.Itoa(MaxBytes+1))
		_, _ = w.Write(make([]byte, 1024))
	})
	mux.HandleFunc("/streamed-big.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.(http.Flusher).Flush() // no Content-Length: the cap applies while reading
		chunk := make([]byte, 1<<20)
		for i := 0; i <= MaxBytes>>20; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<html>"))
	})
	mux.HandleFunc("/slow.png", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	})
	mux.HandleFunc("/slow-body.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(small[:8])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://127.0.0.1/a.png", http.StatusFound)
	})
	// /hops/n redirects n more times, then serves the image.
	mux.HandleFunc("/hops/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hops/"))
		if n <= 0 {
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(small)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hops/%d", n-1), http.StatusFound)
	})
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

func TestImageFetch(t *testing.T) {
	small := pngOf(t, 4, 3)
	srv := imageServer(t, small)
	b64 := base64.StdEncoding.EncodeToString(small)
	quick := &Fetcher{Agent: srv.URL, Timeout: 300 * time.Millisecond}
	tiny := &Fetcher{Agent: srv.URL, MaxBytes: 1024}
	tests := []struct {
		name    string
		f       *Fetcher
		url     string
		wantErr error // nil: want small
	}{
		{"http png", nil, srv.URL + "/ok.png", nil},
		{"octet-stream", nil, srv.URL + "/octet", nil},
		{"spaces around", nil, "  " + srv.URL + "/ok.png\n", nil},
		{"4 redirects", nil, srv.URL + "/hops/4", nil},
		{"data base64", nil, "data:image/png;base64," + b64, nil},
		{"data BASE64 unpadded", nil, "DATA:image/png;BASE64," + strings.TrimRight(b64, "="), nil},
		{"data no media type", nil, "data:;base64," + b64, nil},
		{"data percent-encoded", nil, "data:image/png," + url.PathEscape(string(small)), nil},

		{"declared too large", nil, srv.URL + "/declared-big.png", ErrTooLarge},
		{"streamed over 10 MB", nil, srv.URL + "/streamed-big.png", ErrTooLarge},
		{"MaxBytes above the cap", &Fetcher{Agent: srv.URL, MaxBytes: 1 << 40}, srv.URL + "/streamed-big.png", ErrTooLarge},
		{"lowered MaxBytes", tiny, srv.URL + "/streamed-big.png", ErrTooLarge},
		{"data too large", tiny, "data:image/png;base64," + base64.StdEncoding.EncodeToString(make([]byte, 2048)), ErrTooLarge},
		{"data over 10 MB", nil, "data:image/png;base64," + base64.StdEncoding.EncodeToString(make([]byte, MaxBytes+1)), ErrTooLarge},
		{"data percent-encoded too large", tiny, "data:image/png," + strings.Repeat("%00", 1024), ErrTooLarge},

		{"html page", nil, srv.URL + "/page.html", ErrNotImage},
		{"data not an image", nil, "data:text/html;base64,PGh0bWw+", ErrNotImage},
		{"data broken base64", nil, "data:image/png;base64,%%%", ErrBadDataURL},
		{"data without comma", nil, "data:image/png;base64", ErrBadDataURL},
		{"data broken percent", nil, "data:image/png,%zz", ErrBadDataURL},
		{"missing", nil, srv.URL + "/nothing.png", ErrStatus},

		{"slow answer", quick, srv.URL + "/slow.png", ErrTimeout},
		{"slow body", quick, srv.URL + "/slow-body.png", ErrTimeout},
		{"5 redirects", nil, srv.URL + "/hops/5", ErrFetch},

		{"file", nil, "file:///etc/passwd", ErrScheme},
		{"FILE upper case", nil, "FILE:///etc/passwd", ErrScheme},
		{"ftp", nil, "ftp://127.0.0.1/a.png", ErrScheme},
		{"javascript", nil, "javascript:alert(1)", ErrScheme},
		{"no scheme", nil, "/ok.png", ErrScheme},
		{"redirect to file", nil, srv.URL + "/to-file", ErrScheme},
		{"redirect to ftp", nil, srv.URL + "/to-ftp", ErrScheme},
		{"redirect to file, own client", &Fetcher{Agent: srv.URL, Client: &http.Client{}}, srv.URL + "/to-file", ErrScheme},
		{"invalid", nil, "http://[::1", ErrInvalidURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data []byte
			var err error
			if tt.f == nil {
				data, err = (&Fetcher{Agent: srv.URL}).Fetch(context.Background(), tt.url)
			} else {
				data, err = tt.f.Fetch(context.Background(), tt.url)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || !bytes.Equal(data, small) {
				t.Fatalf("%d bytes, err %v", len(data), err)
			}
		})
	}
}

func TestImageFetchStatusError(t *testing.T) {
	srv := imageServer(t, nil)
	_, err := (&Fetcher{Agent: srv.URL}).Fetch(context.Background(), srv.URL+"/nothing.png")
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusNotFound || se.Host != "127.0.0.1" || !strings.Contains(se.Status, "404") {
		t.Fatalf("err %#v", err)
	}
}

func TestImageFetchTLSWithOwnClient(t *testing.T) {
	small := pngOf(t, 2, 2)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to-file" {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
			return
		}
		_, _ = w.Write(small)
	}))
	defer srv.Close()
	f := &Fetcher{Agent: srv.URL, Client: srv.Client()}
	if data, err := f.Fetch(context.Background(), srv.URL+"/a.png"); err != nil || !bytes.Equal(data, small) {
		t.Fatalf("%d bytes, err %v", len(data), err)
	}
	if _, err := f.Fetch(context.Background(), srv.URL+"/to-file"); !errors.Is(err, ErrScheme) {
		t.Fatalf("redirect to file: %v", err)
	}
}

func TestImageDecode(t *testing.T) {
	var gifBuf, jpegBuf bytes.Buffer
	src := image.NewNRGBA(image.Rect(0, 0, 5, 4))
	if err := gif.Encode(&gifBuf, src, nil); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpegBuf, src, nil); err != nil {
		t.Fatal(err)
	}
	small := pngOf(t, 4, 3)
	tests := []struct {
		name    string
		f       *Fetcher
		data    []byte
		wantErr error // nil: want a decoded image
	}{
		{"png", nil, small, nil},
		{"gif", nil, gifBuf.Bytes(), nil},
		{"jpeg", nil, jpegBuf.Bytes(), nil},
		{"at lowered MaxPixels", &Fetcher{MaxPixels: 12}, small, nil},
		{"over lowered MaxPixels", &Fetcher{MaxPixels: 11}, small, ErrTooManyPixels},
		{"pixel bomb", nil, pngClaiming(t, 10001, 10001), ErrTooManyPixels},
		{"just over 40 million pixels", nil, pngClaiming(t, 8000, 5001), ErrTooManyPixels},
		{"pixel bomb is too large", nil, pngClaiming(t, 10001, 10001), ErrTooLarge},
		{"MaxPixels above the cap", &Fetcher{MaxPixels: 1 << 40}, pngClaiming(t, 10001, 10001), ErrTooManyPixels},
		{"65535×65535", nil, pngClaiming(t, 65535, 65535), ErrTooManyPixels},
		{"overflowing header", nil, pngClaiming(t, 1<<31-1, 1<<31-1), ErrNotImage},
		{"text", nil, []byte("<html>"), ErrNotImage},
		{"truncated png", nil, small[:len(small)-20], ErrNotImage},
		{"empty", nil, nil, ErrNotImage},
		{"over 10 MB", nil, append(append([]byte{}, small...), make([]byte, MaxBytes)...), ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var img image.Image
			var err error
			if tt.f == nil {
				img, err = Decode(tt.data)
			} else {
				img, err = tt.f.Decode(tt.data)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || img == nil || img.Bounds().Empty() {
				t.Fatalf("image %v, err %v", img, err)
			}
		})
	}
}

func TestImageLoad(t *testing.T) {
	bomb := pngClaiming(t, 10001, 10001)
	small := pngOf(t, 8, 6)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bomb.png" {
			_, _ = w.Write(bomb)
			return
		}
		_, _ = w.Write(small)
	}))
	defer srv.Close()
	f := Fetcher{Agent: srv.URL}
	if img, err := f.Load(context.Background(), srv.URL+"/a.png"); err != nil || img.Bounds().Dx() != 8 {
		t.Fatalf("load: %v %v", img, err)
	}
	if _, err := f.Load(context.Background(), srv.URL+"/bomb.png"); !errors.Is(err, ErrTooManyPixels) {
		t.Fatalf("bomb: %v", err)
	}
	if _, err := f.Load(context.Background(), "file:///etc/passwd"); !errors.Is(err, ErrScheme) {
		t.Fatalf("file: %v", err)
	}
}
