package a2a_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"aimdesk/app/a2a"
)

// Helpers shared by the unit tests in part_test.go, compat_test.go,
// card_test.go, errors_test.go, client_test.go, limits_test.go and
// fuzz_test.go carry the prefix "ut" so they cannot clash with the other
// test files of the package.

// utJSONEqual fails the test unless got and want hold the same JSON value.
func utJSONEqual(t *testing.T, got, want []byte) {
	t.Helper()
	if !utSameJSON(got, want) {
		t.Errorf("JSON differs\n got: %s\nwant: %s", utIndent(got), utIndent(want))
	}
}

// utSameJSON reports whether a and b are valid JSON holding the same value
// (object key order and white space do not matter, numbers compare as text).
func utSameJSON(a, b []byte) bool {
	var x, y any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func utIndent(b []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		return string(b)
	}
	return out.String()
}

func utMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return b
}

func utIntp(n int) *int { return &n }

func utMeta(kv ...string) a2a.Metadata {
	m := a2a.Metadata{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = json.RawMessage(kv[i+1])
	}
	return m
}

// utPartsEqual compares two parts field by field; JSON values (data and
// metadata) compare as JSON, so white space does not matter.
func utPartsEqual(t *testing.T, got, want a2a.Part) {
	t.Helper()
	if got.Kind != want.Kind || got.Text != want.Text || !bytes.Equal(got.Raw, want.Raw) || got.URL != want.URL ||
		got.MediaType != want.MediaType || got.Filename != want.Filename {
		t.Errorf("part = %+v, want %+v", got, want)
	}
	if (got.Data == nil) != (want.Data == nil) || (got.Data != nil && !utSameJSON(got.Data, want.Data)) {
		t.Errorf("part data = %q, want %q", got.Data, want.Data)
	}
	if len(got.Metadata) != len(want.Metadata) {
		t.Errorf("part metadata = %v, want %v", got.Metadata, want.Metadata)
	}
	for k, v := range want.Metadata {
		if !utSameJSON(got.Metadata[k], v) {
			t.Errorf("part metadata[%q] = %s, want %s", k, got.Metadata[k], v)
		}
	}
}

func TestPartJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		part a2a.Part
		wire string // the exact v1.0 JSON Marshal must produce
	}{
		{"text", a2a.TextPart("hello"), `{"text":"hello"}`},
		{"empty text", a2a.TextPart(""), `{"text":""}`},
		{
			"text with everything",
			a2a.Part{
				Kind: a2a.PartText, Text: "# Title", MediaType: "text/markdown", Filename: "notes.md",
				Metadata: utMeta("lang", `"en"`, "n", `3`),
			},
			`{"text":"# Title","metadata":{"lang":"en","n":3},"filename":"notes.md","mediaType":"text/markdown"}`,
		},
		{
			"raw", a2a.FilePart("a.bin", "application/octet-stream", []byte{0xff, 0x00, 0x10, 'h', 'i'}),
			`{"raw":"/wAQaGk=","filename":"a.bin","mediaType":"application/octet-stream"}`,
		},
		{"raw one byte", a2a.Part{Kind: a2a.PartRaw, Raw: []byte{'A'}, MediaType: "text/plain"}, `{"raw":"QQ==","mediaType":"text/plain"}`},
		{"empty raw", a2a.Part{Kind: a2a.PartRaw, Raw: []byte{}, MediaType: "text/plain"}, `{"raw":"","mediaType":"text/plain"}`},
		{"nil raw", a2a.Part{Kind: a2a.PartRaw, Filename: "empty.txt"}, `{"raw":"","filename":"empty.txt"}`},
		{
			"url",
			a2a.Part{Kind: a2a.PartURL, URL: "https://example.com/cat.png?x=1&y=2", MediaType: "image/png", Filename: "cat.png"},
			`{"url":"https://example.com/cat.png?x=1\u0026y=2","filename":"cat.png","mediaType":"image/png"}`,
		},
		{
			"url with metadata",
			a2a.Part{Kind: a2a.PartURL, URL: "file:///tmp/x", Metadata: utMeta("k", `{"a":[1,2]}`)},
			`{"url":"file:///tmp/x","metadata":{"k":{"a":[1,2]}}}`,
		},
		{
			"data object",
			a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`{"answer":42}`), MediaType: "application/json"},
			`{"data":{"answer":42},"mediaType":"application/json"}`,
		},
		{"data array", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`[1,"two",null]`)}, `{"data":[1,"two",null]}`},
		{"data string", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`"just a string"`)}, `{"data":"just a string"}`},
		{"data number", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`-1.5e3`)}, `{"data":-1.5e3}`},
		{"data bool", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`false`)}, `{"data":false}`},
		{"data null", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`null`)}, `{"data":null}`},
		{"data empty object", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`{}`), Filename: "x.json"}, `{"data":{},"filename":"x.json"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.part)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			utJSONEqual(t, b, []byte(tt.wire))
			var got a2a.Part
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("Unmarshal(%s): %v", b, err)
			}
			utPartsEqual(t, got, tt.part)
			// Once more through the wire: the bytes are stable.
			b2, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("second Marshal: %v", err)
			}
			if !bytes.Equal(b, b2) {
				t.Errorf("second Marshal = %s, first %s", b2, b)
			}
		})
	}
}

func TestPartJSONDecode(t *testing.T) {
	tests := []struct {
		name    string
		wire    string
		want    a2a.Part
		wantErr string // substring; "" means success
	}{
		{"text", `{"text":"hi"}`, a2a.TextPart("hi"), ""},
		{"empty text is a text part", `{"text":""}`, a2a.TextPart(""), ""},
		{
			"raw is base64", `{"raw":"aGVsbG8gd29ybGQ=","mediaType":"text/plain"}`,
			a2a.Part{Kind: a2a.PartRaw, Raw: []byte("hello world"), MediaType: "text/plain"},
			"",
		},
		{"raw binary", `{"raw":"AAEC/w=="}`, a2a.Part{Kind: a2a.PartRaw, Raw: []byte{0, 1, 2, 255}}, ""},
		{"empty raw is a raw part", `{"raw":""}`, a2a.Part{Kind: a2a.PartRaw, Raw: []byte{}}, ""},
		{"url", `{"url":"https://x.test/a"}`, a2a.Part{Kind: a2a.PartURL, URL: "https://x.test/a"}, ""},
		{"empty url still a url part", `{"url":""}`, a2a.Part{Kind: a2a.PartURL}, ""},
		{"data object", `{"data": {"a": 1}}`, a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`{"a":1}`)}, ""},
		{"data null counts as data", `{"data":null}`, a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`null`)}, ""},
		{
			"data null with metadata", `{"data":null,"metadata":{"m":true},"mediaType":"application/json"}`,
			a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`null`), Metadata: utMeta("m", `true`), MediaType: "application/json"},
			"",
		},
		{"data zero", `{"data":0}`, a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`0`)}, ""},
		{
			"metadata filename mediaType kept", `{"text":"t","metadata":{"x":{"y":[1]}},"filename":"f.txt","mediaType":"text/plain"}`,
			a2a.Part{Kind: a2a.PartText, Text: "t", Metadata: utMeta("x", `{"y":[1]}`), Filename: "f.txt", MediaType: "text/plain"},
			"",
		},
		{"unknown fields tolerated", `{"kind":"text","text":"hi","future":{"nested":[1,2]},"x":null}`, a2a.TextPart("hi"), ""},
		{"v0.3 file field ignored beside text", `{"text":"hi","file":{"uri":"https://x"}}`, a2a.TextPart("hi"), ""},
		{"text null is no text", `{"text":null,"url":"u"}`, a2a.Part{Kind: a2a.PartURL, URL: "u"}, ""},
		{"raw null is no raw", `{"raw":null,"text":"t"}`, a2a.TextPart("t"), ""},

		{"none", `{}`, a2a.Part{}, "exactly one"},
		{"only metadata", `{"metadata":{"a":1},"mediaType":"text/plain"}`, a2a.Part{}, "exactly one"},
		{"text and raw", `{"text":"a","raw":"QQ=="}`, a2a.Part{}, "has 2"},
		{"text and url", `{"text":"a","url":"u"}`, a2a.Part{}, "has 2"},
		{"url and data", `{"url":"u","data":{}}`, a2a.Part{}, "has 2"},
		{"empty text and null data", `{"text":"","data":null}`, a2a.Part{}, "has 2"},
		{"all four", `{"text":"a","raw":"QQ==","url":"u","data":1}`, a2a.Part{}, "has 4"},
		{"raw not base64", `{"raw":"not base64!"}`, a2a.Part{}, "illegal base64"},
		{"text not a string", `{"text":5}`, a2a.Part{}, "cannot unmarshal"},
		{"not an object", `"hello"`, a2a.Part{}, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got a2a.Part
			err := json.Unmarshal([]byte(tt.wire), &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Unmarshal(%s) error = %v, want one containing %q", tt.wire, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.wire, err)
			}
			utPartsEqual(t, got, tt.want)
		})
	}
}

func TestPartJSONInMessage(t *testing.T) {
	// A bad part fails the whole message; the index of parts is kept.
	var m a2a.Message
	err := json.Unmarshal([]byte(`{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"ok"},{"text":"a","data":{}}]}`), &m)
	if err == nil {
		t.Fatal("a message with a two-kind part decoded without error")
	}
	err = json.Unmarshal([]byte(`{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":""},{"data":null},{"raw":"QQ==","filename":"a"}]}`), &m)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	kinds := []a2a.PartKind{m.Parts[0].Kind, m.Parts[1].Kind, m.Parts[2].Kind}
	if want := []a2a.PartKind{a2a.PartText, a2a.PartData, a2a.PartRaw}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
}

func TestPartMarshalRejects(t *testing.T) {
	tests := []struct {
		name string
		part a2a.Part
	}{
		{"zero part", a2a.Part{}},
		{"unknown kind", a2a.Part{Kind: "file", URL: "u"}},
		{"v0.3 kind name", a2a.Part{Kind: "TEXT", Text: "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b, err := json.Marshal(tt.part); err == nil {
				t.Errorf("Marshal(%+v) = %s, want an error", tt.part, b)
			}
		})
	}
}

func TestPartMarshalWritesOnlyItsKind(t *testing.T) {
	// Fields of other kinds left in the struct must not leak onto the wire.
	p := a2a.Part{Kind: a2a.PartURL, URL: "https://x", Text: "stale", Raw: []byte("stale"), Data: json.RawMessage(`{"stale":1}`)}
	b := utMarshal(t, p)
	utJSONEqual(t, b, []byte(`{"url":"https://x"}`))
	// An unset data part is written as data null, which still decodes as data.
	b = utMarshal(t, a2a.Part{Kind: a2a.PartData})
	utJSONEqual(t, b, []byte(`{"data":null}`))
	var back a2a.Part
	if err := json.Unmarshal(b, &back); err != nil || back.Kind != a2a.PartData {
		t.Errorf("Unmarshal(%s) = %+v, %v; want a data part", b, back, err)
	}
}

func TestPartHelpers(t *testing.T) {
	dp, err := a2a.DataPart(map[string]any{"b": []int{1}, "a": "x"}, "application/json")
	if err != nil {
		t.Fatal(err)
	}
	if dp.Kind != a2a.PartData || dp.MediaType != "application/json" || !utSameJSON(dp.Data, []byte(`{"a":"x","b":[1]}`)) {
		t.Errorf("DataPart = %+v", dp)
	}
	if _, err := a2a.DataPart(func() {}, ""); err == nil {
		t.Error("DataPart(func) did not fail")
	}
	fp := a2a.FilePart("r.pdf", "application/pdf", []byte("%PDF"))
	if fp.Kind != a2a.PartRaw || fp.Filename != "r.pdf" || fp.MediaType != "application/pdf" || string(fp.Raw) != "%PDF" {
		t.Errorf("FilePart = %+v", fp)
	}

	for _, tt := range []struct {
		data string
		want bool
	}{
		{`{"a":1}`, true},
		{" \n\t{}", true},
		{`[{"a":1}]`, false},
		{`"{"`, false},
		{`null`, false},
		{``, false},
		{`   `, false},
	} {
		t.Run("IsJSONObject "+tt.data, func(t *testing.T) {
			p := a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(tt.data)}
			if got := p.IsJSONObject(); got != tt.want {
				t.Errorf("IsJSONObject(%q) = %v, want %v", tt.data, got, tt.want)
			}
		})
	}
}
