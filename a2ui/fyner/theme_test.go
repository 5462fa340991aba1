package fyner

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

func TestSurfaceThemeContrast(t *testing.T) {
	base := func() fyne.Theme { return theme.DefaultTheme() }
	for _, c := range []string{"#FFFF00", "#ffffff", "#000", "#777777", "#1a73e8", "#00ff00", "#ff0000cc", "#808"} {
		for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
			th := newSurfaceTheme(base, map[string]any{"primaryColor": c})
			if th == nil {
				t.Fatalf("%s: no theme", c)
			}
			p, on := th.Color(theme.ColorNamePrimary, v), th.Color(theme.ColorNameForegroundOnPrimary, v)
			if r := contrast(p, on); r < minContrast {
				t.Errorf("%s variant %d: text on primary contrast %.2f < %.1f", c, v, r, minContrast)
			}
			bg, link := base().Color(theme.ColorNameBackground, v), th.Color(theme.ColorNameHyperlink, v)
			if r := contrast(bg, link); r < minContrast {
				t.Errorf("%s variant %d: link on background contrast %.2f < %.1f", c, v, r, minContrast)
			}
			if fg := th.Color(theme.ColorNameForeground, v); fg != base().Color(theme.ColorNameForeground, v) {
				t.Errorf("%s: foreground changed; the app's theme must stay", c)
			}
		}
	}
	// A colour that already reads well is kept as the agent sent it.
	th := newSurfaceTheme(base, map[string]any{"primaryColor": "#1a4fa0"})
	if got := th.Color(theme.ColorNamePrimary, theme.VariantLight); got != (color.NRGBA{R: 0x1a, G: 0x4f, B: 0xa0, A: 0xff}) {
		t.Errorf("readable primary changed to %v", got)
	}
}

func TestSurfaceThemeParse(t *testing.T) {
	base := func() fyne.Theme { return theme.DefaultTheme() }
	tests := []struct {
		name  string
		m     map[string]any
		isNil bool
	}{
		{"v0.8 styles", map[string]any{"font": "Roboto", "primaryColor": "#00BFFF"}, false},
		{"later theme, short colour", map[string]any{"primaryColor": "#0bf"}, false},
		{"font only: nothing to draw", map[string]any{"font": "JetBrains Mono"}, true},
		{"bad colour", map[string]any{"primaryColor": "blue"}, true},
		{"empty", map[string]any{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if th := newSurfaceTheme(base, tt.m); (th == nil) != tt.isNil {
				t.Fatalf("theme %v, want nil %v", th, tt.isNil)
			}
		})
	}
}

func TestThemedWrapsOnlyThemedSurfaces(t *testing.T) {
	test.NewTempApp(t)
	obj := container.NewStack()
	if got := themed(obj, nil); got != obj {
		t.Errorf("no theme: wrapped in %T", got)
	}
	if _, ok := themed(obj, map[string]any{"primaryColor": "#00BFFF"}).(*container.ThemeOverride); !ok {
		t.Error("a primaryColor did not wrap the surface in its theme")
	}
}
