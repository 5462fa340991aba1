package fyner

import (
	"context"
	"image"
	"net/http"
	"time"

	"aimdesk/app/imagefetch"
)

// Image limits of HTTPImageLoader's zero fields (those of package
// imagefetch; the fields can only lower them).
const (
	DefaultMaxImageBytes = imagefetch.MaxBytes
	DefaultImageTimeout  = imagefetch.Timeout
	defaultMaxCached     = 64
)

// ImageLoader loads the pictures of Image components and video posters.
type ImageLoader interface {
	// Load fetches and decodes rawURL and calls done once, on the Fyne
	// goroutine (possibly before Load returns, from a cache).
	Load(rawURL string, done func(image.Image, error))
}

// HTTPImageLoader loads http(s) and data: images with the size, time,
// redirect and pixel limits of package imagefetch, decoding PNG, JPEG and
// GIF, and keeps the last images in a small cache. Other schemes (file:,
// ftp:, javascript:, …) are refused.
// Use it on the Fyne goroutine; downloads run on their own goroutines.
type HTTPImageLoader struct {
	// Client fetches http(s) images; nil means a client of imagefetch.
	// Either way at most five redirects are followed, to http(s) only.
	Client *http.Client
	// MaxBytes bounds an image's encoded size; 0 (or more) means 10 MB.
	MaxBytes int64
	// Timeout bounds a download; 0 (or more) means 10 s.
	Timeout time.Duration
	// MaxPixels bounds the decoded size; 0 (or more) means 40 million
	// pixels.
	MaxPixels int
	// Agent returns the URL of the agent whose surface shows the images
	// (nil or "": none known). Images load by themselves only from its
	// origin, others only when Approved says the user allowed their host;
	// loopback and private addresses are never dialled unless the agent is
	// itself on this machine (package imagefetch, Fetcher.Agent).
	Agent func() string
	// Approved reports whether the user allowed images from host.
	Approved func(host string) bool

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
	key := rawURL
	if l.Agent != nil {
		key = l.Agent() + " " + rawURL // the host policy depends on the agent
	}
	if e, ok := l.cache[key]; ok {
		if e.loading {
			e.waiters = append(e.waiters, done)
			return
		}
		done(e.img, e.err)
		return
	}
	e := &imageEntry{loading: true, waiters: []func(image.Image, error){done}}
	l.cache[key] = e
	l.order = append(l.order, key)
	l.evict()
	f := l.fetcher() // here: Agent is read on the Fyne goroutine
	go func() {
		img, err := f.Load(context.Background(), rawURL) // imagefetch bounds the time
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

// Fetch returns the bytes of an http(s) or data: image URL within the
// limits, or an error saying why not (ErrImageScheme, ErrImageTooLarge,
// ErrImageTimeout, ErrNotImage, …).
func (l *HTTPImageLoader) Fetch(ctx context.Context, rawURL string) ([]byte, error) {
	return l.fetcher().Fetch(ctx, rawURL)
}

// fetcher is the imagefetch.Fetcher of l's fields.
func (l *HTTPImageLoader) fetcher() *imagefetch.Fetcher {
	f := &imagefetch.Fetcher{Client: l.Client, MaxBytes: l.MaxBytes, Timeout: l.Timeout, MaxPixels: l.MaxPixels, Approved: l.Approved}
	if l.Agent != nil {
		f.Agent = l.Agent()
	}
	return f
}
