// Package screenpreset names the screen-share settings a user picks from
// (size, frame rate, bit rate) and picks the default from an uplink
// estimate. Pure Go, so builds without media (nomedia) can list them.
package screenpreset

// Preset is a named set of screen-share settings.
type Preset struct {
	ID   string // stable, for settings: "text", "standard", "balanced", "motion", "fullhd"
	Name string // what the user reads, with the size and rate
	// MaxWidth×MaxHeight bound the frames (scaled down keeping the aspect
	// ratio; a smaller screen is sent as it is).
	MaxWidth, MaxHeight int
	FPS                 float64
	BitRate             int // VP8 target, bit/s
}

// The screen presets. Standard is what a share uses when nothing is known
// of the uplink.
var (
	Text = Preset{
		ID: "text", Name: "Sharp text (1920×1080, 5 fps)",
		MaxWidth: 1920, MaxHeight: 1080, FPS: 5, BitRate: 1_500_000,
	}
	Standard = Preset{
		ID: "standard", Name: "Standard (1280×720, 5 fps)",
		MaxWidth: 1280, MaxHeight: 720, FPS: 5, BitRate: 1_000_000,
	}
	Balanced = Preset{
		ID: "balanced", Name: "Balanced (1280×720, 10 fps)",
		MaxWidth: 1280, MaxHeight: 720, FPS: 10, BitRate: 1_200_000,
	}
	Motion = Preset{
		ID: "motion", Name: "Smooth motion (1280×720, 15 fps)",
		MaxWidth: 1280, MaxHeight: 720, FPS: 15, BitRate: 1_500_000,
	}
	FullHD = Preset{
		ID: "fullhd", Name: "Full HD motion (1920×1080, 15 fps)",
		MaxWidth: 1920, MaxHeight: 1080, FPS: 15, BitRate: 2_500_000,
	}
)

// All lists the presets, sharpest text first.
func All() []Preset {
	return []Preset{Text, Standard, Balanced, Motion, FullHD}
}

// ByID finds a preset; ok is false for an unknown id.
func ByID(id string) (Preset, bool) {
	for _, p := range All() {
		if p.ID == id {
			return p, true
		}
	}
	return Preset{}, false
}

// uplinkShare is the part of the uplink a screen share may take: the rest
// is for audio, the camera and retransmissions.
const uplinkShare = 0.6

// Default picks the preset for an estimated uplink of
// uplinkBitRate bit/s (0 = unknown):
//
//   - unknown: Standard (1280×720, 5 fps, 1 Mbit/s), as before presets;
//   - 60% of the uplink covers Sharp text's 1.5 Mbit/s (uplink ≥ 2.5 Mbit/s):
//     Sharp text, since what an agent is shown is mostly text;
//   - otherwise Standard, its bit rate lowered to 60% of the uplink (not
//     under 250 kbit/s): VP8 keeps the size and spends longer refining a
//     still screen.
//
// Motion presets are never a default: the user picks them.
func Default(uplinkBitRate int) Preset {
	if uplinkBitRate <= 0 {
		return Standard
	}
	budget := int(float64(uplinkBitRate) * uplinkShare)
	if budget >= Text.BitRate {
		return Text
	}
	p := Standard
	p.BitRate = max(250_000, min(p.BitRate, budget))
	return p
}
