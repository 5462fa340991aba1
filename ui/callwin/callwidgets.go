package callwin

// Widgets of the call window (call.go): level meters, the agent's voice
// visualizer, the shared-screen preview on which the user drags a box to
// point at something, a hold-to-talk button, and the coalescer that keeps
// high-rate signals (levels, frames) from flooding the Fyne goroutine.

import (
	"image"
	"image/color"
	"math"
	"strconv"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Rates of the call window's live widgets.
const (
	// callMeterInterval bounds meter and visualizer updates to 30 Hz.
	callMeterInterval = time.Second / 30
	// callPreviewInterval bounds camera and screen previews to 15 fps.
	callPreviewInterval = time.Second / 15
	// callVizBars is how many bars the agent's voice visualizer shows.
	callVizBars = 48
	// callMinSelect is the smallest drag (in canvas units) that counts as
	// a selection rather than a click.
	callMinSelect = 4
)

// coalescer hands values from any goroutine to the Fyne goroutine at most
// once per interval: values pushed in between are merged (merge nil: the
// newest wins), and apply runs through post (fyne.Do in the app).
type coalescer[T any] struct {
	interval time.Duration
	post     func(func())
	merge    func(old, newer T) T
	apply    func(T)

	mu        sync.Mutex
	pending   T
	has       bool
	scheduled bool
	last      time.Time
	stopped   bool
}

func newCoalescer[T any](interval time.Duration, post func(func()), merge func(old, newer T) T, apply func(T)) *coalescer[T] {
	return &coalescer[T]{interval: interval, post: post, merge: merge, apply: apply}
}

// push queues v; it never blocks.
func (c *coalescer[T]) push(v T) {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	if c.has && c.merge != nil {
		v = c.merge(c.pending, v)
	}
	c.pending, c.has = v, true
	if c.scheduled {
		c.mu.Unlock()
		return
	}
	c.scheduled = true
	wait := c.interval - time.Since(c.last)
	c.mu.Unlock()
	if wait <= 0 {
		c.post(c.flush)
		return
	}
	time.AfterFunc(wait, func() { c.post(c.flush) })
}

// flush applies what is pending (on the Fyne goroutine).
func (c *coalescer[T]) flush() {
	c.mu.Lock()
	v, has, stopped := c.pending, c.has, c.stopped
	var zero T
	c.pending, c.has, c.scheduled, c.last = zero, false, false, time.Now()
	c.mu.Unlock()
	if has && !stopped {
		c.apply(v)
	}
}

// stop drops whatever is pending and ignores later pushes.
func (c *coalescer[T]) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}

// levelMeter is a horizontal bar showing a level 0..1.
type levelMeter struct {
	widget.BaseWidget
	level float64
	min   fyne.Size
}

func newLevelMeter(min fyne.Size) *levelMeter {
	m := &levelMeter{min: min}
	m.ExtendBaseWidget(m)
	return m
}

// SetLevel shows v (clamped to 0..1).
func (m *levelMeter) SetLevel(v float64) {
	v = math.Max(0, math.Min(1, v))
	if v == m.level {
		return
	}
	m.level = v
	m.Refresh()
}

// Level is the level shown.
func (m *levelMeter) Level() float64 { return m.level }

func (m *levelMeter) CreateRenderer() fyne.WidgetRenderer {
	r := &levelMeterRenderer{
		m: m, bg: canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground)),
		fill: canvas.NewRectangle(theme.Color(theme.ColorNameSuccess)),
	}
	r.bg.CornerRadius, r.fill.CornerRadius = 3, 3
	return r
}

type levelMeterRenderer struct {
	m        *levelMeter
	bg, fill *canvas.Rectangle
}

func (r *levelMeterRenderer) Layout(s fyne.Size) {
	r.bg.Resize(s)
	r.bg.Move(fyne.NewPos(0, 0))
	r.fill.Move(fyne.NewPos(0, 0))
	r.fill.Resize(fyne.NewSize(float32(r.m.level)*s.Width, s.Height))
}

func (r *levelMeterRenderer) MinSize() fyne.Size { return r.m.min }

func (r *levelMeterRenderer) Refresh() {
	r.bg.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.fill.FillColor = theme.Color(theme.ColorNameSuccess)
	if r.m.level > 0.85 {
		r.fill.FillColor = theme.Color(theme.ColorNameWarning)
	}
	r.Layout(r.m.Size())
	r.bg.Refresh()
	r.fill.Refresh()
}

func (r *levelMeterRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.bg, r.fill} }
func (r *levelMeterRenderer) Destroy()                     {}

// voiceViz shows the agent's voice as bars: the last callVizBars levels,
// newest on the right, mirrored around the middle line.
type voiceViz struct {
	widget.BaseWidget
	levels [callVizBars]float64
	next   int
	active bool // the agent is speaking: bars in the primary colour
}

func newVoiceViz() *voiceViz {
	v := &voiceViz{}
	v.ExtendBaseWidget(v)
	return v
}

// Push adds a level (0..1) and redraws.
func (v *voiceViz) Push(level float64) {
	v.levels[v.next] = math.Max(0, math.Min(1, level))
	v.next = (v.next + 1) % callVizBars
	v.Refresh()
}

// SetActive colours the bars as speaking or not.
func (v *voiceViz) SetActive(on bool) {
	if on != v.active {
		v.active = on
		v.Refresh()
	}
}

// Levels returns the levels shown, oldest first.
func (v *voiceViz) Levels() []float64 {
	out := make([]float64, 0, callVizBars)
	for i := range callVizBars {
		out = append(out, v.levels[(v.next+i)%callVizBars])
	}
	return out
}

func (v *voiceViz) CreateRenderer() fyne.WidgetRenderer {
	r := &voiceVizRenderer{v: v, bg: canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))}
	r.bg.CornerRadius = 4
	for i := range r.bars {
		r.bars[i] = canvas.NewRectangle(theme.Color(theme.ColorNameDisabled))
		r.bars[i].CornerRadius = 1
	}
	return r
}

type voiceVizRenderer struct {
	v    *voiceViz
	bg   *canvas.Rectangle
	bars [callVizBars]*canvas.Rectangle
}

func (r *voiceVizRenderer) Layout(s fyne.Size) {
	r.bg.Resize(s)
	r.bg.Move(fyne.NewPos(0, 0))
	pad := float32(4)
	slot := (s.Width - 2*pad) / callVizBars
	w := max(1, slot*0.45)
	mid := s.Height / 2
	for i, lv := range r.v.Levels() {
		h := max(2, float32(lv)*(s.Height-2*pad))
		r.bars[i].Resize(fyne.NewSize(w, h))
		r.bars[i].Move(fyne.NewPos(pad+float32(i)*slot+(slot-w)/2, mid-h/2))
	}
}

func (r *voiceVizRenderer) MinSize() fyne.Size { return fyne.NewSize(160, 56) }

func (r *voiceVizRenderer) Refresh() {
	c := theme.Color(theme.ColorNameDisabled)
	if r.v.active {
		c = theme.Color(theme.ColorNamePrimary)
	}
	r.bg.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.bg.Refresh()
	for _, b := range r.bars {
		b.FillColor = c
	}
	r.Layout(r.v.Size())
	for _, b := range r.bars {
		b.Refresh()
	}
}

func (r *voiceVizRenderer) Objects() []fyne.CanvasObject {
	out := make([]fyne.CanvasObject, 0, callVizBars+1)
	out = append(out, r.bg)
	for _, b := range r.bars {
		out = append(out, b)
	}
	return out
}

func (r *voiceVizRenderer) Destroy() {}

// frameRect is a region in pixels of a shared frame.
type frameRect struct{ X, Y, W, H int }

// selectionToFrame converts a rectangle dragged over a preview of size
// view (in canvas units, from a to b, any corner order) into pixels of a
// frame of fw×fh shown in it scaled to fit and centred (letterboxed, as
// canvas.ImageFillContain draws it). The rectangle is clipped to the
// frame; ok is false when nothing of it is left or the frame size is
// unknown.
func selectionToFrame(a, b fyne.Position, view fyne.Size, fw, fh int) (frameRect, bool) {
	if fw <= 0 || fh <= 0 || view.Width <= 0 || view.Height <= 0 {
		return frameRect{}, false
	}
	s := math.Min(float64(view.Width)/float64(fw), float64(view.Height)/float64(fh))
	offX := (float64(view.Width) - float64(fw)*s) / 2
	offY := (float64(view.Height) - float64(fh)*s) / 2
	toFrame := func(x, y float32) (float64, float64) {
		fx := (float64(x) - offX) / s
		fy := (float64(y) - offY) / s
		return math.Max(0, math.Min(float64(fw), fx)), math.Max(0, math.Min(float64(fh), fy))
	}
	x0, y0 := toFrame(min(a.X, b.X), min(a.Y, b.Y))
	x1, y1 := toFrame(max(a.X, b.X), max(a.Y, b.Y))
	r := frameRect{X: int(math.Round(x0)), Y: int(math.Round(y0))}
	r.W, r.H = int(math.Round(x1))-r.X, int(math.Round(y1))-r.Y
	if r.W < 1 || r.H < 1 {
		return frameRect{}, false
	}
	return r, true
}

// screenSelect is the preview of the shared screen: the latest frame when
// there is one (or a plain area of the frame's shape), over which the user
// drags a box. OnSelect receives the box in pixels of the shared frame,
// whose size frameSize reports at the time of the drag.
type screenSelect struct {
	widget.BaseWidget
	frameSize func() (w, h int)
	OnSelect  func(frameRect)

	img       *canvas.Image
	hint      *canvas.Text
	area      *canvas.Rectangle
	box       *canvas.Rectangle
	pressed   bool
	dragging  bool
	start     fyne.Position
	cur       fyne.Position
	lastFrame image.Image
}

func newScreenSelect(frameSize func() (w, h int)) *screenSelect {
	s := &screenSelect{frameSize: frameSize}
	s.img = canvas.NewImageFromImage(nil)
	s.img.FillMode = canvas.ImageFillContain
	s.img.ScaleMode = canvas.ImageScaleFastest
	s.hint = canvas.NewText("", theme.Color(theme.ColorNamePlaceHolder))
	s.hint.Alignment = fyne.TextAlignCenter
	s.hint.TextSize = theme.CaptionTextSize()
	s.area = canvas.NewRectangle(color.NRGBA{R: 0x30, G: 0x30, B: 0x34, A: 0xff})
	s.box = canvas.NewRectangle(color.NRGBA{R: 0x2a, G: 0x7f, B: 0xff, A: 0x40})
	s.box.StrokeColor = theme.Color(theme.ColorNamePrimary)
	s.box.StrokeWidth = 2
	s.box.Hide()
	s.ExtendBaseWidget(s)
	return s
}

// SetFrame shows a frame of the shared screen (nil: none yet).
func (s *screenSelect) SetFrame(img image.Image) {
	s.lastFrame = img
	s.img.Image = img
	s.Refresh()
}

// MouseDown records where a drag starts (desktop.Mouseable).
func (s *screenSelect) MouseDown(ev *desktop.MouseEvent) {
	if ev.Button == desktop.MouseButtonPrimary {
		s.pressed, s.start = true, ev.Position
	}
}

// MouseUp ends a press that was not a drag.
func (s *screenSelect) MouseUp(*desktop.MouseEvent) {
	if !s.dragging {
		s.pressed = false
	}
}

// Dragged grows the box (fyne.Draggable). ev.Position is where the
// pointer is now; ev.Dragged how far it moved since the last event.
func (s *screenSelect) Dragged(ev *fyne.DragEvent) {
	if !s.dragging {
		s.dragging = true
		if !s.pressed {
			s.start = ev.Position.Subtract(fyne.NewPos(ev.Dragged.DX, ev.Dragged.DY))
		}
	}
	s.cur = ev.Position
	s.layoutBox()
	s.box.Show()
	s.box.Refresh()
}

// DragEnd sends the box, converted to frame pixels.
func (s *screenSelect) DragEnd() {
	a, b := s.start, s.cur
	s.dragging, s.pressed = false, false
	if abs32(b.X-a.X) < callMinSelect || abs32(b.Y-a.Y) < callMinSelect {
		s.box.Hide()
		return
	}
	fw, fh := 0, 0
	if s.frameSize != nil {
		fw, fh = s.frameSize()
	}
	r, ok := selectionToFrame(a, b, s.Size(), fw, fh)
	if !ok {
		s.box.Hide()
		return
	}
	if s.OnSelect != nil {
		s.OnSelect(r)
	}
}

// ClearSelection hides the box.
func (s *screenSelect) ClearSelection() {
	s.box.Hide()
	s.box.Refresh()
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

func (s *screenSelect) layoutBox() {
	x0, y0 := min(s.start.X, s.cur.X), min(s.start.Y, s.cur.Y)
	x1, y1 := max(s.start.X, s.cur.X), max(s.start.Y, s.cur.Y)
	sz := s.Size()
	x0, y0 = max(0, x0), max(0, y0)
	x1, y1 = min(sz.Width, x1), min(sz.Height, y1)
	s.box.Move(fyne.NewPos(x0, y0))
	s.box.Resize(fyne.NewSize(max(0, x1-x0), max(0, y1-y0)))
}

func (s *screenSelect) CreateRenderer() fyne.WidgetRenderer {
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	return &screenSelectRenderer{s: s, bg: bg}
}

type screenSelectRenderer struct {
	s  *screenSelect
	bg *canvas.Rectangle
}

func (r *screenSelectRenderer) Layout(sz fyne.Size) {
	s := r.s
	r.bg.Resize(sz)
	r.bg.Move(fyne.NewPos(0, 0))
	s.img.Resize(sz)
	s.img.Move(fyne.NewPos(0, 0))
	fw, fh := 16, 9
	if s.frameSize != nil {
		if w, h := s.frameSize(); w > 0 && h > 0 {
			fw, fh = w, h
		}
	}
	sc := min(sz.Width/float32(fw), sz.Height/float32(fh))
	aw, ah := float32(fw)*sc, float32(fh)*sc
	s.area.Resize(fyne.NewSize(aw, ah))
	s.area.Move(fyne.NewPos((sz.Width-aw)/2, (sz.Height-ah)/2))
	hs := s.hint.MinSize()
	s.hint.Resize(fyne.NewSize(sz.Width, hs.Height))
	s.hint.Move(fyne.NewPos(0, (sz.Height-hs.Height)/2))
	if s.box.Visible() {
		s.layoutBox()
	}
}

func (r *screenSelectRenderer) MinSize() fyne.Size { return fyne.NewSize(320, 180) }

func (r *screenSelectRenderer) Refresh() {
	s := r.s
	if s.lastFrame != nil {
		s.hint.Text = ""
		s.area.Hide()
	} else {
		s.area.Show()
		s.hint.Text = "Drag a box to point at part of your screen"
		if s.frameSize != nil {
			if w, h := s.frameSize(); w > 0 && h > 0 {
				s.hint.Text = "Your screen (" + strconv.Itoa(w) + "×" + strconv.Itoa(h) + "): drag a box over it"
			}
		}
	}
	s.hint.Color = theme.Color(theme.ColorNameForeground)
	r.bg.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.Layout(s.Size())
	r.bg.Refresh()
	s.area.Refresh()
	s.img.Refresh()
	s.hint.Refresh()
	s.box.Refresh()
}

func (r *screenSelectRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.bg, r.s.area, r.s.img, r.s.hint, r.s.box}
}

func (r *screenSelectRenderer) Destroy() {}

// holdButton is a button that reports press and release (hold to talk).
type holdButton struct {
	widget.Button
	OnPress   func()
	OnRelease func()
	down      bool
}

func newHoldButton(label string, icon fyne.Resource) *holdButton {
	b := &holdButton{}
	b.Text, b.Icon = label, icon
	b.ExtendBaseWidget(b)
	return b
}

// MouseDown starts talking.
func (b *holdButton) MouseDown(*desktop.MouseEvent) {
	if b.Disabled() || b.down {
		return
	}
	b.down = true
	if b.OnPress != nil {
		b.OnPress()
	}
}

// MouseUp stops talking.
func (b *holdButton) MouseUp(*desktop.MouseEvent) {
	if !b.down {
		return
	}
	b.down = false
	if b.OnRelease != nil {
		b.OnRelease()
	}
}

// Tapped does nothing: press and release do the work.
func (b *holdButton) Tapped(*fyne.PointEvent) {}

// callEntry is the call's message box: Enter sends, Escape interrupts the
// agent.
type callEntry struct {
	widget.Entry
	onEscape func()
}

func newCallEntry() *callEntry {
	e := &callEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey handles Escape; the rest is the entry's.
func (e *callEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}
