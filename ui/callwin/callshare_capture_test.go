package callwin

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/media"
)

// captureEngine is a fake engine that says how screens are captured and
// counts ResetScreenChoice calls.
type captureEngine struct {
	*fakeEngine
	capture  media.ScreenCapture
	label    string
	resets   int
	resetErr error
}

func (e *captureEngine) ScreenCapture() (media.ScreenCapture, string) { return e.capture, e.label }

func (e *captureEngine) ResetScreenChoice() error { e.resets++; return e.resetErr }

func findButton(o fyne.CanvasObject, text string) *widget.Button {
	var found *widget.Button
	walkAll(o, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == text && found == nil {
			found = b
		}
	})
	return found
}

// TestSharePickerSaysHowScreensAreCaptured: the share picker names the
// capture in use; on Wayland it says the desktop asks, and "Forget my last
// choice" resets the portal's kept choice; a closed desktop picker reads
// as such.
func TestSharePickerSaysHowScreensAreCaptured(t *testing.T) {
	for _, c := range []struct {
		name     string
		capture  media.ScreenCapture
		label    string
		resetErr error
		want     []string
		reset    bool
	}{
		{"x11", media.ScreenCaptureX11, "X11", nil, []string{"You have one screen: Screen 0", "Screen capture: X11"}, false},
		{"wayland", media.ScreenCapturePortal, "Wayland (desktop portal)", nil, []string{"Your desktop asks which screen or window", "Screen capture: Wayland (desktop portal)", "Forget my last choice"}, true},
		{"wayland reset fails", media.ScreenCapturePortal, "Wayland (desktop portal)", errors.New("read-only config"), []string{"Your desktop asks"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fe := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true, Screen: true}}
			h := newFakeCallHarness(t, fe)
			h.joinFake(nil)
			ce := &captureEngine{fakeEngine: fe, capture: c.capture, label: c.label, resetErr: c.resetErr}
			cw := h.cw
			cw.engine = ce
			cw.pickScreen()
			txt := visibleText(cw.picker.Content)
			for _, w := range c.want {
				if !strings.Contains(txt, w) {
					t.Errorf("picker lacks %q; says:\n%s", w, txt)
				}
			}
			b := findButton(cw.picker.Content, "Forget my last choice")
			if !c.reset {
				if b != nil {
					t.Error("a reset button with X11 capture")
				}
				return
			}
			if b == nil {
				t.Fatalf("no reset button; picker says:\n%s", txt)
			}
			test.Tap(b)
			if ce.resets != 1 {
				t.Fatalf("ResetScreenChoice called %d times, want 1", ce.resets)
			}
			want := "Your desktop will ask again"
			if c.resetErr != nil {
				want = "Could not forget it: "
			}
			if !strings.HasPrefix(b.Text, want) || (c.resetErr == nil) != b.Disabled() {
				t.Errorf("after reset the button says %q (disabled %v)", b.Text, b.Disabled())
			}
		})
	}
	if got := callErrText(fmt.Errorf("media: start screen: %w", media.ErrScreenCancelled)); !strings.Contains(got, "closed your desktop's screen picker") {
		t.Errorf("cancelled picker reads %q", got)
	}
}
