package devagent

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/rest"
)

// Sign-in: with HandlerConfig.Auth set the agent answers calls on every
// binding only with a credential (A2A v1.0 §7.4), and says what it wants
// the way each binding does (§3.3.2): JSON-RPC and HTTP+JSON with HTTP 401
// and a WWW-Authenticate challenge (RFC 6750 §3: error="invalid_token" when
// a token was sent but is not, or no longer, valid), gRPC with
// UNAUTHENTICATED and the same challenge as www-authenticate trailer
// metadata. The agent cards stay public: they say how to sign in.

// Names of the security schemes the card declares, and of the things the
// agent serves for them.
const (
	SchemeBearer = "bearer"
	SchemeAPIKey = "apiKey"
	SchemeOAuth  = "oauth"
	// PathToken is the agent's own OAuth 2.0 token endpoint (client
	// credentials grant, RFC 6749 §4.4).
	PathToken = "/oauth/token" // #nosec G101 -- a path, not a credential
	// DefaultAPIKeyHeader carries the API key when AuthConfig names none.
	DefaultAPIKeyHeader = "X-API-Key" // #nosec G101 -- a header name
	// DefaultAccessTokenTTL is the lifetime of an issued access token.
	DefaultAccessTokenTTL = time.Hour
	authRealm             = "aimdesk reference agent"
)

// AuthConfig makes the reference agent require sign-in. Each non-empty
// field adds a security scheme to the card; a call needs any one of them.
type AuthConfig struct {
	// BearerTokens are accepted as "Authorization: Bearer TOKEN"
	// (scheme "bearer", HTTP bearer authentication).
	BearerTokens []string
	// APIKeys are accepted in the APIKeyHeader header (scheme "apiKey";
	// gRPC metadata of the same name in lowercase).
	APIKeys []string
	// APIKeyHeader names the API key's header; "" means DefaultAPIKeyHeader.
	APIKeyHeader string
	// OAuthClients maps OAuth client ids to their secrets: they get access
	// tokens from PathToken with the client credentials grant (scheme
	// "oauth"), sent as bearer tokens.
	OAuthClients map[string]string
	// AccessTokenTTL is the lifetime of an issued access token (expires_in);
	// 0 means DefaultAccessTokenTTL.
	AccessTokenTTL time.Duration
}

func (c *AuthConfig) apiKeyHeader() string {
	if c.APIKeyHeader != "" {
		return c.APIKeyHeader
	}
	return DefaultAPIKeyHeader
}

// tokens are the access tokens the agent issued, with their expiry.
type tokens struct {
	mu      sync.Mutex
	live    map[string]time.Time
	issued  int
	refused int // calls refused for want of a valid credential
}

func (t *tokens) issue(ttl time.Duration) string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	tok := "at-" + base64.RawURLEncoding.EncodeToString(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live == nil {
		t.live = map[string]time.Time{}
	}
	now := time.Now()
	for k, exp := range t.live { // forget expired tokens
		if now.After(exp) {
			delete(t.live, k)
		}
	}
	t.live[tok] = now.Add(ttl)
	t.issued++
	return tok
}

func (t *tokens) valid(tok string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	exp, ok := t.live[tok]
	return ok && time.Now().Before(exp)
}

// RevokeAccessTokens makes every access token issued so far invalid, as
// if they had expired early (the clients still think them valid): the
// next call with one gets 401 invalid_token (gRPC UNAUTHENTICATED). It
// returns how many were live.
func (h *Handler) RevokeAccessTokens() int {
	h.tokens.mu.Lock()
	defer h.tokens.mu.Unlock()
	n := len(h.tokens.live)
	clear(h.tokens.live)
	return n
}

// AccessTokensIssued is how many access tokens PathToken has issued.
func (h *Handler) AccessTokensIssued() int {
	h.tokens.mu.Lock()
	defer h.tokens.mu.Unlock()
	return h.tokens.issued
}

// Refusals is how many calls the agent refused for want of a valid
// credential, over every binding.
func (h *Handler) Refusals() int {
	h.tokens.mu.Lock()
	defer h.tokens.mu.Unlock()
	return h.tokens.refused
}

// securityOf returns the card's security schemes and requirements for the
// Auth config (nil without one). base is the agent's base URL, for the
// token endpoint.
func (h *Handler) securityOf(base string) (map[string]a2a.SecurityScheme, []a2a.SecurityRequirement) {
	c := h.cfg.Auth
	if c == nil {
		return nil, nil
	}
	schemes := map[string]a2a.SecurityScheme{}
	var reqs []a2a.SecurityRequirement
	add := func(name string, s a2a.SecurityScheme) {
		schemes[name] = s
		reqs = append(reqs, a2a.SecurityRequirement{Schemes: map[string]a2a.StringList{name: {List: []string{}}}})
	}
	if len(c.BearerTokens) > 0 {
		add(SchemeBearer, a2a.SecurityScheme{HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "a token issued for you"}})
	}
	if len(c.APIKeys) > 0 {
		add(SchemeAPIKey, a2a.SecurityScheme{APIKey: &a2a.APIKeySecurityScheme{Location: "header", Name: c.apiKeyHeader(), Description: "an API key issued for you"}})
	}
	if len(c.OAuthClients) > 0 {
		add(SchemeOAuth, a2a.SecurityScheme{OAuth2: &a2a.OAuth2SecurityScheme{
			Description: "OAuth 2.0 client credentials at the agent's own token endpoint",
			Flows:       a2a.OAuthFlows{ClientCredentials: &a2a.OAuthFlow{TokenURL: base + PathToken, Scopes: map[string]string{}}},
		}})
	}
	return schemes, reqs
}

// authenticate checks a call's credential, from its HTTP headers or gRPC
// metadata (get returns a header's value). It returns the challenge to
// answer with when the call is refused, "" when it may go on.
func (h *Handler) authenticate(get func(name string) string) string {
	c := h.cfg.Auth
	if c == nil {
		return ""
	}
	if len(c.APIKeys) > 0 {
		if key := get(c.apiKeyHeader()); key != "" && oneOf(key, c.APIKeys) {
			return ""
		}
	}
	tok, bearer := cutBearer(get("Authorization"))
	if bearer && (oneOf(tok, c.BearerTokens) || (len(c.OAuthClients) > 0 && h.tokens.valid(tok))) {
		return ""
	}
	h.tokens.mu.Lock()
	h.tokens.refused++
	h.tokens.mu.Unlock()
	if bearer {
		return `Bearer realm="` + authRealm + `", error="invalid_token", error_description="the token is not valid or has expired"`
	}
	return `Bearer realm="` + authRealm + `"`
}

func cutBearer(v string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// oneOf compares in constant time per candidate.
func oneOf(v string, list []string) bool {
	found := false
	for _, s := range list {
		if subtle.ConstantTimeCompare([]byte(v), []byte(s)) == 1 {
			found = true
		}
	}
	return found
}

// requireAuth wraps the HTTP interfaces (JSON-RPC and HTTP+JSON): a call
// without a valid credential gets 401 with the challenge, as a
// google.rpc.Status UNAUTHENTICATED body on HTTP+JSON (A2A v1.0 §11.6).
func (h *Handler) requireAuth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ch := h.authenticate(r.Header.Get)
		if ch == "" {
			next(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", ch)
		if strings.HasPrefix(r.URL.Path, PathREST+"/") {
			b, _ := json.Marshal(rest.ErrorBody{Error: &rest.Status{Code: http.StatusUnauthorized, Status: "UNAUTHENTICATED", Message: "sign in to call this agent"}})
			w.Header().Set("Content-Type", rest.ContentType)
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write(b)
			return
		}
		http.Error(w, "sign in to call this agent", http.StatusUnauthorized)
	}
}

// serveToken is the token endpoint: the client credentials grant, the
// client authenticated with HTTP Basic or client_id/client_secret in the
// form (RFC 6749 §2.3.1, §4.4). Errors are RFC 6749 §5.2 JSON.
func (h *Handler) serveToken(w http.ResponseWriter, r *http.Request) {
	c := h.cfg.Auth
	w.Header().Set("Cache-Control", "no-store")
	fail := func(status int, code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
	}
	if c == nil || len(c.OAuthClients) == 0 {
		fail(http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "invalid_request")
		return
	}
	if r.PostForm.Get("grant_type") != "client_credentials" {
		fail(http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	id, secret, basic := r.BasicAuth()
	if basic { // RFC 6749 §2.3.1: form-urlencoded before Basic encoding
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	want, known := c.OAuthClients[id]
	if !known || subtle.ConstantTimeCompare([]byte(secret), []byte(want)) != 1 {
		if basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="`+authRealm+`"`)
		}
		fail(http.StatusUnauthorized, "invalid_client")
		return
	}
	ttl := c.AccessTokenTTL
	if ttl <= 0 {
		ttl = DefaultAccessTokenTTL
	}
	resp := map[string]any{"access_token": h.tokens.issue(ttl), "token_type": "Bearer", "expires_in": int(ttl / time.Second)}
	if sc := r.PostForm.Get("scope"); sc != "" {
		resp["scope"] = sc // every scope asked for is granted
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// grpcAuthOptions are the gRPC server's interceptors that refuse calls
// without a valid credential in the metadata with UNAUTHENTICATED and the
// challenge as www-authenticate trailer metadata.
func (h *Handler) grpcAuthOptions() []grpc.ServerOption {
	if h.cfg.Auth == nil {
		return nil
	}
	check := func(ctx context.Context) (metadata.MD, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		ch := h.authenticate(func(name string) string {
			if v := md.Get(strings.ToLower(name)); len(v) > 0 {
				return v[0]
			}
			return ""
		})
		if ch == "" {
			return nil, nil
		}
		return metadata.Pairs("www-authenticate", ch), status.Error(codes.Unauthenticated, "sign in to call this agent")
	}
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			if tr, err := check(ctx); err != nil {
				_ = grpc.SetTrailer(ctx, tr)
				return nil, err
			}
			return next(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			if tr, err := check(ss.Context()); err != nil {
				ss.SetTrailer(tr)
				return err
			}
			return next(srv, ss)
		}),
	}
}
