package fyner

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// preferrer is implemented by objects whose natural width is larger than
// their minimum (wrapped text): a Row gives them that width when it can.
type preferrer interface {
	PreferredSize() fyne.Size
}

// prefOf returns an object's preferred size (at least its minimum): the
// width it would take with room to spare, like CSS max-content.
func prefOf(o fyne.CanvasObject) fyne.Size {
	min := o.MinSize()
	switch x := o.(type) {
	case preferrer:
		return x.PreferredSize().Max(min)
	case *fyne.Container:
		switch l := x.Layout.(type) {
		case *flexLayout:
			return l.preferred(x.Objects).Max(min)
		case *prefLayout:
			return fyne.NewSize(fmax(min.Width, l.width), min.Height)
		case *flowLayout:
			return fyne.NewSize(fmax(min.Width, l.lineWidth(x.Objects)), min.Height)
		case *capLayout, fixedLayout:
			return min
		}
		return withExtra(min, x.Objects...)
	case *widget.Card:
		if x.Content != nil {
			return withExtra(min, x.Content)
		}
	case *tapArea:
		return withExtra(min, x.content)
	}
	return min
}

// withExtra widens min by the most any of objs would like to grow.
func withExtra(min fyne.Size, objs ...fyne.CanvasObject) fyne.Size {
	var extra float32
	for _, c := range objs {
		if c.Visible() {
			extra = fmax(extra, prefOf(c).Width-c.MinSize().Width)
		}
	}
	return fyne.NewSize(min.Width+extra, min.Height)
}

// prefLayout stacks its objects and prefers a width (inputs, sliders and
// feature images in centred columns).
type prefLayout struct{ width float32 }

func (p *prefLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (p *prefLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		if o.Visible() {
			s = s.Max(o.MinSize())
		}
	}
	return s
}

// flexLayout arranges a Row (horizontal) or Column like CSS flexbox:
// children get their preferred size along the main axis, shrink toward
// their minimum when space is short, and share what is left by weight
// (flex-grow) or place it according to justify; align places them on the
// cross axis.
type flexLayout struct {
	horizontal bool
	// justify: start (default), center, end, spaceBetween, spaceAround,
	// spaceEvenly, stretch.
	justify string
	// align: stretch (default), start, center, end.
	align string
	// items holds the element of each object (for its weight).
	items []*element
}

func (l *flexLayout) main(s fyne.Size) float32 {
	if l.horizontal {
		return s.Width
	}
	return s.Height
}

func (l *flexLayout) cross(s fyne.Size) float32 {
	if l.horizontal {
		return s.Height
	}
	return s.Width
}

func (l *flexLayout) size(main, cross float32) fyne.Size {
	if l.horizontal {
		return fyne.NewSize(main, cross)
	}
	return fyne.NewSize(cross, main)
}

func (l *flexLayout) weight(i int) float32 {
	if i < len(l.items) && l.items[i] != nil {
		return l.items[i].weight
	}
	return 0
}

// Layout places the visible objects.
func (l *flexLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	idx := make([]int, 0, len(objs))
	for i, o := range objs {
		if o.Visible() {
			idx = append(idx, i)
		}
	}
	n := len(idx)
	if n == 0 {
		return
	}
	gap := theme.Padding()
	crossSize := l.cross(size)
	crossOf, basis, mins, totalW := l.measureItems(objs, idx, crossSize)
	avail := l.main(size) - gap*float32(n-1)
	free := l.grow(idx, basis, mins, avail, totalW)
	start, between := float32(0), gap
	switch {
	case free <= 0:
	case l.justify == "stretch":
		for k := range basis {
			basis[k] += free / float32(n)
		}
	default:
		start, between = justifyOffsets(l.justify, free, gap, n)
	}
	pos := start
	for k, i := range idx {
		m := basis[k]
		l.place(objs[i], pos, m, crossOf[k], crossSize)
		pos += m + between
	}
}

// measureItems finds, for the visible objects idx, the cross size each gets,
// its basis and minimum along the main axis, and the sum of the weights.
func (l *flexLayout) measureItems(objs []fyne.CanvasObject, idx []int, crossSize float32) (crossOf, basis, mins []float32, totalW float32) {
	n := len(idx)
	crossOf, basis, mins = make([]float32, n), make([]float32, n), make([]float32, n)
	for k, i := range idx {
		o := objs[i]
		min := o.MinSize()
		c := crossSize
		if !l.horizontal && l.align != "" && l.align != "stretch" {
			c = fmin(l.cross(prefOf(o)), crossSize)
		}
		crossOf[k] = c
		if !l.horizontal {
			// Wrapped text is as tall as its width makes it.
			o.Resize(fyne.NewSize(c, o.Size().Height))
			min = o.MinSize()
		}
		mins[k] = l.main(min)
		basis[k] = mins[k]
		if w := l.weight(i); w > 0 {
			totalW += w
		} else if l.horizontal {
			basis[k] = fmax(mins[k], prefOf(o).Width)
		}
	}
	return crossOf, basis, mins, totalW
}

// place sizes o to m along the main axis (c across, or its own height
// in a row that does not stretch) and moves it to pos, aligned.
func (l *flexLayout) place(o fyne.CanvasObject, pos, m, c, crossSize float32) {
	if l.horizontal {
		o.Resize(fyne.NewSize(m, o.Size().Height))
		if l.align != "" && l.align != "stretch" {
			c = fmin(o.MinSize().Height, crossSize)
		}
	}
	var off float32
	switch l.align {
	case "center":
		off = (crossSize - c) / 2
	case "end":
		off = crossSize - c
	}
	o.Resize(l.size(m, c))
	if l.horizontal {
		o.Move(fyne.NewPos(pos, off))
	} else {
		o.Move(fyne.NewPos(off, pos))
	}
}

// grow gives the weighted children their share of the space the others
// leave (like flex: w 1 0, never below their minimum), shrinks the
// others toward their minimum when space is short, and returns the space
// left over.
func (l *flexLayout) grow(idx []int, basis, mins []float32, avail, totalW float32) float32 {
	var fixed, weightedMin float32
	for k, i := range idx {
		if l.weight(i) > 0 {
			weightedMin += mins[k]
		} else {
			fixed += basis[k]
		}
	}
	if totalW == 0 || avail-fixed < weightedMin {
		free := avail - fixed - weightedMin
		if free < 0 {
			shrink(basis, mins, -free)
			return 0
		}
		return free
	}
	space, weights := avail-fixed, totalW
	done := make([]bool, len(idx))
	for changed := true; changed; {
		changed = false
		for k, i := range idx {
			if w := l.weight(i); w > 0 && !done[k] && space*w/weights < mins[k] {
				basis[k], done[k] = mins[k], true
				space -= mins[k]
				weights -= w
				changed = true
			}
		}
	}
	for k, i := range idx {
		if w := l.weight(i); w > 0 && !done[k] && weights > 0 {
			basis[k] = space * w / weights
		}
	}
	return 0
}

// shrink takes need off the basis sizes, from those above their minimum,
// in proportion to how far above it they are.
func shrink(basis, mins []float32, need float32) {
	var room float32
	for k := range basis {
		room += basis[k] - mins[k]
	}
	if room <= 0 {
		return
	}
	f := fmin(need/room, 1)
	for k := range basis {
		basis[k] -= (basis[k] - mins[k]) * f
	}
}

// justifyOffsets returns where the first child starts and the space
// between children for the free space left along the main axis.
func justifyOffsets(justify string, free, gap float32, n int) (start, between float32) {
	switch justify {
	case "center":
		return free / 2, gap
	case "end":
		return free, gap
	case "spaceBetween":
		if n == 1 {
			return 0, gap
		}
		return 0, gap + free/float32(n-1)
	case "spaceAround":
		each := free / float32(n)
		return each / 2, gap + each
	case "spaceEvenly":
		each := free / float32(n+1)
		return each, gap + each
	}
	return 0, gap
}

// MinSize is the sum of the minimums along the main axis.
func (l *flexLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return l.measure(objs, fyne.CanvasObject.MinSize)
}

// preferred is the sum of the preferred sizes along the main axis.
func (l *flexLayout) preferred(objs []fyne.CanvasObject) fyne.Size {
	return l.measure(objs, prefOf)
}

func (l *flexLayout) measure(objs []fyne.CanvasObject, of func(fyne.CanvasObject) fyne.Size) fyne.Size {
	var main, cross float32
	n := 0
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		s := of(o)
		main += l.main(s)
		cross = fmax(cross, l.cross(s))
		n++
	}
	if n > 1 {
		main += theme.Padding() * float32(n-1)
	}
	return l.size(main, cross)
}

// capLayout gives its only object the full size but reports a minimum
// height of at most max (a virtualized list in a chat message).
type capLayout struct {
	max  float32
	want func() float32 // the content's natural height
}

func (c *capLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (c *capLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	h := c.max
	if c.want != nil {
		h = fmin(fmax(c.want(), s.Height), c.max)
	}
	return fyne.NewSize(s.Width, h)
}

// flowLayout places objects in lines, wrapping when a line is full
// (chips).
type flowLayout struct {
	width float32 // the last width laid out
}

func (f *flowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	f.width = size.Width
	f.place(objs, size.Width, true)
}

func (f *flowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var widest float32
	for _, o := range objs {
		if o.Visible() {
			widest = fmax(widest, o.MinSize().Width)
		}
	}
	w := f.width
	if w < widest {
		w = 0 // not laid out yet: one line
	}
	h := f.place(objs, w, false)
	if w == 0 {
		return fyne.NewSize(widest, h)
	}
	return fyne.NewSize(widest, h)
}

// lineWidth is the width of all objects on one line.
func (f *flowLayout) lineWidth(objs []fyne.CanvasObject) float32 {
	var w float32
	n := 0
	for _, o := range objs {
		if o.Visible() {
			w += o.MinSize().Width
			n++
		}
	}
	if n > 1 {
		w += theme.Padding() * float32(n-1)
	}
	return w
}

// place lays objects out in lines of width (one line when width is 0)
// and returns the height used.
func (f *flowLayout) place(objs []fyne.CanvasObject, width float32, move bool) float32 {
	gap := theme.Padding()
	var x, y, lineH float32
	first := true
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		s := o.MinSize()
		if !first && width > 0 && x+s.Width > width {
			x = 0
			y += lineH + gap
			lineH = 0
		}
		if move {
			o.Move(fyne.NewPos(x, y))
			o.Resize(s)
		}
		x += s.Width + gap
		lineH = fmax(lineH, s.Height)
		first = false
	}
	return y + lineH
}

// fixedLayout shows its objects at their minimum size, at the start and
// centred vertically (icons and avatars that must not stretch).
type fixedLayout struct{}

func (fixedLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		m := o.MinSize()
		o.Resize(m)
		o.Move(fyne.NewPos(0, (size.Height-m.Height)/2))
	}
}

func (fixedLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}

func fmin(a, b float32) float32 {
	if a < b {
		return a
	}
	return b
}

func fmax(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}
