package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"net/url"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/imagefetch"
)

// Limits of inline images: those of package imagefetch (size, time,
// redirects, schemes, pixels); imageFetchTimeout also bounds loads that are
// not fetches.
const (
	maxImageBytes     = imagefetch.MaxBytes
	imageFetchTimeout = imagefetch.Timeout
	imageCacheBytes   = 256 << 20 // decoded pixels kept (imagefetch.Bytes of each)
	maxImageWidth     = 360
	maxImageHeight    = 270
)

type imageState int

const (
	imageLoading imageState = iota
	imageReady
	imageFailed
)

// imageEntry is one image of the cache.
type imageEntry struct {
	state   imageState
	img     image.Image
	err     string
	host    string // not loaded: on this host, which the user has not allowed
	cost    int
	used    int64
	waiters []func()
}

// imageLoader fetches and decodes images off the Fyne goroutine and keeps
// the decoded ones in a small LRU cache. Its maps are only touched on the
// Fyne goroutine; results come back through post.
type imageLoader struct {
	ctx  context.Context
	post func(func())
	// approved are the hosts the user allowed images from ("Load"); read
	// by fetches on other goroutines.
	approvedMu sync.Mutex
	approved   map[string]bool
	entries    map[string]*imageEntry
	cost       int
	clock      int64
}

func newImageLoader(ctx context.Context, post func(func())) *imageLoader {
	return &imageLoader{ctx: ctx, post: post, entries: map[string]*imageEntry{}, approved: map[string]bool{}}
}

func (l *imageLoader) isApproved(host string) bool {
	l.approvedMu.Lock()
	defer l.approvedMu.Unlock()
	return l.approved[host]
}

// approve allows images from host (the user clicked "Load") and forgets
// the entries that were waiting for it, so that they load again.
func (l *imageLoader) approve(host string) {
	host = strings.ToLower(host)
	l.approvedMu.Lock()
	l.approved[host] = true
	l.approvedMu.Unlock()
	for k, e := range l.entries {
		if e.state == imageFailed && strings.EqualFold(e.host, host) {
			delete(l.entries, k)
		}
	}
}

// get returns the cache entry for key, starting load in the background
// when the image is not cached. notify runs on the Fyne goroutine when a
// load it waited for ends.
func (l *imageLoader) get(key string, load func(ctx context.Context) ([]byte, error), notify func()) *imageEntry {
	l.clock++
	if e := l.entries[key]; e != nil {
		e.used = l.clock
		if e.state == imageLoading && notify != nil {
			e.waiters = append(e.waiters, notify)
		}
		return e
	}
	e := &imageEntry{state: imageLoading, used: l.clock}
	if notify != nil {
		e.waiters = append(e.waiters, notify)
	}
	l.entries[key] = e
	go func() {
		ctx, cancel := context.WithTimeout(l.ctx, imageFetchTimeout)
		defer cancel()
		data, err := load(ctx)
		var img image.Image
		if err == nil {
			img, err = decodeImage(ctx, data)
		}
		l.post(func() { l.finish(key, e, img, err) })
	}()
	return e
}

func (l *imageLoader) finish(key string, e *imageEntry, img image.Image, err error) {
	var he *imagefetch.HostError
	if errors.As(err, &he) {
		e.host = he.Host
	}
	if err != nil {
		e.state, e.err = imageFailed, err.Error()
	} else {
		e.state, e.img = imageReady, img
		e.cost = imagefetch.Bytes(img) // true bytes: a 16-bit image takes 8 a pixel
		l.cost += e.cost
		l.evict(key)
	}
	waiters := e.waiters
	e.waiters = nil
	for _, f := range waiters {
		f()
	}
}

// evict drops the least recently used decoded images above the budget,
// never keep.
func (l *imageLoader) evict(keep string) {
	for l.cost > imageCacheBytes {
		oldest, old := "", int64(0)
		for k, e := range l.entries {
			if k == keep || e.state != imageReady {
				continue
			}
			if oldest == "" || e.used < old {
				oldest, old = k, e.used
			}
		}
		if oldest == "" {
			return
		}
		l.cost -= l.entries[oldest].cost
		delete(l.entries, oldest)
	}
}

// fetch reads an http(s) or data: image URL of the agent at agentURL
// within the limits of package imagefetch: by itself only from the agent's
// origin, from other hosts once the user allowed them, never from this
// machine or the local network for a remote agent. Its errors are
// sentences for the placeholder.
func (l *imageLoader) fetch(ctx context.Context, raw, agentURL string) ([]byte, error) {
	f := &imagefetch.Fetcher{Agent: agentURL, Approved: l.isApproved}
	if agentURL == "" {
		f.Agent = "agent:unknown" // no origin: nothing loads by itself
	}
	data, err := f.Fetch(ctx, raw)
	if err != nil {
		return nil, imageError(raw, err)
	}
	return data, nil
}

// decodeImage decodes PNG, JPEG or GIF data within the limits of package
// imagefetch, refusing pixel bombs; its errors are sentences for the
// placeholder.
func decodeImage(ctx context.Context, data []byte) (image.Image, error) {
	img, err := (&imagefetch.Fetcher{}).DecodeContext(ctx, data)
	if err != nil {
		return nil, imageError("", err)
	}
	return img, nil
}

// imageError says why the image at raw (empty when not fetched) is not
// shown, completing "Image x not shown: ".
func imageError(raw string, err error) error {
	host := "the server"
	scheme := ""
	if u, perr := url.Parse(strings.TrimSpace(raw)); perr == nil && raw != "" {
		if u.Host != "" {
			host = displayHost(u)
		}
		scheme = u.Scheme
	}
	if e := imageAddressError(err, host, scheme); e != nil {
		return e
	}
	return imageContentError(raw, err, host)
}

// imageAddressError says why an image's address gave nothing: refused,
// invalid, not answered in time, or answered with an error; nil for other
// errors.
func imageAddressError(err error, host, scheme string) error {
	var se *imagefetch.StatusError
	var he *imagefetch.HostError
	switch {
	case errors.As(err, &he):
		return he // the placeholder offers "Load"
	case errors.Is(err, imagefetch.ErrAddressRefused):
		return fmt.Errorf("%s is on this computer or the local network, which an agent's images never come from", host)
	case errors.As(err, &se):
		return fmt.Errorf("%s answered %s", host, se.Status)
	case errors.Is(err, imagefetch.ErrInvalidURL):
		return errors.New("the address is not valid")
	case errors.Is(err, imagefetch.ErrScheme) && scheme != "" && !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https"):
		return fmt.Errorf("%s: addresses are not loaded", scheme)
	case errors.Is(err, imagefetch.ErrScheme):
		return errors.New("it was redirected to an address that is not loaded (only http and https are)")
	case errors.Is(err, imagefetch.ErrTimeout):
		return fmt.Errorf("it did not arrive within %d seconds", int(imagefetch.Timeout/time.Second))
	}
	return nil
}

// imageContentError says what is wrong with the image that came (or the
// inline one), else that it could not be downloaded.
func imageContentError(raw string, err error, host string) error {
	switch {
	case errors.Is(err, imagefetch.ErrTooManyPixels):
		return fmt.Errorf("its size is too large to show (more than %d million pixels)", imagefetch.MaxPixels/1_000_000)
	case errors.Is(err, imagefetch.ErrTooLarge):
		return fmt.Errorf("it is more than the %s shown inline", humanSize(imagefetch.MaxBytes))
	case errors.Is(err, imagefetch.ErrBadDataURL):
		if meta, _, ok := strings.Cut(raw, ","); ok && strings.HasSuffix(strings.ToLower(meta), ";base64") {
			return errors.New("the inline image is not valid base64")
		}
		return errors.New("the inline image is malformed")
	case errors.Is(err, imagefetch.ErrNotImage):
		return errors.New("it is not an image aimdesk can show (PNG, JPEG or GIF)")
	default:
		return fmt.Errorf("it could not be downloaded from %s", host)
	}
}

// imageView shows an image entry: a placeholder while loading or after a
// failure, the picture (at most maxImageWidth×maxImageHeight) when ready.
type imageView struct {
	// load is shown for an image on another host than the agent's:
	// "Image from HOST — Load"; onLoad allows the host.
	load   *widget.Button
	onLoad func(host string)
	icon   *widget.Icon
	label  *widget.Label
	pic    *canvas.Image
	place  *fyne.Container
	box    *fyne.Container
	shown  *imageEntry
	state  imageState
}

func newImageView() *imageView {
	v := &imageView{icon: widget.NewIcon(theme.FileImageIcon()), label: widget.NewLabel("Loading image…")}
	v.label.Wrapping = fyne.TextWrapWord
	v.label.Importance = widget.LowImportance
	v.pic = &canvas.Image{FillMode: canvas.ImageFillContain, ScaleMode: canvas.ImageScaleSmooth}
	v.load = widget.NewButton("Load", nil)
	v.load.Hide()
	v.place = container.NewBorder(nil, nil, v.icon, v.load, v.label)
	v.box = container.NewVBox(v.place, container.NewHBox(v.pic))
	v.pic.Hide()
	return v
}

func (v *imageView) Object() fyne.CanvasObject { return v.box }

// set shows e; name names the image in the placeholder.
func (v *imageView) set(e *imageEntry, name string) {
	if v.shown == e && v.state == e.state {
		return
	}
	v.shown, v.state = e, e.state
	switch e.state {
	case imageReady:
		v.load.Hide()
		v.pic.Image = e.img
		b := e.img.Bounds()
		v.pic.SetMinSize(fitSize(float32(b.Dx()), float32(b.Dy())))
		v.place.Hide()
		v.pic.Show()
		v.pic.Refresh()
	case imageFailed:
		v.pic.Image = nil
		v.pic.Hide()
		if e.host != "" {
			host := e.host
			v.icon.SetResource(theme.FileImageIcon())
			v.label.SetText("Image from " + host + " — not loaded: it is not on the agent's own server.")
			v.load.SetText("Load from " + host)
			v.load.OnTapped = func() {
				if v.onLoad != nil {
					v.onLoad(host)
				}
			}
			v.load.Show()
		} else {
			v.icon.SetResource(theme.BrokenImageIcon())
			v.label.SetText("Image " + name + " not shown: " + e.err)
			v.load.Hide()
		}
		v.place.Show()
	default:
		v.pic.Image = nil
		v.pic.Hide()
		v.load.Hide()
		v.icon.SetResource(theme.FileImageIcon())
		v.label.SetText("Loading image " + name + "…")
		v.place.Show()
	}
	v.box.Refresh()
}

// fitSize scales w×h down to fit the inline image box.
func fitSize(w, h float32) fyne.Size {
	if w <= 0 || h <= 0 {
		return fyne.NewSize(0, 0)
	}
	scale := float32(1)
	if w > maxImageWidth {
		scale = maxImageWidth / w
	}
	if h*scale > maxImageHeight {
		scale = maxImageHeight / h
	}
	return fyne.NewSize(w*scale, h*scale)
}
