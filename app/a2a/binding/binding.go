// Package binding chooses and builds the protocol binding of an agent's
// interface: one client (a2a.Client), three bindings. a2a.SelectInterfaceFor
// picks the interface from the card; Transport returns what carries the
// calls: nil for JSON-RPC (the client's own), rest for HTTP+JSON, grpcbind
// for gRPC.
//
//	iface, err := a2a.SelectInterfaceFor(card, override) // override "" or jsonrpc, http+json, grpc
//	tr, err := binding.Transport(iface, binding.Options{AllowPlain: allow})
//	c := &a2a.Client{Interface: iface, Transport: tr, HTTPClient: hc}
//	defer c.Close()
package binding

import (
	"crypto/tls"
	"fmt"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/grpcbind"
	"aimdesk/app/a2a/rest"
)

// Options tune Transport.
type Options struct {
	// AllowPlain allows a gRPC interface on another machine without TLS
	// (the user's per-agent "allow plain" choice, as for http://).
	AllowPlain bool
	// TLS replaces gRPC's default TLS configuration (tests).
	TLS *tls.Config
}

// Transport returns the a2a.Transport for iface's binding; nil means
// JSON-RPC, which a2a.Client speaks itself.
func Transport(iface a2a.AgentInterface, o Options) (a2a.Transport, error) {
	switch a2a.NormalizeBinding(iface.ProtocolBinding) {
	case a2a.BindingJSONRPC:
		return nil, nil
	case a2a.BindingHTTPJSON:
		return rest.New(), nil
	case a2a.BindingGRPC:
		t, err := grpcbind.New(iface.URL, grpcbind.Options{AllowPlain: o.AllowPlain, TLS: o.TLS})
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	return nil, fmt.Errorf("%w: %q", a2a.ErrUnknownBinding, iface.ProtocolBinding)
}
