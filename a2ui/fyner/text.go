package fyner

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// textView is a wrapped RichText that also knows its one-line width, so
// a Row gives it room before wrapping it.
type textView struct {
	widget.RichText
	plain   string
	style   widget.RichTextStyle
	prefFor string
	prefW   float32

	// In a surface with its own font (fonttext.go): the segments as
	// parsed, the width they were broken for, the widest word.
	font     *surfaceFont
	source   []widget.RichTextSegment
	wrapW    float32
	wrapTS   float32 // the text size wrapW's lines were measured at
	fontMinW float32
}

func newTextView() *textView {
	t := &textView{}
	t.Wrapping = fyne.TextWrapWord
	t.Scroll = container.ScrollNone
	t.ExtendBaseWidget(t)
	return t
}

// PreferredSize is the width of the longest line unwrapped.
func (t *textView) PreferredSize() fyne.Size {
	key := t.plain + "\x00" + string(t.style.SizeName)
	if key != t.prefFor {
		t.prefFor = key
		th := t.Theme()
		if t.font != nil {
			_, t.prefW, _ = t.fontLines(0)
		} else {
			t.prefW = segmentsWidth(th, t.Segments)
		}
		t.prefW += 2*th.Size(theme.SizeNameInnerPadding) + 1
	}
	return fyne.NewSize(t.prefW, t.MinSize().Height)
}

// segmentsWidth measures the longest unwrapped line of rich text
// segments, each in its own size and style.
func segmentsWidth(th fyne.Theme, segs []widget.RichTextSegment) float32 {
	var widest, line float32
	measure := func(text string, st widget.RichTextStyle) {
		size := th.Size(st.SizeName)
		if size == 0 {
			size = th.Size(theme.SizeNameText)
		}
		parts := strings.Split(text, "\n")
		for i, p := range parts {
			if i > 0 {
				widest, line = fmax(widest, line), 0
			}
			line += fyne.MeasureText(p, size, st.TextStyle).Width
		}
	}
	for _, s := range segs {
		switch x := s.(type) {
		case *widget.TextSegment:
			measure(x.Text, x.Style)
			if !x.Inline() {
				widest, line = fmax(widest, line), 0
			}
		case *widget.ParagraphSegment:
			widest = fmax(widest, fmax(line, segmentsWidth(th, x.Texts)))
			line = 0
		case *widget.ListSegment:
			indent := 2 * th.Size(theme.SizeNameText)
			for _, it := range x.Items {
				widest = fmax(widest, indent+segmentsWidth(th, []widget.RichTextSegment{it}))
			}
			line = 0
		}
	}
	return fmax(widest, line)
}

// set shows text (Markdown when it looks like Markdown) in a variant's
// style: h1–h5, caption or body.
func (t *textView) set(text, variant string) {
	t.style = variantStyle(variant)
	if looksLikeMarkdown(text) {
		t.Segments = sanitizeSegments(widget.NewRichTextFromMarkdown(text).Segments, t.style)
		t.plain = plainText(t.Segments)
	} else {
		t.Segments = []widget.RichTextSegment{&widget.TextSegment{Style: t.style, Text: text}}
		t.plain = text
	}
	if t.font != nil {
		t.source = t.Segments
		t.Segments, _, t.fontMinW = t.fontLines(t.wrapW)
	}
}

// variantStyle maps a Text variant to a RichText style.
func variantStyle(variant string) widget.RichTextStyle {
	st := widget.RichTextStyleParagraph
	switch variant {
	case "h1":
		st = widget.RichTextStyleHeading
	case "h2":
		st = widget.RichTextStyleSubHeading
	case "h3", "h4":
		st.TextStyle.Bold = true
		st.SizeName = theme.SizeNameText
	case "h5":
		st.TextStyle = fyne.TextStyle{Bold: true, Italic: true}
	case "caption":
		st.SizeName = theme.SizeNameCaptionText
		st.ColorName = theme.ColorNamePlaceHolder
	}
	return st
}

// looksLikeMarkdown reports whether text has Markdown syntax worth
// parsing (the parser is not needed for plain sentences).
func looksLikeMarkdown(text string) bool {
	if strings.ContainsAny(text, "*_`#[]>|~") {
		return true
	}
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "+ ") {
			return true
		}
		if i := strings.Index(l, ". "); i > 0 && i < 4 && strings.Trim(l[:i], "0123456789") == "" {
			return true
		}
	}
	return false
}

// sanitizeSegments applies the variant to plain paragraph text and turns
// what A2UI text must not have (links, images) into plain text.
func sanitizeSegments(segs []widget.RichTextSegment, variant widget.RichTextStyle) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for _, s := range segs {
		switch x := s.(type) {
		case *widget.TextSegment:
			if x.Style.SizeName == theme.SizeNameText || x.Style.SizeName == "" {
				bold, italic, mono := x.Style.TextStyle.Bold, x.Style.TextStyle.Italic, x.Style.TextStyle.Monospace
				inline := x.Style.Inline
				x.Style.SizeName = variant.SizeName
				if x.Style.ColorName == "" || x.Style.ColorName == theme.ColorNameForeground {
					x.Style.ColorName = variant.ColorName
				}
				x.Style.TextStyle.Bold = bold || variant.TextStyle.Bold
				x.Style.TextStyle.Italic = italic || variant.TextStyle.Italic
				x.Style.TextStyle.Monospace = mono
				x.Style.Inline = inline
			}
			out = append(out, x)
		case *widget.HyperlinkSegment:
			out = append(out, &widget.TextSegment{Style: inlineOf(variant), Text: x.Text})
		case *widget.ImageSegment:
			alt := x.Title
			if alt == "" {
				alt = "image"
			}
			out = append(out, &widget.TextSegment{Style: inlineOf(variant), Text: "[" + alt + "]"})
		case *widget.ParagraphSegment:
			x.Texts = sanitizeSegments(x.Texts, variant)
			out = append(out, x)
		case *widget.ListSegment:
			x.Items = sanitizeSegments(x.Items, variant)
			out = append(out, x)
		default:
			out = append(out, s)
		}
	}
	return out
}

func inlineOf(st widget.RichTextStyle) widget.RichTextStyle {
	st.Inline = true
	return st
}

// plainText joins the text of segments (for measuring and buttons).
func plainText(segs []widget.RichTextSegment) string {
	var b strings.Builder
	var walk func([]widget.RichTextSegment)
	walk = func(segs []widget.RichTextSegment) {
		for _, s := range segs {
			switch x := s.(type) {
			case *widget.TextSegment:
				b.WriteString(x.Text)
				if !x.Inline() {
					b.WriteByte('\n')
				}
			case *widget.ParagraphSegment:
				walk(x.Texts)
				b.WriteByte('\n')
			case *widget.ListSegment:
				walk(x.Items)
			case *widget.HyperlinkSegment:
				b.WriteString(x.Text)
			}
		}
	}
	walk(segs)
	return strings.TrimRight(b.String(), "\n")
}

// markdownPlain strips Markdown markers from a short label (a button's
// text).
func markdownPlain(text string) string {
	if !looksLikeMarkdown(text) {
		return text
	}
	rt := widget.NewRichTextFromMarkdown(text)
	return plainText(rt.Segments)
}

func buildText(v *View, e *element) {
	t := newTextView()
	t.font = v.font
	e.obj, e.widget = t, t
	last := "\x00"
	e.refresh = func() {
		text, variant := e.str("text"), e.enum("variant")
		if key := variant + "\x00" + text; key != last {
			last = key
			t.set(text, variant)
			e.redraw(t)
		}
	}
	e.refresh()
}
