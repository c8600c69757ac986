package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of the HTTP server.
const (
	// MaxRequestBody bounds the body of one request (one JSON-RPC message
	// or batch): the SDK's default.
	MaxRequestBody = mcp.DefaultMaxRequestBodyBytes
	// SessionIdle is how long a session of a client that sends nothing
	// is kept: its state (its log level, the calls it may resume) is
	// dropped after.
	SessionIdle = 30 * time.Minute
	// readHeaderTimeout bounds how long a client may take to send a
	// request's headers (slowloris).
	readHeaderTimeout = 10 * time.Second
	// shutdownGrace is how long the requests under way may take to end
	// once the server stops.
	shutdownGrace = 5 * time.Second
)

// ServeHTTP serves over streamable HTTP on ln, at the path /mcp, until ctx
// is done: every client a session of its own, all of them one catalog,
// and the calls of all of them relayed to the same MCP servers. A client
// of protocol 2026-07-28 or later is served statelessly (server/discover,
// and a request carries what the client is), any other with sessions
// (initialize, Mcp-Session-Id, the server's requests on the request's
// event stream). handler makes the server's handler from the MCP
// endpoint's (it adds what guards it, and other paths); nil serves the
// MCP endpoint alone. The Host header is not checked here: handler does
// it.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, handler func(mcpEndpoint http.Handler) http.Handler) error {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	get := func(*http.Request) *mcp.Server { return s.mcp }
	sessions := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		DisableLocalhostProtection: true, // the guard's, which knows the names allowed
		SessionTimeout:             SessionIdle,
		MaxRequestBodyBytes:        MaxRequestBody,
	})
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		DisableLocalhostProtection:   true,
		MaxRequestBodyBytes:          MaxRequestBody,
		PropagateRequestCancellation: true,
	})
	endpoint := http.NewServeMux()
	endpoint.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = escapeResponses(w)
		if id, ok := identityRequest(w, r); ok {
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
		if statelessRequest(w, r) {
			stateless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	}))
	var h http.Handler = endpoint
	if handler != nil {
		h = handler(endpoint)
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
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

// peekBody returns the body of a POST, read within MaxRequestBody and put
// back for the handler that reads it next; nil when there is none or it
// cannot be read (the handler reads the same error).
func peekBody(w http.ResponseWriter, r *http.Request) []byte {
	if r.Method != http.MethodPost || r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	return body
}

// identityRequest reports whether r is a server/identity request
// ([IdentityMethod]), and returns its id.
func identityRequest(w http.ResponseWriter, r *http.Request) (id json.RawMessage, ok bool) {
	body := peekBody(w, r)
	if body == nil {
		return nil, false
	}
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != IdentityMethod || len(msg.ID) == 0 || string(msg.ID) == "null" {
		return nil, false
	}
	return msg.ID, true
}

// statelessRequest reports whether r is of protocol 2026-07-28 or later:
// its MCP-Protocol-Version header says so, or, for a POST without one
// and without a session (server/discover, the first request), the
// protocol version in the _meta of its message. The body read is put
// back, within MaxRequestBody.
func statelessRequest(w http.ResponseWriter, r *http.Request) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= "2026-07-28"
	}
	if r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	body := peekBody(w, r)
	if body == nil {
		return false
	}
	var msg struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return false
	}
	v, _ := msg.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v >= "2026-07-28"
}
