package ui

import (
	"image/color"
	"math/rand"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

func TestFenwickMatchesSums(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var f fenwick
	f.resize(1000, 10)
	vals := make([]float32, 1000)
	for i := range vals {
		vals[i] = 10
	}
	for k := 0; k < 2000; k++ {
		i, v := r.Intn(len(vals)), float32(r.Intn(300)+1)
		f.set(i, v)
		vals[i] = v
	}
	var sum float32
	for i, v := range vals {
		if got := f.prefix(i); got != sum {
			t.Fatalf("prefix(%d) = %v, want %v", i, got, sum)
		}
		for _, y := range []float32{sum, sum + v/2, sum + v - 0.5} {
			if got := f.find(y); got != i {
				t.Fatalf("find(%v) = %d, want %d", y, got, i)
			}
		}
		sum += v
	}
	if f.total() != sum {
		t.Fatalf("total %v, want %v", f.total(), sum)
	}
	f.resize(10, 1)
	if f.len() != 10 || f.prefix(10) != f.total() {
		t.Fatalf("after shrinking: len %d, prefix %v, total %v", f.len(), f.prefix(10), f.total())
	}
}

func TestMsgListBindsOnlyVisibleRows(t *testing.T) {
	test.NewTempApp(t)
	const n = 10000
	bound := map[int]int{} // id → UpdateItem calls
	var l *msgList
	l = newMsgList(func() int { return n }, func() fyne.CanvasObject {
		r := canvas.NewRectangle(color.Black)
		r.SetMinSize(fyne.NewSize(10, 20))
		return r
	}, func(id int, o fyne.CanvasObject) {
		bound[id]++
		if id == n-1 {
			l.SetItemHeight(id, 120) // a row measuring itself while bound
		}
	})
	w := test.NewWindow(l)
	defer w.Close()
	w.SetPadded(false)
	w.Resize(fyne.NewSize(300, 400))

	gap := l.gap0()
	want := float32(n-1)*(20+gap) + 120
	if got := l.total(); got != want {
		t.Fatalf("total %v, want %v", got, want)
	}
	if len(bound) > 20 {
		t.Fatalf("%d rows bound for a 400 px view", len(bound))
	}
	if _, ok := bound[n-1]; !ok {
		t.Fatal("a new list does not start at its end")
	}
	if got := l.GetScrollOffset(); got != want-400 {
		t.Fatalf("offset %v, want %v (the end)", got, want-400)
	}
	// The last row is placed under the others, at its own height.
	last := l.visible[n-1]
	if last.Position().Y != float32(n-1)*(20+gap) || last.Size().Height != 120 {
		t.Fatalf("last row at %v size %v", last.Position(), last.Size())
	}
	clear(bound)
	l.ScrollToTop()
	if _, ok := bound[0]; !ok || len(bound) > 20 {
		t.Fatalf("after scrolling to the top: bound %v", bound)
	}
	if len(l.visible) > 20 {
		t.Fatalf("%d rows kept", len(l.visible))
	}
	clear(bound)
	l.SetItemHeight(5, 200)
	if len(bound) != 0 {
		t.Fatalf("changing a height bound rows again: %v", bound)
	}
	if got := l.visible[6].Position().Y; got != 5*(20+gap)+200+gap {
		t.Fatalf("row 6 at %v after row 5 grew", got)
	}
}
