package a2a_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"aimdesk/app/a2a"
)

// The fuzz targets check that decoders never panic and that whatever they
// accept survives a round trip. Seed corpora live in testdata/fuzz/<name>/
// and hold v1.0 and v0.3 shapes; run one with e.g.
//
//	go test ./app/a2a -run='^$' -fuzz='^FuzzDecodeResponse$' -fuzztime=60s

func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := a2a.DecodeResponse(data)
		if err != nil {
			if !errors.Is(err, a2a.ErrBadResponse) {
				t.Fatalf("error %v is not ErrBadResponse", err)
			}
			return
		}
		if (len(r.Result) > 0) == (r.Error != nil) {
			t.Fatalf("decoded response has result %q and error %v", r.Result, r.Error)
		}
		b1, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		r2, err := a2a.DecodeResponse(b1)
		if err != nil {
			t.Fatalf("re-encoded response %s does not decode: %v", b1, err)
		}
		if (r.Error == nil) != (r2.Error == nil) {
			t.Fatalf("result/error changed: %s", b1)
		}
		if r.Error != nil {
			if r.Error.Code != r2.Error.Code || r.Error.Message != r2.Error.Message || !utSameJSONOrBoth(r.Error.Data, r2.Error.Data) {
				t.Fatalf("error changed: %+v → %+v", r.Error, r2.Error)
			}
		} else if !utSameJSON(r.Result, r2.Result) {
			t.Fatalf("result changed: %s → %s", r.Result, r2.Result)
		}
		if !utSameJSON(r.ID, r2.ID) && !(len(r.ID) == 0 && string(r2.ID) == "null") {
			t.Fatalf("id changed: %s → %s", r.ID, r2.ID)
		}
		b2, err := json.Marshal(r2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("encoding is not stable:\n%s\n%s (%v)", b1, b2, err)
		}
	})
}

// utSameJSONOrBoth is utSameJSON that also accepts two absent values.
func utSameJSONOrBoth(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return utSameJSON(a, b)
}

func FuzzDecodeStreamEvent(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The v1.0 decoder.
		ev, err := a2a.DecodeStreamEvent(data)
		if err != nil {
			var rpc *a2a.RPCError
			if !errors.As(err, &rpc) && !errors.Is(err, a2a.ErrBadResponse) {
				t.Fatalf("error %v is neither an *RPCError nor ErrBadResponse", err)
			}
		} else {
			utCheckOneEvent(t, ev)
			b1, err := json.Marshal(ev)
			if err != nil {
				t.Fatalf("re-encode %s: %v", data, err)
			}
			ev2, err := a2a.DecodeStreamEvent(utEnvelopeBytes(b1))
			if err != nil {
				t.Fatalf("re-encoded event %s does not decode: %v", b1, err)
			}
			if ev2.Kind() != ev.Kind() || ev2.TaskID() != ev.TaskID() {
				t.Fatalf("event changed: %s/%s → %s/%s", ev.Kind(), ev.TaskID(), ev2.Kind(), ev2.TaskID())
			}
			if b2, err := json.Marshal(ev2); err != nil || !bytes.Equal(b1, b2) {
				t.Fatalf("encoding is not stable:\n%s\n%s (%v)", b1, b2, err)
			}
		}

		// The v0.3 path the client takes for a 0.3 interface.
		r, err := a2a.DecodeResponse(data)
		if err != nil || r.Error != nil {
			return
		}
		var e a2a.EventV03
		if json.Unmarshal(r.Result, &e) != nil {
			return
		}
		v1, err := a2a.EventFromV03(&e)
		if err != nil {
			return
		}
		utCheckOneEvent(t, v1)
		// v1 → v0.3 → v1 reaches a fixed point after one trip (the first may
		// normalise: timestamps to UTC, final from the state).
		v1b := utThroughV03(t, v1)
		if v1b.Kind() != v1.Kind() || v1b.TaskID() != v1.TaskID() {
			t.Fatalf("event changed through v0.3: %s/%s → %s/%s", v1.Kind(), v1.TaskID(), v1b.Kind(), v1b.TaskID())
		}
		v1c := utThroughV03(t, v1b)
		if a, b := utMarshal(t, v1b), utMarshal(t, v1c); !bytes.Equal(a, b) {
			t.Fatalf("v0.3 mapping is not stable:\n%s\n%s", a, b)
		}
	})
}

// utThroughV03 maps a v1 event to v0.3 JSON and back.
func utThroughV03(t *testing.T, ev *a2a.StreamResponse) *a2a.StreamResponse {
	t.Helper()
	e, err := a2a.EventToV03(ev)
	if err != nil {
		t.Fatalf("EventToV03(%s): %v", utMarshal(t, ev), err)
	}
	var wire a2a.EventV03
	if err := json.Unmarshal(utMarshal(t, e), &wire); err != nil {
		t.Fatal(err)
	}
	back, err := a2a.EventFromV03(&wire)
	if err != nil {
		t.Fatalf("EventFromV03(%s) (from %s): %v", utMarshal(t, e), utMarshal(t, ev), err)
	}
	return back
}

func utCheckOneEvent(t *testing.T, ev *a2a.StreamResponse) {
	t.Helper()
	n := 0
	for _, set := range []bool{ev.Task != nil, ev.Message != nil, ev.StatusUpdate != nil, ev.ArtifactUpdate != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("decoded event has %d fields set, want exactly one: %s", n, utMarshal(t, ev))
	}
}

func utEnvelopeBytes(result []byte) []byte {
	return append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), result...), '}')
}

func FuzzParseAgentCard(f *testing.F) {
	f.Add([]byte(utMinimalV1Card))
	f.Fuzz(func(t *testing.T, data []byte) {
		card, err := a2a.ParseAgentCard(data)
		if err != nil {
			if !errors.Is(err, a2a.ErrBadCard) {
				t.Fatalf("error %v is not ErrBadCard", err)
			}
			return
		}
		if strings.TrimSpace(card.Name) == "" || len(card.SupportedInterfaces) == 0 {
			t.Fatalf("parsed card without a name or an interface: %+v", card)
		}
		b1, err := json.Marshal(card)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again, err := a2a.ParseAgentCard(b1)
		if err != nil {
			t.Fatalf("the parsed card %s does not parse again: %v", b1, err)
		}
		if b2 := utMarshal(t, again); !bytes.Equal(b1, b2) {
			t.Fatalf("re-parsed card differs:\n%s\n%s", b1, b2)
		}
		// Whatever SelectInterface picks is one of the card's own interfaces.
		if iface, err := a2a.SelectInterface(card); err == nil {
			found := false
			for _, i := range card.SupportedInterfaces {
				found = found || (i.URL == iface.URL && strings.EqualFold(i.ProtocolBinding, iface.ProtocolBinding))
			}
			if !found || (iface.ProtocolVersion != a2a.Version10 && iface.ProtocolVersion != a2a.Version03) {
				t.Fatalf("SelectInterface = %+v", iface)
			}
		} else if !errors.Is(err, a2a.ErrNoInterface) {
			t.Fatalf("SelectInterface error %v", err)
		}
		_ = card.IsAIM()
	})
}

func FuzzPartJSON(f *testing.F) {
	f.Add([]byte(`{"text":"hello","mediaType":"text/plain"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p a2a.Part
		if err := json.Unmarshal(data, &p); err != nil {
			return
		}
		switch p.Kind {
		case a2a.PartText, a2a.PartRaw, a2a.PartURL, a2a.PartData:
		default:
			t.Fatalf("decoded part has kind %q", p.Kind)
		}
		b1, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("a decoded part does not encode: %+v: %v", p, err)
		}
		var p2 a2a.Part
		if err := json.Unmarshal(b1, &p2); err != nil {
			t.Fatalf("re-encoded part %s does not decode: %v", b1, err)
		}
		if p2.Kind != p.Kind || p2.Text != p.Text || !bytes.Equal(p2.Raw, p.Raw) || p2.URL != p.URL ||
			p2.MediaType != p.MediaType || p2.Filename != p.Filename || len(p2.Metadata) != len(p.Metadata) {
			t.Fatalf("part changed: %+v → %+v", p, p2)
		}
		if p.Kind == a2a.PartData && !utSameJSON(p.Data, p2.Data) {
			t.Fatalf("data changed: %s → %s", p.Data, p2.Data)
		}
		if b2 := utMarshal(t, p2); !bytes.Equal(b1, b2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", b1, b2)
		}

		// v1 → v0.3 → v1 is lossless, except for what v0.3 cannot hold:
		// an empty file (v0.3 tells bytes from uri by presence) and our
		// own bookkeeping keys in metadata.
		if (p.Kind == a2a.PartRaw && len(p.Raw) == 0) || (p.Kind == a2a.PartURL && p.URL == "") {
			return
		}
		for k := range p.Metadata {
			if strings.HasPrefix(k, "a2a.v1.") {
				return
			}
		}
		v03, err := a2a.PartToV03(p)
		if err != nil {
			t.Fatalf("PartToV03(%s): %v", b1, err)
		}
		var wire a2a.PartV03
		if err := json.Unmarshal(utMarshal(t, v03), &wire); err != nil {
			t.Fatal(err)
		}
		back, err := a2a.PartFromV03(wire)
		if err != nil {
			t.Fatalf("PartFromV03(%s) (from %s): %v", utMarshal(t, v03), b1, err)
		}
		if b3 := utMarshal(t, back); !utSameJSON(b1, b3) {
			t.Fatalf("v1 → v0.3 → v1 lost something:\n%s\n%s\n(v0.3: %s)", b1, b3, utMarshal(t, v03))
		}
	})
}
