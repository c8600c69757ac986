package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/gateway"
)

// Bounds of the HTTP server. What a client without the token may cost is
// bounded by the guard in front (see [gateway.Guard]: it reads headers
// only, and closes the connection it refuses) and by the connections
// ([gateway.Conns]); what follows bounds a client with it.
const (
	// MaxRequestBody bounds the body of one request (one JSON-RPC message
	// or batch): the SDK's default.
	MaxRequestBody = mcp.DefaultMaxRequestBodyBytes
	// SessionIdle is how long a session of a client that sends nothing
	// is kept: its state (its log level, the calls it may resume) is
	// dropped after.
	SessionIdle = 30 * time.Minute
	// MaxSessions bounds the sessions kept at once, and MaxTokenSessions
	// those of one token (strata serve takes one token, which its
	// clients share, so the two are the same): past either, the session
	// of that scope idle the longest is closed to make room, and Warn is
	// told; when every session has a request under way, the new one is
	// refused (503).
	MaxSessions      = 1000
	MaxTokenSessions = MaxSessions
	// MaxInitializeParams bounds what a session keeps of its client's
	// initialize (clientInfo, capabilities): the JSON of larger params
	// is refused with an error that says so.
	MaxInitializeParams = 16 << 10
)

// httpLimits are the timeouts of the HTTP server.
type httpLimits struct {
	// readHeader bounds how long a client may take to send a request's
	// headers (slowloris), the first of a connection included.
	readHeader time.Duration
	// request bounds how long a client may take to send a request's body,
	// and to read a response that is not an event stream (a refusal,
	// /health, /metrics): MCP's streams last as long as their calls, and
	// a client that reads one slowly costs itself alone (see
	// mcpclient's relay queues).
	request time.Duration
	// idle bounds how long a connection waits for its next request:
	// longer than clients keep an idle connection (Go's 90 s, Node's
	// 4 s), so that a client does not send a request on a connection
	// strata is closing.
	idle time.Duration
}

// The limits of the HTTP server (see httpLimits).
const (
	readHeaderTimeout = 10 * time.Second
	requestTimeout    = time.Minute
	idleTimeout       = 2 * time.Minute
)

// shutdownGrace is how long the requests under way may take to end once
// the server stops.
const shutdownGrace = 5 * time.Second

// EventStoreBytes bounds what strata serve --http keeps of the events it
// sent its clients, all sessions together, for a client that resumes a
// stream (the SDK drops the oldest past it).
const EventStoreBytes = 10 << 20

// ServeHTTP serves over streamable HTTP on ln, at the path /mcp, until ctx
// is done: every client a session of its own, all of them one catalog,
// and the calls of all of them relayed to the same MCP servers. A client
// of protocol 2026-07-28 or later is served statelessly (server/discover,
// and a request carries what the client is), any other with sessions
// (initialize, Mcp-Session-Id, the server's requests on the request's
// event stream), at most [MaxSessions]. handler makes the server's
// handler from the MCP endpoint's (it adds what guards it, a
// [gateway.Guard], and other paths); nil serves the MCP endpoint alone.
// The Host header is not checked here: handler does it. The connections
// are bounded by [gateway.NewConns].
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, handler func(mcpEndpoint http.Handler) http.Handler) error {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	get := func(*http.Request) *mcp.Server { return s.mcp }
	// The event store lets a client resume a call's event stream that
	// strata closed because the server relayed to closed its own (see
	// mcpclient.StreamCloser), or that broke.
	events := mcp.NewMemoryEventStore(nil)
	events.SetMaxBytes(EventStoreBytes)
	sessions := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		DisableLocalhostProtection: true, // the guard's, which knows the names allowed
		SessionTimeout:             SessionIdle,
		MaxRequestBodyBytes:        MaxRequestBody,
		EventStore:                 events,
	})
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		DisableLocalhostProtection:   true,
		MaxRequestBodyBytes:          MaxRequestBody,
		PropagateRequestCancellation: true,
	})
	bound := &sessionBound{max: MaxSessions, perToken: MaxTokenSessions, server: s.mcp, warn: s.warn, token: func(r *http.Request) string { t, _ := tokenOf(r.Context()); return t }}
	endpoint := http.NewServeMux()
	endpoint.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := readBody(w, r)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			} else {
				http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
			}
			return
		}
		unbounded(w)
		w = escapeResponses(w)
		// Who sent it: its session's, or its own when it has none.
		token, _ := gateway.Principal(r.Context())
		r = r.WithContext(context.WithValue(r.Context(), tokenKey{}, token))
		peek := peekRequest(body)
		if id, ok := peek.identity(); ok {
			// Seed 002's server/identity, beside MCP, which the SDK
			// does not know: answered here, as over stdio.
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  any             `json:"result"`
			}{"2.0", id, s.identity()})
			return
		}
		if peek.stateless(r) {
			stateless.ServeHTTP(w, r)
			return
		}
		bound.serve(sessions, w, r)
	}))
	var h http.Handler = endpoint
	if handler != nil {
		h = handler(endpoint)
	}
	hs := newHTTPServer(ctx, h, gateway.NewConns(), httpLimits{readHeader: readHeaderTimeout, request: requestTimeout, idle: idleTimeout})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			_ = hs.Close() // event streams that stay open
		}
	}()
	err = hs.Serve(ln)
	<-stopped
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// newHTTPServer is the server of h, within the limits and the connections
// of conns. Every request must be read, and its response written, within
// lim.request, unless its handler says otherwise (an event stream).
func newHTTPServer(ctx context.Context, h http.Handler, conns *gateway.Conns, lim httpLimits) *http.Server {
	return &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Per request, not the server's ReadTimeout and WriteTimeout,
			// which a handler could not lift for a stream (past its read
			// deadline, net/http would cancel the request's context).
			rc := http.NewResponseController(w)
			deadline := time.Now().Add(lim.request)
			_ = rc.SetReadDeadline(deadline)
			_ = rc.SetWriteDeadline(deadline)
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: lim.readHeader,
		IdleTimeout:       lim.idle,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnState:         conns.Track,
		ConnContext:       conns.Context,
	}
}

// tokenKey is the context key of a request of the HTTP server: its value
// is the token the request was admitted with (see gateway.Principal; ""
// without a guard, or without a token).
type tokenKey struct{}

// tokenOf is the token of a request that came over HTTP (in the context
// of its handler, or of its session's); ok is false for one that did not
// (stdio).
func tokenOf(ctx context.Context) (token string, ok bool) {
	token, ok = ctx.Value(tokenKey{}).(string)
	return token, ok
}

// unbounded lifts the deadlines of an admitted request whose body was
// read: its response may be an event stream, which lasts as long as its
// call.
func unbounded(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

// readBody reads the body of a POST within MaxRequestBody, and puts it
// back for the handler that reads it next; nil when there is none.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.Method != http.MethodPost || r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBody))
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// peek is what the /mcp handler reads of a POST's JSON-RPC message before
// the SDK does, in one decoding of its body (a body may be megabytes).
type peek struct {
	body   bool            // the request had a body that decoded as an object
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// peekRequest decodes body (nil for a request without one); a body that
// is not a JSON object is left to the SDK, which answers it.
func peekRequest(body []byte) peek {
	var p peek
	if body != nil && json.Unmarshal(body, &p) == nil {
		p.body = true
	}
	return p
}

// identity reports whether the message is a server/identity request
// ([IdentityMethod]), and returns its id.
func (p peek) identity() (id json.RawMessage, ok bool) {
	if !p.body || p.Method != IdentityMethod || len(p.ID) == 0 || string(p.ID) == "null" {
		return nil, false
	}
	return p.ID, true
}

// stateless reports whether r, whose message p is, is of protocol
// 2026-07-28 or later: its MCP-Protocol-Version header says so, or, for a
// POST without one and without a session (server/discover, the first
// request), the protocol version in the _meta of its message.
func (p peek) stateless(r *http.Request) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= "2026-07-28"
	}
	if r.Header.Get("Mcp-Session-Id") != "" || !p.body {
		return false
	}
	var v string
	if json.Unmarshal(p.Params.Meta[mcp.MetaKeyProtocolVersion], &v) != nil {
		return false
	}
	return v >= "2026-07-28"
}
