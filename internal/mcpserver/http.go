package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
		if r.Method == http.MethodPost && !isJSON(r.Header.Get("Content-Type")) {
			// As the SDK answers it, before strata reads the message
			// (a server/identity request, a message it cannot parse).
			http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
			return
		}
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
		peek, err := peekRequest(body)
		if err != nil {
			writeResponse(w, http.StatusBadRequest, response{ID: json.RawMessage("null"), Error: &jsonrpc.Error{Code: jsonrpc.CodeParseError,
				Message: "parse error: " + err.Error() + " (strata reads a message before MCP's SDK does, and refuses one that readers could read differently: send one JSON value, each name once in an object)"}})
			return
		}
		if id, ok := peek.identity(); ok {
			// Seed 002's server/identity, beside MCP, which the SDK
			// does not know: answered here, as over stdio.
			writeResponse(w, http.StatusOK, response{ID: id, Result: s.identity()})
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

// isJSON reports whether the Content-Type contentType is
// application/json, whatever its parameters (charset=utf-8, say), as
// the SDK reads it.
func isJSON(contentType string) bool {
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == "application/json"
}

// response is a JSON-RPC response the /mcp handler answers itself.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result,omitempty"`
	Error  *jsonrpc.Error  `json:"error,omitempty"`
}

// writeResponse writes res with the HTTP status.
func writeResponse(w http.ResponseWriter, status int, res response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string `json:"jsonrpc"`
		response
	}{"2.0", res})
}

// peek is what the /mcp handler reads of a POST's JSON-RPC message before
// the SDK does, in one reading of its body (a body may be megabytes). It
// reads as the SDK does (names matched exactly, escapes undone), and
// refuses what the SDK would read otherwise than any other reader (see
// peekRequest).
type peek struct {
	object  bool // the body is a JSON object, not a batch
	jsonrpc string
	method  string
	id      jsontext.Value // a string or a number; nil otherwise
	// version is the protocol version in the _meta of the params, when
	// it is a string.
	version string
	// deep is whether an identity request nests deeper than the SDK reads
	// (sdkDepth): the SDK refuses it, and strata leaves it to the SDK.
	deep bool
}

// sdkDepth is how deep the SDK reads a message's objects and arrays
// (its internal/json's defaultMaxDepth); it refuses a deeper one.
const sdkDepth = 1000

// peekRequest reads body (nil for a request without one). A body that is
// not one JSON value, or whose objects name a member twice, is an error
// (one nested deeper than 10,000 levels too): readers differ on what such a
// body says (the SDK ignores what follows the first value and takes the
// last of a name given twice, encoding/json merges an object given twice),
// and what strata decides from it must be what the SDK acts on. A body
// that is not an object (a batch) is left to the SDK, which answers it.
// Invalid UTF-8 is data, as the SDK passes it.
func peekRequest(body []byte) (peek, error) {
	var p peek
	if body == nil {
		return p, nil
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowInvalidUTF8(true))
	var err error
	if dec.PeekKind() == '{' {
		p.object = true
		err = readObject(dec, func(name string) (err error) {
			switch name {
			case "jsonrpc":
				p.jsonrpc, err = readString(dec)
			case "method":
				p.method, err = readString(dec)
			case "id":
				var id jsontext.Value
				if id, err = dec.ReadValue(); err == nil && (id.Kind() == '"' || id.Kind() == '0') {
					p.id = id.Clone()
				}
			case "params":
				err = readObject(dec, func(name string) error {
					if name != "_meta" {
						return dec.SkipValue()
					}
					return readObject(dec, func(name string) (err error) {
						if name != mcp.MetaKeyProtocolVersion {
							return dec.SkipValue()
						}
						p.version, err = readString(dec)
						return err
					})
				})
			default:
				err = dec.SkipValue()
			}
			return err
		})
	} else {
		err = dec.SkipValue()
	}
	if err == nil {
		at := dec.InputOffset()
		if _, end := dec.ReadToken(); end != io.EOF {
			err = fmt.Errorf("jsontext: a second value after the message, at offset %d", at)
			if end != nil {
				err = end
			}
		}
	} else if err == io.EOF {
		err = errors.New("the body is empty")
	}
	if err == nil && p.method == IdentityMethod {
		p.deep = deeperThan(body, sdkDepth)
	}
	return p, err
}

// deeperThan reports whether the JSON value body, which is valid, nests
// deeper than depth objects and arrays: a second reading, token by token,
// of the rare message strata answers itself.
func deeperThan(body []byte, depth int) bool {
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowInvalidUTF8(true))
	for {
		if _, err := dec.ReadToken(); err != nil {
			return false
		}
		if dec.StackDepth() > depth {
			return true
		}
	}
}

// readObject reads the next value of dec, calling member with the name of
// each of its members to read the member's value; a value that is not an
// object is skipped.
func readObject(dec *jsontext.Decoder, member func(name string) error) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(name.String()); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken() // the end of the object, or the error
	return err
}

// readString reads the next value, a string's text; "" for another kind.
func readString(dec *jsontext.Decoder) (string, error) {
	if dec.PeekKind() != '"' {
		return "", dec.SkipValue()
	}
	tok, err := dec.ReadToken()
	return tok.String(), err
}

// identity reports whether the message is a server/identity request
// ([IdentityMethod]) the SDK would take for one (JSON-RPC 2.0, an id that
// is a string or a number, no deeper than it reads), and returns its id.
func (p peek) identity() (id json.RawMessage, ok bool) {
	if !p.object || p.deep || p.jsonrpc != "2.0" || p.method != IdentityMethod || p.id == nil {
		return nil, false
	}
	return json.RawMessage(p.id), true
}

// stateless reports whether r, whose message p is, is of protocol
// 2026-07-28 or later: its MCP-Protocol-Version header says so, or, for a
// POST without one and without a session (server/discover, the first
// request), the protocol version in the _meta of its message.
func (p peek) stateless(r *http.Request) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= "2026-07-28"
	}
	if r.Header.Get("Mcp-Session-Id") != "" || !p.object {
		return false
	}
	return p.version >= "2026-07-28"
}
