// Package auth signs aimdesk in to agents that sit behind company sign-in,
// and keeps the credentials.
//
// An agent card names its security schemes (A2A v1.0 SecurityScheme; v0.3
// cards are mapped to the same form by package a2a). Options lists the
// ways aimdesk can use them:
//
//   - OAuth 2.0 / OpenID Connect authorization code with PKCE (S256) in the
//     system browser, redirected to a loopback listener on 127.0.0.1 with a
//     random port and state (RFC 8252);
//   - the device authorization grant (RFC 8628) where no browser opens;
//   - client credentials;
//   - a bearer token or API key (header, query or cookie) the user types in.
//
// Endpoints come from the identity provider's metadata (OpenID Connect
// discovery, RFC 8414) or the card's flow URLs, must be https unless on
// this machine, and are pinned per agent at first sign-in: a card that
// moves them later gets an *EndpointChangedError until the user confirms.
//
// Scopes follow what the user does: x-aim-transport.oauthScopes of the AIM
// request schema (read from package wireschema) maps every method to a
// scope. Sign-in asks for DefaultMethods' scopes; a call that needs more
// steps up for the missing scope only, keeping those already granted.
//
// # Usage
//
//	store, where, err := auth.OpenSecretStore(dir) // keyring, else encrypted file
//	m, err := auth.NewManager(auth.Config{Secrets: store, Pins: &auth.FilePins{Path: pins}})
//	sess, err := m.SignIn(ctx, auth.Agent{ID: id, Card: card, URL: iface.URL}, auth.SignInRequest{Scheme: "corp"})
//	hc := &http.Client{Transport: &auth.Transport{Base: base, Manager: m, AgentID: id}}
//	client := &a2a.Client{Interface: iface, HTTPClient: hc}
//
// # Secrets
//
// Tokens, keys and client secrets live in the OS keyring (KeyringStore) or,
// where there is none, in an encrypted FileStore; never in preferences,
// logs, error messages or request bodies. Refreshed tokens are stored as
// they arrive, so a rotated refresh token survives a restart. SignOut
// revokes (RFC 7009) where the provider offers it and deletes them. See
// docs/security.md for the threat model.
//
// # Concurrency
//
// A Manager, its Sessions and Transports are safe for concurrent use.
// Refreshes of one agent are serialized (a rotated refresh token is
// single-use); concurrent step-ups of one agent share one sign-in.
package auth
