package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// CallbackPath is the loopback redirect's path.
const CallbackPath = "/callback"

const donePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aimdesk</title></head>
<body style="font-family:sans-serif;margin:3em">
<h1>%s</h1>
<p>%s You can close this window and return to aimdesk.</p>
</body></html>
`

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

type callbackResult struct {
	code string
	err  error
}

// loopbackFlow runs an authorization code grant with PKCE (S256) in the
// system browser, redirected to 127.0.0.1 on a port the OS picks (RFC 8252
// §7.3). Only a GET of exactly CallbackPath with Host 127.0.0.1:port and
// the random state counts; anything else is answered and ignored, so a web
// page poking the port can neither end nor hijack the sign-in. issuer, if
// known, is checked against an iss parameter (RFC 9207); requireIss makes
// the parameter mandatory.
func (m *Manager) loopbackFlow(ctx context.Context, cfg oauth2.Config, issuer string, requireIss bool) (*oauth2.Token, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("auth: loopback listener: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	host := "127.0.0.1:" + strconv.Itoa(port)
	cfg.RedirectURL = "http://" + host + CallbackPath
	state := randomString(32)
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))

	results := make(chan callbackResult, 1)
	var once sync.Once
	deliver := func(r callbackResult) { once.Do(func() { results <- r }) }
	mux := http.NewServeMux()
	mux.Handle(CallbackPath, &loopbackCallback{host: host, state: state, issuer: issuer, requireIss: requireIss, deliver: deliver})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	ctx, cancel := context.WithTimeout(ctx, m.signInTimeout())
	defer cancel()
	if err := m.openBrowser(ctx, authURL); err != nil {
		if errors.Is(err, ErrNoBrowser) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrNoBrowser, err)
	}
	res, err := m.awaitCallback(ctx, results)
	if err != nil {
		return nil, err
	}
	tok, err := cfg.Exchange(m.providerContext(ctx), res.code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, providerError("token", err, res.code, verifier, cfg.ClientSecret)
	}
	return tok, nil
}

// awaitCallback waits for the browser's redirect to the loopback address:
// its code, or why there is none.
func (m *Manager) awaitCallback(ctx context.Context, results <-chan callbackResult) (callbackResult, error) {
	select {
	case res := <-results:
		return res, res.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return callbackResult{}, fmt.Errorf("%w after %s", ErrSignInTimeout, m.signInTimeout())
		}
		return callbackResult{}, ctx.Err()
	}
}

// loopbackCallback serves the redirect URI of a loopback sign-in: it
// delivers the code, or the error, of the answer with the sign-in's state.
type loopbackCallback struct {
	host, state, issuer string
	requireIss          bool
	deliver             func(callbackResult)
}

func (c *loopbackCallback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Host != c.host || r.Method != http.MethodGet || r.URL.Path != CallbackPath {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, donePage, "Not an aimdesk sign-in", "This address only accepts aimdesk's own sign-in.")
		return
	}
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(c.state)) != 1 {
		// Not our sign-in (a stale tab, or a page poking the port): keep waiting.
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, donePage, "Sign-in link expired", "This page does not belong to the sign-in aimdesk is waiting for.")
		return
	}
	if iss := q.Get("iss"); (iss != "" || c.requireIss) && c.issuer != "" && iss != c.issuer {
		c.deliver(callbackResult{err: fmt.Errorf("%w: the answer came from issuer %q, not %q", ErrAccessDenied, clip(iss, 200), c.issuer)})
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, donePage, "Sign-in refused", "The answer did not come from the expected identity provider.")
		return
	}
	if e := q.Get("error"); e != "" {
		c.deliver(callbackResult{err: &ProviderError{Op: "authorization", Code: errorCode(e), Description: clip(q.Get("error_description"), 300)}})
		fmt.Fprintf(w, donePage, "Sign-in not completed", "The identity provider did not sign you in.")
		return
	}
	code := q.Get("code")
	if code == "" {
		c.deliver(callbackResult{err: fmt.Errorf("%w: the identity provider sent no code", ErrAccessDenied)})
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, donePage, "Sign-in not completed", "The identity provider sent no code.")
		return
	}
	c.deliver(callbackResult{code: code})
	fmt.Fprintf(w, donePage, "Signed in", "aimdesk is signed in.")
}

func (m *Manager) openBrowser(ctx context.Context, u string) error {
	if _, err := CheckEndpoint(u); err != nil {
		return err
	}
	if m.cfg.OpenBrowser != nil {
		return m.cfg.OpenBrowser(ctx, u)
	}
	return OpenSystemBrowser(ctx, u)
}
