package trust

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"

	"aimdesk/app/a2a"
)

const unsignedCard = `{
  "name": "Signed agent",
  "description": "An agent whose card is signed",
  "supportedInterfaces": [{"url": "%s/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "version": "1.2.0",
  "capabilities": {"streaming": true, "pushNotifications": false},
  "securitySchemes": {"corp": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://idp.example/.well-known/openid-configuration"}}},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain", "image/png"],
  "skills": [{"id": "s1", "name": "Route planner", "description": "Plans routes <fast> & \"well\"", "tags": ["maps"]}],
  "iconUrl": "https://agent.example/icon.png"
}`

type signingKey struct {
	kid  string
	priv *ecdsa.PrivateKey
}

func newKey(t *testing.T, kid string) signingKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{kid: kid, priv: priv}
}

func (k signingKey) jwk() jose.JSONWebKey {
	return jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: string(jose.ES256), Use: "sig"}
}

// sign signs payload (already canonical) with a detached JWS whose
// protected header holds alg, typ, kid and jku, as the A2A spec describes.
func sign(t *testing.T, k signingKey, headerKid, jku string, payload []byte) a2a.AgentCardSignature {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("JOSE").WithHeader("kid", headerKid)
	if jku != "" {
		opts = opts.WithHeader("jku", jku)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.priv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := obj.DetachedCompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(compact, ".")
	return a2a.AgentCardSignature{Protected: parts[0], Signature: parts[2]}
}

// withSignatures adds the signatures to a card, pretty-printed in another
// key order than the canonical one.
func withSignatures(t *testing.T, card string, sigs ...a2a.AgentCardSignature) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(card), &m); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sigs)
	m["signatures"] = b
	out, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// reorder rewrites JSON with every object's keys in reverse order and
// other whitespace.
func reorder(t *testing.T, raw []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var walk func() string
	walk = func() string {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' {
				var members []string
				for dec.More() {
					k, _ := dec.Token()
					kb, _ := json.Marshal(k)
					members = append(members, string(kb)+" :\t"+walk())
				}
				dec.Token()
				for i, j := 0, len(members)-1; i < j; i, j = i+1, j-1 {
					members[i], members[j] = members[j], members[i]
				}
				return "{\n  " + strings.Join(members, ",\n  ") + "\n}"
			}
			var elems []string
			for dec.More() {
				elems = append(elems, walk())
			}
			dec.Token()
			return "[ " + strings.Join(elems, " , ") + " ]"
		case string:
			b, _ := json.Marshal(v)
			return string(b)
		case json.Number:
			return v.String()
		case bool:
			return fmt.Sprint(v)
		case nil:
			return "null"
		}
		return ""
	}
	return []byte(walk())
}

type cardHost struct {
	srv      *httptest.Server
	card     atomic.Value // []byte
	jwks     atomic.Value // []byte
	jwksHits atomic.Int64
}

func newCardHost(t *testing.T) *cardHost {
	t.Helper()
	h := &cardHost{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case a2a.WellKnownCardPath:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(h.card.Load().([]byte))
		case "/jwks.json":
			h.jwksHits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(h.jwks.Load().([]byte))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func jwksOf(t *testing.T, keys ...signingKey) []byte {
	t.Helper()
	set := jose.JSONWebKeySet{}
	for _, k := range keys {
		set.Keys = append(set.Keys, k.jwk())
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifySignedCard(t *testing.T) {
	ctx := context.Background()
	host := newCardHost(t)
	other := newCardHost(t)
	k1, k2 := newKey(t, "k1"), newKey(t, "k2")
	host.jwks.Store(jwksOf(t, k1))
	other.jwks.Store(jwksOf(t, k1))
	card := fmt.Sprintf(unsignedCard, host.srv.URL)
	payload, err := jcs.Transform([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	jku := host.srv.URL + "/jwks.json"
	valid := withSignatures(t, card, sign(t, k1, "k1", jku, payload))

	// A card served with fields at their proto default ("extensions": [],
	// "tenant": ""), which the signer dropped before signing (spec §8.4.1);
	// "pushNotifications": false is `optional`, so it stays in both.
	withDefaults := strings.Replace(card, `"pushNotifications": false}`, `"pushNotifications": false, "extensions": []}`, 1)
	withDefaults = strings.Replace(withDefaults, `"protocolVersion": "1.0"}`, `"protocolVersion": "1.0", "tenant": ""}`, 1)

	tampered := bytes.Replace(valid, []byte("Plans routes"), []byte("Steals routes"), 1)
	pinned := &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k1.jwk()}}

	for _, tc := range []struct {
		name    string
		raw     []byte
		pinned  *jose.JSONWebKeySet
		want    Status
		wantErr error
		check   func(t *testing.T, r Result)
	}{
		{"valid", valid, nil, StatusVerified, nil, func(t *testing.T, r Result) {
			if r.KeyID != "k1" || r.Algorithm != "ES256" || r.KeySource != jku {
				t.Errorf("result %+v", r)
			}
		}},
		{"keys reordered", reorder(t, valid), nil, StatusVerified, nil, nil},
		{"proto defaults present", withSignatures(t, withDefaults, sign(t, k1, "k1", jku, payload)), nil, StatusVerified, nil, nil},
		{"edited", tampered, nil, StatusInvalid, ErrBadSignature, nil},
		{"edited and reordered", reorder(t, tampered), nil, StatusInvalid, ErrBadSignature, nil},
		{"unknown key", withSignatures(t, card, sign(t, k2, "k2", jku, payload)), nil, StatusInvalid, ErrUnknownKey, nil},
		{"key id of another key", withSignatures(t, card, sign(t, k2, "k1", jku, payload)), nil, StatusInvalid, ErrBadSignature, nil},
		{"jku on another origin", withSignatures(t, card, sign(t, k1, "k1", other.srv.URL+"/jwks.json", payload)), nil, StatusInvalid, ErrForeignJKU, func(t *testing.T, r Result) {
			if other.jwksHits.Load() != 0 {
				t.Error("the foreign key set was fetched")
			}
		}},
		{"no jku, no pinned key", withSignatures(t, card, sign(t, k1, "k1", "", payload)), nil, StatusInvalid, ErrNoKey, nil},
		{"pinned key", withSignatures(t, card, sign(t, k1, "k1", "", payload)), pinned, StatusVerified, nil, func(t *testing.T, r Result) {
			if r.KeySource != "pinned" {
				t.Errorf("source %q", r.KeySource)
			}
		}},
		{"pinned keys win over jku", withSignatures(t, card, sign(t, k2, "k2", jku, payload)), pinned, StatusInvalid, ErrUnknownKey, nil},
		{"second signature verifies", withSignatures(t, card, sign(t, k2, "k2", jku, payload), sign(t, k1, "k1", jku, payload)), nil, StatusVerified, nil, nil},
		{"unsigned", []byte(card), nil, StatusUnsigned, nil, nil},
		{"duplicate key", bytes.Replace(valid, []byte(`"name": "Signed agent"`), []byte(`"name": "Signed agent", "name": "Evil"`), 1), nil, StatusInvalid, ErrMalformedCard, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host.card.Store(tc.raw)
			rc, err := (&a2a.CardResolver{}).Resolve(ctx, host.srv.URL)
			if err != nil && tc.wantErr != ErrMalformedCard {
				t.Fatalf("Resolve: %v", err)
			}
			raw := tc.raw
			if rc != nil {
				raw = rc.Raw
			}
			r := (&Verifier{}).Verify(ctx, raw, host.srv.URL+a2a.WellKnownCardPath, tc.pinned)
			if r.Status != tc.want || (tc.wantErr != nil && !errors.Is(r.Err, tc.wantErr)) {
				t.Fatalf("Verify = %s (%v), want %s (%v)", r.Status, r.Err, tc.want, tc.wantErr)
			}
			t.Logf("%s: %s", r.Status, r.Reason())
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestVerifyRefusesWeakAlgorithms(t *testing.T) {
	card := []byte(fmt.Sprintf(unsignedCard, "https://agent.example"))
	for _, alg := range []string{"none", "HS256"} {
		t.Run(alg, func(t *testing.T) {
			hdr := fmt.Sprintf(`{"alg":%q,"kid":"k1","jku":"https://agent.example/jwks.json"}`, alg)
			sig := a2a.AgentCardSignature{Protected: b64(hdr), Signature: b64("x")}
			raw := withSignatures(t, string(card), sig)
			r := (&Verifier{}).Verify(context.Background(), raw, "https://agent.example/.well-known/agent-card.json", nil)
			if !errors.Is(r.Err, ErrAlgorithm) {
				t.Errorf("alg %s: %s %v", alg, r.Status, r.Err)
			}
		})
	}
}

func TestJWKSBounds(t *testing.T) {
	host := newCardHost(t)
	k1 := newKey(t, "k1")
	host.jwks.Store(bytes.Repeat([]byte(" "), DefaultMaxJWKSBytes+10))
	card := fmt.Sprintf(unsignedCard, host.srv.URL)
	payload, _ := jcs.Transform([]byte(card))
	raw := withSignatures(t, card, sign(t, k1, "k1", host.srv.URL+"/jwks.json", payload))
	r := (&Verifier{}).Verify(context.Background(), raw, host.srv.URL+a2a.WellKnownCardPath, nil)
	if !errors.Is(r.Err, ErrJWKS) {
		t.Errorf("oversized key set: %s %v", r.Status, r.Err)
	}
}

func TestParseKeysDropsPrivateParts(t *testing.T) {
	k := newKey(t, "k1")
	priv := jose.JSONWebKey{Key: k.priv, KeyID: "k1"}
	b, _ := json.Marshal(priv)
	set, err := ParseKeys(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 1 || !set.Keys[0].IsPublic() {
		t.Errorf("keys %+v", set.Keys)
	}
	if _, err := ParseKeys([]byte(`{"kty":"oct","k":"c2VjcmV0","kid":"h"}`)); err == nil {
		t.Error("a symmetric key was accepted")
	}
}

func b64(s string) string {
	return strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(encodeStd(s)), "=")
}

func encodeStd(s string) string {
	return base64Std.EncodeToString([]byte(s))
}

var base64Std = base64.StdEncoding
