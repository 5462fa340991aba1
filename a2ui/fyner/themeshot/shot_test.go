package themeshot

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/png" // decode the screenshot
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui"
	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/fyner"
	"aimdesk/media/lktest"
)

const childEnv = "AIMDESK_THEMESHOT_CHILD"

// primary is the theme's colour: a light yellow that white text cannot
// be read on, so the renderer must darken it.
const primary = "#FFD54F"

// font is the theme's font family: a serif, unlike the app's sans, so it
// shows (fonts-dejavu-core is installed with Xvfb).
const font = "DejaVu Serif"

func TestMain(m *testing.M) {
	if out := os.Getenv(childEnv); out != "" {
		os.Exit(child(out))
	}
	os.Exit(m.Run())
}

// surface is a v0.8 surface with a heading, a paragraph, a text field and a primary
// button; styles is put into beginRendering when not empty.
func surface(id, styles string) []string {
	begin := fmt.Sprintf(`{"beginRendering":{"surfaceId":%q,"root":"root"%s}}`, id, styles)
	comps := fmt.Sprintf(`{"surfaceUpdate":{"surfaceId":%q,"components":[
{"id":"root","component":{"Column":{"children":{"explicitList":["title","body","name","go"]}}}},
{"id":"title","component":{"Text":{"text":{"literalString":"Book a table"},"usageHint":"h2"}}},
{"id":"body","component":{"Text":{"text":{"literalString":"We keep your table until *eight o'clock*; after that it goes to the next guest on the list."}}}},
{"id":"name","component":{"TextField":{"label":{"literalString":"Name"},"text":{"path":"/name"}}}},
{"id":"golabel","component":{"Text":{"text":{"literalString":"Book it"}}}},
{"id":"go","component":{"Button":{"child":"golabel","primary":true,"action":{"name":"book"}}}}]}}`, id)
	return []string{begin, comps}
}

type report struct {
	Err string `json:",omitempty"`
	// Fonts are the font files the themed surface's heading and the
	// plain one's were drawn in ("" for the app's font).
	ThemedFont, PlainFont string
}

func child(out string) int {
	a := fyneapp.NewWithID("com.aimdesk.themeshot")
	a.Settings().SetTheme(theme.DefaultTheme())
	rep := report{}
	code := 1
	a.Lifecycle().SetOnStarted(func() {
		reg, err := catalog.NewBasicRegistry()
		if err != nil {
			rep.Err = err.Error()
			a.Quit()
			return
		}
		p, err := a2ui.NewProcessor(a2ui.WithCatalogs(reg))
		if err != nil {
			rep.Err = err.Error()
			a.Quit()
			return
		}
		r := fyner.New(p, fyner.Config{})
		var views []fyne.CanvasObject
		shown := map[string]*fyner.View{}
		for _, s := range []struct{ id, styles, title string }{
			{"plain", "", "Without a theme"},
			{"themed", fmt.Sprintf(`,"styles":{"primaryColor":%q,"font":%q}`, primary, font), "styles: primaryColor " + primary + ", font " + font},
		} {
			for _, msg := range surface(s.id, s.styles) {
				if res := p.Process("agent", []byte(msg)); len(res.Errors) > 0 {
					rep.Err = fmt.Sprint(res.Errors)
					a.Quit()
					return
				}
			}
			sf, _ := p.Surface(s.id)
			v := r.View(sf)
			shown[s.id] = v
			views = append(views, container.NewBorder(widget.NewLabelWithStyle(s.title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, v.Object()))
		}
		w := a.NewWindow("aimdesk A2UI theme")
		w.SetContent(container.NewPadded(container.NewGridWithColumns(2, views...)))
		w.Resize(fyne.NewSize(760, 320))
		w.Show()
		rep.PlainFont, rep.ThemedFont = headingFont(shown["plain"]), headingFont(shown["themed"])
		go func() {
			defer fyne.Do(a.Quit)
			time.Sleep(2 * time.Second)
			if b, err := exec.Command("import", "-window", "root", out).CombinedOutput(); err != nil {
				rep.Err = fmt.Sprintf("import: %v: %s", err, b)
				return
			}
			code = 0
		}()
	})
	a.Run()
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return code
}

// headingFont is the font file the title of a surface is drawn in.
func headingFont(v *fyner.View) string {
	if w, ok := v.Widget("title").(fyne.Widget); ok {
		for _, o := range test.WidgetRenderer(w).Objects() {
			if t, ok := o.(*canvas.Text); ok && t.FontSource != nil {
				return t.FontSource.Name()
			}
		}
	}
	return ""
}

// TestA2UIThemeScreenshot draws a themed and a plain surface in a real
// window and checks the screenshot: the themed button is filled with a
// darkened form of the theme's yellow (readable white text), the plain
// one with the app's blue. The PNG goes to $AIMDESK_THEME_SCREENSHOT
// (skipped when unset).
func TestA2UIThemeScreenshot(t *testing.T) {
	out := os.Getenv("AIMDESK_THEME_SCREENSHOT")
	if out == "" {
		t.Skip("set AIMDESK_THEME_SCREENSHOT=build/screenshots/a2ui-theme.png (make uishots)")
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join("..", "..", "..", out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	x := lktest.StartXvfb(t, 800, 360)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+out, "DISPLAY="+x.Display)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	var rep report
	if jerr := json.Unmarshal(b, &rep); jerr != nil || err != nil || rep.Err != "" {
		t.Fatalf("child: %v / %v / %s\nstderr %s", err, jerr, rep.Err, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// Count the pixels of each half that are a saturated yellow-brown
	// (the themed primary, darkened) and a saturated blue (Fyne's).
	half := img.Bounds().Dx() / 2
	count := func(x0, x1 int, want func(r, g, b int) bool) int {
		n := 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := x0; x < x1; x++ {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				if want(int(c.R), int(c.G), int(c.B)) {
					n++
				}
			}
		}
		return n
	}
	yellowish := func(r, g, b int) bool { return r > b+60 && g > b+30 && r-g < 90 }
	blue := func(r, g, b int) bool { return b > r+60 && b > g+20 }
	plainBlue, themedYellow, themedBlue := count(0, half, blue), count(half, img.Bounds().Dx(), yellowish), count(half, img.Bounds().Dx(), blue)
	t.Logf("plain half: %d blue pixels; themed half: %d yellow-brown, %d blue (%s); headings drawn in %q and %q", plainBlue, themedYellow, themedBlue, out, rep.PlainFont, rep.ThemedFont)
	if rep.PlainFont != "" || rep.ThemedFont != "DejaVuSerif-Bold.ttf" {
		t.Errorf("the themed surface's heading is not in its font %s", font)
	}
	if plainBlue < 500 || themedYellow < 500 || themedBlue > themedYellow/4 {
		t.Errorf("the themed surface's button is not in the theme's colour")
	}
}
