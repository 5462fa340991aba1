package ui

import (
	"errors"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/store"
)

func findButton(o fyne.CanvasObject, text string) *widget.Button {
	switch x := o.(type) {
	case *widget.Button:
		if x.Text == text {
			return x
		}
	case *fyne.Container:
		for _, c := range x.Objects {
			if b := findButton(c, text); b != nil {
				return b
			}
		}
	}
	return nil
}

func windowTitled(a fyne.App, title string) fyne.Window {
	for _, w := range a.Driver().AllWindows() {
		if w.Title() == title {
			return w
		}
	}
	return nil
}

func TestStartupErrorOffersWayOut(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantMove  bool
		moveFails bool
	}{
		{"damaged", &store.OpenError{Path: "/x/aimdesk.db", Err: store.ErrDamaged}, true, false},
		{"too new", &store.OpenError{Path: "/x/aimdesk.db", Err: store.ErrTooNew}, true, false},
		{"locked", &store.OpenError{Path: "/x/aimdesk.db", Err: store.ErrLocked}, false, false},
		{"move fails", &store.OpenError{Path: "/x/aimdesk.db", Err: store.ErrDamaged}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := test.NewTempApp(t)
			moved := 0
			ShowStartupError(a, tt.err, func() error {
				moved++
				if tt.moveFails {
					return errors.New("disk full")
				}
				return nil
			})
			w := windowTitled(a, "aimdesk cannot start")
			if w == nil {
				t.Fatal("no start-up error window")
			}
			b := findButton(w.Content(), "Move it aside and start fresh")
			if (b != nil) != tt.wantMove {
				t.Fatalf("move-aside button shown = %v, want %v", b != nil, tt.wantMove)
			}
			if findButton(w.Content(), "Quit") == nil {
				t.Fatal("no Quit button")
			}
			if b != nil {
				test.Tap(b)
				if moved != 1 {
					t.Fatalf("moveAside called %d times", moved)
				}
				open := windowTitled(a, "aimdesk cannot start") != nil
				if tt.moveFails && !open {
					t.Fatal("window closed although moving aside failed")
				}
				if !tt.moveFails && open {
					t.Fatal("window still open after moving aside")
				}
			}
		})
	}
}
