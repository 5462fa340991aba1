package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestSplitTableBlocks(t *testing.T) {
	tests := []struct {
		name   string
		md     string
		tables int
		blocks []string // each block's first line
	}{
		{"table alone", "| a | b |\n|---|--:|\n| 1 | 2 |\n", 1, []string{"| a | b |"}},
		{"text glued before and after", "Speeds:\n| a | b |\n|---|---|\n| 1 | 2 |\nAfter.\n", 1, []string{"Speeds:", "| a | b |", "After."}},
		{"no delimiter row is no table", "a | b\nc | d\n", 0, []string{"a | b"}},
		{"fenced code keeps its pipes", "```\n| a | b |\n|---|---|\n```\n", 0, []string{"```"}},
		{"two tables", "| a |\n|---|\n| 1 |\n\n| b |\n|:-:|\n| 2 |\n", 2, []string{"| a |", "| b |"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitTableBlocks(markdownBlocks(tt.md))
			tables := 0
			var firsts []string
			for _, b := range got {
				if isTableBlock(b) {
					tables++
				}
				firsts = append(firsts, strings.SplitN(b, "\n", 2)[0])
			}
			if tables != tt.tables || strings.Join(firsts, "¶") != strings.Join(tt.blocks, "¶") {
				t.Errorf("blocks %q (%d tables), want first lines %q (%d tables)", got, tables, tt.blocks, tt.tables)
			}
		})
	}
}

func TestParseTable(t *testing.T) {
	tb := parseTable("| Agent | Speed | Note |\n|:---|---:|:-:|\n| a | 110 |\n| b \\| c | 9 | x | extra |\n")
	if strings.Join(tb.head, ",") != "Agent,Speed,Note" {
		t.Errorf("head %q", tb.head)
	}
	if tb.aligns[0] != alignLeft || tb.aligns[1] != alignRight || tb.aligns[2] != alignCenter {
		t.Errorf("aligns %v", tb.aligns)
	}
	if len(tb.rows) != 2 || tb.rows[0][2] != "" || tb.rows[1][0] != "b | c" || len(tb.rows[1]) != 3 {
		t.Errorf("rows %q: want missing cells empty, extra dropped, \\| kept", tb.rows)
	}
	var big strings.Builder
	big.WriteString("| n |\n|---|\n")
	for i := 0; i < maxTableRows+5; i++ {
		big.WriteString("| x |\n")
	}
	if tb := parseTable(big.String()); len(tb.rows) != maxTableRows || tb.more != 5 {
		t.Errorf("huge table kept %d rows, %d more; want %d and 5", len(tb.rows), tb.more, maxTableRows)
	}
}

// TestTableViewAligns checks the drawn table: the header is bold, cells of
// a column start at one x (right-aligned ones end at one x), rows do not
// overlap, and a table wider than the chat scrolls instead of squeezing.
func TestTableViewAligns(t *testing.T) {
	test.NewTempApp(t)
	tb := parseTable("| Name | Count |\n|---|---:|\n| a rather long agent name | 1 |\n| b | 123456 |\n")
	view := newTableView(tb, nil)
	w := test.NewWindow(view)
	defer w.Close()
	w.Resize(fyne.NewSize(800, 300))
	scroll, ok := view.(*container.Scroll)
	if !ok || scroll.Direction != container.ScrollHorizontalOnly {
		t.Fatalf("table view is %T, want a horizontal scroll", view)
	}
	grid := scroll.Content.(*fyne.Container)
	cells := grid.Objects[2:]
	if len(cells) != 6 {
		t.Fatalf("%d cells, want 6", len(cells))
	}
	head := cells[0].(*widget.RichText).Segments[0].(*widget.TextSegment)
	if !head.Style.TextStyle.Bold {
		t.Error("header cell not bold")
	}
	if body := cells[2].(*widget.RichText).Segments[0].(*widget.TextSegment); body.Style.TextStyle.Bold {
		t.Error("body cell bold")
	}
	x := func(i int) float32 { return cells[i].Position().X }
	right := func(i int) float32 { return cells[i].Position().X + cells[i].Size().Width }
	if x(0) != x(2) || x(2) != x(4) {
		t.Errorf("left column x = %v %v %v, want equal", x(0), x(2), x(4))
	}
	if right(1) != right(3) || right(3) != right(5) {
		t.Errorf("right-aligned column ends at %v %v %v, want equal", right(1), right(3), right(5))
	}
	if x(1) < right(2) {
		t.Errorf("second column starts at %v, inside the first column's widest cell (ends %v)", x(1), right(2))
	}
	if cells[2].Position().Y < cells[0].Position().Y+cells[0].Size().Height {
		t.Error("first row overlaps the header")
	}
	// Narrower than the table: the scroll keeps the table's width.
	scroll.Resize(fyne.NewSize(60, scroll.MinSize().Height))
	if grid.Size().Width < grid.MinSize().Width || scroll.MinSize().Width >= grid.MinSize().Width {
		t.Errorf("narrow chat: grid %v (min %v), scroll min %v; want the grid at full width inside a narrower scroll",
			grid.Size(), grid.MinSize(), scroll.MinSize())
	}
}
