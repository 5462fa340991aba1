// Package binding chooses and builds the protocol binding of an agent's
// interface: one client (a2a.Client), three bindings. a2a.SelectInterfaceFor
// picks the interface from the card; Transport returns what carries the
// calls: nil for JSON-RPC (the client's own), rest for HTTP+JSON, and for
// gRPC what Options.GRPC makes (grpcbind.Binding). gRPC comes in through
// Options because it links gRPC and protobuf, which the app loads with its
// plugin only when an agent speaks gRPC (package parts).
//
//	iface, err := a2a.SelectInterfaceFor(card, override) // override "" or jsonrpc, http+json, grpc
//	tr, err := binding.Transport(iface, binding.Options{AllowPlain: allow, GRPC: grpcbind.Binding})
//	c := &a2a.Client{Interface: iface, Transport: tr, HTTPClient: hc}
//	defer c.Close()
package binding

import (
	"crypto/tls"
	"errors"
	"fmt"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/rest"
)

// ErrNoGRPC: an interface is gRPC and Options.GRPC is nil.
var ErrNoGRPC = errors.New("a2a: this program has no gRPC binding")

// GRPCFunc makes the gRPC transport of an interface URL (grpcbind.Binding):
// allowPlain allows plaintext to another machine, tlsConfig (if not nil)
// replaces the default TLS configuration.
type GRPCFunc func(url string, allowPlain bool, tlsConfig *tls.Config) (a2a.Transport, error)

// Options tune Transport.
type Options struct {
	// AllowPlain allows a gRPC interface on another machine without TLS
	// (the user's per-agent "allow plain" choice, as for http://).
	AllowPlain bool
	// TLS replaces gRPC's default TLS configuration (tests).
	TLS *tls.Config
	// GRPC makes gRPC transports; nil refuses gRPC interfaces (ErrNoGRPC).
	GRPC GRPCFunc
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
		if o.GRPC == nil {
			return nil, ErrNoGRPC
		}
		return o.GRPC(iface.URL, o.AllowPlain, o.TLS)
	}
	return nil, fmt.Errorf("%w: %q", a2a.ErrUnknownBinding, iface.ProtocolBinding)
}
