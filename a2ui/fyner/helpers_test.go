package fyner

import (
	"flag"
	"image"
	"image/color"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"aimdesk/a2ui/a2uitest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/a2ui"
	"aimdesk/a2ui/functions"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// exampleName names an example's goldens: v0_9__basic__09_login-form.
func exampleName(root, path string) string {
	rel, _ := filepath.Rel(root, path)
	rel = strings.TrimSuffix(rel, ".json")
	for _, cut := range []string{"/json/catalogs/", "/catalogs/", "/examples/"} {
		rel = strings.ReplaceAll(rel, cut, "/")
	}
	return strings.ReplaceAll(rel, "/", "__")
}

// newProcessor returns a processor with the basic catalogs plus the
// spec's minimal catalogs and their capitalize function.
func newProcessor(t testing.TB) *a2ui.Processor {
	t.Helper()
	fr := a2uitest.Functions(functions.WithLocale("en-US"), functions.WithLocation(time.UTC))
	p, err := a2ui.NewProcessor(a2ui.WithCatalogs(a2uitest.Catalogs(t)), a2ui.WithFunctions(fr), a2ui.WithClock(a2uitest.FixedClock))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// process applies a payload and fails on any rejected message.
func process(t testing.TB, p *a2ui.Processor, payload string) *a2ui.Result {
	t.Helper()
	res := p.Process("agent", []byte(payload))
	for _, err := range res.Errors {
		t.Fatalf("message rejected: %v", err)
	}
	return res
}

// fakeImages answers every image at once with a picture whose colour
// depends on the URL (no network in tests); URLs containing "broken"
// fail.
type fakeImages struct{ loads int }

func (f *fakeImages) Load(rawURL string, done func(image.Image, error)) {
	f.loads++
	if strings.Contains(rawURL, "broken") {
		done(nil, ErrNotImage)
		return
	}
	var sum uint32 = 2166136261
	for i := 0; i < len(rawURL); i++ {
		sum = (sum ^ uint32(rawURL[i])) * 16777619
	}
	w, h := 64, 48
	if u, err := url.Parse(rawURL); err == nil {
		if n, err := strconv.Atoi(u.Query().Get("w")); err == nil && n >= 8 && n <= 400 {
			w = n
		}
		if n, err := strconv.Atoi(u.Query().Get("h")); err == nil && n >= 8 && n <= 400 {
			h = n
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{R: uint8(int(sum&0x7f) + x*127/w), G: uint8(int(sum>>8&0x7f) + y*127/h), B: uint8(sum >> 16), A: 255})
		}
	}
	done(img, nil)
}

// recorder collects what a renderer sends and opens.
type recorder struct {
	sent   []a2ui.Outbound
	opened []string
}

func (r *recorder) config() Config {
	return Config{
		Send:    func(out []a2ui.Outbound) { r.sent = append(r.sent, out...) },
		OpenURL: func(u *url.URL) { r.opened = append(r.opened, u.String()) },
		Images:  &fakeImages{},
		Do:      func(f func()) { f() },
	}
}

// show puts o in a test window width wide and as tall as it needs, and
// returns the window.
func show(t testing.TB, o fyne.CanvasObject, width float32) fyne.Window {
	t.Helper()
	w := test.NewTempWindow(t, o)
	w.SetPadded(false)
	fit(w, o, width)
	return w
}

// fit sizes w to width × o's height (twice: wrapped text is as tall as
// its width makes it).
func fit(w fyne.Window, o fyne.CanvasObject, width float32) {
	for i := 0; i < 3; i++ {
		w.Resize(fyne.NewSize(width, o.MinSize().Height))
	}
}
