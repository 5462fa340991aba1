package media

import "testing"

func TestScreenOptionsDefaults(t *testing.T) {
	tests := []struct {
		name       string
		o, d       ScreenOptions
		wantW      int
		wantH      int
		wantFPS    float64
		wantBPS    int
		wantPreset string
	}{
		{"nothing known", ScreenOptions{}, ScreenOptions{}, 1280, 720, 5, 1_000_000, "standard"},
		{"preset asked for", ScreenOptions{Preset: "fullhd"}, ScreenOptions{MaxWidth: 800}, 1920, 1080, 15, 2_500_000, "fullhd"},
		{"preset with an override", ScreenOptions{Preset: "text", FPS: 2}, ScreenOptions{}, 1920, 1080, 2, 1_500_000, "text"},
		{"fast uplink", ScreenOptions{UplinkBitRate: 5_000_000}, ScreenOptions{}, 1920, 1080, 5, 1_500_000, "text"},
		{"engine default preset", ScreenOptions{}, ScreenOptions{Preset: "motion"}, 1280, 720, 15, 1_500_000, "motion"},
		{"engine default width", ScreenOptions{}, ScreenOptions{MaxWidth: 960}, 960, 720, 5, 1_000_000, "standard"},
		{"unknown preset", ScreenOptions{Preset: "cinema"}, ScreenOptions{}, 1280, 720, 5, 1_000_000, "standard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := screenWithDefaults(tt.o, tt.d)
			if got.MaxWidth != tt.wantW || got.MaxHeight != tt.wantH || got.FPS != tt.wantFPS || got.BitRate != tt.wantBPS || got.Preset != tt.wantPreset {
				t.Errorf("got %+v", got)
			}
		})
	}
}
