package ui

import (
	"net/url"
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"
)

// flatSegments lists segs depth first (lists and paragraphs expanded).
func flatSegments(segs []widget.RichTextSegment) []widget.RichTextSegment {
	var out []widget.RichTextSegment
	for _, s := range segs {
		switch t := s.(type) {
		case *widget.ListSegment:
			out = append(out, flatSegments(t.Items)...)
		case *widget.ParagraphSegment:
			out = append(out, flatSegments(t.Texts)...)
		default:
			out = append(out, s)
		}
	}
	return out
}

func segmentsText(segs []widget.RichTextSegment) string {
	var b strings.Builder
	for _, s := range flatSegments(segs) {
		b.WriteString(s.Textual())
	}
	return b.String()
}

func links(segs []widget.RichTextSegment) []*widget.HyperlinkSegment {
	var out []*widget.HyperlinkSegment
	for _, s := range flatSegments(segs) {
		if h, ok := s.(*widget.HyperlinkSegment); ok {
			out = append(out, h)
		}
	}
	return out
}

func TestMarkdownSanitizer(t *testing.T) {
	tests := []struct {
		name      string
		md        string
		wantLinks []string // URLs of the links kept, in order
		wantText  []string // substrings of the visible text
		notText   []string // substrings that must not be visible
	}{
		{
			name: "javascript link dropped", md: "[click me](javascript:alert(1))",
			wantText: []string{"click me"},
		},
		{
			name: "javascript link with upper case scheme dropped", md: "[x](JaVaScRiPt:alert(1))",
			wantText: []string{"x"},
		},
		{
			name: "data link dropped", md: "[payload](data:text/html;base64,PHNjcmlwdD4=)",
			wantText: []string{"payload"},
		},
		{
			name: "file link dropped", md: "[passwords](file:///etc/passwd)",
			wantText: []string{"passwords"},
		},
		{
			name: "custom scheme dropped", md: "[open app](slack://open)",
			wantText: []string{"open app"},
		},
		{
			name: "relative link dropped", md: "[docs](/docs/intro)",
			wantText: []string{"docs"},
		},
		{
			name: "http link kept with host shown", md: "See [the docs](http://docs.example.com/a?b=c).",
			wantLinks: []string{"http://docs.example.com/a?b=c"}, wantText: []string{"the docs", "(docs.example.com)"},
		},
		{
			name: "https link kept, host already in text", md: "[https://example.org/x](https://example.org/x)",
			wantLinks: []string{"https://example.org/x"}, notText: []string{"(example.org)"},
		},
		{
			name: "host after user info is the real one", md: "[your bank](https://bank.example@evil.example/login)",
			wantLinks: []string{"https://bank.example@evil.example/login"}, wantText: []string{"(evil.example)"},
		},
		{
			name: "non default port shown", md: "[local](http://127.0.0.1:8080/)",
			wantLinks: []string{"http://127.0.0.1:8080/"}, wantText: []string{"(127.0.0.1:8080)"},
		},
		{
			name: "non ASCII host flagged", md: "[pay](https://pаypal.example/)",
			wantLinks: []string{"https://p%D0%B0ypal.example/"}, wantText: []string{"contains non-Latin characters"},
		},
		{
			name: "autolink kept", md: "Go to <https://example.net/page> now",
			wantLinks: []string{"https://example.net/page"}, wantText: []string{"Go to", "now"},
		},
		{
			name: "autolink in code span untouched", md: "`<https://example.net>`",
			wantText: []string{"<https://example.net>"},
		},
		{
			name: "remote image not fetched", md: "![tracker](https://tracker.example/pixel.png \"Pixel\")",
			wantText: []string{"[Image “Pixel” from tracker.example — not loaded]"},
		},
		{
			name: "data image not decoded", md: "![x](data:image/png;base64,iVBORw0KGgo=)",
			wantText: []string{"embedded in the text — not loaded]"},
		},
		{name: "file image not read", md: "![x](/etc/hosts)", wantText: []string{"[Image — not loaded]"}},
		{
			name: "links inside lists sanitized", md: "- [ok](https://ok.example)\n- [bad](javascript:x)",
			wantLinks: []string{"https://ok.example"}, wantText: []string{"bad"},
		},
		{
			name: "headings and code survive", md: "# Title\n\n```\ncode <b>\n```\n\n**bold**",
			wantText: []string{"Title", "code <b>", "bold"},
		},
		{
			name: "table shown as a list of rows", md: "Speeds:\n| Agent | Events per second |\n|---|---:|\n| a server | about 110 |\n| this agent | tens of thousands |\n\nAfter.",
			wantText: []string{"Speeds:", "Agent:", "a server", "Events per second:", "about 110", "this agent", "tens of thousands", "After."},
			notText:  []string{"|", "---"},
		},
		{name: "pipe in a heading is not a table", md: "a | b\n---", wantText: []string{"a | b"}},
		{
			name: "raw HTML not rendered as markup", md: "<script>alert(1)</script>hello",
			notText: []string{"<script>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opened []string
			segs := markdownSegments(tt.md, func(u *url.URL) { opened = append(opened, u.String()) })
			for _, s := range flatSegments(segs) {
				if _, ok := s.(*widget.ImageSegment); ok {
					t.Fatalf("an image segment survived: %#v", s)
				}
			}
			got := links(segs)
			if len(got) != len(tt.wantLinks) {
				t.Fatalf("links = %d, want %d (%v)", len(got), len(tt.wantLinks), tt.wantLinks)
			}
			for i, h := range got {
				if h.URL.String() != tt.wantLinks[i] {
					t.Errorf("link %d = %s, want %s", i, h.URL, tt.wantLinks[i])
				}
				if h.OnTapped == nil {
					t.Fatalf("link %d has no OnTapped: a click would open it without confirmation", i)
				}
				h.OnTapped()
				if len(opened) != i+1 || opened[i] != tt.wantLinks[i] {
					t.Errorf("clicking link %d asked to open %v", i, opened)
				}
			}
			text := segmentsText(segs)
			for _, w := range tt.wantText {
				if !strings.Contains(text, w) {
					t.Errorf("text %q does not contain %q", text, w)
				}
			}
			for _, w := range tt.notText {
				if strings.Contains(text, w) {
					t.Errorf("text %q contains %q", text, w)
				}
			}
		})
	}
}

func TestMarkdownTruncatesHugeText(t *testing.T) {
	big := strings.Repeat("word ", maxMarkdownBytes/5+1000)
	text := segmentsText(markdownSegments(big, nil))
	if !strings.Contains(text, "more not shown") {
		t.Fatalf("a %d byte text was not cut", len(big))
	}
}

func TestDisplayHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://Example.COM/x", "example.com"},
		{"http://example.com:80/", "example.com"},
		{"https://example.com:8443/", "example.com:8443"},
		{"https://user:pw@example.com/", "example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, _ := url.Parse(tt.in)
			if got := displayHost(u); got != tt.want {
				t.Errorf("displayHost(%s) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMarkdownBlocks(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []string
	}{
		{"paragraphs", "one\ntwo\n\nthree\n", []string{"one\ntwo\n\n", "three\n"}},
		{"fence keeps blank lines", "a\n\n```\nx\n\ny\n```\n\nb", []string{"a\n\n", "```\nx\n\ny\n```\n\n", "b"}},
		{"tilde fence", "~~~\n\n~~~\nz", []string{"~~~\n\n~~~\nz"}},
		{"indented continuation", "- item\n\n  more of it\n\nafter", []string{"- item\n\n  more of it\n\n", "after"}},
		{"streaming tail", "done\n\npart", []string{"done\n\n", "part"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := markdownBlocks(tt.md)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("markdownBlocks(%q) = %q, want %q", tt.md, got, tt.want)
			}
		})
	}
	big := strings.Repeat("word ", maxMarkdownBytes/5+1000)
	blocks := markdownBlocks(big)
	if !strings.Contains(blocks[len(blocks)-1], "more not shown") {
		t.Fatalf("a %d byte text was not cut", len(big))
	}
}

// TestMarkdownSplitsHugeParagraphs: one paragraph of 20 KiB without a blank
// line is shown in pieces of at most maxBlockBytes cut at spaces, with no
// text lost; an ordinary paragraph and fenced code stay whole.
func TestMarkdownSplitsHugeParagraphs(t *testing.T) {
	para := strings.Repeat("lorem ipsum dolor ", 20<<10/18)
	blocks := markdownBlocks(para)
	if len(blocks) < 20 {
		t.Fatalf("%d blocks", len(blocks))
	}
	joined := ""
	for _, b := range blocks {
		if len(b) > maxBlockBytes {
			t.Fatalf("a block of %d bytes", len(b))
		}
		joined += b + " "
	}
	if strings.Join(strings.Fields(joined), " ") != strings.Join(strings.Fields(para), " ") {
		t.Fatal("text lost or changed in the split")
	}
	normal := strings.Repeat("word ", 300) // 1.5 KiB: stays one block
	if got := markdownBlocks(normal); len(got) != 1 {
		t.Fatalf("an ordinary paragraph became %d blocks", len(got))
	}
	code := "```\n" + strings.Repeat("x := 1 // code\n", 400) + "```\n"
	if got := markdownBlocks(code); len(got) != 1 {
		t.Fatalf("fenced code became %d blocks", len(got))
	}
}
