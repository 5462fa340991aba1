package fyner

import (
	"flag"
	"image"
	"image/color"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/a2ui"
	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/functions"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// specDir returns ../shared/a2ui-spec relative to the repository root.
func specDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "a2ui-spec"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("A2UI spec directory missing: %s: %v", d, err)
	}
	return d
}

func fixedClock() time.Time { return time.Date(2026, 1, 16, 14, 30, 0, 0, time.UTC) }

// exampleFiles lists every example of the spec, as the core's replay test
// does.
func exampleFiles(t testing.TB) []string {
	t.Helper()
	root := specDir(t)
	var files []string
	for _, pat := range []string{
		"v0_8/json/catalogs/*/examples/*.json",
		"v0_9/catalogs/*/examples/*.json",
		"v0_9_1/catalogs/*/examples/*.json",
		"v1_0/catalogs/*/examples/*.json",
	} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) < 100 {
		t.Fatalf("found only %d example files under %s", len(files), root)
	}
	return files
}

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
	root := specDir(t)
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		v    catalog.Version
	}{
		{"v0_8/json/catalogs/minimal/minimal_catalog.json", catalog.V08},
		{"v0_9/catalogs/minimal/catalog.json", catalog.V09},
	} {
		data, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			t.Fatal(err)
		}
		c, err := catalog.Parse(data, f.v, "")
		if err != nil {
			t.Fatal(err)
		}
		reg.Register(c)
	}
	fr := functions.NewBasic(functions.WithLocale("en-US"), functions.WithLocation(time.UTC))
	fr.Register(functions.Def{Name: "capitalize", ReturnType: functions.ReturnString, Fn: func(in *functions.Invocation) (any, error) {
		return strings.ToUpper(functions.Stringify(in.Args["value"])), nil
	}})
	p, err := a2ui.NewProcessor(a2ui.WithCatalogs(reg), a2ui.WithFunctions(fr), a2ui.WithClock(fixedClock))
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
