package screenpreset

import "testing"

func TestDefault(t *testing.T) {
	tests := []struct {
		name    string
		uplink  int
		wantID  string
		wantBPS int
	}{
		{"unknown", 0, "standard", 1_000_000},
		{"fast", 10_000_000, "text", 1_500_000},
		{"just enough for text", 2_500_000, "text", 1_500_000},
		{"medium", 2_000_000, "standard", 1_000_000},
		{"slow", 1_000_000, "standard", 600_000},
		{"very slow", 200_000, "standard", 250_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Default(tt.uplink)
			if p.ID != tt.wantID || p.BitRate != tt.wantBPS {
				t.Errorf("Default(%d) = %s at %d bit/s, want %s at %d", tt.uplink, p.ID, p.BitRate, tt.wantID, tt.wantBPS)
			}
		})
	}
	for _, p := range All() {
		got, ok := ByID(p.ID)
		if !ok || got != p {
			t.Errorf("ByID(%q) = %+v, %v", p.ID, got, ok)
		}
		if p.MaxWidth > 1920 || p.MaxHeight > 1080 || p.FPS > 15 {
			t.Errorf("%s exceeds 1920×1080 at 15 fps", p.ID)
		}
	}
}
