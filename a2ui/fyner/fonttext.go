package fyner

import (
	"image/color"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// A Text component of a surface with its own font (font.go) is a
// RichText whose text segments are replaced by lines of fontRuns, broken
// here with measurements in that font: RichText itself breaks lines
// measuring in the app's font. Segments other than text (lists, code
// blocks, separators) are kept as they are, in the app's font.

// fontRun is a piece of one line in one style, drawn by a canvas.Text
// whose FontSource Fyne both measures and draws with.
type fontRun struct {
	tv     *textView
	text   string
	style  widget.RichTextStyle
	src    fyne.Resource // nil: the app's font
	inline bool          // false for the last run of a line
}

func (r *fontRun) Inline() bool    { return r.inline }
func (r *fontRun) Textual() string { return r.text }

func (r *fontRun) Visual() fyne.CanvasObject {
	t := canvas.NewText("", nil)
	r.Update(t)
	return t
}

func (r *fontRun) Update(o fyne.CanvasObject) {
	t := o.(*canvas.Text)
	t.Text, t.FontSource, t.TextStyle = r.text, r.src, r.style.TextStyle
	t.TextSize, t.Color, t.Alignment = r.tv.textSize(r.style), r.tv.textColor(r.style), r.style.Alignment
	t.Refresh()
}

func (r *fontRun) Select(_, _ fyne.Position) {}
func (r *fontRun) SelectedText() string      { return "" }
func (r *fontRun) Unselect()                 {}

func (t *textView) textSize(st widget.RichTextStyle) float32 {
	n := st.SizeName
	if n == "" {
		n = theme.SizeNameText
	}
	return theme.SizeForWidget(n, t)
}

func (t *textView) textColor(st widget.RichTextStyle) color.Color {
	n := st.ColorName
	if n == "" {
		n = theme.ColorNameForeground
	}
	return theme.ColorForWidget(n, t)
}

// MinSize is, in the surface's font, as narrow as the widest word (the
// text wraps) and as tall as the lines at the current width.
func (t *textView) MinSize() fyne.Size {
	s := t.RichText.MinSize()
	if t.font != nil {
		s.Width = t.fontMinW + 2*theme.SizeForWidget(theme.SizeNameInnerPadding, t)
	}
	return s
}

// Resize breaks the lines again, in the surface's font, for a new width.
func (t *textView) Resize(size fyne.Size) {
	if t.font == nil {
		t.RichText.Resize(size)
		return
	}
	w := size.Width - 2*theme.SizeForWidget(theme.SizeNameInnerPadding, t)
	ts := theme.SizeForWidget(theme.SizeNameText, t)
	if w == t.wrapW && ts == t.wrapTS {
		t.RichText.Resize(size)
		return
	}
	t.wrapW, t.wrapTS = w, ts
	t.Segments, _, t.fontMinW = t.fontLines(w)
	t.RichText.Resize(size)
	t.Refresh()
}

// fontLines lays the source segments out in lines no wider than width
// (no limit when width is not positive); it also returns the widest line
// and the widest word, measured in the surface's font.
func (t *textView) fontLines(width float32) (segs []widget.RichTextSegment, widest, widestWord float32) {
	if width <= 0 {
		width = float32(math.Inf(1))
	}
	var block []*widget.TextSegment
	flush := func() {
		if len(block) > 0 {
			s, w, ww := t.wrapRuns(block, width)
			segs = append(segs, s...)
			widest, widestWord = fmax(widest, w), fmax(widestWord, ww)
			block = nil
		}
	}
	for _, s := range t.source {
		switch x := s.(type) {
		case *widget.TextSegment:
			block = append(block, x)
			if !x.Inline() {
				flush()
			}
		case *widget.ParagraphSegment:
			flush()
			if texts, ok := onlyText(x.Texts); ok {
				s, w, ww := t.wrapRuns(texts, width)
				segs = append(segs, s...)
				widest, widestWord = fmax(widest, w), fmax(widestWord, ww)
			} else {
				segs = append(segs, x)
			}
		default:
			flush()
			segs = append(segs, s)
		}
	}
	flush()
	return segs, widest, widestWord
}

func onlyText(segs []widget.RichTextSegment) ([]*widget.TextSegment, bool) {
	out := make([]*widget.TextSegment, 0, len(segs))
	for _, s := range segs {
		x, ok := s.(*widget.TextSegment)
		if !ok {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}

// wrapRuns breaks a paragraph of styled runs into lines of fontRuns, a
// word at a time (a word wider than the line gets a line of its own).
func (t *textView) wrapRuns(runs []*widget.TextSegment, width float32) (out []widget.RichTextSegment, widest, widestWord float32) {
	lb := &lineBreaker{tv: t, width: width, empty: runStyle(runs, 0)}
	for i, run := range runs {
		for j, part := range strings.Split(run.Text, "\n") {
			if j > 0 {
				lb.endLine()
			}
			for _, word := range strings.SplitAfter(part, " ") {
				if word != "" {
					lb.add(word, run.Style)
				}
			}
		}
		if !run.Inline() || i == len(runs)-1 {
			lb.endLine()
		}
	}
	return lb.out, lb.widest, lb.widestWord
}

// lineBreaker collects words into lines of fontRuns.
type lineBreaker struct {
	tv    *textView
	width float32
	empty widget.RichTextStyle // the style of an empty line

	line               []*fontRun
	lineW              float32
	out                []widget.RichTextSegment
	widest, widestWord float32
}

// add puts word on the current line, or on a new one when it does not fit
// (its trailing space may stick out).
func (b *lineBreaker) add(word string, st widget.RichTextStyle) {
	drv := fyne.CurrentApp().Driver()
	size := b.tv.textSize(st)
	src := b.tv.font.source(st.TextStyle, word)
	w, _ := drv.RenderedTextSize(word, size, st.TextStyle, src)
	b.widestWord = fmax(b.widestWord, w.Width)
	fit := w.Width
	if trimmed := strings.TrimRight(word, " "); trimmed != word {
		tw, _ := drv.RenderedTextSize(trimmed, size, st.TextStyle, src)
		fit = tw.Width
	}
	if len(b.line) > 0 && b.lineW+fit > b.width {
		b.endLine()
	}
	if n := len(b.line); n > 0 && b.line[n-1].src == src && b.line[n-1].style == st {
		b.line[n-1].text += word
	} else {
		b.line = append(b.line, &fontRun{tv: b.tv, text: word, style: st, src: src, inline: true})
	}
	b.lineW += w.Width
}

// endLine ends the current line (an empty one too).
func (b *lineBreaker) endLine() {
	if len(b.line) == 0 {
		b.line = append(b.line, &fontRun{tv: b.tv, style: b.empty})
	}
	b.line[len(b.line)-1].inline = false
	for _, r := range b.line {
		b.out = append(b.out, r)
	}
	b.widest = fmax(b.widest, b.lineW)
	b.line, b.lineW = nil, 0
}

func runStyle(runs []*widget.TextSegment, i int) widget.RichTextStyle {
	if i < len(runs) {
		return runs[i].Style
	}
	return widget.RichTextStyleParagraph
}

// buttonStyle is the style Fyne draws button text in.
var buttonStyle = fyne.TextStyle{Bold: true}

// fontLabel is a button's text in the surface's font, drawn over the
// button, whose own text is then empty (Fyne would measure and draw that
// in the app's font). It takes no events: taps and hovers reach the
// button below.
type fontLabel struct {
	widget.BaseWidget
	font *surfaceFont
	btn  *widget.Button
	text *canvas.Text
}

// newFontLabel returns btn's label in font; nil when font is nil.
func newFontLabel(font *surfaceFont, btn *widget.Button) *fontLabel {
	if font == nil {
		return nil
	}
	l := &fontLabel{font: font, btn: btn, text: canvas.NewText("", nil)}
	l.text.TextStyle = buttonStyle
	l.Hidden = true
	l.ExtendBaseWidget(l)
	return l
}

// over stacks the label over face (face alone without a label).
func (l *fontLabel) over(face fyne.CanvasObject) fyne.CanvasObject {
	if l == nil {
		return face
	}
	return container.NewStack(face, l)
}

// take moves the button's text into the label when the surface's font
// can draw it (call it after every change of the button's text).
func (l *fontLabel) take() {
	if l == nil {
		return
	}
	src := l.font.source(buttonStyle, l.btn.Text)
	if l.btn.Text == "" || src == nil {
		l.Hidden = true
		return
	}
	l.text.Text, l.text.FontSource = l.btn.Text, src
	l.btn.Text = ""
	l.Hidden = false
	l.Refresh()
}

func (l *fontLabel) CreateRenderer() fyne.WidgetRenderer { return &fontLabelRenderer{l: l} }

type fontLabelRenderer struct{ l *fontLabel }

func (r *fontLabelRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.l.text} }
func (r *fontLabelRenderer) Destroy()                     {}

// MinSize is the text and the button's side padding (as Fyne pads its
// own label).
func (r *fontLabelRenderer) MinSize() fyne.Size {
	return r.l.text.MinSize().AddWidthHeight(2*theme.SizeForWidget(theme.SizeNameInnerPadding, r.l.btn), 0)
}

func (r *fontLabelRenderer) Layout(size fyne.Size) {
	ts := r.l.text.MinSize()
	r.l.text.Resize(ts)
	r.l.text.Move(fyne.NewPos((size.Width-ts.Width)/2, (size.Height-ts.Height)/2))
}

// Refresh follows the button: its text colour (by importance and state)
// and the theme's text size.
func (r *fontLabelRenderer) Refresh() {
	b := r.l.btn
	n := theme.ColorNameForeground
	switch {
	case b.Disabled():
		n = theme.ColorNameDisabled
	case b.Importance == widget.HighImportance:
		n = theme.ColorNameForegroundOnPrimary
	}
	r.l.text.Color = theme.ColorForWidget(n, b)
	r.l.text.TextSize = theme.SizeForWidget(theme.SizeNameText, b)
	r.Layout(r.l.Size())
	r.l.text.Refresh()
}
