// Package netretrytest tests scripts/netretry.sh, the retry of downloads that
// setup.sh, lint.sh, package.sh and generate.sh use for the Go tools they
// install (livekit-server among them), against a Go module proxy on loopback
// that fails the way the real one did in CI: 503, no answer, or down for good.
package netretrytest
