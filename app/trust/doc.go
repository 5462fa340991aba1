// Package trust decides how far aimdesk trusts what an agent sends: the
// signature of its agent card, and the shape of its answers.
//
// # Signed agent cards
//
// Verifier checks a card's JWS signatures as A2A specification §8.4
// ("Agent Card Signing") describes: each entry of "signatures" holds a
// base64url protected header (alg, kid, optionally jku) and a signature
// over a detached payload, the RFC 8785 (JCS) canonical form of the card
// without "signatures". The payload is computed from the exact bytes
// received (a2a.ResolvedCard.Raw), never from a re-encoded Go value, so
// key order and whitespace do not matter and nothing the parser dropped
// can hide. Keys come from a key set the user pinned for the agent, or from
// the jku URL, which must be on the card's own origin. The Result is
// verified (with the key id), unsigned, or invalid (with the reason).
//
// # Hostile agents
//
// Guard is an http.RoundTripper decorator that bounds JSON depth, string
// length, UTF-8 validity and time per answer and per SSE event, in constant
// memory, as the bytes stream in; CheckJSON and Scanner do the same for a
// byte slice or a stream. Sizes are bounded by a2a.Client (MaxResponseBytes,
// MaxEventBytes) and silence by its IdleTimeout; images by the UI's
// decoders (DecodeConfig before Decode, pixel bound). Each broken bound is
// a *BoundError; the call fails and the app goes on.
//
// # Usage
//
//	res := (&trust.Verifier{HTTPClient: hc}).VerifyResolved(ctx, rc, pinned)
//	hc := &http.Client{Transport: &trust.Guard{Base: base}}
//
// # Concurrency
//
// A Verifier and a Guard are safe for concurrent use; a Scanner is not.
package trust
