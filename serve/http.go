package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/strata-config/strata/internal/gateway"
)

// HTTP is how a server serves over streamable HTTP: who may call it, and
// from where. Every request must carry the bearer token (401 otherwise),
// name one of Hosts in its Host header and, when a browser sent it, come
// from the server's own origin or one of Origins (403 otherwise, against
// DNS rebinding and pages that reach a local server). A refused request
// closes its connection, its body unread; the connections, the sessions,
// and what each session keeps of its client are bounded (see
// CONTRIBUTING's table of the HTTP server's bounds).
type HTTP struct {
	// Token is the bearer token every request must carry; it must not be
	// empty unless NoToken.
	Token string
	// NoToken takes requests without a token: any program that can reach
	// the address may call (for a test suite on this machine that cannot
	// send one).
	NoToken bool
	// Hosts are the host names (no port) that requests may name; empty
	// allows any.
	Hosts []string
	// Origins are the origins (scheme://host[:port]) a browser's request
	// may come from besides the server's own.
	Origins []string
	// Paths, when not nil, are served beside the MCP endpoint (/mcp), behind
	// the same checks: a health or metrics endpoint.
	Paths map[string]http.Handler
	// CallLog, when not nil, receives one JSON object a line for every
	// tool call: time, client (its session), tool, server, duration_ms,
	// outcome and the call's decision (call.Decision, which holds no
	// argument); the arguments too with LogArguments, never otherwise.
	CallLog      io.Writer
	LogArguments bool
}

// Handler returns the handler of every request, made from the MCP
// endpoint's: the checks, then the endpoint and Paths.
func (o HTTP) Handler(mcpEndpoint http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpEndpoint)
	for p, h := range o.Paths {
		mux.Handle(p, h)
	}
	g := &gateway.Guard{Token: o.Token, NoToken: o.NoToken, Hosts: o.Hosts, Origins: o.Origins}
	return g.Wrap(mux)
}

// ServeHTTP serves the catalogs that Load resolves over streamable HTTP
// on ln, at /mcp, until ctx is done, to many clients at once, each a
// session of its own.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTP) error {
	if opts.Token == "" && !opts.NoToken {
		return errors.New("serving over HTTP needs a bearer token")
	}
	return s.server().ServeHTTP(ctx, ln, opts.Handler)
}
