package fyner

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.NRGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHTTPImageLoaderFetch checks that the loader's fields and errors reach
// package imagefetch, where the limits themselves are tested.
func TestHTTPImageLoaderFetch(t *testing.T) {
	small := pngBytes(t, 4, 3)
	mux := http.NewServeMux()
	mux.HandleFunc("/ok.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(small)
	})
	mux.HandleFunc("/big.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(bytes.Repeat([]byte{0}, 2048))
	})
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>"))
	})
	mux.HandleFunc("/slow.png", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(small)
	tests := []struct {
		name, url string
		wantErr   error
		wantLen   int
	}{
		{"http", srv.URL + "/ok.png", nil, len(small)},
		{"data base64", dataURL, nil, len(small)},
		{"too large", srv.URL + "/big.png", ErrImageTooLarge, 0},
		{"too large data", "data:image/png;base64," + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 2048)), ErrImageTooLarge, 0},
		{"not an image", srv.URL + "/page.html", ErrNotImage, 0},
		{"data not an image", "data:text/html;base64,PGh0bWw+", ErrNotImage, 0},
		{"timeout", srv.URL + "/slow.png", ErrImageTimeout, 0},
		{"file scheme", "file:///etc/passwd", ErrImageScheme, 0},
		{"ftp scheme", "ftp://example.com/a.png", ErrImageScheme, 0},
		{"javascript", "javascript:alert(1)", ErrImageScheme, 0},
		{"redirect to file", srv.URL + "/to-file", ErrImageScheme, 0},
	}
	l := NewHTTPImageLoader(func(f func()) { f() })
	l.Agent = func() string { return srv.URL } // a loopback agent: its images may be on loopback
	l.MaxBytes = 1024
	l.Timeout = 200 * time.Millisecond
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), l.Timeout)
			defer cancel()
			data, err := l.Fetch(ctx, tt.url)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(data) != tt.wantLen {
				t.Fatalf("%d bytes, err %v", len(data), err)
			}
		})
	}
}

func TestHTTPImageLoaderLoad(t *testing.T) {
	var hits atomic.Int32
	huge, small := pngBytes(t, 100, 100), pngBytes(t, 8, 6)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if strings.HasSuffix(r.URL.Path, "huge.png") {
			_, _ = w.Write(huge)
			return
		}
		_, _ = w.Write(small)
	}))
	defer srv.Close()
	done := make(chan func(), 4)
	l := NewHTTPImageLoader(func(f func()) { done <- f })
	l.Agent = func() string { return srv.URL } // a loopback agent: its images may be on loopback
	l.MaxPixels = 1000
	type result struct {
		img image.Image
		err error
	}
	load := func(url string) result {
		var got result
		ran := false
		l.Load(url, func(img image.Image, err error) { got, ran = result{img, err}, true })
		if !ran {
			select {
			case f := <-done:
				f()
			case <-time.After(5 * time.Second):
				t.Fatal("no result")
			}
		}
		return got
	}
	if r := load(srv.URL + "/a.png"); r.err != nil || r.img.Bounds().Dx() != 8 {
		t.Fatalf("load: %v %v", r.img, r.err)
	}
	if r := load(srv.URL + "/a.png"); r.err != nil || hits.Load() != 1 {
		t.Errorf("cached load: err %v, %d requests", r.err, hits.Load())
	}
	if r := load(srv.URL + "/huge.png"); !errors.Is(r.err, ErrImageTooLarge) {
		t.Errorf("huge image: %v", r.err)
	}
}
