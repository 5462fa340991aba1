package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // decoders for image parts
	_ "image/jpeg" // decoders for image parts
	_ "image/png"  // decoders for image parts
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Limits of inline images: a part's image is shown only when it is at
// most maxImageBytes, arrives within imageFetchTimeout and has at most
// maxImagePixels (a tiny file can claim a huge canvas).
const (
	maxImageBytes     = 10 << 20
	imageFetchTimeout = 10 * time.Second
	maxImagePixels    = 50_000_000
	imageCacheBytes   = 256 << 20 // decoded pixels kept (about 4 bytes a pixel)
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
	cost    int
	used    int64
	waiters []func()
}

// imageLoader fetches and decodes images off the Fyne goroutine and keeps
// the decoded ones in a small LRU cache. Its maps are only touched on the
// Fyne goroutine; results come back through post.
type imageLoader struct {
	ctx     context.Context
	hc      *http.Client
	post    func(func())
	entries map[string]*imageEntry
	cost    int
	clock   int64
}

func newImageLoader(ctx context.Context, post func(func())) *imageLoader {
	hc := &http.Client{
		Timeout: imageFetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return errors.New("redirected away from http")
			}
			return nil
		},
	}
	return &imageLoader{ctx: ctx, hc: hc, post: post, entries: map[string]*imageEntry{}}
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
			img, err = decodeImage(data)
		}
		l.post(func() { l.finish(key, e, img, err) })
	}()
	return e
}

func (l *imageLoader) finish(key string, e *imageEntry, img image.Image, err error) {
	if err != nil {
		e.state, e.err = imageFailed, err.Error()
	} else {
		e.state, e.img = imageReady, img
		b := img.Bounds()
		e.cost = b.Dx() * b.Dy() * 4
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

// fetch reads an http(s) or data: image URL, refusing more than
// maxImageBytes and anything that says it is not an image.
func (l *imageLoader) fetch(ctx context.Context, raw string) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("the address is not valid")
	}
	switch strings.ToLower(u.Scheme) {
	case "data":
		return decodeDataURL(raw)
	case "http", "https":
	default:
		return nil, fmt.Errorf("%s: addresses are not loaded", u.Scheme)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif")
	resp, err := l.hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, errors.New("it did not arrive within 10 seconds")
		}
		return nil, fmt.Errorf("it could not be downloaded from %s", displayHost(u))
	}
	defer resp.Body.Close()
	if err := checkImageResponse(u, resp); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxImageBytes+1))
	if err != nil {
		return nil, errors.New("the download broke off")
	}
	if len(data) > maxImageBytes {
		return nil, fmt.Errorf("it is more than the %s shown inline", humanSize(maxImageBytes))
	}
	return data, nil
}

// checkImageResponse refuses an answer that is not a success, says it is
// not an image, or announces more than maxImageBytes.
func checkImageResponse(u *url.URL, resp *http.Response) error {
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s", displayHost(u), resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "" && !strings.HasPrefix(mt, "image/") && mt != "application/octet-stream" {
			return fmt.Errorf("%s sent %s, not an image", displayHost(u), mt)
		}
	}
	if resp.ContentLength > maxImageBytes {
		return fmt.Errorf("it is %s, more than the %s shown inline", humanSize(int(resp.ContentLength)), humanSize(maxImageBytes))
	}
	return nil
}

// decodeDataURL decodes a base64 or percent-encoded data: URL.
func decodeDataURL(raw string) ([]byte, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(raw, raw[:5]), ",")
	if !ok {
		return nil, errors.New("the inline image is malformed")
	}
	if base64.StdEncoding.DecodedLen(len(payload)) > maxImageBytes+3 {
		return nil, fmt.Errorf("it is more than the %s shown inline", humanSize(maxImageBytes))
	}
	if strings.HasSuffix(strings.ToLower(meta), ";base64") {
		data, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "="))
		}
		if err != nil {
			return nil, errors.New("the inline image is not valid base64")
		}
		return data, nil
	}
	s, err := url.PathUnescape(payload)
	if err != nil {
		return nil, errors.New("the inline image is malformed")
	}
	return []byte(s), nil
}

// decodeImage decodes PNG, JPEG or GIF data, refusing pixel bombs.
func decodeImage(data []byte) (image.Image, error) {
	if len(data) > maxImageBytes {
		return nil, fmt.Errorf("it is %s, more than the %s shown inline", humanSize(len(data)), humanSize(maxImageBytes))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, errors.New("it is not a PNG, JPEG or GIF image aimdesk can show")
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxImagePixels {
		return nil, fmt.Errorf("its size (%d×%d pixels) is too large to show", cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, errors.New("the image data is damaged")
	}
	return img, nil
}

// imageView shows an image entry: a placeholder while loading or after a
// failure, the picture (at most maxImageWidth×maxImageHeight) when ready.
type imageView struct {
	icon  *widget.Icon
	label *widget.Label
	pic   *canvas.Image
	place *fyne.Container
	box   *fyne.Container
	shown *imageEntry
	state imageState
}

func newImageView() *imageView {
	v := &imageView{icon: widget.NewIcon(theme.FileImageIcon()), label: widget.NewLabel("Loading image…")}
	v.label.Wrapping = fyne.TextWrapWord
	v.label.Importance = widget.LowImportance
	v.pic = &canvas.Image{FillMode: canvas.ImageFillContain, ScaleMode: canvas.ImageScaleSmooth}
	v.place = container.NewBorder(nil, nil, v.icon, nil, v.label)
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
		v.pic.Image = e.img
		b := e.img.Bounds()
		v.pic.SetMinSize(fitSize(float32(b.Dx()), float32(b.Dy())))
		v.place.Hide()
		v.pic.Show()
		v.pic.Refresh()
	case imageFailed:
		v.pic.Image = nil
		v.pic.Hide()
		v.icon.SetResource(theme.BrokenImageIcon())
		v.label.SetText("Image " + name + " not shown: " + e.err)
		v.place.Show()
	default:
		v.pic.Image = nil
		v.pic.Hide()
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
