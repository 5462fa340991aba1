package ui

import (
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// msgList is the conversation's virtualized list: rows of different
// heights, of which only the visible ones exist as widgets.
//
// It has widget.List's shape (Length, CreateItem, UpdateItem,
// SetItemHeight, RefreshItem, ScrollTo…), but every operation costs
// O(log n + visible rows) for n rows. Fyne 2.7's widget.List does not:
// with rows of their own heights, each layout walks every row above the
// visible ones and sums all the heights, and RefreshItem refreshes the
// whole list, so a streamed answer growing by a line at the end of a long
// conversation cost time in proportion to the conversation's length. The
// heights live here in a Fenwick tree (prefix sums, O(log n) update and
// search).
//
// UpdateItem may call SetItemHeight (a row measures itself when bound): the
// list then places its rows again before it returns.
type msgList struct {
	widget.BaseWidget

	Length     func() int
	CreateItem func() fyne.CanvasObject
	UpdateItem func(id int, o fyne.CanvasObject)
	// OnScrolled, if set, runs after the view scrolled (by the user or by
	// a ScrollTo call) and the rows were placed.
	OnScrolled func()

	heights  fenwick
	template float32 // height of a row not measured; from CreateItem
	gap      float32 // space between rows, where a separator line sits

	scroll  *container.Scroll
	content *msgListContent
	visible map[int]fyne.CanvasObject
	seps    map[int]*widget.Separator
	pool    []fyne.CanvasObject
	sepPool []*widget.Separator
	width   float32

	updating   bool // inside update: SetItemHeight and scrolling only mark work
	again      bool
	toBottom   bool
	startAt    float32 // where to scroll once shown: -1 the bottom, else an offset; NaN done
	rebindAll  bool
	shownTotal float32 // the content height the scroller last knew
}

func newMsgList(length func() int, create func() fyne.CanvasObject, update func(int, fyne.CanvasObject)) *msgList {
	l := &msgList{
		Length: length, CreateItem: create, UpdateItem: update,
		visible: map[int]fyne.CanvasObject{}, seps: map[int]*widget.Separator{}, startAt: -1,
	}
	l.ExtendBaseWidget(l)
	return l
}

// CreateRenderer makes the scroller and the content that holds the rows.
func (l *msgList) CreateRenderer() fyne.WidgetRenderer {
	l.gap = theme.Padding()
	l.content = &msgListContent{list: l}
	l.content.ExtendBaseWidget(l.content)
	l.scroll = container.NewVScroll(l.content)
	l.scroll.OnScrolled = func(fyne.Position) {
		l.update()
		if l.OnScrolled != nil && !l.updating {
			l.OnScrolled()
		}
	}
	l.syncLength()
	return widget.NewSimpleRenderer(l.scroll)
}

// MinSize is a row's.
func (l *msgList) MinSize() fyne.Size {
	l.ExtendBaseWidget(l)
	return l.BaseWidget.MinSize()
}

// Resize places the rows for the new size; at another width every visible
// row is bound again (it wraps differently).
func (l *msgList) Resize(s fyne.Size) {
	if s == l.Size() {
		return
	}
	l.BaseWidget.Resize(s)
	if l.scroll == nil {
		return
	}
	if s.Width != l.width {
		l.width = s.Width
		l.rebindAll = true
	}
	l.update()
}

// Refresh takes a new length and binds every visible row again.
func (l *msgList) Refresh() {
	if l.scroll == nil {
		l.BaseWidget.Refresh()
		return
	}
	l.syncLength()
	l.rebindAll = true
	l.update()
}

// RefreshItem binds row id again if it is visible.
func (l *msgList) RefreshItem(id int) {
	if o, ok := l.visible[id]; ok && l.UpdateItem != nil {
		l.UpdateItem(id, o)
		l.update()
	}
}

// SetItemHeight sets a row's height (without the gap).
func (l *msgList) SetItemHeight(id int, h float32) {
	if l.scroll == nil {
		l.syncLengthTo(max(id+1, l.heights.len()))
	}
	if id < 0 || id >= l.heights.len() || l.heights.get(id) == h+l.gap0() {
		return
	}
	l.heights.set(id, h+l.gap0())
	if l.scroll != nil {
		l.update()
	}
}

// templateHeight is the height of a row not measured yet: CreateItem's.
func (l *msgList) templateHeight() float32 {
	if l.template == 0 && l.CreateItem != nil {
		l.template = l.CreateItem().MinSize().Height
	}
	return l.template
}

// gap0 is the gap, also before the renderer exists.
func (l *msgList) gap0() float32 {
	if l.gap == 0 {
		l.gap = theme.Padding()
	}
	return l.gap
}

// ScrollToOffset scrolls so that the content's y offset is at the top.
func (l *msgList) ScrollToOffset(y float32) {
	if l.scroll == nil {
		l.startAt = y // once shown
		return
	}
	y = float32(math.Max(0, math.Min(float64(y), float64(l.total()-l.scroll.Size().Height))))
	l.syncScroller()
	l.scroll.ScrollToOffset(fyne.NewPos(0, y))
	l.update()
}

// ScrollToBottom shows the last row.
func (l *msgList) ScrollToBottom() {
	if l.scroll == nil {
		l.startAt = -1
		return
	}
	if l.updating {
		l.toBottom = true
		return
	}
	l.ScrollToOffset(float32(math.MaxFloat32))
}

// ScrollToTop shows the first row.
func (l *msgList) ScrollToTop() { l.ScrollToOffset(0) }

// GetScrollOffset is the content's y offset at the top of the view.
func (l *msgList) GetScrollOffset() float32 {
	if l.scroll == nil {
		return 0
	}
	return l.scroll.Offset.Y
}

// total is the content's height.
func (l *msgList) total() float32 {
	t := l.heights.total()
	if l.heights.len() > 0 {
		t -= l.gap0()
	}
	return t
}

func (l *msgList) syncLength() {
	if l.Length != nil {
		l.syncLengthTo(l.Length())
	}
}

// syncLengthTo grows or shrinks the rows to n; new rows have the template
// height until measured.
func (l *msgList) syncLengthTo(n int) {
	l.heights.resize(n, l.templateHeight()+l.gap0())
	for id, o := range l.visible {
		if id >= n {
			l.release(id, o)
		}
	}
}

// update binds the rows in view (UpdateItem for rows new in view, or all
// of them after Refresh or a width change), places them, and tells the
// scroller the content's height. Work asked for meanwhile (a row measured
// itself, a scroll to the bottom) is done before it returns.
func (l *msgList) update() {
	if l.scroll == nil {
		return
	}
	if l.updating {
		l.again = true
		return
	}
	l.updating = true
	if !math.IsNaN(float64(l.startAt)) && l.scroll.Size().Height > 0 {
		// The first time in view: start where asked, without binding the
		// rows at the top first.
		if l.startAt < 0 {
			l.toBottom = true
		} else {
			l.syncScroller()
			l.scroll.ScrollToOffset(fyne.NewPos(0, min(l.startAt, max(0, l.total()-l.scroll.Size().Height))))
		}
		l.startAt = float32(math.NaN())
	}
	for pass := 0; pass < 8; pass++ {
		l.again = false
		if l.toBottom {
			l.toBottom = false
			l.syncScroller()
			l.scroll.ScrollToOffset(fyne.NewPos(0, max(0, l.total()-l.scroll.Size().Height)))
		}
		l.bind()
		l.syncScroller()
		if !l.again && !l.toBottom {
			break
		}
	}
	l.updating = false
	l.content.place()
}

// syncScroller gives the scroller the content's height when it changed.
func (l *msgList) syncScroller() {
	if t := l.total(); t != l.shownTotal {
		l.shownTotal = t
		l.content.Resize(fyne.NewSize(l.scroll.Size().Width, max(t, l.scroll.Size().Height)))
		l.scroll.Refresh() // the bars; may clamp the offset (OnScrolled marks again)
	}
}

// bind makes a widget for every row in view and calls UpdateItem for those
// that are new (or all of them when rebindAll).
func (l *msgList) bind() {
	n := l.heights.len()
	off, view := l.scroll.Offset.Y, l.scroll.Size().Height
	first, last := l.heights.find(off), -1
	for i := first; i < n; i++ {
		if l.heights.prefix(i) > off+view {
			break
		}
		last = i
	}
	rebind := l.rebindAll
	l.rebindAll = false
	for id, o := range l.visible {
		if id < first || id > last {
			l.release(id, o)
		}
	}
	for i := first; i <= last; i++ {
		o, ok := l.visible[i]
		if !ok {
			o = l.get()
			l.visible[i] = o
			o.Resize(fyne.NewSize(l.scroll.Size().Width, l.heights.get(i)-l.gap0()))
		}
		if (!ok || rebind) && l.UpdateItem != nil {
			l.UpdateItem(i, o)
		}
	}
}

func (l *msgList) get() fyne.CanvasObject {
	if n := len(l.pool); n > 0 {
		o := l.pool[n-1]
		l.pool = l.pool[:n-1]
		return o
	}
	return l.CreateItem()
}

func (l *msgList) release(id int, o fyne.CanvasObject) {
	delete(l.visible, id)
	l.pool = append(l.pool, o)
	if s, ok := l.seps[id]; ok {
		delete(l.seps, id)
		l.sepPool = append(l.sepPool, s)
	}
}

// msgListContent is the scrolled content: the rows in view, placed by
// their offsets.
type msgListContent struct {
	widget.BaseWidget
	list *msgList
	objs []fyne.CanvasObject
}

func (c *msgListContent) CreateRenderer() fyne.WidgetRenderer {
	return &msgListContentRenderer{c: c}
}

func (c *msgListContent) MinSize() fyne.Size {
	return fyne.NewSize(0, c.list.total())
}

// place positions the rows in view and their separators.
func (c *msgListContent) place() {
	l := c.list
	width := l.scroll.Size().Width
	c.objs = c.objs[:0]
	for id, o := range l.visible {
		y := l.heights.prefix(id)
		h := l.heights.get(id) - l.gap0()
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(width, h))
		c.objs = append(c.objs, o)
		if id == l.heights.len()-1 {
			continue
		}
		s, ok := l.seps[id]
		if !ok {
			if n := len(l.sepPool); n > 0 {
				s = l.sepPool[n-1]
				l.sepPool = l.sepPool[:n-1]
			} else {
				s = widget.NewSeparator()
			}
			l.seps[id] = s
		}
		th := theme.SeparatorThicknessSize()
		s.Move(fyne.NewPos(0, y+h+(l.gap0()-th)/2))
		s.Resize(fyne.NewSize(width, th))
		c.objs = append(c.objs, s)
	}
	canvas.Refresh(c)
}

type msgListContentRenderer struct{ c *msgListContent }

func (r *msgListContentRenderer) Destroy()                     {}
func (r *msgListContentRenderer) Layout(fyne.Size)             { r.c.list.update() }
func (r *msgListContentRenderer) MinSize() fyne.Size           { return r.c.MinSize() }
func (r *msgListContentRenderer) Objects() []fyne.CanvasObject { return r.c.objs }
func (r *msgListContentRenderer) Refresh()                     {}

// fenwick holds row heights with O(log n) prefix sums, updates and
// search by offset.
type fenwick struct {
	tree []float32 // 1-based
	vals []float32
	sum  float32
}

func (f *fenwick) len() int { return len(f.vals) }

func (f *fenwick) get(i int) float32 { return f.vals[i] }

func (f *fenwick) total() float32 { return f.sum }

// resize sets the length to n, new values being v (rebuilt in O(n)).
func (f *fenwick) resize(n int, v float32) {
	if n == len(f.vals) {
		return
	}
	if n < len(f.vals) {
		f.vals = f.vals[:n]
	} else {
		for len(f.vals) < n {
			f.vals = append(f.vals, v)
		}
	}
	f.rebuild()
}

func (f *fenwick) rebuild() {
	n := len(f.vals)
	f.tree = make([]float32, n+1)
	f.sum = 0
	for i, v := range f.vals {
		f.sum += v
		j := i + 1
		f.tree[j] += v
		if k := j + (j & -j); k <= n {
			f.tree[k] += f.tree[j]
		}
	}
}

func (f *fenwick) set(i int, v float32) {
	d := v - f.vals[i]
	f.vals[i] = v
	f.sum += d
	for j := i + 1; j < len(f.tree); j += j & -j {
		f.tree[j] += d
	}
}

// prefix is the sum of the values before i.
func (f *fenwick) prefix(i int) float32 {
	var s float32
	for j := i; j > 0; j -= j & -j {
		s += f.tree[j]
	}
	return s
}

// find returns the index whose span contains offset y: the largest i with
// prefix(i) <= y (0 for an empty tree).
func (f *fenwick) find(y float32) int {
	n := len(f.vals)
	if n == 0 {
		return 0
	}
	pos := 0
	step := 1
	for step*2 <= n {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if next := pos + step; next <= n && f.tree[next] <= y {
			pos = next
			y -= f.tree[next]
		}
	}
	return min(pos, n-1)
}
