package devagent

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

func getCard(t *testing.T, a *agent, path, etag string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodGet, a.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestCard(t *testing.T) {
	a := newAgent(t, HandlerConfig{})
	tests := []struct {
		name      string
		path      string
		wantURL   string
		wantIface int
	}{
		{"v1.0 card", PathCard, a.srv.URL + PathV1, 2},
		{"legacy v0.3 card", PathLegacyCard, a.srv.URL + PathV03, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := getCard(t, a, tt.path, "")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %s", resp.Status)
			}
			card, err := a2a.ParseAgentCard(body)
			if err != nil {
				t.Fatal(err)
			}
			if card.Name != AgentName || card.Provider == nil || card.Version == "" || card.Description == "" {
				t.Errorf("card header = %q %+v %q", card.Name, card.Provider, card.Version)
			}
			if len(card.SupportedInterfaces) != tt.wantIface {
				t.Errorf("interfaces = %+v", card.SupportedInterfaces)
			}
			iface, err := a2a.SelectInterface(card)
			if err != nil || iface.URL != tt.wantURL {
				t.Errorf("SelectInterface = %+v, %v; want %s", iface, err, tt.wantURL)
			}
			if !card.IsAIM() || !card.Streams() {
				t.Errorf("IsAIM=%v Streams=%v", card.IsAIM(), card.Streams())
			}
			if ext, ok := card.Extension(aim.RequirementsExtension); !ok || !strings.Contains(ext.Description, "ContinueTask") {
				t.Errorf("requirements extension = %+v, %v", ext, ok)
			}
			if _, ok := card.Extension(a2a.RealtimeExtension); ok {
				t.Error("the card declares the realtime extension")
			}
			if len(card.Skills) < 10 {
				t.Errorf("%d skills", len(card.Skills))
			}
			for _, s := range card.Skills {
				if s.ID == "" || s.Name == "" || s.Description == "" {
					t.Errorf("skill %+v is incomplete", s)
				}
			}
			if len(card.DefaultInputModes) == 0 || len(card.DefaultOutputModes) == 0 {
				t.Error("no default modes")
			}
			etag := resp.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				resp, body := getCard(t, a, tt.path, inm)
				if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
					t.Errorf("If-None-Match %s: status %s, %d bytes", inm, resp.Status, len(body))
				}
			}
			if resp, _ := getCard(t, a, tt.path, `"stale"`); resp.StatusCode != http.StatusOK {
				t.Errorf("stale ETag: status %s", resp.Status)
			}
		})
	}
	t.Run("legacy card is v0.3-shaped", func(t *testing.T) {
		_, body := getCard(t, a, PathLegacyCard, "")
		for _, want := range []string{`"protocolVersion": "0.3.0"`, `"preferredTransport": "JSONRPC"`, `"url": "` + a.srv.URL + PathV03 + `"`} {
			if !strings.Contains(string(body), want) {
				t.Errorf("legacy card lacks %s", want)
			}
		}
	})
	t.Run("resolver revalidates with ETag", func(t *testing.T) {
		var r a2a.CardResolver
		r.HTTPClient = a.srv.Client()
		first, err := r.Resolve(context.Background(), a.srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		second, err := r.Resolve(context.Background(), a.srv.URL)
		if err != nil || second != first {
			t.Errorf("second Resolve = %p, %v; want the cached %p", second, err, first)
		}
	})
}

func TestStart(t *testing.T) {
	s, err := Start(context.Background(), Config{Handler: fast()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var r a2a.CardResolver
	rc, err := r.Resolve(ctxT(t), s.URL())
	if err != nil {
		t.Fatal(err)
	}
	iface, err := a2a.SelectInterface(rc.Card)
	if err != nil || iface.URL != s.URL()+PathV1 {
		t.Fatalf("SelectInterface = %+v, %v", iface, err)
	}
	c := &a2a.Client{Interface: iface, AIM: true}
	task := send(t, c, "task hello", nil)
	if task.Status.State != a2a.TaskStateCompleted {
		t.Errorf("state %s", task.Status.State)
	}
	if s.Handler() == nil {
		t.Error("no handler")
	}
}
