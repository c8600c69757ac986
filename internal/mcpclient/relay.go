package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Capabilities are what a session declares to its server beyond being a
// client: the capabilities of the client strata serves, whose part strata
// plays towards the server (sampling and elicitation requests go to that
// client). The zero Capabilities declares nothing, as to anyone.
type Capabilities struct {
	Sampling    *mcp.SamplingCapabilities    `json:"sampling,omitempty"`
	Elicitation *mcp.ElicitationCapabilities `json:"elicitation,omitempty"`
	// Roots declares roots (without listChanged: strata does not pass
	// the client's changes on); the server's roots/list goes to the
	// client.
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
}

// IsZero reports whether c declares nothing.
func (c Capabilities) IsZero() bool {
	return c.Sampling == nil && c.Elicitation == nil && c.Roots == nil
}

// Relay is how a session passes on to the client strata serves what its
// server sends for that client: its log messages, the progress of the
// calls that client made, and its sampling and elicitation requests.
type Relay struct {
	// Capabilities are declared to the server; a request of the server
	// for anything else is answered with an error by the SDK.
	Capabilities
	// Name is the server's name in the config: the logger of its log
	// messages that name none.
	Name string
	// Log, when not nil, is given the server's log messages that come
	// while no call of the client strata serves is under way (those that
	// come during one go to its [Downstream]).
	Log func(ctx context.Context, p *mcp.LoggingMessageParams)
	// Level, when not empty, is the log level asked of the server right
	// after the handshake (logging/setLevel), when it declares logging.
	Level mcp.LoggingLevel
	// ListRoots, when not nil, answers a roots/list of the server that
	// comes while no call of a client is under way (a server asks for the
	// roots once initialized): the client strata serves over stdio.
	ListRoots func(ctx context.Context) (*mcp.ListRootsResult, error)
	// Updated, when not nil, is told the URI of every
	// notifications/resources/updated of the server (it sends them for
	// the resources subscribed to).
	Updated func(uri string)
	// Ask, when not nil, answers a request of the server (as
	// [Downstream].Ask does) that comes while no call of a client strata
	// serves is under way: a host's own answer to what its servers ask of
	// their client (strata.Sampling). [ErrNoClient] leaves the request
	// unanswered, as without it.
	Ask func(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error)
}

// Downstream is the client strata serves, for one call it relays to an
// MCP server: the client's _meta, and where the server's progress, log
// messages and requests go while the call is under way. A call's context
// carries it ([WithDownstream]).
type Downstream interface {
	// Meta is the _meta of the client's call.
	Meta() map[string]any
	// Progress passes on a progress notification of the call; its token
	// is already the client's.
	Progress(ctx context.Context, p *mcp.ProgressNotificationParams) error
	// Log passes on a log message of the server.
	Log(ctx context.Context, p *mcp.LoggingMessageParams) error
	// Ask passes on a request of the server to the client, an
	// *mcp.ElicitParams or an *mcp.CreateMessageWithToolsParams, and
	// returns the client's answer: an *mcp.ElicitResult or an
	// *mcp.CreateMessageWithToolsResult.
	Ask(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error)
}

// StreamCloser is what a [Downstream] may implement to close the event
// stream of the client's call, asking the client to resume it after
// retry (SEP-1699, protocol 2025-11-25): strata does when the server
// closes the event stream of the call it relays (see [tapBody.closed]).
type StreamCloser interface {
	CloseStream(retry time.Duration)
}

// Owner is what a [Downstream] may implement to say whose it is: the
// client strata serves that made the call (its session), so that what a
// server sends outside any call's context is passed on only when every
// call under way is that one client's. A Downstream that does not is its
// own owner.
type Owner interface {
	Owner() any
}

// ownerOf returns the owner of d.
func ownerOf(d Downstream) any {
	if o, ok := d.(Owner); ok {
		return o.Owner()
	}
	return d
}

type downstreamKey struct{}

// WithDownstream returns ctx carrying d: the calls made under it are
// relayed for d.
func WithDownstream(ctx context.Context, d Downstream) context.Context {
	return context.WithValue(ctx, downstreamKey{}, d)
}

// DownstreamOf returns the Downstream ctx carries, or nil.
func DownstreamOf(ctx context.Context) Downstream {
	d, _ := ctx.Value(downstreamKey{}).(Downstream)
	return d
}

// protocolMeta is the prefix of the _meta keys that the protocol itself
// sets on every request of its 2026-07-28 version (protocol version,
// client capabilities, log level): the client's are not the session's.
const protocolMeta = "io.modelcontextprotocol/"

// relayed is a call under way that is relayed for a Downstream.
type relayed struct {
	d     Downstream
	ctx   context.Context // the call's: what the server asks ends with it
	token any             // the client's progress token, or nil

	// The SDK hands notifications to their handlers on a goroutine of
	// their own, so the response to a call may be handled before the
	// progress the server sent ahead of it. The tap counts the progress
	// notifications and log messages of the call as they are read, in
	// order, and the call ends only once they are passed on.
	mu      sync.Mutex
	notes   int           // read, not yet passed on
	drained chan struct{} // closed when notes is back to 0; nil at 0
	ended   bool          // the call returned: its progress is not passed on
}

// noteGrace bounds how long a call waits for the progress read before its
// response to be passed on: a notification the SDK could not decode never
// reaches its handler.
const noteGrace = time.Second

func (c *relayed) noteRead() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notes++
	if c.drained == nil {
		c.drained = make(chan struct{})
	}
}

func (c *relayed) notePassed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notes == 0 {
		return
	}
	c.notes--
	if c.notes == 0 {
		close(c.drained)
		c.drained = nil
	}
}

// drain waits for the progress read so far to be passed on.
func (c *relayed) drain(ctx context.Context) {
	c.mu.Lock()
	ch := c.drained
	c.mu.Unlock()
	if ch == nil {
		return
	}
	t := time.NewTimer(noteGrace)
	defer t.Stop()
	select {
	case <-ch:
	case <-ctx.Done():
	case <-t.C:
	}
}

// relays tracks the relayed calls of a session, oldest first, and the
// progress tokens strata gave their server, which stand for the client's.
type relays struct {
	mu     sync.Mutex
	calls  []*relayed
	tokens map[string]*relayed
	next   uint64
	// logs are the calls the log messages read off HTTP responses were
	// read during (nil: none), in order, until the handler has them.
	logs []*relayed
}

// begin tracks a call relayed for d, and returns the _meta to send: the
// client's (less the protocol's own keys), then meta, with strata's own
// progress token for the client's. end stops tracking the call.
func (r *relays) begin(ctx context.Context, d Downstream, meta map[string]any) (out map[string]any, end func()) {
	out = map[string]any{}
	for k, v := range d.Meta() {
		if !strings.HasPrefix(k, protocolMeta) {
			out[k] = v
		}
	}
	maps.Copy(out, meta)
	c := &relayed{d: d, ctx: ctx}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	token := ""
	if t, ok := out["progressToken"]; ok && t != nil {
		// The server's notifications carry strata's token, unique on
		// this session however many clients' calls share it.
		r.next++
		token = fmt.Sprintf("strata-%d", r.next)
		c.token = t
		if r.tokens == nil {
			r.tokens = map[string]*relayed{}
		}
		r.tokens[token] = c
		out["progressToken"] = token
	}
	r.mu.Unlock()
	return out, func() {
		c.drain(ctx)
		c.mu.Lock()
		c.ended = true
		c.mu.Unlock()
		r.mu.Lock()
		defer r.mu.Unlock()
		if token != "" {
			delete(r.tokens, token)
		}
		for i, x := range r.calls {
			if x == c {
				r.calls = append(r.calls[:i], r.calls[i+1:]...)
				break
			}
		}
	}
}

// logSeen notes a log message read off an HTTP response, before the SDK
// parses it and hands it to the handler (see [Session.logHandled]): the
// call it was read during waits for it to be passed on, as one read off
// the connection of the other transports does (see [Session.logRead]).
// Over streamable HTTP the SDK gives the call its response as soon as it
// reads it, and the handler may be handed the log message read before
// the response only after: that message was passed on as one outside any
// call, or lost (issue 36).
func (r *relays) logSeen() {
	c := r.oldest()
	if c != nil {
		c.noteRead()
	}
	r.mu.Lock()
	if len(r.logs) >= RelayQueueMessages {
		// The handler is far behind (or never handed one of them): the
		// oldest noted no longer holds its call.
		if old := r.logs[0]; old != nil {
			old.notePassed()
		}
		r.logs = r.logs[1:]
	}
	r.logs = append(r.logs, c)
	r.mu.Unlock()
}

// logHandled returns the call a log message handed to the handler was
// read during, as [relays.logSeen] noted it, in the order they were read;
// ok is false when none was noted.
func (r *relays) logHandled() (c *relayed, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.logs) == 0 {
		return nil, false
	}
	c = r.logs[0]
	r.logs[0] = nil
	r.logs = r.logs[1:]
	return c, true
}

// progressRead counts a progress notification read off the connection,
// when it is for a call relayed.
func (r *relays) progressRead(token any) {
	if c := r.byToken(token); c != nil {
		c.noteRead()
	}
}

// byToken returns the call of a progress token strata gave.
func (r *relays) byToken(token any) *relayed {
	s, ok := token.(string)
	if !ok {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tokens[s]
}

// oldest returns the oldest relayed call under way, or nil; also nil
// when the calls under way are more than one client's (a server shared by
// the clients of strata serve --http): nothing on the wire says which of
// them a log message or a request is for, and it must not reach another
// client than the one it is for.
func (r *relays) oldest() *relayed {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		return nil
	}
	owner := ownerOf(r.calls[0].d)
	for _, c := range r.calls[1:] {
		if ownerOf(c.d) != owner {
			return nil
		}
	}
	return r.calls[0]
}

// ErrNoClient is the error a server's sampling or elicitation request is
// answered with when no call of a client that can answer it is under way.
var ErrNoClient = errors.New("strata relays this request only during a call of a client that can answer it, and none is under way (or the calls under way are several clients')")

// clientOptions adds to opts the handlers that relay what the server sends
// for the client strata serves, and declares that client's capabilities.
func (s *Session) clientOptions(opts *mcp.ClientOptions, relay *Relay) {
	if relay == nil {
		return
	}
	opts.Capabilities.Sampling = relay.Sampling
	opts.Capabilities.Elicitation = relay.Elicitation
	s.hostAsk = relay.Ask
	if relay.Capabilities.Roots != nil {
		opts.Capabilities.RootsV2 = &mcp.RootCapabilities{}
	}
	// Over streamable HTTP the SDK reads the connection, and hands these
	// to the handlers (one at a time, reading on meanwhile): they queue
	// them, as the connection does of the other transports (see
	// [Session.intercept]), and never wait for the client.
	opts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		c := s.relays.byToken(req.Params.ProgressToken)
		if c == nil {
			return // not a call strata relays
		}
		raw, err := json.Marshal(req.Params)
		if err != nil {
			c.notePassed()
			return
		}
		s.queue.push(queued{params: raw, call: c}) // the tap counted it read
	}
	if relay.Updated != nil {
		opts.ResourceUpdatedHandler = func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if req.Params != nil {
				relay.Updated(req.Params.URI)
			}
		}
	}
	opts.LoggingMessageHandler = func(_ context.Context, req *mcp.LoggingMessageRequest) {
		c, seen := s.relays.logHandled()
		raw, err := json.Marshal(req.Params)
		switch {
		case err != nil && c != nil:
			c.notePassed()
		case err != nil:
		case seen: // read off an HTTP response: noted then
			s.queue.push(queued{params: raw, log: true, call: c})
		default:
			s.queue.push(s.logRead(raw))
		}
	}
	if relay.Sampling != nil {
		opts.CreateMessageWithToolsHandler = func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			return askAs[*mcp.CreateMessageWithToolsResult](ctx, s, req.Params, "sampling")
		}
	}
	if relay.Elicitation != nil {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return askAs[*mcp.ElicitResult](ctx, s, req.Params, "elicitation")
		}
	}
}

// relayElicitation passes a server's form elicitation/create on to the
// client strata serves as it is: the SDK's client checks the requested
// schema first with rules of its own, which refuse a titled multi-select
// enum of SEP-1330 whose items declare "type": "string" ("items must
// specify enum for untitled enums"); the client strata serves checks it,
// and the server checks the answer.
func relayElicitation(s *Session) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p, ok := req.GetParams().(*mcp.ElicitParams)
			if method != "elicitation/create" || !ok || (p.Mode != "" && p.Mode != "form") || p.URL != "" {
				return next(ctx, method, req)
			}
			r, err := askAs[*mcp.ElicitResult](ctx, s, p, "elicitation")
			if err != nil {
				return nil, err // not a nil *ElicitResult as a Result
			}
			return r, nil
		}
	}
}

// askAs passes on a request of the server (what it is, for messages) to
// the client, and returns the client's answer as an R.
func askAs[R mcp.InputResponse](ctx context.Context, s *Session, req mcp.InputRequest, what string) (R, error) {
	var zero R
	res, err := s.ask(ctx, req)
	if err != nil {
		return zero, rpcErrorOf(err)
	}
	r, ok := res.(R)
	if !ok {
		return zero, fmt.Errorf("the client answered %s with a %T", what, res)
	}
	return r, nil
}

// relayRoots passes a server's roots/list on to the client of the call
// under way, or to [Relay].ListRoots outside calls.
func relayRoots(s *Session, relay *Relay) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "roots/list" {
				return next(ctx, method, req)
			}
			p, _ := req.GetParams().(*mcp.ListRootsParams)
			if p == nil {
				p = &mcp.ListRootsParams{}
			}
			res, err := s.ask(ctx, p)
			if errors.Is(err, ErrNoClient) && relay.ListRoots != nil {
				return relay.ListRoots(ctx)
			}
			if err != nil {
				return nil, rpcErrorOf(err)
			}
			r, ok := res.(*mcp.ListRootsResult)
			if !ok {
				return nil, fmt.Errorf("the client answered roots/list with a %T", res)
			}
			return r, nil
		}
	}
}

// rpcErrorOf is err as the JSON-RPC error the server is answered with:
// the client's own error, ErrNoClient with the code the SDK answers a
// request the client did not declare with (invalid params), anything else
// as an internal error.
func rpcErrorOf(err error) error {
	var e *jsonrpc.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, ErrNoClient):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// ask passes on a request of the server to the client of the call it
// belongs to: the call whose context the SDK handles it under (a request
// in the result of a call, protocol 2026-07-28 and later), else the oldest
// relayed call under way (a request the server sent on its own; nothing
// on the wire says which call it is for). It is answered with an error
// when no call is under way, and gives up when the call ends.
func (s *Session) ask(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	if d := DownstreamOf(ctx); d != nil {
		return d.Ask(ctx, req)
	}
	c := s.relays.oldest()
	if c == nil {
		if s.hostAsk != nil {
			return s.hostAsk(ctx, req)
		}
		return nil, ErrNoClient
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	return c.d.Ask(actx, req)
}

// SetLogLevel asks the server for log messages of level and above
// (logging/setLevel), when it declares logging; it does nothing otherwise.
func (s *Session) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) (err error) {
	defer s.hide(&err)
	ir := s.cs.InitializeResult()
	if level == "" || ir == nil || ir.Capabilities == nil || ir.Capabilities.Logging == nil {
		return nil
	}
	return s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
}

// The bound of the relay queue: what a session holds of its server's log
// messages and progress notifications while the client strata serves
// reads them slower than the server sends them. Past it, they are dropped
// (the newest: the queue keeps its order), counted, and the client is told
// how many, once, when it has caught up (a log message of the logger
// "strata", level warning). A message larger than the bytes alone is
// dropped too. The server's requests and the responses to its calls are
// never dropped: requests past [MaxServerRequests] are answered with an
// error.
const (
	RelayQueueMessages = 1000
	RelayQueueBytes    = 4 << 20
)

// queued is a notification of the server for the client: a log message,
// or the progress of a relayed call.
type queued struct {
	params json.RawMessage
	log    bool     // a log message; otherwise progress
	call   *relayed // the call progress is for; a log message's, or nil
	// dropped, when not zero, is no message: the counts of log messages
	// and progress dropped, to tell the client.
	dropped dropCounts
}

// logRead is a log message read off the connection, queued for the call
// it was read during (the oldest under way, as [relays.oldest] says),
// which ends only once it is passed on: a server's last message before its
// response reaches the client before the result does. (Over streamable
// HTTP the client closes the call's stream with its result, and drops
// what comes after.)
func (s *Session) logRead(params json.RawMessage) queued {
	q := queued{params: params, log: true}
	if c := s.relays.oldest(); c != nil {
		c.noteRead()
		q.call = c
	}
	return q
}

// relayQueue is the bounded queue of the log messages and progress a
// session passes on to the clients strata serves, in order, from
// goroutines of its own so that neither reading the server nor the SDK
// ever waits for a client. What is read goes first to the queue, and is
// sorted from there (run), at once, into an outbox per client (the owner
// of the call it is for, see [Owner]), each bounded as the queue is and
// passed on by a goroutine of its own: a client that reads slowly fills
// and drops only its own (strata serve --http, where many clients share
// a server; it held up every other client of the server, and had their
// log messages and progress dropped).
type relayQueue struct {
	relay  *Relay
	relays *relays

	mu       sync.Mutex
	items    []queued
	size     int // bytes of params held
	dropped  dropCounts
	wake     chan struct{} // signalled when an item comes
	outboxes map[any]*outbox
}

// outbox is what waits to be passed on to one client.
type outbox struct {
	items   []queued
	size    int
	dropped dropCounts
}

func newRelayQueue(relay *Relay, relays *relays) *relayQueue {
	return &relayQueue{relay: relay, relays: relays, wake: make(chan struct{}, 1), outboxes: map[any]*outbox{}}
}

// full reports whether a queue of n items and size bytes has no room for
// params.
func full(n, size int, params json.RawMessage) bool {
	return n >= RelayQueueMessages || size+len(params) > RelayQueueBytes
}

// push queues q, or drops it when the queue is full.
func (r *relayQueue) push(q queued) {
	r.mu.Lock()
	if full(len(r.items), r.size, q.params) {
		r.dropped.count(q)
		r.mu.Unlock()
		return
	}
	r.items = append(r.items, q)
	r.size += len(q.params)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// dropCounts are the log messages and progress notifications dropped.
type dropCounts struct{ logs, progress int }

// take returns the counts, and resets them.
func (d *dropCounts) take() dropCounts {
	t := *d
	*d = dropCounts{}
	return t
}

// count counts q as dropped, and as passed on for its call.
func (d *dropCounts) count(q queued) {
	if q.log {
		d.logs++
	} else {
		d.progress++
	}
	if q.call != nil {
		q.call.notePassed()
	}
}

// pop returns the oldest item; when there is none, it returns the counts
// dropped since the queue last emptied, and resets them.
func (r *relayQueue) pop() (q queued, ok bool, dropped dropCounts) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.items) == 0 {
		return queued{}, false, r.dropped.take()
	}
	q, r.items[0] = r.items[0], queued{}
	r.items = r.items[1:]
	r.size -= len(q.params)
	return q, true, dropCounts{}
}

// run sorts the queue into the clients' outboxes until done is closed.
func (r *relayQueue) run(ctx context.Context, done <-chan struct{}) {
	for {
		q, ok, dropped := r.pop()
		if !ok {
			if dropped != (dropCounts{}) {
				// Dropped before they were sorted: whose they were is
				// not known; told as a message outside any call is.
				r.send(ctx, r.ownerFor(queued{log: true}), queued{dropped: dropped})
			}
			select {
			case <-r.wake:
				continue
			case <-done:
				return
			}
		}
		r.send(ctx, r.ownerFor(q), q)
	}
}

// ownerFor returns whose outbox q goes to: the client of its call while
// the call is under way; none (nil: [Relay].Log's) for a log message of a
// call that ended, which is that call's client's or nobody's; else that of
// the oldest call under way (see [relayQueue.log]), else none.
func (r *relayQueue) ownerFor(q queued) any {
	if c := q.call; c != nil {
		c.mu.Lock()
		ended := c.ended
		c.mu.Unlock()
		if !ended || !q.log {
			return ownerOf(c.d)
		}
		return nil
	}
	if c := r.relays.oldest(); c != nil {
		return ownerOf(c.d)
	}
	return nil
}

// send puts q in the outbox of owner, or drops it when that is full, and
// starts passing the outbox on when it was empty.
func (r *relayQueue) send(ctx context.Context, owner any, q queued) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.outboxes[owner]
	if o == nil {
		o = &outbox{}
		r.outboxes[owner] = o
		go r.deliver(ctx, owner, o)
	}
	if q.dropped != (dropCounts{}) {
		o.dropped.logs += q.dropped.logs
		o.dropped.progress += q.dropped.progress
		return
	}
	if full(len(o.items), o.size, q.params) {
		o.dropped.count(q)
		return
	}
	o.items = append(o.items, q)
	o.size += len(q.params)
}

// deliver passes on what the outbox o of owner holds, in order, and, once
// it is empty, tells the client how many were dropped; it ends then, with
// the outbox.
func (r *relayQueue) deliver(ctx context.Context, owner any, o *outbox) {
	for {
		r.mu.Lock()
		if len(o.items) == 0 {
			dropped := o.dropped.take()
			if dropped == (dropCounts{}) {
				delete(r.outboxes, owner)
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
			r.notice(ctx, dropped.logs, "log messages")
			r.notice(ctx, dropped.progress, "progress notifications")
			continue
		}
		q := o.items[0]
		o.items[0] = queued{}
		o.items = o.items[1:]
		o.size -= len(q.params)
		r.mu.Unlock()
		r.pass(ctx, q)
	}
}

// pass passes on q: a log message, or progress.
func (r *relayQueue) pass(ctx context.Context, q queued) {
	if !q.log {
		r.progress(q)
		return
	}
	var p mcp.LoggingMessageParams
	if json.Unmarshal(q.params, &p) == nil {
		if p.Logger == "" {
			p.Logger = r.relay.Name
		}
		r.logFor(ctx, q.call, &p)
	}
	if q.call != nil {
		q.call.notePassed()
	}
}

// progress passes on progress of a call, unless the call returned
// meanwhile (then it is dropped, and counted).
func (r *relayQueue) progress(q queued) {
	c := q.call
	defer c.notePassed()
	var p mcp.ProgressNotificationParams
	if json.Unmarshal(q.params, &p) != nil {
		return
	}
	c.mu.Lock()
	ended := c.ended
	c.mu.Unlock()
	if ended {
		r.send(context.Background(), ownerOf(c.d), queued{dropped: dropCounts{progress: 1}})
		return
	}
	p.ProgressToken = c.token
	_ = c.d.Progress(c.ctx, &p)
}

// logFor passes on a log message read during the call c: to its client
// while c is under way, else to [Relay].Log (never to another call's
// client: over HTTP that is another client); one read outside any call as
// [relayQueue.log] does.
func (r *relayQueue) logFor(ctx context.Context, c *relayed, p *mcp.LoggingMessageParams) {
	if c == nil {
		r.log(ctx, p)
		return
	}
	c.mu.Lock()
	ended := c.ended
	c.mu.Unlock()
	switch {
	case !ended:
		_ = c.d.Log(c.ctx, p)
	case r.relay.Log != nil:
		r.relay.Log(ctx, p)
	}
}

// log passes on a log message: to the client of the oldest relayed call
// under way, else to [Relay].Log.
func (r *relayQueue) log(ctx context.Context, p *mcp.LoggingMessageParams) {
	if c := r.relays.oldest(); c != nil {
		_ = c.d.Log(c.ctx, p)
		return
	}
	if r.relay.Log != nil {
		r.relay.Log(ctx, p)
	}
}

// notice tells the client that n messages of what were dropped.
func (r *relayQueue) notice(ctx context.Context, n int, what string) {
	if n == 0 {
		return
	}
	r.log(ctx, &mcp.LoggingMessageParams{
		Level:  "warning",
		Logger: "strata",
		Data: fmt.Sprintf("strata dropped %d %s from the server %s: the client read them slower than the server sent them (strata holds at most %d messages or %d MiB of a server's log messages and progress for its client)",
			n, what, r.relay.Name, RelayQueueMessages, RelayQueueBytes>>20),
	})
}

// MaxServerRequests bounds the requests of a server (sampling,
// elicitation, ping, ...) that wait for their answer at once; a request
// past it is answered with an error at once. (A server that asks the
// client strata serves waits for that client, which may be slow.)
const MaxServerRequests = 32

// intercept takes a notification the session relays off the connection
// as it is read: log messages and the progress of relayed calls go to
// the relay queue, which drops what does not fit; without a relay,
// nobody wants them. It reports whether it took m. Anything else goes to
// the SDK.
func (s *Session) intercept(req *jsonrpc.Request) bool {
	switch req.Method {
	case "notifications/message":
		if s.queue != nil {
			s.queue.push(s.logRead(req.Params))
		}
		return true
	case "notifications/progress":
		if s.queue == nil {
			return true
		}
		var p struct {
			Token any `json:"progressToken"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			return true
		}
		c := s.relays.byToken(p.Token)
		if c == nil {
			return true // not a call strata relays
		}
		c.noteRead()
		s.queue.push(queued{params: req.Params, call: c})
		return true
	}
	return false
}
