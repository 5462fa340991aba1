package trust

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		lim  Limits
		want error
	}{
		{"plain", `{"a":[1,2,{"b":"c"}]}`, Limits{}, nil},
		{"depth at limit", strings.Repeat("[", 3) + strings.Repeat("]", 3), Limits{MaxDepth: 3}, nil},
		{"too deep", strings.Repeat("[", 4), Limits{MaxDepth: 3}, ErrTooDeep},
		{"brackets in strings do not count", `{"a":"[[[[[[{{{{"}`, Limits{MaxDepth: 2}, nil},
		{"escaped quote keeps the string open", `{"a":"\"[[[[[\\"}`, Limits{MaxDepth: 2}, nil},
		{"escape then more text", `{"a":"x\ny[[[[[", "b":[[[]]]}`, Limits{MaxDepth: 3}, ErrTooDeep},
		{"escaped backslash ends escape", `{"a":"\\","b":[[[]]]}`, Limits{MaxDepth: 3}, ErrTooDeep},
		{"string at limit", `"` + strings.Repeat("x", 10) + `"`, Limits{MaxStringBytes: 10}, nil},
		{"string over limit", `"` + strings.Repeat("x", 11) + `"`, Limits{MaxStringBytes: 10}, ErrStringTooLong},
		{"multibyte string over limit", `"` + strings.Repeat("é", 6) + `"`, Limits{MaxStringBytes: 10}, ErrStringTooLong},
		{"valid utf8", `"héllo 世界 🎉"`, Limits{}, nil},
		{"invalid byte", "\"a\xffb\"", Limits{}, ErrInvalidUTF8},
		{"bad continuation", "\"\xe2\x28\xa1\"", Limits{}, ErrInvalidUTF8},
		{"overlong", "\"\xc0\xaf\"", Limits{}, ErrInvalidUTF8},
		{"surrogate", "\"\xed\xa0\x80\"", Limits{}, ErrInvalidUTF8},
		{"cut at end", "\"\xe4\xb8", Limits{}, ErrInvalidUTF8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckJSON([]byte(tc.in), tc.lim)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("CheckJSON(%q) = %v, want %v", tc.in, err, tc.want)
			}
			if tc.want != nil && !errors.Is(err, ErrBound) {
				t.Errorf("%v does not match ErrBound", err)
			}
		})
	}
}

// naiveDepth is the reference for FuzzScanner.
func naiveDepth(b []byte) int {
	depth, max, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
		case inStr:
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			depth++
			if depth > max {
				max = depth
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return max
}

// FuzzScanner feeds the same bytes whole and in two pieces and checks the
// verdicts against utf8.Valid and a naive depth count.
func FuzzScanner(f *testing.F) {
	f.Add([]byte(`{"a":["\"[",{"b":"é"}]}`), 3)
	f.Add([]byte("\"\xe4\xb8\xad\""), 2)
	f.Add([]byte(`[[[[[[[[`), 4)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		lim := Limits{MaxDepth: 5, MaxStringBytes: 1 << 30}
		whole := CheckJSON(b, lim)
		var s Scanner
		s.Limits = lim
		if cut < 0 {
			cut = -cut
		}
		if len(b) > 0 {
			cut %= len(b) + 1
		} else {
			cut = 0
		}
		err := s.Write(b[:cut])
		if err == nil {
			err = s.Write(b[cut:])
		}
		if err == nil {
			err = s.Close()
		}
		if (whole == nil) != (err == nil) {
			t.Fatalf("whole %v, split %v", whole, err)
		}
		wantUTF8 := utf8.Valid(b)
		wantDepth := naiveDepth(b) <= 5
		switch {
		case whole == nil && (!wantUTF8 || !wantDepth):
			t.Fatalf("accepted: utf8 %v depth %d", wantUTF8, naiveDepth(b))
		case errors.Is(whole, ErrInvalidUTF8) && wantUTF8:
			t.Fatalf("valid UTF-8 refused")
		case errors.Is(whole, ErrTooDeep) && wantDepth:
			t.Fatalf("depth %d refused", naiveDepth(b))
		}
	})
}

type chunkBody struct {
	chunks []string
}

func (c *chunkBody) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	if c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

func (c *chunkBody) Close() error { return nil }

type staticTransport struct {
	ct     string
	chunks []string
}

func (s staticTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{}
	h.Set("Content-Type", s.ct)
	return &http.Response{StatusCode: 200, Header: h, Body: &chunkBody{chunks: append([]string(nil), s.chunks...)}, Request: r}, nil
}

// TestGuardSSE parses SSE framing: CRLF and CR line ends, comments, other
// fields, multi-line data, "data" without a colon, split across reads.
func TestGuardSSE(t *testing.T) {
	deep := strings.Repeat("[", 5)
	for _, tc := range []struct {
		name   string
		chunks []string
		want   error
	}{
		{"ok", []string{"data: {\"a\":1}\n\n", ": keepalive\n\n", "event: x\ndata: [1,\ndata: 2]\n\n"}, nil},
		{"crlf split", []string{"data: [[", "[]]]\r", "\n\r\n"}, nil},
		{"cr only", []string{"data: [[[]]]\r\rdata: [[[]]]\r\r"}, nil},
		{"too deep in data", []string{"data: " + deep + "\n\n"}, ErrTooDeep},
		{"deep across data lines", []string{"data: [[[\ndata: [[\n\n"}, ErrTooDeep},
		{"events reset depth", []string{"data: [[[[\n\n", "data: [[[[\n\n"}, nil},
		{"brackets in other fields", []string{"event: " + deep + "\nid: " + deep + "\n: " + deep + "\ndata: 1\n\n"}, nil},
		{"a field named like data", []string{"database: " + deep + "\n\n"}, nil},
		{"bad utf8 split", []string{"data: \"\xe4", "\xb8\"\n\n"}, ErrInvalidUTF8},
		{"utf8 split ok", []string{"data: \"\xe4", "\xb8\xad\"\n\n"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := &http.Client{Transport: &Guard{Base: staticTransport{ct: "text/event-stream", chunks: tc.chunks}, Limits: Limits{MaxDepth: 4}}}
			resp, err := hc.Get("http://agent.test/")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			_, err = io.ReadAll(resp.Body)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("read: %v, want %v", err, tc.want)
			}
		})
	}
}

// TestAttackGuardSkippedBySpelling: the Guard chose its checks by an exact,
// lower-case content type, so a hostile agent escaped them with
// "Text/Event-Stream", a leading BOM before the first data line, or a JSON
// body declared as text/plain or text/html. Each must still be bounded.
func TestAttackGuardSkippedBySpelling(t *testing.T) {
	deep := strings.Repeat("[", 8)
	for _, tc := range []struct {
		name, ct string
		chunks   []string
	}{
		{"mixed-case event stream", "Text/Event-Stream", []string{"data: " + deep + "\n\n"}},
		{"event stream bad params", "text/event-stream;;", []string{"data: " + deep + "\n\n"}},
		{"bom before data", "text/event-stream", []string{"\xEF\xBB\xBFdata: " + deep + "\n\n"}},
		{"bom split across reads", "text/event-stream", []string{"\xEF", "\xBB\xBF", "data: " + deep + "\n\n"}},
		{"json as text/plain", "text/plain", []string{deep}},
		{"json as text/html", "text/html; charset=utf-8", []string{deep}},
		{"no content type", "", []string{deep}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := &http.Client{Transport: &Guard{Base: staticTransport{ct: tc.ct, chunks: tc.chunks}, Limits: Limits{MaxDepth: 4}}}
			resp, err := hc.Get("http://agent.test/")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if _, err = io.ReadAll(resp.Body); !errors.Is(err, ErrTooDeep) {
				t.Errorf("read: %v, want ErrTooDeep", err)
			}
		})
	}
	// An HTML error page is not JSON but within the bounds: it reads.
	hc := &http.Client{Transport: &Guard{Base: staticTransport{ct: "text/html", chunks: []string{"<html><body>Bad gateway</body></html>"}}}}
	resp, err := hc.Get("http://agent.test/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err != nil || !strings.Contains(string(b), "Bad gateway") {
		t.Errorf("HTML page: %q, %v", b, err)
	}
}
