package a2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"aimdesk/app/a2a"
)

// -update rewrites the golden files under testdata/cards. The flag is
// registered only if another test file of the package has not done so.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func utUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// utCardGolden is what a golden file holds for one sample card.
type utCardGolden struct {
	Card              *a2a.AgentCard      `json:"card"`
	SelectedInterface *a2a.AgentInterface `json:"selectedInterface,omitempty"`
	SelectError       string              `json:"selectError,omitempty"`
	IsAIM             bool                `json:"isAIM"`
	Streams           bool                `json:"streams"`
}

func TestParseAgentCardGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "cards", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			card, err := a2a.ParseAgentCard(raw)
			if err != nil {
				t.Fatalf("ParseAgentCard: %v", err)
			}
			g := utCardGolden{Card: card, IsAIM: card.IsAIM(), Streams: card.Streams()}
			if iface, err := a2a.SelectInterface(card); err != nil {
				g.SelectError = err.Error()
			} else {
				g.SelectedInterface = &iface
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "cards", name+".golden.json")
			if utUpdating() {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestParseAgentCardGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("parsed card differs from %s (rerun with -update if the change is intended)\n got: %s\nwant: %s", golden, got, want)
			}
			// The v1.0 form of the card parses back to the same card.
			again, err := a2a.ParseAgentCard(utMarshal(t, card))
			if err != nil {
				t.Fatalf("re-parse: %v", err)
			}
			if a, b := utMarshal(t, again), utMarshal(t, card); !bytes.Equal(a, b) {
				t.Errorf("re-parsed card differs\n got: %s\nwant: %s", a, b)
			}
		})
	}
	if n < 4 {
		t.Fatalf("only %d sample cards in testdata/cards", n)
	}
}

func utReadCard(t *testing.T, name string) *a2a.AgentCard {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "cards", name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := a2a.ParseAgentCard(raw)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseAgentCardV03Mapping(t *testing.T) {
	c := utReadCard(t, "v03-full.json")
	wantIfaces := []a2a.AgentInterface{
		{URL: "https://agents.example.com/travel/a2a/v1", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"},
		{URL: "https://grpc.agents.example.com/travel", ProtocolBinding: "GRPC", ProtocolVersion: "0.3"},
		{URL: "https://agents.example.com/travel/rest", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "0.3"},
	}
	if !reflect.DeepEqual(c.SupportedInterfaces, wantIfaces) {
		t.Errorf("interfaces = %+v\nwant %+v", c.SupportedInterfaces, wantIfaces)
	}
	kinds := map[string]string{}
	for k, s := range c.SecuritySchemes {
		kinds[k] = s.Kind()
	}
	wantKinds := map[string]string{
		"apiKey": "API key", "bearer": "HTTP bearer", "basic": "HTTP basic", "oauth": "OAuth 2.0",
		"oidc": "OpenID Connect", "mtls": "mutual TLS",
	}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("scheme kinds = %v, want %v", kinds, wantKinds)
	}
	if k := c.SecuritySchemes["apiKey"].APIKey; k == nil || k.Location != "header" || k.Name != "X-API-Key" {
		t.Errorf("apiKey = %+v", k)
	}
	o := c.SecuritySchemes["oauth"].OAuth2
	if o == nil || o.Flows.AuthorizationCode == nil || o.Flows.AuthorizationCode.Scopes["trips:write"] == "" ||
		o.Flows.ClientCredentials == nil || o.Flows.Implicit == nil || o.Flows.Password == nil || o.OAuth2MetadataURL == "" {
		t.Errorf("oauth2 = %+v", o)
	}
	wantReq := []a2a.SecurityRequirement{
		{Schemes: map[string]a2a.StringList{"oauth": {List: []string{"trips:read"}}}},
		{Schemes: map[string]a2a.StringList{"apiKey": {List: []string{}}, "mtls": {List: []string{}}}},
	}
	if !reflect.DeepEqual(c.SecurityRequirements, wantReq) {
		t.Errorf("requirements = %+v", c.SecurityRequirements)
	}
	if len(c.Skills) != 2 || c.Skills[0].SecurityRequirements != nil ||
		!reflect.DeepEqual(c.Skills[1].SecurityRequirements, []a2a.SecurityRequirement{{Schemes: map[string]a2a.StringList{"oauth": {List: []string{"trips:write"}}}}}) {
		t.Errorf("skills = %+v", c.Skills)
	}
	if c.Capabilities.ExtendedAgentCard == nil || !*c.Capabilities.ExtendedAgentCard || !c.Streams() {
		t.Errorf("capabilities = %+v", c.Capabilities)
	}
	if e, ok := c.Extension("https://a2a.example.com/ext/itinerary/v1"); !ok || !utSameJSON(e.Params, []byte(`{"schemaUrl":"https://agents.example.com/travel/itinerary.schema.json"}`)) {
		t.Errorf("Extension = %+v, %v", e, ok)
	}
	if _, ok := c.Extension("urn:none"); ok {
		t.Error("Extension found an undeclared URI")
	}
	if c.Provider == nil || c.Provider.Organization != "Example Travel Ltd" || c.IconURL == "" || len(c.Signatures) != 1 {
		t.Errorf("shared fields lost: %+v", c)
	}

	minimal := utReadCard(t, "v03-minimal.json")
	if want := []a2a.AgentInterface{{URL: "http://localhost:9999/", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"}}; !reflect.DeepEqual(minimal.SupportedInterfaces, want) {
		t.Errorf("a v0.3 card without protocolVersion or preferredTransport: interfaces = %+v, want %+v", minimal.SupportedInterfaces, want)
	}
}

func TestParseAgentCardErrors(t *testing.T) {
	big := `{"name":"x","description":"` + strings.Repeat("a", 1<<20) + `","supportedInterfaces":[{"url":"http://x","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
	tests := []struct{ name, raw string }{
		{"empty", ``},
		{"not JSON", `<!doctype html><html><body>Hello</body></html>`},
		{"array", `[{"name":"x"}]`},
		{"string", `"card"`},
		{"truncated", `{"name":"x","supportedInterfaces":[`},
		{"no name v1", `{"supportedInterfaces":[{"url":"http://x","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`},
		{"blank name v1", `{"name":"  \t","supportedInterfaces":[{"url":"http://x","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`},
		{"no name v0.3", `{"url":"http://x","protocolVersion":"0.3.0"}`},
		{"no interface", `{"name":"x","description":"no url, no interfaces"}`},
		{"empty interface list", `{"name":"x","url":"http://x","supportedInterfaces":[]}`},
		{"wrong type", `{"name":7,"url":"http://x"}`},
		{"over 1 MiB", big},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := a2a.ParseAgentCard([]byte(tt.raw))
			if !errors.Is(err, a2a.ErrBadCard) {
				t.Errorf("ParseAgentCard = %+v, %v; want ErrBadCard", c, err)
			}
		})
	}
	t.Run("just under 1 MiB is fine", func(t *testing.T) {
		pad := (1 << 20) - len(`{"name":"x","description":"","supportedInterfaces":[{"url":"http://x","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`)
		raw := `{"name":"x","description":"` + strings.Repeat("a", pad) + `","supportedInterfaces":[{"url":"http://x","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
		if len(raw) != 1<<20 {
			t.Fatalf("sample is %d bytes", len(raw))
		}
		if _, err := a2a.ParseAgentCard([]byte(raw)); err != nil {
			t.Errorf("ParseAgentCard(1 MiB card) = %v", err)
		}
	})
}

func TestNormalizeVersion(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1.0", "1.0"},
		{"1.0.0", "1.0"},
		{"1", "1.0"},
		{"v1", "1.0"},
		{"v1.0.3", "1.0"},
		{"0.3", "0.3"},
		{"0.3.0", "0.3"},
		{" 0.3.0\n", "0.3"},
		{"0.3.0-rc1", "0.3"},
		{"1.0.0.0", "1.0"},
		{"0.2.5", "0.2"},
		{"2", "2"},
		{"", ""},
		{"latest", "latest"},
		// Odd spellings still normalise to a fixed point, so a parsed card
		// marshals and parses back to the same card.
		{"1.0\t.1", "1.0"},
		{"1.0 .0", "1.0"},
		{"vv1.2", "vv1.2"},
		{"v 1.0", "v 1.0"},
		{".", "."},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := a2a.NormalizeVersion(tt.in)
			if got != tt.want {
				t.Errorf("NormalizeVersion(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := a2a.NormalizeVersion(got); again != got {
				t.Errorf("NormalizeVersion is not idempotent: %q → %q → %q", tt.in, got, again)
			}
		})
	}
}

func TestSelectInterface(t *testing.T) {
	jr := func(url, version string) a2a.AgentInterface {
		return a2a.AgentInterface{URL: url, ProtocolBinding: "JSONRPC", ProtocolVersion: version}
	}
	grpc := a2a.AgentInterface{URL: "grpc://g", ProtocolBinding: "GRPC", ProtocolVersion: "1.0"}
	rest := a2a.AgentInterface{URL: "http://r", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "1.0"}
	rest03 := a2a.AgentInterface{URL: "http://r03", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "0.3"}
	grpc03 := a2a.AgentInterface{URL: "grpc://g03", ProtocolBinding: "GRPC", ProtocolVersion: "0.3"}
	aimExt := a2a.AgentCapabilities{Extensions: []a2a.AgentExtension{{URI: "urn:aim:a2a:requirements:v1"}}}
	tests := []struct {
		name     string
		ifaces   []a2a.AgentInterface
		aim      bool
		override string
		want     a2a.AgentInterface
		err      error
	}{
		{"1.0 preferred even when listed second", []a2a.AgentInterface{jr("http://old", "0.3"), jr("http://new", "1.0")}, false, "", jr("http://new", "1.0"), nil},
		{"card order among spoken bindings: GRPC first", []a2a.AgentInterface{grpc, rest, jr("http://new", "1.0")}, false, "", grpc, nil},
		{"card order: REST before JSON-RPC", []a2a.AgentInterface{rest, jr("http://new", "1.0"), grpc}, false, "", rest, nil},
		{"1.0 of any binding before 0.3 JSON-RPC", []a2a.AgentInterface{jr("http://old", "0.3.0"), rest}, false, "", rest, nil},
		{"0.3 REST and gRPC are not spoken", []a2a.AgentInterface{rest03, grpc03, jr("http://old", "0.3")}, false, "", jr("http://old", "0.3"), nil},
		{"first of two 1.0", []a2a.AgentInterface{jr("http://a", "1.0"), jr("http://b", "1.0")}, false, "", jr("http://a", "1.0"), nil},
		{"version is normalised", []a2a.AgentInterface{jr("http://a", "1.0.2")}, false, "", jr("http://a", "1.0"), nil},
		{
			"binding case ignored and normalised",
			[]a2a.AgentInterface{{URL: "http://a", ProtocolBinding: "jsonrpc", ProtocolVersion: "1.0"}},
			false, "",
			jr("http://a", "1.0"),
			nil,
		},
		{
			"tenant kept",
			[]a2a.AgentInterface{{URL: "http://a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0", Tenant: "t1"}},
			false, "",
			a2a.AgentInterface{URL: "http://a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0", Tenant: "t1"},
			nil,
		},
		{"GRPC only", []a2a.AgentInterface{grpc}, false, "", grpc, nil},
		{"HTTP+JSON only", []a2a.AgentInterface{rest}, false, "", rest, nil},
		{"override picks gRPC", []a2a.AgentInterface{jr("http://a", "1.0"), rest, grpc}, false, "grpc", grpc, nil},
		{"override picks HTTP+JSON", []a2a.AgentInterface{grpc, jr("http://a", "1.0"), rest}, false, "http+json", rest, nil},
		{"override picks JSON-RPC 0.3 when no 1.0", []a2a.AgentInterface{rest, jr("http://old", "0.3")}, false, "jsonrpc", jr("http://old", "0.3"), nil},
		{"override not offered", []a2a.AgentInterface{jr("http://a", "1.0")}, false, "grpc", a2a.AgentInterface{}, a2a.ErrBindingNotOffered},
		{"override unknown", []a2a.AgentInterface{jr("http://a", "1.0")}, false, "soap", a2a.AgentInterface{}, a2a.ErrUnknownBinding},
		{"AIM stays on JSON-RPC", []a2a.AgentInterface{grpc, rest, jr("http://a", "1.0")}, true, "", jr("http://a", "1.0"), nil},
		{"AIM ignores an override", []a2a.AgentInterface{grpc, jr("http://a", "1.0")}, true, "grpc", jr("http://a", "1.0"), nil},
		{"AIM without JSON-RPC takes what there is", []a2a.AgentInterface{rest}, true, "", rest, nil},
		{"JSON-RPC of another version", []a2a.AgentInterface{jr("http://a", "2.0"), jr("http://b", "0.2")}, false, "", a2a.AgentInterface{}, a2a.ErrNoInterface},
		{"unknown binding", []a2a.AgentInterface{{URL: "wss://w", ProtocolBinding: "https://example.com/bindings/websocket/v1", ProtocolVersion: "1.0"}}, false, "", a2a.AgentInterface{}, a2a.ErrNoInterface},
		{"none", nil, false, "", a2a.AgentInterface{}, a2a.ErrNoInterface},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			card := &a2a.AgentCard{Name: "x", SupportedInterfaces: tt.ifaces}
			if tt.aim {
				card.Capabilities = aimExt
			}
			got, err := a2a.SelectInterfaceFor(card, tt.override)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("error = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("SelectInterfaceFor = %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("v0.3 card preferring GRPC", func(t *testing.T) {
		got, err := a2a.SelectInterface(utReadCard(t, "v03-grpc-preferred.json"))
		if err != nil || got.URL != "https://ledger.example.com/a2a/jsonrpc" || got.ProtocolVersion != "0.3" {
			t.Errorf("SelectInterface = %+v, %v", got, err)
		}
	})
}

func TestIsAIM(t *testing.T) {
	tests := []struct {
		name string
		uris []string
		want bool
	}{
		{"realtime", []string{"urn:aim:a2a:realtime:v1"}, true},
		{"any urn:aim", []string{"https://x/ext", "urn:aim:a2a:requirements:v1"}, true},
		{"none", nil, false},
		{"other urn", []string{"urn:aimx:a2a:v1", "urn:example:aim:v1"}, false},
		{"only a prefix inside", []string{"https://a-im.cn/urn:aim:v1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &a2a.AgentCard{}
			for _, u := range tt.uris {
				c.Capabilities.Extensions = append(c.Capabilities.Extensions, a2a.AgentExtension{URI: u})
			}
			if got := c.IsAIM(); got != tt.want {
				t.Errorf("IsAIM = %v, want %v", got, tt.want)
			}
		})
	}
}

// utCardServer serves cards by path and counts requests per path.
type utCardServer struct {
	*httptest.Server
	mu     sync.Mutex
	hits   map[string]int
	header map[string][]http.Header // request headers per path
	routes map[string]http.HandlerFunc
}

func utNewCardServer(t *testing.T, routes map[string]http.HandlerFunc) *utCardServer {
	t.Helper()
	s := &utCardServer{hits: map[string]int{}, header: map[string][]http.Header{}, routes: routes}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.header[r.URL.Path] = append(s.header[r.URL.Path], r.Header.Clone())
		h := s.routes[r.URL.Path]
		s.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *utCardServer) hitsOf(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func utServeCard(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

const utMinimalV1Card = `{"name":"Mini","description":"d","version":"1","supportedInterfaces":[{"url":"http://127.0.0.1/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`

func TestCardResolver(t *testing.T) {
	ctx := context.Background()
	v03, err := os.ReadFile(filepath.Join("testdata", "cards", "v03-minimal.json"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("well-known path", func(t *testing.T) {
		s := utNewCardServer(t, map[string]http.HandlerFunc{a2a.WellKnownCardPath: utServeCard(utMinimalV1Card)})
		rc, err := (&a2a.CardResolver{}).Resolve(ctx, s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if rc.Card.Name != "Mini" || rc.URL != s.URL+a2a.WellKnownCardPath || string(rc.Raw) != utMinimalV1Card {
			t.Errorf("resolved = %+v", rc)
		}
		if got := s.header[a2a.WellKnownCardPath][0].Get("Accept"); got != "application/json" {
			t.Errorf("Accept = %q", got)
		}
		if s.hitsOf(a2a.LegacyWellKnownCardPath) != 0 {
			t.Error("the legacy path was tried although the current one answered")
		}
	})

	t.Run("base URL with path, trailing slash, query and fragment", func(t *testing.T) {
		path := "/agents/mini" + a2a.WellKnownCardPath
		s := utNewCardServer(t, map[string]http.HandlerFunc{path: utServeCard(utMinimalV1Card)})
		rc, err := (&a2a.CardResolver{}).Resolve(ctx, "  "+s.URL+"/agents/mini/?x=1#top ")
		if err != nil {
			t.Fatal(err)
		}
		if rc.URL != s.URL+path || s.hitsOf(path) != 1 {
			t.Errorf("resolved from %q, hits %v", rc.URL, s.hits)
		}
	})

	t.Run("legacy fallback on 404", func(t *testing.T) {
		s := utNewCardServer(t, map[string]http.HandlerFunc{a2a.LegacyWellKnownCardPath: utServeCard(string(v03))})
		rc, err := (&a2a.CardResolver{}).Resolve(ctx, s.URL+"/")
		if err != nil {
			t.Fatal(err)
		}
		if rc.URL != s.URL+a2a.LegacyWellKnownCardPath || rc.Card.Name != "Echo" || rc.Card.SupportedInterfaces[0].ProtocolVersion != "0.3" {
			t.Errorf("resolved = %+v", rc)
		}
		if s.hitsOf(a2a.WellKnownCardPath) != 1 || s.hitsOf(a2a.LegacyWellKnownCardPath) != 1 {
			t.Errorf("hits = %v", s.hits)
		}
	})

	t.Run("no fallback on other errors", func(t *testing.T) {
		s := utNewCardServer(t, map[string]http.HandlerFunc{
			a2a.WellKnownCardPath:       func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) },
			a2a.LegacyWellKnownCardPath: utServeCard(string(v03)),
		})
		_, err := (&a2a.CardResolver{}).Resolve(ctx, s.URL)
		var he *a2a.HTTPError
		if !errors.As(err, &he) || he.StatusCode != http.StatusInternalServerError {
			t.Errorf("error = %v, want HTTP 500", err)
		}
		if s.hitsOf(a2a.LegacyWellKnownCardPath) != 0 {
			t.Error("fell back to the legacy path after a 500")
		}
	})

	t.Run("404 on both paths", func(t *testing.T) {
		s := utNewCardServer(t, nil)
		_, err := (&a2a.CardResolver{}).Resolve(ctx, s.URL)
		var he *a2a.HTTPError
		if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
			t.Errorf("error = %v, want one wrapping HTTP 404", err)
		}
		if s.hitsOf(a2a.WellKnownCardPath) != 1 || s.hitsOf(a2a.LegacyWellKnownCardPath) != 1 {
			t.Errorf("hits = %v", s.hits)
		}
	})

	t.Run("explicit card URL", func(t *testing.T) {
		s := utNewCardServer(t, map[string]http.HandlerFunc{"/cards/echo.json": utServeCard(string(v03))})
		rc, err := (&a2a.CardResolver{}).Resolve(ctx, s.URL+"/cards/echo.json")
		if err != nil {
			t.Fatal(err)
		}
		if rc.URL != s.URL+"/cards/echo.json" || rc.Card.Name != "Echo" {
			t.Errorf("resolved = %+v", rc)
		}
		if s.hitsOf(a2a.WellKnownCardPath)+s.hitsOf(a2a.LegacyWellKnownCardPath) != 0 {
			t.Errorf("well-known paths tried for an explicit card URL: %v", s.hits)
		}
	})

	t.Run("ETag revalidation", func(t *testing.T) {
		var mu sync.Mutex
		etag, body := `"v1"`, utMinimalV1Card
		s := utNewCardServer(t, map[string]http.HandlerFunc{a2a.WellKnownCardPath: func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, body)
		}})
		r := &a2a.CardResolver{}
		first, err := r.Resolve(ctx, s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if first.ETag != `"v1"` {
			t.Errorf("ETag = %q", first.ETag)
		}
		second, err := r.Resolve(ctx, s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if s.hitsOf(a2a.WellKnownCardPath) != 2 {
			t.Errorf("hits = %d, want 2 (one fetch, one revalidation)", s.hitsOf(a2a.WellKnownCardPath))
		}
		if got := s.header[a2a.WellKnownCardPath][1].Get("If-None-Match"); got != `"v1"` {
			t.Errorf("If-None-Match = %q", got)
		}
		if second.Card != first.Card || !bytes.Equal(second.Raw, first.Raw) {
			t.Error("a 304 was not answered from the cache")
		}
		if h := s.header[a2a.WellKnownCardPath][0].Get("If-None-Match"); h != "" {
			t.Errorf("first request sent If-None-Match %q", h)
		}
		// The card changes: the resolver takes the new one.
		mu.Lock()
		etag, body = `"v2"`, strings.Replace(utMinimalV1Card, `"Mini"`, `"Mini 2"`, 1)
		mu.Unlock()
		third, err := r.Resolve(ctx, s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if third.Card.Name != "Mini 2" || third.ETag != `"v2"` {
			t.Errorf("after a change: %+v", third)
		}
		// A fresh resolver has no cache and sends no If-None-Match.
		if _, err := (&a2a.CardResolver{}).Resolve(ctx, s.URL); err != nil {
			t.Fatal(err)
		}
		hs := s.header[a2a.WellKnownCardPath]
		if h := hs[len(hs)-1].Get("If-None-Match"); h != "" {
			t.Errorf("a new resolver sent If-None-Match %q", h)
		}
	})

	t.Run("ETag on the legacy path", func(t *testing.T) {
		s := utNewCardServer(t, map[string]http.HandlerFunc{a2a.LegacyWellKnownCardPath: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `W/"abc"`)
			if r.Header.Get("If-None-Match") == `W/"abc"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write(v03)
		}})
		r := &a2a.CardResolver{}
		for i := range 3 {
			rc, err := r.Resolve(ctx, s.URL)
			if err != nil || rc.Card.Name != "Echo" {
				t.Fatalf("resolve %d: %+v, %v", i, rc, err)
			}
		}
		if s.hitsOf(a2a.LegacyWellKnownCardPath) != 3 || len(s.header[a2a.LegacyWellKnownCardPath][2].Get("If-None-Match")) == 0 {
			t.Errorf("hits = %v", s.hits)
		}
	})

	t.Run("no ETag, no revalidation header", func(t *testing.T) {
		s := utNewCardServer(t, map[string]http.HandlerFunc{a2a.WellKnownCardPath: utServeCard(utMinimalV1Card)})
		r := &a2a.CardResolver{}
		for range 2 {
			if _, err := r.Resolve(ctx, s.URL); err != nil {
				t.Fatal(err)
			}
		}
		if h := s.header[a2a.WellKnownCardPath][1].Get("If-None-Match"); h != "" {
			t.Errorf("If-None-Match = %q without an ETag", h)
		}
	})

	bad := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"non-JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>Welcome</body></html>")
		}},
		{"oversize", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"name":"big","description":"`)
			w.Write(bytes.Repeat([]byte("x"), 2<<20))
			fmt.Fprint(w, `","url":"http://x"}`)
		}},
		{"oversize with white space", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, utMinimalV1Card[:len(utMinimalV1Card)-1]+`,"pad":"`+strings.Repeat(" ", 1<<20)+`"}`)
		}},
		{"missing name", utServeCard(`{"description":"nameless","url":"http://x","protocolVersion":"0.3.0"}`)},
		{"no interface", utServeCard(`{"name":"x","description":"no url"}`)},
		{"empty body", utServeCard(``)},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			s := utNewCardServer(t, map[string]http.HandlerFunc{a2a.WellKnownCardPath: tt.h})
			rc, err := (&a2a.CardResolver{}).Resolve(ctx, s.URL)
			if !errors.Is(err, a2a.ErrBadCard) {
				t.Errorf("Resolve = %+v, %v; want ErrBadCard", rc, err)
			}
		})
	}

	for _, target := range []string{"", "ftp://example.com/", "file:///etc/passwd", "localhost:8080", "example.com", "http://", "https:///x", "/relative", "ws://example.com"} {
		t.Run("not http/"+target, func(t *testing.T) {
			r := &a2a.CardResolver{HTTPClient: &http.Client{Transport: utNoNetwork{t}}}
			if rc, err := r.Resolve(ctx, target); err == nil {
				t.Errorf("Resolve(%q) = %+v, want an error", target, rc)
			}
		})
	}

	t.Run("cancelled context", func(t *testing.T) {
		s := utNewCardServer(t, map[string]http.HandlerFunc{a2a.WellKnownCardPath: utServeCard(utMinimalV1Card)})
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := (&a2a.CardResolver{}).Resolve(cctx, s.URL); !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	})

	t.Run("concurrent use", func(t *testing.T) {
		s := utNewCardServer(t, map[string]http.HandlerFunc{a2a.WellKnownCardPath: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"e"`)
			if r.Header.Get("If-None-Match") == `"e"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, utMinimalV1Card)
		}})
		r := &a2a.CardResolver{HTTPClient: s.Client()}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if rc, err := r.Resolve(ctx, s.URL); err != nil || rc.Card.Name != "Mini" {
					t.Errorf("Resolve = %+v, %v", rc, err)
				}
			})
		}
		wg.Wait()
	})
}

// utNoNetwork is a RoundTripper that fails the test if it is used.
type utNoNetwork struct{ t *testing.T }

func (n utNoNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("unexpected request to %s", r.URL)
	return nil, errors.New("no network in this test")
}
