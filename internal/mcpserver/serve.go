// Package mcpserver serves a resolved catalog as an MCP server with the
// official SDK: the implementation behind package serve and the root's
// Workspace.Serve, which adds the relay to the MCP servers strata is a
// client of (Server.Client, Server.LogLevel).
//
// tools/list is the catalog, with the user's overrides applied, and
// tools/call goes through package call. The server's identity is the
// catalog's fingerprint (same tools, same id): it is the version in
// serverInfo, and every tools/list result carries the current one in
// _meta under [MetaFingerprint]. When a watched file or directory changes
// (a config file, a discovery directory, a tool's program), or
// [Server.Invalidate] is called, the catalog is resolved again; when it
// changed, the tools are replaced and the client is sent
// notifications/tools/list_changed.
//
// Beside the tools, a [Snapshot]'s [Offers] are served: the resources,
// resource templates, prompts and completions of the MCP servers behind
// the catalog (see offers.go).
//
// Calls carry the JP tool protocol both ways: the answers of a call
// retried after needs_input are read from _meta."computer.jp/tool".answers,
// and an error or a needs_input outcome is answered as one text content
// holding the Outcome envelope (isError for an error), which a JP-aware
// client reads as such and any other shows as text.
package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// MetaFingerprint is the _meta key of tools/list results that holds the
// catalog's fingerprint.
const MetaFingerprint = "strata/fingerprint"

// MetaEmpty is the _meta key of a tools/list result with no tools that
// says why ([Snapshot].Empty).
const MetaEmpty = "strata/empty"

// DefaultDebounce is how long a server waits after a change for more,
// before it resolves again.
const DefaultDebounce = 200 * time.Millisecond

// Snapshot is one resolution: what a server serves until the next.
type Snapshot struct {
	// Runner runs the calls; its Catalog is what tools/list lists.
	Runner *call.Runner
	// Watch are files and directories whose change means resolving again;
	// paths that do not exist yet count when they appear.
	Watch []string
	// Empty says why the catalog has no tools (an untrusted workspace, a
	// server that did not start, nothing configured): a client that lists
	// no tools is sent it as a warning log message (logger "strata"), and
	// the list's _meta holds it under [MetaEmpty].
	Empty string
	// Offers, when not nil, are what the MCP servers behind the catalog
	// offer beside tools (resources, resource templates, prompts,
	// completions), served beside it; nil answers their methods with
	// method-not-found.
	Offers Offers
}

// Server serves the catalogs that Load resolves.
type Server struct {
	// Load resolves the catalog. It is called when the server starts, and
	// again after every change; a failure keeps the catalog being served
	// (and is told to Warn).
	Load func(ctx context.Context) (*Snapshot, error)
	// Warn is told the problems that do not stop the server: a tool that
	// cannot be served, say; nil drops them.
	Warn func(error)
	// Stale is told the problem of a resolution after a change that
	// failed: the catalog before is still served. nil tells Warn, saying
	// so.
	Stale func(error)
	// Debounce is how long to wait after a change for more before
	// resolving again; 0 is DefaultDebounce.
	Debounce time.Duration
	// Client, when not nil, is told what the client declares (its
	// capabilities, which MCP servers relayed to may be declared, and its
	// clientInfo) and its session at its first request that declares them, before that request is answered; when it
	// returns true, the catalog is resolved again first (what the MCP
	// servers list may depend on what the client can answer), so that
	// the handshake names the catalog served.
	Client func(ctx context.Context, client *mcp.InitializeParams, ss *mcp.ServerSession) (reload bool)
	// LogLevel, when not nil, is told the log level the client asks for,
	// to pass on to the MCP servers relayed to: the level of
	// logging/setLevel (before 2026-07-28), and the most detailed level
	// the requests of a client of 2026-07-28 have named in their _meta
	// (before the request that names it goes on).
	LogLevel func(ctx context.Context, level mcp.LoggingLevel)
	// OnCall, when not nil, is told every tool call once it is answered
	// (the call log, the metrics).
	OnCall func(Call)
	// Asked, when not nil, is told that a client lists the tools: the MCP
	// servers that are down are tried again (see upstream.Servers.Want).
	Asked func()
	// Unserved, when not nil, says why a tool that is not served is not:
	// its MCP server is down, say. A call of it is answered with that, as
	// a tool error, and recorded with the server named; "" leaves the
	// call to the SDK's unknown-tool error.
	Unserved func(tool string) (why, server string)

	mu          sync.Mutex
	current     *Snapshot
	wire        map[string]json.RawMessage // the tools served: name -> their JSON, as it goes on the wire; replaced whole by install, never changed in place (a listing keeps the one it read)
	mcp         *mcp.Server
	sdk         atomic.Pointer[mcp.Server] // mcp, for the goroutines that log
	info        *mcp.Implementation        // the SDK server's, as made
	changes     chan struct{}
	changesOnce sync.Once // makes changes: Invalidate may come before the serving

	runCtx     context.Context // Run's
	watch      *watcher
	loadMu     sync.Mutex // one resolution at a time, installed in order
	clientOnce sync.Once
	clientSeen atomic.Bool // clientOnce has run
	metaLevels LogLevels   // the log levels requests named in their _meta
	pmu        sync.Mutex
	pendings   map[string]*pending // relayed calls waiting for the client

	// deferred are the tools a client finds with search_tools, not
	// listed to a session until it does (see search.go), isDeferred
	// their names; toolsGen counts the changes of the tools served, and
	// views are what each session found and was told.
	deferred   []resolve.Definition
	isDeferred map[string]bool
	searchTool *mcp.Tool
	toolsGen   uint64
	views      map[*mcp.ServerSession]*view

	// What the SDK's server holds of the offers (see offers.go).
	omu          sync.Mutex
	offered      Offers // the offers listed into it
	offersListed bool   // a client needed them
	resourceURIs []string
	templateURIs []string
	promptNames  []string
	// subscribed are the resources each client session subscribed to,
	// passed on to their servers: a session that ends takes its
	// subscriptions with it.
	subscribed map[*mcp.ServerSession]map[string]bool
}

// Equal reports whether s and o are the same server, a handle with a
// running session. It lets go-cmp compare values that hold servers.
func (s *Server) Equal(o *Server) bool { return s == o }

// changed returns the channel of the requests to resolve again.
func (s *Server) changed() chan struct{} {
	s.changesOnce.Do(func() { s.changes = make(chan struct{}, 1) })
	return s.changes
}

// Invalidate asks for the catalog to be resolved again, as a change of a
// watched file does (for an MCP server whose tools changed, say).
func (s *Server) Invalidate() {
	select {
	case s.changed() <- struct{}{}:
	default:
	}
}

// Serve serves over in and out, newline-delimited JSON-RPC as MCP's
// stdio transport is, until ctx is done or the client goes away. A line
// that is not JSON is answered with a parse error (-32700) and the session
// goes on; a request before initialize is answered with an
// invalid-request error (-32600); seed 002's server/identity is answered
// ([IdentityMethod]).
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.Run(ctx, &stdio{in: in, out: out, identity: s.identity})
}

// Identity is the answer to server/identity: who the server is, by its
// catalog.
type Identity struct {
	// ServerID is a UUID derived from the catalog's fingerprint: the same
	// tools with the same definitions, the same id.
	ServerID        string `json:"server_id"`
	ToolsCount      int    `json:"tools_count"`
	ProtocolVersion string `json:"protocol_version"`
}

// identity answers server/identity with the catalog served now.
func (s *Server) identity() any {
	s.mu.Lock()
	cat := s.current.Runner.Catalog
	s.mu.Unlock()
	return Identity{ServerID: UUID(cat.Fingerprint), ToolsCount: len(cat.Tools), ProtocolVersion: "1.0"}
}

// UUID derives a UUID (version 8, RFC 9562's custom version) from a
// fingerprint: the first 16 bytes of its SHA-256.
func UUID(fingerprint string) string {
	sum := sha256.Sum256([]byte(fingerprint))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x80 // version 8
	b[8] = b[8]&0x3f | 0x80 // the RFC's variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Run serves over t until ctx is done or the client goes away; see Serve
// for stdio.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	err = s.mcp.Run(ctx, t)
	end()
	return err
}

// begin resolves the catalog, makes the SDK's server that serves it, and
// watches for changes until ctx is done or end is called; end waits for
// the watching to stop, and ends the calls that wait for a client.
func (s *Server) begin(ctx context.Context) (_ context.Context, end func(), _ error) {
	cat, err := s.Load(ctx)
	if err != nil {
		return nil, nil, err
	}
	s.info = &mcp.Implementation{
		Name:        "strata",
		Title:       "strata: resolved tools",
		Version:     cat.Runner.Catalog.Fingerprint,
		Description: "The tools of a strata catalog; the version is the catalog's fingerprint.",
	}
	// Logging: the log messages of the MCP servers relayed to.
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Logging: &mcp.LoggingCapabilities{}}
	if cat.Offers != nil {
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true}
		caps.Prompts = &mcp.PromptCapabilities{ListChanged: true}
		caps.Completions = &mcp.CompletionCapabilities{}
	}
	s.mcp = mcp.NewServer(s.info, &mcp.ServerOptions{
		Capabilities:       caps,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
	})
	s.sdk.Store(s.mcp)
	s.mcp.AddReceivingMiddleware(s.recoverMiddleware, boundInitialize, s.fingerprintMiddleware, s.unservedMiddleware, s.clientRelay, s.offersMiddleware)
	s.mcp.AddSendingMiddleware(asIs, s.toolsChangedFilter)
	s.install(cat)

	ctx, cancel := context.WithCancel(ctx)
	s.runCtx = ctx
	w, err := newWatcher(cat.Watch)
	if err != nil {
		s.warn(fmt.Errorf("not watching for changes: %w", err))
	}
	s.watch = w
	var wg sync.WaitGroup
	if w != nil {
		wg.Go(func() { w.run(ctx, s.Invalidate) })
	}
	wg.Go(func() { s.reloadLoop(ctx) })
	return ctx, func() {
		cancel()
		s.forgetAll()
		wg.Wait()
		if w != nil {
			w.close()
		}
	}, nil
}

// reloadLoop resolves again after changes, waiting for the debounce.
func (s *Server) reloadLoop(ctx context.Context) {
	debounce := s.Debounce
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changed():
		}
		timer := time.NewTimer(debounce)
	wait:
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-s.changed():
				timer.Reset(debounce)
			case <-timer.C:
				break wait
			}
		}
		s.reload(ctx)
	}
}

// reload resolves again and serves what it gives; a failure keeps the
// catalog served.
func (s *Server) reload(ctx context.Context) {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	cat, err := s.Load(ctx)
	if err != nil {
		if ctx.Err() == nil {
			if s.Stale != nil {
				s.Stale(err)
			} else {
				s.warn(fmt.Errorf("resolving again: %w; still serving the catalog before", err))
			}
		}
		return
	}
	s.install(cat)
	if s.watch != nil {
		s.watch.set(cat.Watch)
	}
	s.relistOffers(ctx)
}

// install makes cat the catalog served: tools that left are removed, new
// and changed ones added (the SDK tells the client the list changed).
func (s *Server) install(cat *Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.current = cat
	want := map[string]*mcp.Tool{}
	wire := map[string]json.RawMessage{}
	var deferred []resolve.Definition
	isDeferred := map[string]bool{}
	for _, d := range cat.Runner.Catalog.Tools {
		if w := export.Refused(export.MCP, d); w != nil {
			s.warn(w)
			continue
		}
		t, err := tool(d)
		if err != nil {
			s.warn(err)
			continue
		}
		if d.Load == config.LoadDeferred {
			deferred = append(deferred, d)
			isDeferred[d.Name] = true
		}
		want[d.Name], wire[d.Name] = t, export.MCPToolJSON(d)
	}
	s.deferred, s.isDeferred = deferred, isDeferred
	searching := len(deferred) > 0 && s.addSearchTool(want, wire)
	var gone []string
	for name := range s.wire {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
		s.toolsGen++
	}
	for name, t := range want {
		if old, ok := s.wire[name]; !ok || !bytes.Equal(old, wire[name]) {
			h := s.handler(name)
			if name == export.SearchTool && searching {
				h = s.searchHandler
				s.searchTool = t
			}
			s.mcp.AddTool(t, h)
			s.toolsGen++
		}
	}
	s.wire = wire
}

// tool is a definition as the SDK's server holds it: its name, which
// finds the handler of a call and orders the pages of tools/list, and,
// for a tool whose input schema has x-mcp-header annotations, that schema,
// whose annotations the SDK checks and reads from the headers of a call
// over streamable HTTP. What a client is listed is the tool's JSON as
// --export mcp writes it (wireList), never the SDK's form of it, so the
// SDK is given nothing else: for every other tool, one object schema
// ([objectSchema]), which it need not decode (it decodes a schema given as
// JSON into maps, about 32 kB of garbage a tool, twice).
func tool(d resolve.Definition) (*mcp.Tool, error) {
	schema := d.InputSchema.JSON()
	object, headers := readSchema(schema)
	if !object {
		return nil, fmt.Errorf("%s is not served: its input schema's type is not \"object\", which MCP requires", d.Name)
	}
	t := &mcp.Tool{Name: d.Name, InputSchema: objectSchema}
	if headers {
		t.InputSchema = schema
		if err := checkHeaders(t); err != nil {
			return nil, fmt.Errorf("%s is not served: its input schema's x-mcp-header annotations are refused by MCP's Go SDK: %v", d.Name, err)
		}
	}
	return t, nil
}

// checkHeaders checks the x-mcp-header annotations of t as the SDK's
// server does when a tool is added to it, which panics on those it
// refuses (a header on a property that is not a string, an integer or a
// boolean; a header named twice): on a server of its own, so that a tool
// whose schema has them is refused rather than taking strata serve down.
func checkHeaders(t *mcp.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	mcp.NewServer(&mcp.Implementation{Name: "check", Version: "1"}, nil).AddTool(t, nil)
	return nil
}

// objectSchema is the input schema the SDK's server is given for a tool
// whose schema has no x-mcp-header annotations (see tool): the SDK reads
// it only for them.
var objectSchema = &jsonschema.Schema{Type: "object"}

// headerAnnotation marks the input schemas whose properties the SDK sends
// and checks as headers over streamable HTTP (x-mcp-header).
const headerAnnotation = "x-mcp-header"

// readSchema reads an input schema's names as the SDK and clients do
// (exactly, escapes undone): object is whether its type is "object";
// headers whether it names headerAnnotation anywhere (the SDK then reads
// it for annotations). A name spelled with escapes ("x-mcp-\u0068eader")
// or in other letters ("Type") is read as a client reads it.
func readSchema(schema []byte) (object, headers bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(schema), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	var read func(top bool) error
	read = func(top bool) error {
		switch dec.PeekKind() {
		case '{', '[':
			open, err := dec.ReadToken()
			if err != nil {
				return err
			}
			for dec.PeekKind() != open.Kind()+2 { // '}' or ']'
				if open.Kind() == '{' {
					name, err := dec.ReadToken()
					if err != nil {
						return err
					}
					switch n := name.String(); {
					case n == headerAnnotation:
						headers = true
					case top && n == "type" && dec.PeekKind() == '"':
						typ, err := dec.ReadToken()
						if err != nil {
							return err
						}
						object = typ.String() == "object"
						continue
					}
				}
				if err := read(false); err != nil {
					return err
				}
			}
			_, err = dec.ReadToken()
			return err
		default:
			return dec.SkipValue()
		}
	}
	if read(true) != nil {
		return false, false // a schema is checked JSON: never so
	}
	return object, headers
}

// handler runs a call of the tool name through the current catalog.
//
// A question of the tool for the user goes to the client's user as an MCP
// elicitation when the client can elicit: the result asks for input
// (multi round-trip requests; the SDK turns that into a request to the
// client for clients of earlier protocol versions), and the retried call
// carries the answer, with the answers before it in the request state.
// Otherwise, the question goes back as the needs_input envelope.
//
// A call of an MCP server's tool is relayed for the client (see relay.go).
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		var refused atomic.Bool // the call may go on after an answer that asks for input
		var res *mcp.CallToolResult
		var err error
		if id, ok := relayID(req.Params.RequestState); ok {
			res, err = s.resume(ctx, req, id)
		} else {
			res, err = s.relay(ctx, req, func(ctx context.Context) (*mcp.CallToolResult, error) {
				res, err := s.call(ctx, name, req)
				if errors.Is(err, errRefused) {
					refused.Store(true)
					err = nil
				}
				return res, err
			})
		}
		s.record(ctx, name, req, start, res, err, refused.Load())
		return res, err
	}
}

// Call is one tool call of a client, answered.
type Call struct {
	Time     time.Time
	Client   string // the client's session id
	Tool     string
	Server   string // the MCP server of the tool, if it is one's
	Duration time.Duration
	// Outcome is "ok", "error", "refused" (strata refused it: bad
	// arguments, say), "input" (the result asks the client for input)
	// or "cancelled".
	Outcome   string
	Arguments json.RawMessage
	// Decision is the call's decision, as its result's _meta has it; nil
	// when strata made none (an error of the protocol).
	Decision *call.Decision
}

// record tells OnCall a call.
func (s *Server) record(ctx context.Context, name string, req *mcp.CallToolRequest, start time.Time, res *mcp.CallToolResult, err error, refused bool) {
	if s.OnCall == nil {
		return
	}
	c := Call{Time: start, Tool: name, Duration: time.Since(start), Arguments: req.Params.Arguments}
	if req.Session != nil {
		c.Client = req.Session.ID()
	}
	s.mu.Lock()
	if d, ok := s.current.Runner.Catalog.Tool(name); ok {
		c.Server = d.Exec.Server
	}
	s.mu.Unlock()
	if res != nil {
		c.Decision, _ = res.Meta[protocol.MetaDecision].(*call.Decision)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		c.Outcome = "cancelled"
	case err != nil:
		c.Outcome = "error"
	case refused:
		c.Outcome = "refused"
	case res != nil && len(res.InputRequests) > 0:
		c.Outcome = "input"
	case res != nil && res.IsError:
		c.Outcome = "error"
	default:
		c.Outcome = "ok"
	}
	s.OnCall(c)
}

// Log passes a log message on to every client session that set a log
// level it reaches (logging/setLevel): a message of an MCP server outside
// any call, over HTTP, where the clients are many.
func (s *Server) Log(ctx context.Context, p *mcp.LoggingMessageParams) {
	srv := s.sdk.Load()
	if srv == nil {
		return // not serving yet
	}
	for ss := range srv.Sessions() {
		_ = ss.Log(ctx, p) // the SDK sends it only at the session's level
	}
}

// unservedMiddleware answers a call of a tool that is not served, when
// Unserved says why (its server is down), and tells Asked of each listing
// of the tools.
func (s *Server) unservedMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			if s.Asked != nil {
				s.Asked()
			}
		case "tools/call":
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || s.Unserved == nil || cr.Params == nil {
				break
			}
			s.mu.Lock()
			_, served := s.wire[cr.Params.Name]
			s.mu.Unlock()
			if served {
				break
			}
			start := time.Now()
			why, server := s.Unserved(cr.Params.Name)
			if why == "" {
				break
			}
			res := text(true, why)
			if s.OnCall != nil {
				c := Call{Time: start, Tool: cr.Params.Name, Server: server, Duration: time.Since(start), Arguments: cr.Params.Arguments, Outcome: "error"}
				if cr.Session != nil {
					c.Client = cr.Session.ID()
				}
				s.OnCall(c)
			}
			return res, nil
		}
		return next(ctx, method, req)
	}
}

// errRefused marks a call strata refused (answered as a tool error).
var errRefused = errors.New("refused")

// call runs a call of the tool name through the current catalog.
func (s *Server) call(ctx context.Context, name string, req *mcp.CallToolRequest) (out *mcp.CallToolResult, _ error) {
	s.mu.Lock()
	r := s.current.Runner
	s.mu.Unlock()
	given := answers(req.Params.Meta)
	if req.Params.RequestState != "" {
		var state map[string]any
		if json.Unmarshal([]byte(req.Params.RequestState), &state) == nil {
			for k, v := range state {
				given[k] = v
			}
		}
	}
	elicited := elicitedAnswers(req.Params.InputResponses)
	for k, v := range elicited {
		given[k] = v
	}
	opts := []call.Option{call.Answers(given)}
	if r.Confirm == nil {
		opts = append(opts, call.Confirm(confirmer(req.Session)))
	}
	res, err := r.Call(ctx, name, req.Params.Arguments, opts...)
	var ce *call.Refusal
	switch {
	case errors.As(err, &ce) && ce.Declined:
		// The user said no: the model is told so as a failed outcome,
		// as a tool that failed would tell it.
		return withDecision(result(&call.Response{Outcome: declined(name)}), ce.Decision), nil
	case ce != nil:
		// A refused call is the model's to fix: a tool error, not a
		// protocol error.
		return withDecision(text(true, ce.Error()), ce.Decision), errRefused
	case err != nil:
		return nil, err
	}
	defer func() { withDecision(out, res.Decision) }()
	if q := res.Question; res.Type == protocol.NeedsInput && q != nil && canElicit(req.Session) && forUser(r, name, q.ID) {
		if _, asked := req.Params.InputResponses[q.ID]; !asked {
			state, _ := json.Marshal(res.Answers)
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{q.ID: elicitation(name, *q)}, RequestState: string(state)}, nil
		}
	}
	return result(res), nil
}

// declined is the outcome the model is given of a call its user declined.
func declined(name string) protocol.Outcome {
	return protocol.Outcome{Type: protocol.Failure, Message: "the user declined to run " + name}
}

// withDecision puts the call's decision in the result's _meta, under
// protocol.MetaDecision, beside what the server's own result has there.
func withDecision(res *mcp.CallToolResult, d *call.Decision) *mcp.CallToolResult {
	if res == nil || d == nil {
		return res
	}
	if res.Meta == nil {
		res.Meta = mcp.Meta{}
	}
	res.Meta[protocol.MetaDecision] = d
	return res
}

// confirmer asks the user of the client ss, through elicitation, before
// a tool whose run mode is "ask" or "edit" runs; a client that cannot
// elicit gets a refusal that says why and what to change. The request
// goes through the call's [mcpclient.Downstream] (see relay.go), which
// reaches clients of every protocol version.
func confirmer(ss *mcp.ServerSession) func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
	return func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
		mode, why := config.RunAsk, ""
		dec := call.DecisionOf(ctx)
		if dec != nil {
			mode = dec.Run
			if r := dec.DecidedBy("run"); r != nil {
				why = " (" + r.Key + ")"
			}
		}
		d := mcpclient.DownstreamOf(ctx)
		if !canElicit(ss) || d == nil {
			return false, &call.Refusal{Tool: tool, Decision: dec,
				Msg:  fmt.Sprintf("not run: its run mode is %q, so strata asks the user first, and this client cannot be asked (it declared no elicitation)%s", mode, why),
				Hint: fmt.Sprintf(`to let it run when the client calls it (the client asks its user itself), set run = "unattended" under [tools.%s] (or [tools.'*'] for every tool)`, tomltext.Key(tool))}
		}
		res, err := d.Ask(ctx, confirmation(tool, args))
		if err != nil {
			return false, fmt.Errorf("asking the client to confirm %s: %w", tool, err)
		}
		er, ok := res.(*mcp.ElicitResult)
		if !ok || er.Action != "accept" {
			return false, nil
		}
		run, _ := er.Content["run"].(bool)
		return run, nil
	}
}

// confirmation asks the user whether to run tool with args: one boolean,
// run, which must be true.
func confirmation(tool string, args json.RawMessage) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message: fmt.Sprintf("Run %s with %s?", tool, args),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"run": map[string]any{"type": "boolean", "title": "Run " + tool, "description": "Run the tool with these arguments.", "default": false},
		}, "required": []string{"run"}},
	}
}

// forUser reports whether the question id of tool is for the user (the
// default) rather than for the assistant.
func forUser(r *call.Runner, tool, id string) bool {
	d, ok := r.Catalog.Tool(tool)
	return !ok || d.Questions[id].Target != config.TargetAssistant
}

// canElicit reports whether the client can ask its user: it declared form
// elicitation (or elicitation without modes, as before there were modes).
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil || ss.InitializeParams() == nil || ss.InitializeParams().Capabilities == nil {
		return false
	}
	e := ss.InitializeParams().Capabilities.Elicitation
	return e != nil && (e.Form != nil || e.URL == nil)
}

// elicitation is a tool's question as an MCP elicitation: one property,
// answer, of the question's type.
func elicitation(tool string, q protocol.Inquiry) *mcp.ElicitParams {
	answer := map[string]any{"title": q.ID, "description": q.Text}
	switch q.AnswerType {
	case "boolean":
		answer["type"] = "boolean"
	case "select":
		values := make([]string, len(q.Options))
		for i, o := range q.Options {
			values[i] = fmt.Sprint(o)
		}
		answer["type"], answer["enum"] = "string", values
	default:
		answer["type"] = "string"
	}
	if q.Default != nil {
		answer["default"] = q.Default
	}
	return &mcp.ElicitParams{
		Message:         fmt.Sprintf("%s asks: %s", tool, q.Text),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"answer": answer}, "required": []string{"answer"}},
	}
}

// elicitedAnswers reads the answers the client's user gave, by question
// id; a declined or cancelled question has none.
func elicitedAnswers(responses mcp.InputResponseMap) map[string]any {
	out := map[string]any{}
	for id, r := range responses {
		er, ok := r.(*mcp.ElicitResult)
		if !ok || er.Action != "accept" {
			continue
		}
		if v, ok := er.Content["answer"]; ok {
			out[id] = v
		}
	}
	return out
}

// answers reads the answers of a retried call from its _meta.
func answers(meta mcp.Meta) map[string]any {
	t, _ := meta[protocol.MetaTool].(map[string]any)
	a, _ := t["answers"].(map[string]any)
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	return out
}

// result is the MCP result of a call.
func result(res *call.Response) *mcp.CallToolResult {
	if res.MCP != nil && len(res.MCP.Raw) > 0 {
		var out mcp.CallToolResult
		if err := json.Unmarshal(res.MCP.Raw, &out); err == nil {
			return &out // the server's own result, every content item
		}
	}
	switch res.Type {
	case protocol.Success:
		return text(false, res.Content)
	case protocol.Failure:
		b, _ := json.Marshal(res.Outcome)
		return text(true, string(b))
	default:
		b, _ := json.Marshal(res.Outcome)
		return text(false, string(b))
	}
}

func text(isError bool, s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// recoverMiddleware, the outermost, answers a request whose handling
// panicked with an internal error that names its method, and tells Warn
// the panic and its stack: the SDK handles each request in a goroutine of
// its own and recovers nothing, so a panic (a defect of strata or of the
// host's hooks) would end strata serve and every session it holds.
func (s *Server) recoverMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				s.warn(fmt.Errorf("handling %s panicked, a defect (please report it with what follows); the server goes on: %v\n%s", method, v, debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("strata failed to handle %s (a defect, told to strata's log); the server goes on", method)}
			}
		}()
		return next(ctx, method, req)
	}
}

// fingerprintMiddleware names the catalog served in every answer: the
// version of serverInfo (in the result of initialize, and in the _meta of
// every result of protocol 2026-07-28, which has no handshake) is its
// fingerprint, and tools/list results carry it in _meta. The catalog may
// have been resolved again since the SDK's server was made. A tools/list
// leaves out the deferred tools the session did not find (search.go).
func (s *Server) fingerprintMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		s.watchTools(method, req)
		var (
			res       mcp.Result
			err       error
			fp, empty string
			wire      map[string]json.RawMessage
		)
		// A tools/list answer is one catalog's: the SDK lists the tools
		// installed with it, so a listing a reload overtook is asked again
		// (reloads wait for changes to settle: a third listing overtaken
		// is answered as the catalog after it, which its clients are told
		// changed).
		for try := 0; ; try++ {
			s.mu.Lock()
			before := s.current
			s.mu.Unlock()
			res, err = next(ctx, method, req)
			if err != nil || res == nil {
				return res, err
			}
			s.mu.Lock()
			cur := s.current
			fp, empty, wire = cur.Runner.Catalog.Fingerprint, cur.Empty, s.wire
			r, list := res.(*mcp.ListToolsResult)
			done := !list || cur == before || try == 2
			if list && done {
				r.Tools = s.listedTo(req.GetSession(), r.Tools)
			}
			s.mu.Unlock()
			if done {
				break
			}
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			if r.ServerInfo != nil {
				info := *r.ServerInfo
				info.Version = fp
				r.ServerInfo = &info
			}
		case *mcp.ListToolsResult:
			if r.Meta == nil {
				r.Meta = mcp.Meta{}
			}
			r.Meta[MetaFingerprint] = fp
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && len(r.Tools) == 0 && empty != "" {
				// Why the list is empty, for a client that shows its log
				// or reads the list's _meta.
				_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "strata", Data: empty})
				r.Meta[MetaEmpty] = empty
			}
		}
		if v, ok := req.(interface{ ProtocolVersion() string }); ok && v.ProtocolVersion() >= "2026-07-28" && method != "initialize" {
			// The SDK's empty result (of ping, say) has no fields and no
			// _meta: its GetMeta panics.
			if t := reflect.TypeOf(res); t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && t.Elem().NumField() > 0 {
				info := *s.info
				info.Version = fp
				m := res.GetMeta()
				if m == nil {
					m = map[string]any{}
				}
				m[mcp.MetaKeyServerInfo] = &info
				res.SetMeta(m)
			}
		}
		if r, ok := res.(*mcp.ListToolsResult); ok {
			// The SDK would write each tool from mcp.Tool, which drops the
			// keys it does not know (execution, say).
			res = &wireList{r, wire}
		}
		return res, err
	}
}

// wireList is a tools/list result whose tools are written as they are
// served (an upstream tool as its server listed it, every key kept), on
// every transport. It is the SDK's result (whose methods make it one)
// with a JSON form of its own.
type wireList struct {
	*mcp.ListToolsResult
	wire map[string]json.RawMessage
}

// MarshalJSON implements json.Marshaler. A tool the SDK listed that is not
// served now (a reload took it out after the SDK listed it, and the client
// is told the list changed) is left out: the SDK holds a name and, for most
// tools, a bare object schema (see tool), which are not the tool.
func (l *wireList) MarshalJSON() ([]byte, error) {
	tools := make([]json.RawMessage, 0, len(l.Tools))
	for _, t := range l.Tools {
		if raw, ok := l.wire[t.Name]; ok {
			tools = append(tools, raw)
		}
	}
	return json.Marshal(struct {
		*mcp.ListToolsResult
		Tools []json.RawMessage `json:"tools"` // over the SDK's
	}{l.ListToolsResult, tools})
}

func (s *Server) warn(err error) {
	if s.Warn != nil {
		s.Warn(err)
	}
}
