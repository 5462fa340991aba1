package lkroom

import (
	"io"
	"strings"
	"testing"
)

// chunks is a reader returning one chunk per Read, as the SDK's stream
// reader returns what arrived.
type chunks struct{ c []string }

func (r *chunks) Read(p []byte) (int, error) {
	if len(r.c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.c[0])
	r.c[0] = r.c[0][n:]
	if r.c[0] == "" {
		r.c = r.c[1:]
	}
	return n, nil
}

func TestReadTextStream(t *testing.T) {
	tests := []struct {
		name    string
		chunks  []string
		trailer map[string]string
		want    []string // Text of every emit; the last is Done
		final   string   // lk.transcription_final at Done
	}{
		{
			name:    "deltas, final in the trailer",
			chunks:  []string{"Hello", " there", "."},
			trailer: map[string]string{"lk.transcription_final": "true", "lk.segment_id": "SG_1"},
			want:    []string{"Hello", "Hello there", "Hello there.", "Hello there."},
			final:   "true",
		},
		{
			name:   "a character split between chunks waits for its rest",
			chunks: []string{"Gr\xc3", "\xb6\xc3\x9fe ", "\xe2\x82", "\xac"},
			want:   []string{"Gr", "Größe ", "Größe €", "Größe €"},
			final:  "false",
		},
		{
			name:   "a cut character at the end is replaced",
			chunks: []string{"ab\xe2\x82"},
			want:   []string{"ab", "ab\uFFFD"},
			final:  "false",
		},
		{
			name:   "invalid bytes are replaced",
			chunks: []string{"a\xffb"},
			want:   []string{"a\uFFFDb", "a\uFFFDb"},
			final:  "false",
		},
		{
			name:  "empty stream",
			want:  []string{""},
			final: "false",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			attrs := map[string]string{"lk.transcription_final": "false"}
			info := StreamText{ID: "s1", Topic: "lk.transcription", Sender: "agent", Attributes: attrs}
			var got []StreamText
			ReadTextStream(&chunks{c: tc.chunks}, info, func() map[string]string {
				for k, v := range tc.trailer {
					attrs[k] = v
				}
				return attrs
			}, func(st StreamText) { got = append(got, st) })
			var texts []string
			for i, st := range got {
				texts = append(texts, st.Text)
				if st.Done != (i == len(got)-1) {
					t.Errorf("emit %d Done = %v", i, st.Done)
				}
				if !st.Done && st.Attributes["lk.transcription_final"] != "false" {
					t.Errorf("emit %d has the trailer's attributes before the end", i)
				}
			}
			if strings.Join(texts, "|") != strings.Join(tc.want, "|") {
				t.Errorf("texts %q, want %q", texts, tc.want)
			}
			if f := got[len(got)-1].Attributes["lk.transcription_final"]; f != tc.final {
				t.Errorf("final attribute at the end %q, want %q", f, tc.final)
			}
		})
	}
}

func TestReadTextStreamBound(t *testing.T) {
	big := strings.Repeat("é", MaxStreamText) // 2 bytes each
	var last StreamText
	n := 0
	ReadTextStream(strings.NewReader(big+big), StreamText{}, nil, func(st StreamText) { last, n = st, n+1 })
	if !last.Done || !last.Truncated || len(last.Text) > MaxStreamText || len(last.Text) < MaxStreamText-1 {
		t.Fatalf("done %v truncated %v len %d", last.Done, last.Truncated, len(last.Text))
	}
	if !strings.HasSuffix(last.Text, "é") {
		t.Fatal("cut inside a character")
	}
}
