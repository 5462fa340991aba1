package ui

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Agent text is Markdown written by someone else. It is shown through
// Fyne's Markdown parser and then walked segment by segment (sanitize), so
// that:
//
//   - an image is never fetched: each image segment becomes a short text
//     placeholder naming where it points;
//   - a link stays a link only when it is http or https with a host; any
//     other scheme (javascript:, file:, data:, custom app schemes, relative
//     paths) is shown as plain text;
//   - a kept link opens only when clicked, through onLink (the window asks
//     for confirmation and shows the host first), never by itself; the host
//     is also written after the link text when the text does not already
//     show it, so "[your bank](https://evil.example)" cannot pass unnoticed;
//   - any segment kind this walk does not know is reduced to its text.

// maxMarkdownBytes bounds what one text part renders; the rest is cut with a
// note (a multi-megabyte answer would otherwise freeze the row; Copy and the
// reply's full-text file have everything). 32 KiB is about 8 pages.
const maxMarkdownBytes = 32 << 10

// imagePlaceholderStyle is how a Markdown image's placeholder looks.
var imagePlaceholderStyle = widget.RichTextStyle{
	ColorName: theme.ColorNamePlaceHolder,
	Inline:    false,
	SizeName:  theme.SizeNameText,
	TextStyle: fyne.TextStyle{Italic: true},
}

// linkHostStyle is how the host written after a link looks.
var linkHostStyle = widget.RichTextStyle{
	ColorName: theme.ColorNamePlaceHolder,
	Inline:    true,
	SizeName:  theme.SizeNameText,
}

// markdownSegments parses src and returns segments that are safe to show
// (see the comment at the top of this file). onLink is called when a kept
// link is clicked; nil leaves links inert.
func markdownSegments(src string, onLink func(*url.URL)) []widget.RichTextSegment {
	var note string
	if len(src) > maxMarkdownBytes {
		cut := maxMarkdownBytes
		for cut > 0 && !utf8.RuneStart(src[cut]) {
			cut--
		}
		note = "… (" + humanSize(len(src)-cut) + " more not shown; use Copy to read everything)"
		src = src[:cut]
	}
	// Parsing only: the throw-away widget is never rendered, so nothing in
	// it (images in particular) is ever loaded.
	segs := sanitizeSegments(widget.NewRichTextFromMarkdown(autolinksToLinks(tablesToLists(src))).Segments, onLink)
	if note != "" {
		segs = append(segs, &widget.TextSegment{Style: imagePlaceholderStyle, Text: note})
	}
	return segs
}

// markdownBlocks splits agent Markdown into blocks that render on their
// own: at blank lines outside fenced code, unless the next line is
// indented (a list item's or code block's continuation). A text longer
// than maxMarkdownBytes is cut, with a note as its last block.
func markdownBlocks(src string) []string {
	var note string
	if len(src) > maxMarkdownBytes {
		cut := maxMarkdownBytes
		for cut > 0 && !utf8.RuneStart(src[cut]) {
			cut--
		}
		note = "*… (" + humanSize(len(src)-cut) + " more not shown; use Copy to read everything)*"
		src = src[:cut]
	}
	lines := strings.SplitAfter(src, "\n")
	var out []string
	var cur strings.Builder
	fence := "" // the open fence's marker
	flush := func() {
		if strings.TrimSpace(cur.String()) != "" {
			out = append(out, cur.String())
		}
		cur.Reset()
	}
	for i, line := range lines {
		trim := strings.TrimSpace(line)
		if m := fenceMarker(trim); m != "" {
			switch {
			case fence == "":
				fence = m
			case strings.HasPrefix(trim, fence) && strings.TrimLeft(trim, fence[:1]) == "":
				fence = ""
			}
		}
		cur.WriteString(line)
		if fence == "" && trim == "" && !continuesBlock(lines[i+1:]) {
			flush()
		}
	}
	flush()
	out = splitLongBlocks(out)
	if note != "" {
		out = append(out, note)
	}
	return out
}

// Fyne wraps a paragraph by measuring (shaping) ever longer prefixes of it,
// which costs about the square of its length: a 256 KiB paragraph without
// a newline (a runaway or hostile agent) blocked the window for minutes.
// A block of prose longer than splitBlockBytes is therefore cut at spaces
// into pieces of maxBlockBytes shown one after the other (ordinary
// paragraphs stay whole).
const (
	splitBlockBytes = 2 << 10
	maxBlockBytes   = 512
)

// splitLongBlocks cuts blocks longer than splitBlockBytes into pieces of
// maxBlockBytes at the last space (else at a rune boundary) before the
// limit; fenced code is left whole.
func splitLongBlocks(blocks []string) []string {
	var out []string
	for _, b := range blocks {
		if len(b) <= splitBlockBytes || fenceMarker(strings.TrimSpace(b[:strings.IndexByte(b+"\n", '\n')])) != "" {
			out = append(out, b)
			continue
		}
		for len(b) > maxBlockBytes {
			cut := strings.LastIndexAny(b[:maxBlockBytes], " \n\t")
			if cut < maxBlockBytes/2 {
				cut = maxBlockBytes
				for cut > 0 && !utf8.RuneStart(b[cut]) {
					cut--
				}
			}
			out = append(out, b[:cut])
			b = strings.TrimLeft(b[cut:], " \t")
		}
		if strings.TrimSpace(b) != "" {
			out = append(out, b)
		}
	}
	return out
}

// fenceMarker returns the run of ` or ~ that opens or closes fenced code
// on a trimmed line, or "".
func fenceMarker(trim string) string {
	for _, c := range []string{"`", "~"} {
		n := len(trim) - len(strings.TrimLeft(trim, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// continuesBlock reports whether the next non-blank line is indented, so
// it belongs to the block before the blank lines.
func continuesBlock(rest []string) bool {
	for _, l := range rest {
		if strings.TrimSpace(l) == "" {
			continue
		}
		return strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")
	}
	return false
}

// markdownBlockSegments renders one block of markdownBlocks.
func markdownBlockSegments(src string, onLink func(*url.URL)) []widget.RichTextSegment {
	return markdownSegments(src, onLink)
}

// sanitizeSegments returns a copy of segs with images replaced, unsafe
// links turned into text and unknown segments reduced to their text.
func sanitizeSegments(segs []widget.RichTextSegment, onLink func(*url.URL)) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for _, s := range segs {
		switch t := s.(type) {
		case *widget.TextSegment:
			out = appendSegment(out, t)
		case *widget.SeparatorSegment:
			out = append(out, t)
		case *widget.ParagraphSegment:
			out = append(out, &widget.ParagraphSegment{Texts: sanitizeSegments(t.Texts, onLink)})
		case *widget.ListSegment:
			l := &widget.ListSegment{Items: sanitizeSegments(t.Items, onLink), Ordered: t.Ordered}
			l.SetStartNumber(t.StartNumber())
			out = append(out, l)
		case *widget.HyperlinkSegment:
			for _, x := range sanitizeLink(t, onLink) {
				out = appendSegment(out, x)
			}
		case *widget.ImageSegment:
			out = append(out, &widget.TextSegment{Style: imagePlaceholderStyle, Text: imagePlaceholder(t)})
		default:
			if text := s.Textual(); text != "" {
				out = append(out, &widget.TextSegment{Style: widget.RichTextStyleInline, Text: text})
			}
		}
	}
	return out
}

// appendSegment appends s, joining it to the previous segment when both
// are inline text in one style (goldmark makes one per source line): fewer
// segment starts near the end of a row, where Fyne 2.7's word wrap breaks
// a word into one letter per row.
func appendSegment(out []widget.RichTextSegment, s widget.RichTextSegment) []widget.RichTextSegment {
	t, ok := s.(*widget.TextSegment)
	if n := len(out); ok && n > 0 && t.Style.Inline {
		if prev, ok := out[n-1].(*widget.TextSegment); ok && prev.Style == t.Style {
			out[n-1] = &widget.TextSegment{Style: prev.Style, Text: prev.Text + t.Text}
			return out
		}
	}
	return append(out, s)
}

// sanitizeLink keeps an http(s) link (opening only through onLink) and
// turns anything else into its text.
func sanitizeLink(h *widget.HyperlinkSegment, onLink func(*url.URL)) []widget.RichTextSegment {
	text := strings.TrimSpace(h.Text)
	u := safeLinkURL(h.URL)
	if u == nil {
		if text == "" && h.URL != nil {
			text = h.URL.String()
		}
		return []widget.RichTextSegment{&widget.TextSegment{Style: widget.RichTextStyleInline, Text: text}}
	}
	if text == "" {
		text = u.String()
	}
	link := &widget.HyperlinkSegment{Alignment: h.Alignment, Text: text, URL: u}
	// OnTapped replaces Fyne's default fyne.OpenURL: nothing opens without
	// the confirmation.
	link.OnTapped = func() {
		if onLink != nil {
			onLink(u)
		}
	}
	host := displayHost(u)
	if strings.Contains(strings.ToLower(text), strings.ToLower(u.Hostname())) {
		return []widget.RichTextSegment{link}
	}
	return []widget.RichTextSegment{link, &widget.TextSegment{Style: linkHostStyle, Text: " (" + host + ") "}}
}

// safeLinkURL returns u if it may become a clickable link: http or https
// with a host. Otherwise nil.
func safeLinkURL(u *url.URL) *url.URL {
	if u == nil {
		return nil
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Hostname() == "" {
		return nil
	}
	c := *u
	c.Scheme = scheme
	return &c
}

// displayHost is the host a person should read before opening u: the
// hostname (user info such as "bank.com@" in front of it is dropped, it is
// not where the link goes), the port when it is not the default one, and a
// warning when the name has characters outside ASCII, which can imitate
// other names.
func displayHost(u *url.URL) string {
	h := strings.ToLower(u.Hostname())
	if p := u.Port(); p != "" && !((u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443")) {
		h += ":" + p
	}
	for _, r := range h {
		if r >= utf8.RuneSelf {
			return h + " — contains non-Latin characters"
		}
	}
	return h
}

// imagePlaceholder is the text shown instead of a Markdown image.
func imagePlaceholder(s *widget.ImageSegment) string {
	where := ""
	if s.Source != nil {
		switch strings.ToLower(s.Source.Scheme()) {
		case "http", "https":
			if u, err := url.Parse(s.Source.String()); err == nil && u.Hostname() != "" {
				where = " from " + strings.ToLower(u.Hostname())
			}
		case "data":
			where = " embedded in the text"
		}
	}
	title := strings.TrimSpace(s.Title)
	if title != "" {
		title = " “" + truncateRunes(title, 60) + "”"
	}
	return "[Image" + title + where + " — not loaded]"
}

// autolinkRE matches a CommonMark autolink to an http(s) address.
var autolinkRE = regexp.MustCompile(`<(https?://[^<>\s]+)>`)

// autolinksToLinks rewrites <https://…> autolinks as [https://…](https://…)
// outside code, because Fyne's Markdown renderer drops autolinks with their
// text. Fenced code blocks and backtick spans are left alone.
func autolinksToLinks(src string) string {
	if !strings.Contains(src, "<http") {
		return src
	}
	lines := strings.SplitAfter(src, "\n")
	inFence := false
	for i, line := range lines {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.Contains(line, "<http") {
			continue
		}
		var b strings.Builder
		last := 0
		for _, loc := range autolinkRE.FindAllStringSubmatchIndex(line, -1) {
			if strings.Count(line[:loc[0]], "`")%2 == 1 {
				continue // inside a code span
			}
			target := line[loc[2]:loc[3]]
			b.WriteString(line[last:loc[0]])
			b.WriteString("[" + target + "](" + target + ")")
			last = loc[1]
		}
		b.WriteString(line[last:])
		lines[i] = b.String()
	}
	return strings.Join(lines, "")
}

// tableSepRE matches a GFM table's delimiter row, such as |---|:--:|.
var tableSepRE = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

// tablesToLists turns GFM tables, which Fyne's Markdown does not know (it
// would show the raw pipes run together), into a list with one item per
// row, each cell after its column's heading: "- **Agent:** this one ·
// **Speed:** fast". Unlike aligned columns, that stays readable in a
// narrow chat.
func tablesToLists(src string) string {
	if !strings.Contains(src, "|") || !strings.Contains(src, "-") {
		return src
	}
	lines := strings.Split(src, "\n")
	out := make([]string, 0, len(lines))
	inFence := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := fenceMarker(strings.TrimSpace(line)); m != "" {
			inFence = !inFence
		}
		if inFence || !isTableStart(lines, i) {
			out = append(out, line)
			continue
		}
		head := tableCells(line)
		if len(out) > 0 && strings.TrimSpace(out[len(out)-1]) != "" {
			out = append(out, "")
		}
		j := i + 2
		for ; j < len(lines) && strings.Contains(lines[j], "|") && strings.TrimSpace(lines[j]) != ""; j++ {
			out = append(out, tableRowItem(head, tableCells(lines[j])))
		}
		out = append(out, "")
		i = j - 1
	}
	return strings.Join(out, "\n")
}

// isTableStart reports whether lines[i] is a table's heading row: a row
// with pipes followed by a delimiter row with as many cells.
func isTableStart(lines []string, i int) bool {
	if !strings.Contains(lines[i], "|") || i+1 >= len(lines) || !strings.Contains(lines[i+1], "|") {
		return false
	}
	return tableSepRE.MatchString(lines[i+1]) && len(tableCells(lines[i])) == len(tableCells(lines[i+1]))
}

// tableRowItem is a list item with a row's cells after their headings.
func tableRowItem(head, cells []string) string {
	var items []string
	for c, cell := range cells {
		if cell == "" {
			continue
		}
		if c < len(head) && head[c] != "" {
			cell = "**" + head[c] + ":** " + cell
		}
		items = append(items, cell)
	}
	return "- " + strings.Join(items, " · ")
}

// tableCells splits a table row into its trimmed cells.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, "\\|") {
		line = line[:len(line)-1]
	}
	var cells []string
	var b strings.Builder
	for k := 0; k < len(line); k++ {
		switch {
		case line[k] == '\\' && k+1 < len(line) && line[k+1] == '|':
			b.WriteByte('|')
			k++
		case line[k] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(line[k])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// truncateRunes cuts s to n runes with an ellipsis.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// humanSize is a byte count for people (the same wording as app.HumanBytes).
func humanSize(n int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
