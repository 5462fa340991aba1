package ui

import (
	"net/url"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// A GFM table in agent Markdown is drawn as a table: a grid with a header
// row, columns as wide as their widest cell and aligned as the delimiter row
// says (:-- left, :-: centre, --: right), inside a horizontal scroll when
// wider than the chat. Fyne's Markdown does not know tables, so the chat
// cuts a table out as a block of its own (splitTableBlocks) and draws it
// here; each cell is inline Markdown (bold, code, links) made safe by
// markdownSegments like any other agent text.

// maxTableRows and maxTableCols bound what one table draws (a runaway
// agent's ten-thousand-row table would freeze the window); the rest is
// summarised in a note below the table.
const (
	maxTableRows = 200
	maxTableCols = 20
)

// cellAlign is a table column's alignment.
type cellAlign int

const (
	alignLeft cellAlign = iota
	alignCenter
	alignRight
)

// mdTable is a parsed GFM table.
type mdTable struct {
	head   []string
	aligns []cellAlign
	rows   [][]string
	more   int // rows not kept (beyond maxTableRows)
}

// parseTable parses a block that isTableBlock accepted.
func parseTable(src string) mdTable {
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	t := mdTable{head: tableCells(lines[0])}
	if len(t.head) > maxTableCols {
		t.head = t.head[:maxTableCols]
	}
	seps := tableCells(lines[1])
	t.aligns = make([]cellAlign, len(t.head))
	for c := range t.aligns {
		if c >= len(seps) {
			break
		}
		s := seps[c]
		switch {
		case strings.HasPrefix(s, ":") && strings.HasSuffix(s, ":"):
			t.aligns[c] = alignCenter
		case strings.HasSuffix(s, ":"):
			t.aligns[c] = alignRight
		}
	}
	for _, l := range lines[2:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(t.rows) == maxTableRows {
			t.more++
			continue
		}
		cells := tableCells(l)
		row := make([]string, len(t.head)) // GFM: missing cells are empty, extra ones dropped
		copy(row, cells)
		t.rows = append(t.rows, row)
	}
	return t
}

// isTableBlock reports whether a block (from splitTableBlocks) is a table.
func isTableBlock(src string) bool {
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	return len(lines) >= 2 && isTableStart(lines, 0)
}

// splitTableBlocks cuts the tables out of Markdown blocks, so that each
// table is a block of its own (the text before and after it stays in
// blocks around it). Fenced code is left alone.
func splitTableBlocks(blocks []string) []string {
	out := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if !strings.Contains(b, "|") || fenceMarker(strings.TrimSpace(b[:strings.IndexByte(b+"\n", '\n')])) != "" {
			out = append(out, b)
			continue
		}
		lines := strings.SplitAfter(b, "\n")
		var cur strings.Builder
		flush := func() {
			if strings.TrimSpace(cur.String()) != "" {
				out = append(out, cur.String())
			}
			cur.Reset()
		}
		trimmed := make([]string, len(lines))
		for i, l := range lines {
			trimmed[i] = strings.TrimRight(l, "\n")
		}
		for i := 0; i < len(lines); i++ {
			if !isTableStart(trimmed, i) {
				cur.WriteString(lines[i])
				continue
			}
			flush()
			j := i + 2
			for j < len(lines) && strings.Contains(lines[j], "|") && strings.TrimSpace(lines[j]) != "" {
				j++
			}
			for _, l := range lines[i:j] {
				cur.WriteString(l)
			}
			flush()
			i = j - 1
		}
		flush()
	}
	return out
}

// newTableView draws a table: the grid in a horizontal scroll, and a note
// when rows were left out.
func newTableView(t mdTable, onLink func(*url.URL)) fyne.CanvasObject {
	cols := len(t.head)
	cells := make([]fyne.CanvasObject, 0, cols*(len(t.rows)+1))
	for _, h := range t.head {
		cells = append(cells, tableCell(h, true, onLink))
	}
	for _, r := range t.rows {
		for _, c := range r {
			cells = append(cells, tableCell(c, false, onLink))
		}
	}
	header := canvas.NewRectangle(theme.Color(theme.ColorNameHeaderBackground))
	header.CornerRadius = theme.InputRadiusSize()
	grid := &tableGrid{cols: cols, aligns: t.aligns, header: header, rule: canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))}
	objs := append([]fyne.CanvasObject{header, grid.rule}, cells...)
	view := fyne.CanvasObject(container.NewHScroll(container.New(grid, objs...)))
	if t.more > 0 {
		note := widget.NewLabelWithStyle(plural(t.more, "more row")+" not shown; use Copy to read everything", fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
		note.Importance = widget.LowImportance
		view = container.NewVBox(view, note)
	}
	return view
}

// tableCell is one cell: inline Markdown on one line, bold in the header.
func tableCell(src string, head bool, onLink func(*url.URL)) fyne.CanvasObject {
	segs := markdownSegments(src, onLink)
	if head {
		for _, s := range segs {
			boldSegment(s)
		}
	}
	rt := widget.NewRichText(segs...)
	rt.Wrapping = fyne.TextWrapOff
	return rt
}

// boldSegment makes a segment's text (and its children's) bold.
func boldSegment(s widget.RichTextSegment) {
	switch t := s.(type) {
	case *widget.TextSegment:
		t.Style.TextStyle.Bold = true
	case *widget.ParagraphSegment:
		for _, c := range t.Texts {
			boldSegment(c)
		}
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// tableGrid lays out a table's cells (after the header background and the
// rule under the header) in rows of cols, each column as wide as its
// widest cell, each row as tall as its tallest.
type tableGrid struct {
	cols   int
	aligns []cellAlign
	header *canvas.Rectangle
	rule   *canvas.Rectangle
}

// tableCellPad is the horizontal room between columns.
const tableCellPad = 12

func (g *tableGrid) measure(cells []fyne.CanvasObject) (widths, heights []float32) {
	widths = make([]float32, g.cols)
	heights = make([]float32, (len(cells)+g.cols-1)/g.cols)
	for i, c := range cells {
		m := c.MinSize()
		col, row := i%g.cols, i/g.cols
		widths[col] = max(widths[col], m.Width)
		heights[row] = max(heights[row], m.Height)
	}
	return widths, heights
}

func (g *tableGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	cells := objs[2:]
	widths, heights := g.measure(cells)
	var y float32
	for row, h := range heights {
		x := float32(0)
		for col, w := range widths {
			i := row*g.cols + col
			if i >= len(cells) {
				break
			}
			c := cells[i]
			cw := min(c.MinSize().Width, w)
			off := float32(0)
			if col < len(g.aligns) {
				switch g.aligns[col] {
				case alignCenter:
					off = (w - cw) / 2
				case alignRight:
					off = w - cw
				}
			}
			c.Move(fyne.NewPos(x+tableCellPad/2+off, y))
			c.Resize(fyne.NewSize(cw, h))
			x += w + tableCellPad
		}
		if row == 0 {
			g.header.Move(fyne.NewPos(0, 0))
			g.header.Resize(fyne.NewSize(size.Width, h))
			g.rule.Move(fyne.NewPos(0, h))
			g.rule.Resize(fyne.NewSize(size.Width, 1))
		}
		y += h
	}
}

func (g *tableGrid) MinSize(objs []fyne.CanvasObject) fyne.Size {
	widths, heights := g.measure(objs[2:])
	var s fyne.Size
	for _, w := range widths {
		s.Width += w + tableCellPad
	}
	for _, h := range heights {
		s.Height += h
	}
	return s
}
