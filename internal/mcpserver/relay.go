package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcpclient"
)

// A call to an MCP server's tool is relayed for the client: the client's
// _meta goes with it (its progressToken above all), and what the server
// sends for the client during the call (progress, log messages, sampling
// and elicitation requests) goes to the client. How a server's request
// reaches the client depends on the client's protocol version: before
// 2026-07-28 it is a request strata sends the client (the SDK's
// ServerSession.Elicit and CreateMessageWithTools); from 2026-07-28 on,
// servers send no requests, so the call's result asks for input (multi
// round-trip requests, SEP-2322) while the call to the upstream server
// waits, and the client's retry, which carries the answer and the request
// state strata gave, resumes it.

// relayKey is the key of the request state of a call waiting for the
// client's answer to a request of an upstream server.
const relayKey = "strata/relay"

// clientRelay runs the host's Client once the client has said who it is,
// at its first request (initialize, or any request of protocol
// 2026-07-28, which carries the client's capabilities), before that
// request is answered: the catalog its capabilities give is the one the
// handshake names (serverInfo.version is its fingerprint). It tells the
// host the log level the client asks for.
func (s *Server) clientRelay(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		// Only the first request that says who the client is counts: the
		// later ones are not decoded again (a request of protocol
		// 2026-07-28 carries the client's capabilities in its _meta,
		// which the SDK decodes anew at each asking).
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && s.Client != nil && !s.clientSeen.Load() {
			if client, ok := clientOf(method, req); ok {
				s.clientOnce.Do(func() {
					defer s.clientSeen.Store(true)
					if s.Client(ctx, client, ss) {
						// Requests are handled in order until this one
						// is answered, so the client's first tools/list
						// waits for the catalog its capabilities give.
						s.reload(s.runCtx)
					}
				})
			}
		}
		// A client of 2026-07-28 names the log level it wants in each
		// request's _meta, and sets none for the session: the servers
		// relayed to (asked on 2025-11-25, where the level is the
		// session's) are asked for the most detailed level named so far,
		// before the request goes on, so that the log messages of its
		// call reach it (the SDK passes on only those at or above the
		// request's level).
		if level := metaLogLevel(req); level != "" && s.LogLevel != nil {
			if l, ok := s.metaLevels.Lower(level); ok {
				s.LogLevel(ctx, l)
			}
		}
		res, err := next(ctx, method, req)
		if method == "logging/setLevel" && err == nil && s.LogLevel != nil {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok {
				s.LogLevel(ctx, p.Level)
			}
		}
		return res, err
	}
}

// metaLogLevel returns the log level a request of protocol 2026-07-28 or
// later that strata relays to an MCP server (tools/call, resources/read,
// prompts/get, completion/complete) names in its _meta
// (mcp.MetaKeyLogLevel); "" when it names none. The params of a request
// may be a nil pointer (a notification without params), whose GetMeta
// would panic.
func metaLogLevel(req mcp.Request) mcp.LoggingLevel {
	r, ok := req.(interface{ ProtocolVersion() string })
	if !ok || r.ProtocolVersion() < "2026-07-28" {
		return ""
	}
	var meta map[string]any
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw: // as the SDK's server reads a call
		meta = metaOf(p)
	case *mcp.CallToolParams:
		meta = metaOf(p)
	case *mcp.ReadResourceParams:
		meta = metaOf(p)
	case *mcp.GetPromptParams:
		meta = metaOf(p)
	case *mcp.CompleteParams:
		meta = metaOf(p)
	}
	level, _ := meta[mcp.MetaKeyLogLevel].(string)
	return mcp.LoggingLevel(level)
}

// metaOf returns the _meta of params p; nil for a nil p.
func metaOf[P interface {
	comparable
	GetMeta() map[string]any
}](p P) map[string]any {
	var none P
	if p == none {
		return nil
	}
	return p.GetMeta()
}

// LogLevels keeps the most detailed log level any client asked for.
type LogLevels struct {
	mu    sync.Mutex
	level mcp.LoggingLevel
}

// levelOrder orders MCP's log levels, most detailed first.
var levelOrder = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Lower records level, and returns the level to ask the servers for when
// it is more detailed than any before; false for a level MCP does not
// name.
func (l *LogLevels) Lower(level mcp.LoggingLevel) (mcp.LoggingLevel, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.Index(levelOrder, level)
	if i < 0 {
		return "", false
	}
	if j := slices.Index(levelOrder, l.level); j >= 0 && j <= i {
		return "", false
	}
	l.level = level
	return level, true
}

// clientOf returns what the client declares with req: the params of
// initialize; for a request of protocol 2026-07-28 or later, its
// capabilities and clientInfo, from its _meta. ok is false for a request
// that says nothing of them (a notification, a request before
// initialize).
func clientOf(method string, req mcp.Request) (client *mcp.InitializeParams, ok bool) {
	if method == "initialize" {
		p, _ := req.GetParams().(*mcp.InitializeParams)
		return p, p != nil
	}
	r, ok := req.(interface {
		ProtocolVersion() string
		ClientCapabilities() *mcp.ClientCapabilities
		ClientInfo() *mcp.Implementation
	})
	if !ok || r.ProtocolVersion() < "2026-07-28" {
		return nil, false
	}
	return &mcp.InitializeParams{ProtocolVersion: r.ProtocolVersion(), Capabilities: r.ClientCapabilities(), ClientInfo: r.ClientInfo()}, true
}

// closeOf returns how the event stream of req is closed, nil when it
// cannot be (stdio).
func closeOf(req *mcp.CallToolRequest) func(mcp.CloseSSEStreamArgs) {
	if req.Extra == nil {
		return nil
	}
	return req.Extra.CloseSSEStream
}

// downstream is the client, for one call relayed to an MCP server.
type downstream struct {
	ss   *mcp.ServerSession
	meta mcp.Meta
	ask  func(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error)
	// close closes the event stream of the call's request, over
	// streamable HTTP; nil otherwise.
	close func(mcp.CloseSSEStreamArgs)
}

// CloseStream closes the event stream of the client's call, asking it
// to resume the stream after retry: the server relayed to closed its
// own (see mcpclient.StreamCloser). The client resumes it from strata's
// event store.
func (d *downstream) CloseStream(retry time.Duration) {
	if d.close != nil {
		d.close(mcp.CloseSSEStreamArgs{RetryAfter: retry})
	}
}

func (d *downstream) Meta() map[string]any { return d.meta }

// Owner is the client's session: the calls of one session are one
// client's.
func (d *downstream) Owner() any { return d.ss }

func (d *downstream) Progress(ctx context.Context, p *mcp.ProgressNotificationParams) error {
	return d.ss.NotifyProgress(ctx, p)
}

func (d *downstream) Log(ctx context.Context, p *mcp.LoggingMessageParams) error {
	return d.ss.Log(ctx, p)
}

func (d *downstream) Ask(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	return d.ask(ctx, req)
}

// askClient sends a request of an upstream server to a client of a
// protocol version before 2026-07-28.
func askClient(ss *mcp.ServerSession) func(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	return func(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
		switch r := req.(type) {
		case *mcp.ElicitParams:
			if r.RequestedSchema == nil {
				return ss.Elicit(ctx, r)
			}
			// The SDK's Elicit checks the schema of an accepted answer
			// with rules of its own, which refuse a titled multi-select
			// enum of SEP-1330: the schema goes out through the sending
			// middleware (asIs), and the upstream server checks the answer.
			q := *r
			q.RequestedSchema = nil
			return ss.Elicit(context.WithValue(ctx, schemaKey{}, r.RequestedSchema), &q)
		case *mcp.CreateMessageWithToolsParams:
			return ss.CreateMessageWithTools(ctx, r)
		case *mcp.ListRootsParams:
			return ss.ListRoots(ctx, r)
		}
		return nil, fmt.Errorf("strata does not relay a %T", req)
	}
}

// schemaKey is the context key of the requested schema of an
// elicitation/create that [asIs] sends.
type schemaKey struct{}

// asIs puts back the requested schema of an elicitation/create that
// askClient sends without it (see there).
func asIs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if schema := ctx.Value(schemaKey{}); schema != nil && method == "elicitation/create" {
			// The SDK sends it as a request of any params.
			if r, ok := req.(*mcp.ServerRequest[mcp.Params]); ok {
				if e, ok := r.Params.(*mcp.ElicitParams); ok && e != nil {
					p := *e
					p.RequestedSchema = schema
					r.Params = &p
				}
			}
		}
		return next(ctx, method, req)
	}
}

// multiRoundTrip reports whether the client speaks protocol 2026-07-28 or
// later, where servers send no requests (the SDK's own test).
func multiRoundTrip(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= "2026-07-28"
}

// canAnswer reports whether the client declared sampling, elicitation or
// roots: only then are upstream servers told they may ask.
func canAnswer(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && (ip.Capabilities.Sampling != nil || ip.Capabilities.Elicitation != nil || ip.Capabilities.RootsV2 != nil)
}

// relay runs a call (run) relayed for the client of req.
func (s *Server) relay(ctx context.Context, req *mcp.CallToolRequest, run func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	ss := req.Session
	if ss == nil {
		return run(ctx)
	}
	if !canAnswer(ss) || !multiRoundTrip(ss) {
		d := &downstream{ss: ss, meta: req.Params.Meta, ask: askClient(ss), close: closeOf(req)}
		return run(mcpclient.WithDownstream(ctx, d))
	}
	// The call may outlive this request: it waits for the client's
	// answers, which come with the client's retries.
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &pending{ctx: cctx, cancel: cancel, asks: make(chan *asked), done: make(chan called, 1), waiting: map[string]*asked{},
		owner: ownerOf(ctx, ss), call: callOf(req)}
	d := &downstream{ss: ss, meta: req.Params.Meta, ask: p.ask, close: closeOf(req)}
	go func() {
		res, err := run(mcpclient.WithDownstream(cctx, d))
		p.done <- called{res, err}
	}()
	return s.await(ctx, p)
}

// pending is a relayed call of a client of protocol 2026-07-28 or later,
// which may wait for the client's answers to the requests of an upstream
// server across the client's retries.
type pending struct {
	id     string
	owner  any             // who may resume it (see ownerOf)
	call   [32]byte        // what it is (see callOf)
	ctx    context.Context // the call's
	cancel context.CancelFunc
	asks   chan *asked // requests of upstream servers for the client
	done   chan called // the call's end

	mu      sync.Mutex
	waiting map[string]*asked // asked of the client, by input key
	next    int
	busy    bool // a request of the client waits on the call
}

type asked struct {
	req    mcp.InputRequest
	answer chan answered // buffered
}

type answered struct {
	res mcp.InputResponse
	err error
}

type called struct {
	res *mcp.CallToolResult
	err error
}

// ask passes a request of an upstream server to the client, through the
// result of the client's request waiting on the call, and waits for the
// client's answer, which comes with its retry.
func (p *pending) ask(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	a := &asked{req: req, answer: make(chan answered, 1)}
	select {
	case p.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
	select {
	case r := <-a.answer:
		return r.res, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
}

// await waits, for a request of the client, for the call to end or to ask
// the client something: then the request's result asks for input, and the
// call waits for the client's retry.
func (s *Server) await(ctx context.Context, p *pending) (*mcp.CallToolResult, error) {
	p.mu.Lock()
	if p.busy {
		p.mu.Unlock()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "another request resumes this call already"}
	}
	p.busy = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.busy = false
		p.mu.Unlock()
	}()
	select {
	case c := <-p.done:
		s.forget(p)
		return c.res, c.err
	case a := <-p.asks:
		p.mu.Lock()
		p.next++
		key := fmt.Sprintf("upstream-%d", p.next)
		p.waiting[key] = a
		p.mu.Unlock()
		state, err := json.Marshal(map[string]string{relayKey: s.keep(p)})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: a.req}, RequestState: string(state)}, nil
	case <-ctx.Done():
		s.forget(p) // the client cancelled: so is the call
		return nil, ctx.Err()
	}
}

// resume gives a waiting call the client's answers, and waits on it
// again. The call must be the asking session's, and the request a retry
// of it (the same tool and arguments); otherwise it is not named, and the
// call still waits for its own client.
func (s *Server) resume(ctx context.Context, req *mcp.CallToolRequest, id string) (*mcp.CallToolResult, error) {
	s.pmu.Lock()
	p := s.pendings[id]
	s.pmu.Unlock()
	if p == nil || req.Session == nil || p.owner != ownerOf(ctx, req.Session) || p.call != callOf(req) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the request state names no call under way: it ended, or it is another session's"}
	}
	p.mu.Lock()
	for key, a := range p.waiting {
		if r, ok := req.Params.InputResponses[key]; ok {
			a.answer <- answered{res: r}
		} else {
			a.answer <- answered{err: errors.New("the client retried the call without an answer to this request")}
		}
		delete(p.waiting, key)
	}
	p.mu.Unlock()
	return s.await(ctx, p)
}

// ownerOf is who may resume a call that the request of the session ss
// (with the context ctx) started: that session, by its id over HTTP or
// itself over stdio (one client); for a request without a session
// (protocol 2026-07-28 over HTTP, where the request is its own session),
// the token it was admitted with (see tokenOf), which is all that tells
// its client.
func ownerOf(ctx context.Context, ss *mcp.ServerSession) any {
	if id := ss.ID(); id != "" {
		return "session " + id
	}
	if t, ok := tokenOf(ctx); ok {
		return "token " + t
	}
	return ss
}

// callOf is what a call is: its tool and its arguments (as values, in
// whatever order and spacing they came). A client retries a call that
// asks for input with the same ones (multi round-trip requests).
func callOf(req *mcp.CallToolRequest) [32]byte {
	args := []byte(req.Params.Arguments)
	var v any
	if json.Unmarshal(args, &v) == nil {
		args, _ = json.Marshal(v) // keys sorted
	}
	h := sha256.New()
	h.Write([]byte(req.Params.Name))
	h.Write([]byte{0})
	h.Write(args)
	return [32]byte(h.Sum(nil))
}

// relayID returns the id of the waiting call a request state names.
func relayID(state string) (string, bool) {
	if state == "" {
		return "", false
	}
	var m map[string]any
	if json.Unmarshal([]byte(state), &m) != nil {
		return "", false
	}
	id, ok := m[relayKey].(string)
	return id, ok
}

// keep registers a waiting call under an id of its own, which only this
// server knows (it is random), and returns the id.
func (s *Server) keep(p *pending) string {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if p.id == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		p.id = hex.EncodeToString(b)
	}
	if s.pendings == nil {
		s.pendings = map[string]*pending{}
	}
	s.pendings[p.id] = p
	return p.id
}

// forget ends a waiting call and forgets it.
func (s *Server) forget(p *pending) {
	p.cancel()
	s.pmu.Lock()
	delete(s.pendings, p.id)
	s.pmu.Unlock()
}

// forgetAll ends the calls that wait for answers that will not come: the
// session ended.
func (s *Server) forgetAll() {
	s.pmu.Lock()
	all := s.pendings
	s.pendings = nil
	s.pmu.Unlock()
	for _, p := range all {
		p.cancel()
	}
}
