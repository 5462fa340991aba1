package imagefetch

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Errors of the network policy (wrapped; test with errors.Is).
var (
	// ErrAddressRefused: the image's host resolves to an address a remote
	// agent's images never come from (loopback, private, link-local,
	// unspecified, multicast, shared or reserved ranges). Checked at dial
	// time, so it holds on every redirect and against DNS rebinding.
	ErrAddressRefused = errors.New("imagefetch: the image's address is on this machine or the local network")
	// ErrNeedsApproval matches *HostError.
	ErrNeedsApproval = errors.New("imagefetch: images from this host load only after you allow them")
)

// HostError says that an image is on another host than the agent's and
// the user has not allowed that host yet: the UI names Host and offers to
// load it (Fetcher.Approved).
type HostError struct{ Host string }

func (e *HostError) Error() string {
	return "imagefetch: the image is on " + e.Host + ", not on the agent's own server"
}

// Is matches ErrNeedsApproval.
func (e *HostError) Is(target error) bool { return target == ErrNeedsApproval }

// sameOrigin reports whether u is on the agent's origin (scheme, host,
// port; the default port made explicit).
func sameOrigin(agent, u *url.URL) bool {
	return origin(agent) == origin(u)
}

func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), port)
}

// isLoopbackHost reports whether host names this machine.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.Unmap().IsLoopback()
}

// shared and reserved ranges that are not on the public internet.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// refusedAddr reports why a remote agent's image may not come from a: it
// is loopback (unless allowLoopback), private, link-local, unspecified,
// multicast or otherwise not public.
func refusedAddr(a netip.Addr, allowLoopback bool) bool {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return !allowLoopback
	case a.IsPrivate(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast(),
		a.IsMulticast(), a.IsUnspecified(), !a.IsValid():
		return true
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// control is the net.Dialer Control hook: it runs after DNS resolution,
// just before connect(2), with the address actually dialled.
func (f *Fetcher) control(_, address string, _ syscall.RawConn) error {
	if f.allowAddr != nil && f.allowAddr(address) {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrAddressRefused, address)
	}
	if refusedAddr(ap.Addr(), f.loopbackAgent()) {
		return fmt.Errorf("%w: %s", ErrAddressRefused, ap.Addr())
	}
	return nil
}

// loopbackAgent: the agent runs on this machine (the reference agent), so
// its images may come from this machine too.
func (f *Fetcher) loopbackAgent() bool {
	if f == nil || f.Agent == "" {
		return false
	}
	u, err := url.Parse(f.Agent)
	return err == nil && isLoopbackHost(u.Hostname())
}

// transport is an http.Transport whose every connection goes through the
// address check; the resolver is Resolver when set (tests).
func (f *Fetcher) transport() *http.Transport {
	d := &net.Dialer{Timeout: f.timeout(), Control: f.control, Resolver: f.Resolver}
	return &http.Transport{
		DialContext:           d.DialContext,
		Proxy:                 nil, // a proxy would dial for us, past the check
		TLSHandshakeTimeout:   f.timeout(),
		ResponseHeaderTimeout: f.timeout(),
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
}

// allowedHost checks u against the host policy: the agent's own origin
// loads by itself; other hosts only when Approved says the user allowed
// them (*HostError otherwise). A Fetcher without Agent has no host policy
// (only the address check).
func (f *Fetcher) allowedHost(u *url.URL) error {
	if f == nil || f.Agent == "" {
		return nil
	}
	agent, err := url.Parse(f.Agent)
	if err != nil || agent.Host == "" {
		return &HostError{Host: u.Hostname()}
	}
	if sameOrigin(agent, u) {
		return nil
	}
	if f.Approved != nil && f.Approved(strings.ToLower(u.Hostname())) {
		return nil
	}
	return &HostError{Host: u.Hostname()}
}
