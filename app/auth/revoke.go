package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// revokeTimeout bounds sign-out's calls to the provider.
const revokeTimeout = 10 * time.Second

// revoke tells the provider to forget the refresh token, then the access
// token (RFC 7009 §2.1). The endpoint is the pinned one.
func (m *Manager) revoke(ctx context.Context, rec *record) error {
	if _, err := CheckEndpoint(rec.Endpoints.Revocation); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, revokeTimeout)
	defer cancel()
	var errs []error
	if rt := rec.Token.RefreshToken; rt != "" {
		errs = append(errs, m.revokeOne(ctx, rec, rt, "refresh_token"))
	}
	if at := rec.Token.AccessToken; at != "" {
		errs = append(errs, m.revokeOne(ctx, rec, at, "access_token"))
	}
	return errors.Join(errs...)
}

func (m *Manager) revokeOne(ctx context.Context, rec *record, token, hint string) error {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	if rec.ClientSecret == "" {
		form.Set("client_id", rec.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.Endpoints.Revocation, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("auth: revoke: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(rec.ClientID), url.QueryEscape(rec.ClientSecret))
	}
	resp, err := noRedirect(m.cfg.HTTPClient).Do(req)
	if err != nil {
		return providerError("revoke", err, rec.secrets()...)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return &ProviderError{Op: "revoke", Status: resp.StatusCode}
	}
	return nil
}
