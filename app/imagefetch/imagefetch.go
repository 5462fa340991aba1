package imagefetch

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif"  // decoder
	_ "image/jpeg" // decoder
	_ "image/png"  // decoder
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The package limits (see the package documentation).
const (
	MaxBytes     = 10 << 20
	Timeout      = 10 * time.Second
	MaxRedirects = 5
	MaxPixels    = 40_000_000
	// MaxDecodedBytes bounds the memory of one decoded image, counted with
	// the bytes per pixel of the type the decoder will produce (a 16-bit
	// PNG takes 8 bytes a pixel, a grey one 1).
	MaxDecodedBytes = 128 << 20
	// MaxConcurrentDecodes is how many images are decoded at once in the
	// whole process.
	MaxConcurrentDecodes = 2
)

// Errors of fetching and decoding (wrapped; test with errors.Is).
var (
	ErrInvalidURL = errors.New("imagefetch: invalid image address")
	ErrScheme     = errors.New("imagefetch: only http, https and data: images are loaded")
	ErrStatus     = errors.New("imagefetch: the server did not answer with the image")
	ErrFetch      = errors.New("imagefetch: the image could not be downloaded")
	ErrTimeout    = errors.New("imagefetch: image did not arrive in time")
	ErrTooLarge   = errors.New("imagefetch: image too large")
	ErrNotImage   = errors.New("imagefetch: not a PNG, JPEG or GIF image")
	// ErrTooManyPixels is an image whose size in pixels is over the limit;
	// it is also ErrTooLarge.
	ErrTooManyPixels = fmt.Errorf("%w: too many pixels", ErrTooLarge)
	// ErrBadDataURL is a data: URL that cannot be decoded; it is also
	// ErrNotImage.
	ErrBadDataURL = fmt.Errorf("%w: malformed data URL", ErrNotImage)
)

// StatusError is a non-2xx answer; it is ErrStatus.
type StatusError struct {
	Host   string // the host that answered
	Status string // e.g. "404 Not Found"
	Code   int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("imagefetch: image from %s: %s", e.Host, e.Status)
}

// Is reports whether target is ErrStatus.
func (e *StatusError) Is(target error) bool { return target == ErrStatus }

// Fetcher fetches and decodes images within the limits. Its zero value
// uses the package limits and its own http client. Safe for concurrent use
// once its fields are set.
type Fetcher struct {
	// Client fetches http(s) images; nil means a client with Timeout and
	// CheckRedirect. A given client still gets CheckRedirect first.
	Client *http.Client
	// MaxBytes, Timeout and MaxPixels may lower the package limits.
	MaxBytes  int64
	Timeout   time.Duration
	MaxPixels int

	// Agent is the URL of the agent whose images these are. When set,
	// http(s) images load by themselves only from its origin; another
	// host needs Approved (else a *HostError naming the host, for a
	// "Load" button). Whatever Agent is, a fetch never connects to a
	// loopback, private, link-local or otherwise non-public address
	// (ErrAddressRefused), checked at dial time, unless Agent is itself
	// on this machine (then loopback is allowed). A Client given above
	// keeps its own transport and so skips the address check (tests).
	Agent string
	// Approved reports whether the user allowed images from host (lower
	// case, no port).
	Approved func(host string) bool
	// Resolver resolves host names; nil means the system's. The address
	// check applies to whatever it returns.
	Resolver *net.Resolver

	allowAddr func(address string) bool // tests: addresses treated as public
}

func (f *Fetcher) maxBytes() int64 {
	if f == nil || f.MaxBytes <= 0 || f.MaxBytes > MaxBytes {
		return MaxBytes
	}
	return f.MaxBytes
}

func (f *Fetcher) timeout() time.Duration {
	if f == nil || f.Timeout <= 0 || f.Timeout > Timeout {
		return Timeout
	}
	return f.Timeout
}

func (f *Fetcher) maxPixels() int64 {
	if f == nil || f.MaxPixels <= 0 || f.MaxPixels > MaxPixels {
		return MaxPixels
	}
	return int64(f.MaxPixels)
}

// CheckRedirect is the redirect rule: at most MaxRedirects hops, each to
// http or https.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrFetch, MaxRedirects)
	}
	if s := strings.ToLower(req.URL.Scheme); s != "http" && s != "https" {
		return fmt.Errorf("%w: redirected to %q", ErrScheme, req.URL.Scheme)
	}
	return nil
}

func (f *Fetcher) client() *http.Client {
	var c http.Client
	if f == nil || f.Client == nil {
		c.Transport = f.transport()
	} else {
		c = *f.Client
	}
	own := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := CheckRedirect(req, via); err != nil {
			return err
		}
		if err := f.allowedHost(req.URL); err != nil {
			return err
		}
		if own != nil {
			return own(req, via)
		}
		return nil
	}
	if c.Timeout <= 0 || c.Timeout > f.timeout() {
		c.Timeout = f.timeout()
	}
	return &c
}

// Fetch returns the bytes of an http(s) or data: image URL with the
// package limits.
func Fetch(ctx context.Context, rawURL string) ([]byte, error) {
	return (*Fetcher)(nil).Fetch(ctx, rawURL)
}

// Decode decodes PNG, JPEG or GIF data with the package limits.
func Decode(data []byte) (image.Image, error) {
	return (*Fetcher)(nil).Decode(data)
}

// Load fetches and decodes rawURL.
func (f *Fetcher) Load(ctx context.Context, rawURL string) (image.Image, error) {
	data, err := f.Fetch(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	return f.Decode(data)
}

// Fetch returns the bytes of an http(s) or data: image URL within the
// limits, or an error wrapping one of the Err sentinels.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) ([]byte, error) {
	if f == nil {
		f = &Fetcher{}
	}
	raw := strings.TrimSpace(rawURL)
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	max := f.maxBytes()
	switch strings.ToLower(u.Scheme) {
	case "data":
		return decodeDataURL(raw, max)
	case "http", "https":
	case "":
		return nil, fmt.Errorf("%w (no scheme)", ErrScheme)
	default:
		return nil, fmt.Errorf("%w (not %q)", ErrScheme, u.Scheme)
	}
	if err := f.allowedHost(u); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif")
	resp, err := f.client().Do(req)
	if err != nil {
		return nil, netError(ctx, u, err)
	}
	defer resp.Body.Close()
	if err := checkImageResponse(u, resp); err != nil {
		return nil, err
	}
	if resp.ContentLength > max {
		return nil, fmt.Errorf("%w: %d bytes announced, at most %d", ErrTooLarge, resp.ContentLength, max)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, netError(ctx, u, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	return data, nil
}

// checkImageResponse refuses an answer that is not a 2xx or says it is
// not an image.
func checkImageResponse(u *url.URL, resp *http.Response) error {
	if resp.StatusCode/100 != 2 {
		return &StatusError{Host: u.Hostname(), Status: resp.Status, Code: resp.StatusCode}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "" && !strings.HasPrefix(mt, "image/") && mt != "application/octet-stream" {
			return fmt.Errorf("%w: %s sent %s", ErrNotImage, u.Hostname(), mt)
		}
	}
	return nil
}

// netError classifies a failed request or body read.
func netError(ctx context.Context, u *url.URL, err error) error {
	var ne net.Error
	if errors.Is(err, ErrScheme) || errors.Is(err, ErrFetch) || errors.Is(err, ErrNeedsApproval) {
		return err
	}
	if errors.Is(err, ErrAddressRefused) {
		return fmt.Errorf("%w (%s)", ErrAddressRefused, u.Hostname())
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("%w: from %s", ErrTimeout, u.Hostname())
	}
	return fmt.Errorf("%w: from %s: %w", ErrFetch, u.Hostname(), err)
}

// decodeDataURL reads a data: URL of an image (base64 or percent-encoded)
// of at most max bytes.
func decodeDataURL(raw string, max int64) ([]byte, error) {
	meta, payload, ok := strings.Cut(raw[len("data:"):], ",")
	if !ok {
		return nil, ErrBadDataURL
	}
	b64 := strings.HasSuffix(strings.ToLower(meta), ";base64")
	mt := meta
	if b64 {
		mt = meta[:len(meta)-len(";base64")]
	}
	if mt != "" && !strings.HasPrefix(strings.ToLower(mt), "image/") {
		return nil, fmt.Errorf("%w: %s", ErrNotImage, mt)
	}
	if int64(len(payload)) > max*4/3+4 {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	var data []byte
	var err error
	if b64 {
		p := strings.TrimSpace(payload)
		data, err = base64.StdEncoding.DecodeString(p)
		if err != nil {
			data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(p, "="))
		}
	} else {
		var s string
		s, err = url.PathUnescape(payload)
		data = []byte(s)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadDataURL, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	return data, nil
}

// decodeSlots bounds the decodes running at once in the process (the chat
// and the A2UI renderer share it): each may hold up to MaxDecodedBytes.
// Package-level on purpose: a per-Fetcher bound would not bound the sum.
var decodeSlots = make(chan struct{}, MaxConcurrentDecodes)

// decodeEnter is a test hook run while a decode holds its slot.
var decodeEnter func()

// Decode decodes PNG, JPEG or GIF data within the limits (see
// DecodeContext), without a deadline for its turn.
func (f *Fetcher) Decode(data []byte) (image.Image, error) {
	return f.DecodeContext(context.Background(), data)
}

// DecodeContext decodes PNG, JPEG or GIF data within the byte, pixel and
// decoded-memory limits, reading the header first (image.DecodeConfig) so
// that a bomb is refused before any pixel is allocated. At most
// MaxConcurrentDecodes run at once; waiting for a turn ends with ctx.
func (f *Fetcher) DecodeContext(ctx context.Context, data []byte) (image.Image, error) {
	if max := f.maxBytes(); int64(len(data)) > max {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(data), max)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > f.maxPixels() {
		return nil, fmt.Errorf("%w: %d×%d pixels, at most %d", ErrTooManyPixels, cfg.Width, cfg.Height, f.maxPixels())
	}
	if need := int64(cfg.Width) * int64(cfg.Height) * int64(bytesPerPixel(cfg.ColorModel)); need > MaxDecodedBytes {
		return nil, fmt.Errorf("%w: %d×%d pixels would take %d MB decoded, at most %d MB", ErrTooManyPixels, cfg.Width, cfg.Height, need>>20, MaxDecodedBytes>>20)
	}
	select {
	case decodeSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: waiting to decode: %w", ErrTimeout, ctx.Err())
	}
	defer func() { <-decodeSlots }()
	if decodeEnter != nil {
		decodeEnter()
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	return img, nil
}

// bytesPerPixel is what the decoder's image type for cm takes a pixel
// (the largest when the model does not say).
func bytesPerPixel(cm color.Model) int {
	switch cm {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel, color.NYCbCrAModel:
		return 4
	case color.YCbCrModel:
		return 3
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.GrayModel, color.AlphaModel:
		return 1
	}
	if _, ok := cm.(color.Palette); ok {
		return 1
	}
	return 8
}

// Bytes is the memory an image's pixels take, from its concrete type
// (what a cache should count; not 4 bytes a pixel whatever the format).
func Bytes(img image.Image) int {
	switch m := img.(type) {
	case *image.RGBA:
		return len(m.Pix)
	case *image.NRGBA:
		return len(m.Pix)
	case *image.RGBA64:
		return len(m.Pix)
	case *image.NRGBA64:
		return len(m.Pix)
	case *image.Gray:
		return len(m.Pix)
	case *image.Gray16:
		return len(m.Pix)
	case *image.Alpha:
		return len(m.Pix)
	case *image.Alpha16:
		return len(m.Pix)
	case *image.CMYK:
		return len(m.Pix)
	case *image.Paletted:
		return len(m.Pix) + 4*len(m.Palette)
	case *image.NYCbCrA:
		return len(m.Y) + len(m.Cb) + len(m.Cr) + len(m.A)
	case *image.YCbCr:
		return len(m.Y) + len(m.Cb) + len(m.Cr)
	case nil:
		return 0
	}
	b := img.Bounds()
	return b.Dx() * b.Dy() * 8
}
