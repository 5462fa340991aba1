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
// note (a multi-megabyte answer would otherwise freeze the row).
const maxMarkdownBytes = 256 << 10

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
	segs := sanitizeSegments(widget.NewRichTextFromMarkdown(autolinksToLinks(src)).Segments, onLink)
	if note != "" {
		segs = append(segs, &widget.TextSegment{Style: imagePlaceholderStyle, Text: note})
	}
	return segs
}

// sanitizeSegments returns a copy of segs with images replaced, unsafe
// links turned into text and unknown segments reduced to their text.
func sanitizeSegments(segs []widget.RichTextSegment, onLink func(*url.URL)) []widget.RichTextSegment {
	out := make([]widget.RichTextSegment, 0, len(segs))
	for _, s := range segs {
		switch t := s.(type) {
		case *widget.TextSegment:
			out = append(out, t)
		case *widget.SeparatorSegment:
			out = append(out, t)
		case *widget.ParagraphSegment:
			out = append(out, &widget.ParagraphSegment{Texts: sanitizeSegments(t.Texts, onLink)})
		case *widget.ListSegment:
			l := &widget.ListSegment{Items: sanitizeSegments(t.Items, onLink), Ordered: t.Ordered}
			l.SetStartNumber(t.StartNumber())
			out = append(out, l)
		case *widget.HyperlinkSegment:
			out = append(out, sanitizeLink(t, onLink)...)
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
