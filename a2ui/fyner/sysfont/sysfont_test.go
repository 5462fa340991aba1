package sysfont

import (
	"path/filepath"
	"testing"

	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/fontscan"
)

func fp(file, family string, w font.Weight, italic bool, stretch font.Stretch) fontscan.Footprint {
	st := font.StyleNormal
	if italic {
		st = font.StyleItalic
	}
	var rs fontscan.RuneSet
	for r := 'A'; r <= 'z'; r++ {
		rs.Add(r)
	}
	return fontscan.Footprint{
		Location: fontscan.Location{File: file},
		Family:   font.NormalizeFamily(family),
		Aspect:   font.Aspect{Style: st, Weight: w, Stretch: stretch},
		Runes:    rs,
	}
}

// installed is a made-up machine: DejaVu Sans (with condensed and light
// faces to avoid), DejaVu Serif without italics, Liberation Sans, a
// font collection and a font without a usable file type.
var installed = []fontscan.Footprint{
	fp("/f/DejaVuSansCondensed.ttf", "DejaVu Sans", 400, false, font.StretchCondensed),
	fp("/f/DejaVuSans-ExtraLight.ttf", "DejaVu Sans", 200, false, font.StretchNormal),
	fp("/f/DejaVuSans.ttf", "DejaVu Sans", 400, false, font.StretchNormal),
	fp("/f/DejaVuSans-Bold.ttf", "DejaVu Sans", 700, false, font.StretchNormal),
	fp("/f/DejaVuSans-Oblique.ttf", "DejaVu Sans", 400, true, font.StretchNormal),
	fp("/f/DejaVuSans-BoldOblique.ttf", "DejaVu Sans", 700, true, font.StretchNormal),
	fp("/f/DejaVuSerif.ttf", "DejaVu Serif", 400, false, font.StretchNormal),
	fp("/f/DejaVuSerif-Bold.ttf", "DejaVu Serif", 700, false, font.StretchNormal),
	fp("/f/LiberationSans-Regular.ttf", "Liberation Sans", 400, false, font.StretchNormal),
	fp("/f/LiberationSans-Bold.ttf", "Liberation Sans", 700, false, font.StretchNormal),
	fp("/f/NotoSansCJK-Regular.ttc", "Noto Sans CJK JP", 400, false, font.StretchNormal),
	fp("/f/Weird.pfb", "Weird", 400, false, font.StretchNormal),
}

func TestMatch(t *testing.T) {
	tests := []struct {
		request                   string
		status                    Status
		regular, bold, italic, bi string
	}{
		{"DejaVu Sans", Found, "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"},
		{"dejavu  sans", Found, "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"}, // spaces do not count (as in fontconfig)
		{"DEJAVU SANS", Found, "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"},
		{"DejaVu Serif", Found, "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"},
		{"Arial", Found, "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"},
		{"Helvetica", Found, "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"},
		{"serif", Found, "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"},
		{"Inter, 'DejaVu Serif', serif", Found, "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"},
		{`"Comic Sans MS", sans-serif`, AppFont, "", "", "", ""},
		{"sans-serif", AppFont, "", "", "", ""},
		{"system-ui", AppFont, "", "", "", ""},
		{"Roboto", Missing, "", "", "", ""},
		{"Times New Roman", Missing, "", "", "", ""},  // no Liberation Serif here
		{"Noto Sans CJK JP", Missing, "", "", "", ""}, // a collection only
		{"Weird", Missing, "", "", "", ""},
		{"", Missing, "", "", "", ""},
		{" , ", Missing, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			f, st := Match(installed, tt.request)
			if st != tt.status {
				t.Fatalf("status %v, want %v", st, tt.status)
			}
			got := []string{base(f.Regular), base(f.Bold), base(f.Italic), base(f.BoldItalic)}
			want := []string{tt.regular, tt.bold, tt.italic, tt.bi}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("faces %v, want %v", got, want)
					break
				}
			}
		})
	}
}

func base(f Face) string {
	if f.File == "" {
		return ""
	}
	return filepath.Base(f.File)
}

func TestFaceCovers(t *testing.T) {
	f, _ := Match(installed, "DejaVu Sans")
	if !f.Regular.Covers('a') || f.Regular.Covers('你') {
		t.Error("coverage not taken from the font's footprint")
	}
}

// TestSystem reads this machine's fonts: DejaVu (fonts-dejavu-core, which
// Xvfb's packages pull in) must be found the way a surface asks for it.
func TestSystem(t *testing.T) {
	fps, err := System()
	if err != nil {
		t.Fatal(err)
	}
	f, st := Match(fps, "DejaVu Serif")
	if st != Found {
		t.Skipf("DejaVu Serif is not installed (%d fonts): apt-get install fonts-dejavu-core", len(fps))
	}
	t.Logf("%d fonts; DejaVu Serif: %s %s %s %s", len(fps), f.Regular.File, f.Bold.File, f.Italic.File, f.BoldItalic.File)
	if filepath.Base(f.Regular.File) != "DejaVuSerif.ttf" || filepath.Base(f.Bold.File) != "DejaVuSerif-Bold.ttf" || filepath.Base(f.Italic.File) != "DejaVuSerif-Italic.ttf" {
		t.Errorf("wrong faces chosen: %+v", f)
	}
}
