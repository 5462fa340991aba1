package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"aimdesk/assets"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngClaiming is a 1×1 PNG whose header says w×h.
func pngClaiming(t *testing.T, w, h uint32) []byte {
	t.Helper()
	b := pngOf(t, 1, 1)
	// signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), …, CRC over type and data
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// TestImageFetchLimits checks the sentences the placeholder shows for
// imagefetch's refusals; the limits themselves are tested in imagefetch.
func TestImageFetchLimits(t *testing.T) {
	huge := pngClaiming(t, 10001, 10001) // a tiny file that claims 100 megapixels
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/dot.png":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(assets.DemoImage)
		case "/big.png":
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Length", strconv.Itoa(maxImageBytes+1))
			_, _ = w.Write(make([]byte, 1024))
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/page.html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>"))
		case "/bomb.png":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(huge)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	l := newImageLoader(context.Background(), func(f func()) { f() })
	tests := []struct {
		name    string
		url     string
		wantErr string
	}{
		{"png over http", srv.URL + "/dot.png", ""},
		{"data URL", "data:image/png;base64," + base64.StdEncoding.EncodeToString(assets.DemoImage), ""},
		{"declared too large", srv.URL + "/big.png", "more than the 10.0 MB"},
		{"redirected to file", srv.URL + "/to-file", "redirected to an address that is not loaded"},
		{"not an image", srv.URL + "/page.html", "not an image"},
		{"missing", srv.URL + "/nothing.png", "404"},
		{"pixel bomb", srv.URL + "/bomb.png", "too large to show"},
		{"file scheme refused", "file:///etc/passwd", "not loaded"},
		{"broken data URL", "data:image/png;base64,%%%", "not valid base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := l.fetch(context.Background(), tt.url, srv.URL) // a loopback agent
			if err == nil {
				_, err = decodeImage(context.Background(), data)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestImageLoaderCachesAndNotifies(t *testing.T) {
	posted := make(chan func(), 4)
	l := newImageLoader(context.Background(), func(f func()) { posted <- f })
	loads, notified := 0, 0
	load := func(context.Context) ([]byte, error) {
		loads++
		return assets.DemoImage, nil
	}
	e := l.get("k", load, func() { notified++ })
	if e.state != imageLoading {
		t.Fatalf("state %v", e.state)
	}
	if again := l.get("k", load, func() { notified++ }); again != e {
		t.Fatal("a second get started another load")
	}
	select {
	case f := <-posted:
		f() // on the "Fyne goroutine": the test's
	case <-time.After(10 * time.Second):
		t.Fatal("the load did not report back")
	}
	if e.state != imageReady || notified != 2 || loads != 1 {
		t.Fatalf("state %v, notified %d, loads %d", e.state, notified, loads)
	}
	if l.get("k", load, nil) != e || loads != 1 {
		t.Error("a cached image was loaded again")
	}
	if s := fitSize(720, 100); s.Width != maxImageWidth || s.Height != 50 {
		t.Errorf("fitSize(720, 100) = %v", s)
	}
}

// TestAttackImageFromOtherHostNeedsClick: a remote agent's image on
// another host is not fetched by itself: the placeholder names the host and
// offers "Load"; after the click it loads. An image on this machine is
// refused for a remote agent even after a click, without a connection.
func TestAttackImageFromOtherHostNeedsClick(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(assets.DemoImage)
	}))
	defer srv.Close()
	l := newImageLoader(context.Background(), func(f func()) { f() })
	// The agent is on this machine (the reference agent); the image on
	// another loopback origin (another port) is "another host" for the
	// click rule.
	agent := "http://localhost:1/rpc"
	load := func(ctx context.Context) ([]byte, error) { return l.fetch(ctx, srv.URL+"/x.png", agent) }
	var e *imageEntry
	done := make(chan struct{}, 4)
	e = l.get("k", load, func() { done <- struct{}{} })
	<-done
	if e.state != imageFailed || e.host != "127.0.0.1" || hits.Load() != 0 {
		t.Fatalf("state %v host %q, %d requests", e.state, e.host, hits.Load())
	}
	v := newImageView()
	approved := ""
	v.onLoad = func(h string) { approved = h }
	v.set(e, "x.png")
	if !v.load.Visible() || !strings.Contains(v.label.Text, "127.0.0.1") {
		t.Fatalf("placeholder %q, Load shown %v", v.label.Text, v.load.Visible())
	}
	test.Tap(v.load)
	if approved != "127.0.0.1" {
		t.Fatalf("Load approved %q", approved)
	}
	l.approve(approved)
	e = l.get("k", load, func() { done <- struct{}{} })
	<-done
	if e.state != imageReady || hits.Load() != 1 {
		t.Fatalf("after Load: state %v (%s), %d requests", e.state, e.err, hits.Load())
	}
	// A remote agent: the approved loopback host is still refused, with no
	// request made.
	_, err := l.fetch(context.Background(), srv.URL+"/y.png", "https://agent.example/rpc")
	if err == nil || !strings.Contains(err.Error(), "local network") || hits.Load() != 1 {
		t.Errorf("remote agent, loopback image: %v, %d requests", err, hits.Load())
	}
}
