package fyner

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // decoders for Image components
	_ "image/jpeg" // decoders for Image components
	_ "image/png"  // decoders for Image components
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Image limits of HTTPImageLoader's zero fields.
const (
	DefaultMaxImageBytes = 10 << 20
	DefaultImageTimeout  = 10 * time.Second
	defaultMaxPixels     = 40_000_000
	defaultMaxCached     = 64
)

// ImageLoader loads the pictures of Image components and video posters.
type ImageLoader interface {
	// Load fetches and decodes rawURL and calls done once, on the Fyne
	// goroutine (possibly before Load returns, from a cache).
	Load(rawURL string, done func(image.Image, error))
}

// HTTPImageLoader loads http(s) and data: images with size and time
// limits, decoding PNG, JPEG and GIF, and keeps the last images in a
// small cache. Other schemes (file:, ftp:, javascript:, …) are refused.
// Use it on the Fyne goroutine; downloads run on their own goroutines.
type HTTPImageLoader struct {
	// Client fetches http(s) images; nil means a client that follows at
	// most five redirects, to http(s) only.
	Client *http.Client
	// MaxBytes bounds an image's encoded size; 0 means 10 MB.
	MaxBytes int64
	// Timeout bounds a download; 0 means 10 s.
	Timeout time.Duration
	// MaxPixels bounds the decoded size; 0 means 40 million pixels.
	MaxPixels int

	do    func(func())
	cache map[string]*imageEntry
	order []string
}

type imageEntry struct {
	loading bool
	img     image.Image
	err     error
	waiters []func(image.Image, error)
}

// NewHTTPImageLoader returns a loader that hands results back through do
// (fyne.Do in an app).
func NewHTTPImageLoader(do func(func())) *HTTPImageLoader {
	return &HTTPImageLoader{do: do, cache: map[string]*imageEntry{}}
}

// Load implements ImageLoader.
func (l *HTTPImageLoader) Load(rawURL string, done func(image.Image, error)) {
	if e, ok := l.cache[rawURL]; ok {
		if e.loading {
			e.waiters = append(e.waiters, done)
			return
		}
		done(e.img, e.err)
		return
	}
	e := &imageEntry{loading: true, waiters: []func(image.Image, error){done}}
	l.cache[rawURL] = e
	l.order = append(l.order, rawURL)
	l.evict()
	go func() {
		timeout := l.Timeout
		if timeout <= 0 {
			timeout = DefaultImageTimeout
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		img, err := l.fetchImage(ctx, rawURL)
		l.do(func() {
			e.loading, e.img, e.err = false, img, err
			ws := e.waiters
			e.waiters = nil
			for _, w := range ws {
				w(img, err)
			}
		})
	}()
}

// evict drops the oldest finished entries above the cache size.
func (l *HTTPImageLoader) evict() {
	for len(l.order) > defaultMaxCached {
		victim := -1
		for i, k := range l.order {
			if e := l.cache[k]; e != nil && !e.loading {
				victim = i
				break
			}
		}
		if victim < 0 {
			return
		}
		delete(l.cache, l.order[victim])
		l.order = append(l.order[:victim], l.order[victim+1:]...)
	}
}

func (l *HTTPImageLoader) fetchImage(ctx context.Context, rawURL string) (image.Image, error) {
	data, err := l.Fetch(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	max := l.MaxPixels
	if max <= 0 {
		max = defaultMaxPixels
	}
	return decodeImage(data, max)
}

// Fetch returns the bytes of an http(s) or data: image URL within the
// limits, or an error saying why not (ErrImageScheme, ErrImageTooLarge,
// ErrImageTimeout, ErrNotImage, …).
func (l *HTTPImageLoader) Fetch(ctx context.Context, rawURL string) ([]byte, error) {
	max := l.MaxBytes
	if max <= 0 {
		max = DefaultMaxImageBytes
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrImageScheme, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "data":
		return decodeDataURL(rawURL, max)
	case "http", "https":
	default:
		return nil, fmt.Errorf("%w (not %q)", ErrImageScheme, u.Scheme)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrImageScheme, err)
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif")
	resp, err := l.client().Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, ErrImageTimeout
		}
		return nil, fmt.Errorf("fyner: image from %s: %w", u.Hostname(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("fyner: image from %s: %s", u.Hostname(), resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "" && !strings.HasPrefix(mt, "image/") && mt != "application/octet-stream" {
			return nil, fmt.Errorf("%w: %s sent %s", ErrNotImage, u.Hostname(), mt)
		}
	}
	if resp.ContentLength > max {
		return nil, ErrImageTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, ErrImageTimeout
		}
		return nil, fmt.Errorf("fyner: image from %s: %w", u.Hostname(), err)
	}
	if int64(len(data)) > max {
		return nil, ErrImageTooLarge
	}
	return data, nil
}

func (l *HTTPImageLoader) client() *http.Client {
	if l.Client != nil {
		return l.Client
	}
	return &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if s := req.URL.Scheme; s != "http" && s != "https" {
			return ErrImageScheme
		}
		return nil
	}}
}

// decodeDataURL reads a data: URL of an image (base64 or percent-encoded).
func decodeDataURL(raw string, max int64) ([]byte, error) {
	rest := raw[len("data:"):]
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, fmt.Errorf("%w: malformed data URL", ErrNotImage)
	}
	b64 := strings.HasSuffix(strings.ToLower(meta), ";base64")
	mt := strings.TrimSuffix(strings.TrimSuffix(meta, ";base64"), ";BASE64")
	if mt != "" && !strings.HasPrefix(strings.ToLower(mt), "image/") {
		return nil, fmt.Errorf("%w: %s", ErrNotImage, mt)
	}
	if int64(len(payload)) > max*4/3+4 {
		return nil, ErrImageTooLarge
	}
	var data []byte
	var err error
	if b64 {
		data, err = base64.StdEncoding.DecodeString(strings.TrimSpace(payload))
		if err != nil {
			data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(strings.TrimSpace(payload), "="))
		}
	} else {
		var s string
		s, err = url.PathUnescape(payload)
		data = []byte(s)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	if int64(len(data)) > max {
		return nil, ErrImageTooLarge
	}
	return data, nil
}

// decodeImage decodes PNG, JPEG or GIF data of at most maxPixels.
func decodeImage(data []byte, maxPixels int) (image.Image, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPixels {
		return nil, fmt.Errorf("%w: %d×%d pixels", ErrImageTooLarge, cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	return img, nil
}
