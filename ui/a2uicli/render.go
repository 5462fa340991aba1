package a2uicli

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/software"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"aimdesk/a2ui/a2uicheck"
	"aimdesk/a2ui/fyner"
)

// Options say how to draw a replay.
type Options struct {
	// Width is the picture's width in pixels (at scale 1).
	Width int
	// Dark draws with the dark variant of the theme.
	Dark bool
}

// ErrNothingToDraw is returned for a file that built no surface.
var ErrNothingToDraw = errors.New("a2ui render: the file builds no surface")

// Render draws every surface of a replay, one under the other, with the
// app's renderer on Fyne's software driver (no display needed). Images are
// drawn only from data: URLs: render never goes to the network.
func Render(ctx context.Context, r *a2uicheck.Replay, opts Options) (image.Image, error) {
	// Fyne's drivers run their work off the process's main goroutine (its
	// thread checks say so when they do not), as a test does.
	type result struct {
		img image.Image
		err error
	}
	ch := make(chan result, 1)
	go func() {
		img, err := render(ctx, r, opts)
		ch <- result{img, err}
	}()
	res := <-ch
	return res.img, res.err
}

func render(ctx context.Context, r *a2uicheck.Replay, opts Options) (image.Image, error) {
	surfaces := r.Processor.Surfaces()
	if len(surfaces) == 0 {
		return nil, ErrNothingToDraw
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := test.NewApp()
	defer a.Quit()
	variant := theme.VariantLight
	if opts.Dark {
		variant = theme.VariantDark
	}
	th := variantTheme{Theme: theme.DefaultTheme(), variant: variant}
	a.Settings().SetTheme(th)
	rend := fyner.New(r.Processor, fyner.Config{
		Do:      func(fn func()) { fn() },
		Images:  offlineImages{fyner.NewHTTPImageLoader(func(fn func()) { fn() })},
		OpenURL: func(*url.URL) {}, // nothing to click in a picture
	})
	var views []fyne.CanvasObject
	for _, s := range surfaces {
		views = append(views, rend.View(s).Object())
	}
	content := container.NewVBox(views...)
	c := software.NewCanvas()
	c.SetPadded(false)
	c.SetContent(content)
	w := float32(opts.Width)
	for i := 0; i < 3; i++ { // wrapped text is as tall as the width makes it
		c.Resize(fyne.NewSize(w, content.MinSize().Height))
	}
	return software.RenderCanvas(c, th), nil
}

// variantTheme is the default theme held to one variant, whatever the
// machine's setting.
type variantTheme struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.variant)
}

// offlineImages loads data: URLs and refuses everything else.
type offlineImages struct{ data fyner.ImageLoader }

// errOffline says why a picture is missing from a render.
var errOffline = errors.New("not fetched: a2ui render does not go to the network")

func (l offlineImages) Load(rawURL string, done func(image.Image, error)) {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(rawURL)), "data:") {
		l.data.Load(rawURL, done)
		return
	}
	done(nil, fmt.Errorf("%s: %w", rawURL, errOffline))
}
