package trust

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"aimdesk/app/a2a"
)

// Status is the outcome of checking a card's signatures, with a stable
// spelling.
type Status string

// Statuses.
const (
	StatusVerified Status = "verified" // a signature checks out with a known key
	StatusUnsigned Status = "unsigned" // the card carries no signature
	StatusInvalid  Status = "invalid"  // signatures are present and none checks out
)

func (s Status) String() string { return string(s) }

// Result of Verify.
type Result struct {
	Status    Status
	KeyID     string // of the key that verified
	Algorithm string
	// KeySource is where the key came from: "pinned" or the jku URL.
	KeySource string
	// Err is why the card is invalid (errors.Is ErrUnknownKey,
	// ErrBadSignature, ErrForeignJKU, ...); nil otherwise.
	Err error
}

// Reason is a sentence for the UI.
func (r Result) Reason() string {
	switch r.Status {
	case StatusVerified:
		return fmt.Sprintf("Signed with key %q (%s, %s)", r.KeyID, r.Algorithm, r.KeySource)
	case StatusUnsigned:
		return "The card is not signed"
	}
	if r.Err != nil {
		return strings.TrimPrefix(r.Err.Error(), "trust: ")
	}
	return "The card's signature is invalid"
}

// Defaults for Verifier's zero fields.
const (
	DefaultMaxJWKSBytes = 64 << 10
	maxSignatures       = 8
	jwksTimeout         = 10 * time.Second
)

// allowedAlgorithms are the asymmetric JWS algorithms accepted; "none" and
// HMAC (a shared secret in a public key set makes no sense) are refused.
var allowedAlgorithms = []jose.SignatureAlgorithm{
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
}

// Verifier checks signed agent cards (A2A specification §8.4). The zero
// value is usable.
type Verifier struct {
	// HTTPClient fetches key sets (jku); nil means a client with a 10 s
	// timeout. Redirects are never followed.
	HTTPClient *http.Client
	// MaxJWKSBytes bounds a key set; 0 means DefaultMaxJWKSBytes.
	MaxJWKSBytes int64
}

// VerifyResolved checks a card as the resolver fetched it (its exact bytes
// and URL).
func (v *Verifier) VerifyResolved(ctx context.Context, rc *a2a.ResolvedCard, pinned *jose.JSONWebKeySet) Result {
	return v.Verify(ctx, rc.Raw, rc.URL, pinned)
}

// Verify checks the signatures of the card raw, fetched from cardURL. Keys
// come from pinned when the user pinned some for the agent (then only
// those count), else from each signature's jku, which must be on the
// card's own origin (scheme, host and port) and https unless on this
// machine. The card is verified when one signature checks out, over the
// RFC 8785 canonical form of the received card without "signatures" (see
// CanonicalPayloads).
func (v *Verifier) Verify(ctx context.Context, raw []byte, cardURL string, pinned *jose.JSONWebKeySet) Result {
	var head struct {
		Signatures []a2a.AgentCardSignature `json:"signatures"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return Result{Status: StatusInvalid, Err: fmt.Errorf("%w: %w", ErrMalformedCard, err)}
	}
	if len(head.Signatures) == 0 {
		return Result{Status: StatusUnsigned}
	}
	if len(head.Signatures) > maxSignatures {
		return Result{Status: StatusInvalid, Err: fmt.Errorf("%w: %d (at most %d)", ErrTooManySignature, len(head.Signatures), maxSignatures)}
	}
	payloads, err := CanonicalPayloads(raw)
	if err != nil {
		return Result{Status: StatusInvalid, Err: err}
	}
	sets := map[string]*jose.JSONWebKeySet{} // jku → key set, fetched once
	var firstErr error
	for _, sig := range head.Signatures {
		res, err := v.verifyOne(ctx, sig, payloads, cardURL, pinned, sets)
		if err == nil {
			return res
		}
		// The most telling reason wins: a signature that does not match
		// beats a missing key.
		if firstErr == nil || errors.Is(err, ErrBadSignature) && !errors.Is(firstErr, ErrBadSignature) {
			firstErr = err
		}
	}
	return Result{Status: StatusInvalid, Err: firstErr}
}

type protectedHeader struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	JKU  string          `json:"jku"`
	Typ  string          `json:"typ"`
	Crit json.RawMessage `json:"crit"`
}

func (v *Verifier) verifyOne(ctx context.Context, sig a2a.AgentCardSignature, payloads [][]byte, cardURL string,
	pinned *jose.JSONWebKeySet, sets map[string]*jose.JSONWebKeySet,
) (Result, error) {
	h, alg, err := parseProtected(sig.Protected)
	if err != nil {
		return Result{}, err
	}
	set, source, err := v.keySet(ctx, h.JKU, cardURL, pinned, sets)
	if err != nil {
		return Result{}, err
	}
	keys := set.Key(h.Kid)
	if len(keys) == 0 {
		return Result{}, fmt.Errorf("%w: %q", ErrUnknownKey, clip(h.Kid, 100))
	}
	sigBytes := strings.TrimRight(sig.Signature, "=")
	protected := strings.TrimRight(sig.Protected, "=")
	var lastErr error
	for _, k := range keys {
		k, err := usableKey(k, h.Kid, alg)
		if err != nil {
			lastErr = err
			continue
		}
		ok, err := verifyPayloads(k, protected+".."+sigBytes, payloads, alg, h.Kid)
		if ok {
			return Result{Status: StatusVerified, KeyID: h.Kid, Algorithm: string(alg), KeySource: source}, nil
		}
		if err != nil {
			lastErr = err
		}
	}
	return Result{}, lastErr
}

// parseProtected decodes and checks a signature's protected header: a
// key id, no critical extensions, an accepted algorithm.
func parseProtected(protected string) (protectedHeader, jose.SignatureAlgorithm, error) {
	var h protectedHeader
	hb, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(protected, "="))
	if err != nil || len(hb) > 4096 {
		return h, "", fmt.Errorf("%w: not base64url", ErrBadHeader)
	}
	if err := json.Unmarshal(hb, &h); err != nil {
		return h, "", fmt.Errorf("%w: %w", ErrBadHeader, err)
	}
	if len(h.Crit) > 0 {
		return h, "", fmt.Errorf("%w: it names critical extensions", ErrBadHeader)
	}
	if h.Kid == "" {
		return h, "", fmt.Errorf("%w: no kid", ErrBadHeader)
	}
	alg := jose.SignatureAlgorithm(h.Alg)
	if !acceptedAlgorithm(alg) {
		return h, "", fmt.Errorf("%w: %q", ErrAlgorithm, clip(h.Alg, 20))
	}
	return h, alg, nil
}

// keySet is the key set to verify with and where it came from: the pinned
// set, else the one at the header's jku (same origin as the card; fetched
// once per card into sets).
func (v *Verifier) keySet(ctx context.Context, jku, cardURL string,
	pinned *jose.JSONWebKeySet, sets map[string]*jose.JSONWebKeySet,
) (*jose.JSONWebKeySet, string, error) {
	switch {
	case pinned != nil:
		return pinned, "pinned", nil
	case jku == "":
		return nil, "", ErrNoKey
	}
	if err := sameOrigin(jku, cardURL); err != nil {
		return nil, "", err
	}
	if set := sets[jku]; set != nil {
		return set, jku, nil
	}
	set, err := v.fetchJWKS(ctx, jku)
	if err != nil {
		return nil, "", err
	}
	sets[jku] = set
	return set, jku, nil
}

// usableKey is k's public key if k may make alg signatures.
func usableKey(k jose.JSONWebKey, kid string, alg jose.SignatureAlgorithm) (jose.JSONWebKey, error) {
	if k.Use != "" && k.Use != "sig" || k.Algorithm != "" && k.Algorithm != string(alg) {
		return k, fmt.Errorf("%w: key %q is not for %s signatures", ErrUnknownKey, clip(kid, 100), alg)
	}
	if !k.IsPublic() {
		k = k.Public()
		if !k.Valid() {
			return k, fmt.Errorf("%w: key %q is not a public key", ErrUnknownKey, clip(kid, 100))
		}
	}
	return k, nil
}

// verifyPayloads reports whether the detached signature jws (protected
// header..signature) of one of the payloads verifies with k; else the
// last error.
func verifyPayloads(k jose.JSONWebKey, jws string, payloads [][]byte, alg jose.SignatureAlgorithm, kid string) (bool, error) {
	var lastErr error
	for _, p := range payloads {
		sig, err := jose.ParseDetached(jws, p, []jose.SignatureAlgorithm{alg})
		if err != nil {
			return false, fmt.Errorf("%w: %w", ErrBadHeader, err)
		}
		if _, err := sig.Verify(k); err == nil {
			return true, nil
		}
		lastErr = fmt.Errorf("%w (key %q)", ErrBadSignature, clip(kid, 100))
	}
	return false, lastErr
}

func acceptedAlgorithm(a jose.SignatureAlgorithm) bool {
	for _, x := range allowedAlgorithms {
		if x == a {
			return true
		}
	}
	return false
}

// sameOrigin accepts a jku on the card's origin, https unless on this machine.
func sameOrigin(jku, cardURL string) error {
	j, err := url.Parse(jku)
	if err != nil || j.Host == "" || j.User != nil {
		return fmt.Errorf("%w: %q is not a URL", ErrForeignJKU, clip(jku, 200))
	}
	if origin(j) != origin(mustParse(cardURL)) {
		return fmt.Errorf("%w: %s, the card came from %s", ErrForeignJKU, clip(j.Redacted(), 200), origin(mustParse(cardURL)))
	}
	if j.Scheme != "https" && !(j.Scheme == "http" && isLoopback(j.Hostname())) {
		return fmt.Errorf("%w: %s is not https", ErrForeignJKU, clip(j.Redacted(), 200))
	}
	return nil
}

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		return &url.URL{}
	}
	return u
}

func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

func isLoopback(host string) bool {
	host = strings.ToLower(host)
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (v *Verifier) fetchJWKS(ctx context.Context, jku string) (*jose.JSONWebKeySet, error) {
	limit := v.MaxJWKSBytes
	if limit <= 0 {
		limit = DefaultMaxJWKSBytes
	}
	var hc http.Client
	if v.HTTPClient != nil {
		hc = *v.HTTPClient
	}
	if hc.Timeout == 0 {
		hc.Timeout = jwksTimeout
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jku, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: HTTP %d", ErrJWKS, resp.StatusCode)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: over %d bytes", ErrJWKS, limit)
	}
	if err := CheckJSON(b, Limits{MaxDepth: 16}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrJWKS, err)
	}
	return &set, nil
}

// ParseKeys reads keys a user pins for an agent: a JWK Set, or one JWK.
// Private parts are dropped.
func ParseKeys(b []byte) (*jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err == nil && len(set.Keys) > 0 {
		return publicOnly(&set)
	}
	var k jose.JSONWebKey
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("%w: not a JWK or JWK Set: %w", ErrJWKS, err)
	}
	return publicOnly(&jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k}})
}

func publicOnly(s *jose.JSONWebKeySet) (*jose.JSONWebKeySet, error) {
	out := &jose.JSONWebKeySet{}
	for _, k := range s.Keys {
		p := k.Public()
		if !p.Valid() {
			return nil, fmt.Errorf("%w: key %q is not an asymmetric key", ErrJWKS, clip(k.KeyID, 100))
		}
		out.Keys = append(out.Keys, p)
	}
	return out, nil
}

func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
