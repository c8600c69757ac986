// Package mcpclient talks to MCP servers with the official Go SDK, over
// stdio ([Start]) or HTTP ([Dial]: streamable HTTP, falling back to the
// older HTTP+SSE), handling its known traps deliberately:
//
//   - the client advertises no capabilities (the SDK's default advertises
//     roots, and servers change their tool lists in response);
//   - tools/list is read page by page with a cap on the pages and a guard
//     against a cursor that repeats;
//   - the _meta of a call is copied, since the SDK writes into it;
//   - the server's stderr is kept (the SDK discards it) for diagnostics;
//   - a server that does not exit when its stdin closes is terminated, and
//     its whole process group killed, after a short wait (the SDK's command
//     transport reaps the server first, after which its group can no longer
//     be killed safely);
//   - results of tools/list are never cached by the SDK (their ttlMs is
//     dropped), since its cache holds no raw schemas;
//   - tool schemas are kept byte for byte: the raw tools/list results are
//     read off the connection, since the SDK decodes schemas into maps;
//   - over HTTP, every response and every event is bounded in size, the
//     event stream of the older transport outlives the startup timeout,
//     and proxies come from the host's environment, not the process's;
//   - for a client strata serves, a session relays ([Relay], [Downstream]):
//     it declares that client's sampling and elicitation capabilities and
//     passes the server's requests for them on, passes on log messages and
//     the progress of that client's calls (under a progress token of its
//     own, which stands for the client's), and sends the client's _meta
//     with its calls;
//   - seed 002's server/identity is asked beside the SDK ([Session.Identity]).
package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/procs"
)

// Spec is how to start a server over stdio.
type Spec struct {
	Command string
	Args    []string
	Dir     string
	// Private starts the server in a new, empty directory made in Dir,
	// removed once it has ended (see procs.Spec.Private).
	Private bool
	Env     []string // the complete environment
	// Grace is how long the server may take to exit once its stdin closes,
	// and again after SIGTERM; 0 is [DefaultGrace].
	Grace time.Duration
	// Relay, when not nil, relays what the server sends for the client
	// strata serves.
	Relay *Relay
}

// DefaultGrace is how long a server may take to exit once asked.
const DefaultGrace = 300 * time.Millisecond

// Stderr keeps the first bytes a server writes to stderr.
type Stderr struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

const stderrCap = 64 << 10

// Write keeps what fits under the cap and drops the rest.
func (s *Stderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if room := stderrCap - s.buf.Len(); room > 0 {
		s.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// String returns what was kept.
func (s *Stderr) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// LastLine returns the last non-blank line, for messages.
func (s *Stderr) LastLine() string {
	lines := strings.Split(strings.TrimSpace(s.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			return l
		}
	}
	return ""
}

// Session is a connection to a server.
type Session struct {
	cs     *mcp.ClientSession
	tap    *tap
	stop   context.CancelFunc // kills the process group
	grace  time.Duration
	Stderr *Stderr
	// Info is the server's serverInfo.
	Info *mcp.Implementation
	// changes is signalled when the server says its tool list changed.
	changes chan struct{}
	done    chan struct{} // closed when the connection ends
	once    sync.Once
	// transport is what the session runs over: TransportStdio,
	// TransportStreamable or TransportSSE; "" for a transport given to
	// Connect.
	transport string
	// relays are the calls under way relayed for a client strata serves.
	relays relays
	// raw sends the requests the SDK does not know (server/identity).
	raw rawCaller
}

// Transport returns what the session runs over: [TransportStdio] for a
// server Start started, [TransportStreamable] or [TransportSSE] for one
// Dial reached, "" for a transport given to [Connect].
func (s *Session) Transport() string { return s.transport }

// Start starts the server of spec and connects to it, waiting at most
// startup for it to answer initialize.
func Start(ctx context.Context, spec Spec, startup time.Duration) (*Session, error) {
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	cmd, err := procs.Command(pctx, procs.Spec{Program: spec.Command, Args: spec.Args, Dir: spec.Dir, Private: spec.Private, Env: spec.Env})
	if err != nil {
		stop()
		return nil, err
	}
	stderr := &Stderr{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stop()
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		stop()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		stop()
		return nil, err
	}
	grace := spec.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	in := &serverStdin{WriteCloser: stdin, cmd: cmd, grace: grace}
	cctx, cancel := withStartup(ctx, startup)
	defer cancel()
	s, err := connect(ctx, cctx, &mcp.IOTransport{Reader: io.NopCloser(stdout), Writer: in}, startup, nil, spec.Relay)
	if err != nil {
		stop()
		if last := stderr.LastLine(); last != "" {
			err = fmt.Errorf("%w; it said: %s", err, last)
		}
		return nil, err
	}
	s.stop, s.Stderr, s.grace, s.transport = stop, stderr, grace, TransportStdio
	return s, nil
}

// Connect connects over a transport, waiting at most startup (0: no
// limit) for initialize.
func Connect(ctx context.Context, t mcp.Transport, startup time.Duration) (*Session, error) {
	cctx, cancel := withStartup(ctx, startup)
	defer cancel()
	return connect(ctx, cctx, t, startup, nil, nil)
}

// withStartup returns ctx bounded by startup (0: not bounded).
func withStartup(ctx context.Context, startup time.Duration) (context.Context, context.CancelFunc) {
	if startup > 0 {
		return context.WithTimeout(ctx, startup)
	}
	return ctx, func() {}
}

// connect connects over a transport under cctx, ctx bounded by the
// startup time. tp, when not nil, is a tap that the transport feeds itself
// (over streamable HTTP, where the connection must stay the SDK's own: it
// learns the session's state through methods a wrapper cannot forward);
// otherwise the connection is wrapped to feed a new one, which also sends
// the requests the SDK does not know. relay, when not nil, relays what the
// server sends for the client strata serves.
func connect(ctx, cctx context.Context, t mcp.Transport, startup time.Duration, tp *tap, relay *Relay) (*Session, error) {
	var tt *tapTransport
	if tp == nil {
		tp = &tap{}
		tt = &tapTransport{Transport: t, tap: tp}
		t = tt
	}
	s := &Session{tap: tp, changes: make(chan struct{}, 1), done: make(chan struct{}), Stderr: &Stderr{}}
	tp.relays = &s.relays
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{}, // no roots: servers answer as to anyone
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changes <- struct{}{}:
			default:
			}
		},
	}
	s.clientOptions(opts, relay)
	client := mcp.NewClient(&mcp.Implementation{Name: "strata", Version: "1"}, opts)
	// A tools/list result is never answered from the SDK's cache (SEP-2549
	// ttlMs), where the tap cannot see the raw result.
	client.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lt, ok := res.(*mcp.ListToolsResult); ok {
				lt.TTLMs = 0
			}
			return res, err
		}
	})
	cs, err := client.Connect(cctx, t, nil)
	if err != nil {
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("did not start within %v", startup)
		}
		return nil, fmt.Errorf("cannot connect: %w", err)
	}
	s.cs = cs
	if tt != nil {
		s.raw = tt.conn
	}
	go func() {
		_ = cs.Wait()
		close(s.done)
	}()
	if ir := cs.InitializeResult(); ir != nil {
		s.Info = ir.ServerInfo
	}
	if relay != nil && relay.Level != "" {
		_ = s.SetLogLevel(cctx, relay.Level) // a server that refuses still serves
	}
	return s, nil
}

// Changes signals when the server says its tool list changed.
func (s *Session) Changes() <-chan struct{} { return s.changes }

// Done is closed when the connection ends: the server exited, or the
// session was closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Close ends the session and the server: its stdin is closed, and after
// the server's grace (see [Spec]) its whole process group is killed. For a
// remote server, Close ends the HTTP session and its event stream.
func (s *Session) Close() error {
	var err error
	s.once.Do(func() {
		done := make(chan error, 1)
		go func() { done <- s.cs.Close() }()
		closed := false
		select {
		case err = <-done:
			closed = true
		case <-time.After(2*s.grace + time.Second):
		}
		if s.stop == nil {
			return
		}
		s.stop() // kill whatever is left of the group
		if !closed {
			select {
			case err = <-done:
			case <-time.After(2 * time.Second):
				err = errors.New("the server did not exit after being killed")
			}
		}
	})
	// A server that had to be killed still ended: that is not a failure.
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		return nil
	}
	return err
}

// Tool is a tool as the server lists it, schemas byte for byte.
type Tool struct {
	Name         string       `json:"name"`
	Title        string       `json:"title,omitempty"`
	Description  string       `json:"description,omitempty"`
	InputSchema  *jsonv.Value `json:"inputSchema"`
	OutputSchema *jsonv.Value `json:"outputSchema,omitempty"`
	Annotations  *jsonv.Value `json:"annotations,omitempty"`
	// Raw is the tool as the server listed it, every key of it (_meta,
	// icons, execution, annotations it does not know), to pass on as it
	// is.
	Raw *jsonv.Value `json:"raw,omitempty"`
}

// MaxPages bounds the pages of tools/list read from one server.
const MaxPages = 100

// Tools lists every tool of the server, all pages.
func (s *Session) Tools(ctx context.Context) ([]Tool, error) {
	var out []Tool
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == MaxPages {
			return nil, fmt.Errorf("tools/list goes on for more than %d pages", MaxPages)
		}
		s.tap.reset()
		res, err := s.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		raw := s.tap.take()
		tools, err := parseTools(raw, res)
		if err != nil {
			return nil, err
		}
		out = append(out, tools...)
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list repeats the cursor %q", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// parseTools reads the tools of a raw tools/list result; without one (a
// transport that hides it), it falls back to what the SDK decoded.
func parseTools(raw []byte, res *mcp.ListToolsResult) ([]Tool, error) {
	if raw != nil {
		v, err := jsonv.Parse(raw)
		if err == nil && v.Get("tools") != nil {
			var out []Tool
			for _, t := range v.Get("tools").Items() {
				name, _ := t.Get("name").Str()
				if name == "" {
					continue // the SDK drops invalid tools too
				}
				title, _ := t.Get("title").Str()
				desc, _ := t.Get("description").Str()
				out = append(out, Tool{Name: name, Title: title, Description: desc, InputSchema: t.Get("inputSchema"), OutputSchema: t.Get("outputSchema"), Annotations: t.Get("annotations"), Raw: t})
			}
			return out, nil
		}
	}
	var out []Tool
	for _, t := range res.Tools {
		tool := Tool{Name: t.Name, Title: t.Title, Description: t.Description}
		var err error
		if tool.InputSchema, err = jsonv.Of(t.InputSchema); err != nil {
			return nil, err
		}
		if t.OutputSchema != nil {
			tool.OutputSchema, _ = jsonv.Of(t.OutputSchema)
		}
		if t.Annotations != nil {
			tool.Annotations, _ = jsonv.Of(t.Annotations)
		}
		out = append(out, tool)
	}
	return out, nil
}

// Call calls a tool with args, a JSON object sent as it is ({} when nil).
// meta, when not nil, is sent as the call's _meta; it is copied first, so
// the caller's map is never written.
//
// A call whose context carries a [Downstream] is relayed for it: the
// client's _meta goes with it (meta's keys win), the server's progress
// for it goes to the client under the client's token, and so do its log
// messages and requests while it is under way.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage, meta map[string]any) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolParams{Name: name}
	if args != nil { // a nil RawMessage in the interface would go out as null
		p.Arguments = args
	}
	if d := DownstreamOf(ctx); d != nil {
		var end func()
		meta, end = s.relays.begin(ctx, d, meta)
		defer end()
	} else if meta != nil {
		meta = maps.Clone(meta)
	}
	if meta != nil {
		p.Meta = mcp.Meta(meta)
	}
	return s.cs.CallTool(ctx, p)
}

// tap records the raw result of the latest tools/list response, and
// counts the progress notifications of relayed calls as they are read.
type tap struct {
	mu     sync.Mutex
	raw    []byte
	relays *relays
}

func (t *tap) reset() {
	t.mu.Lock()
	t.raw = nil
	t.mu.Unlock()
}

func (t *tap) take() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.raw
}

func (t *tap) see(m jsonrpc.Message) {
	switch m := m.(type) {
	case *jsonrpc.Response:
		t.seeResult(m.Result)
	case *jsonrpc.Request:
		if m.Method == "notifications/progress" {
			t.seeProgress(m.Params)
		}
	}
}

// seeRaw sees one raw JSON-RPC message, as read off an HTTP response.
func (t *tap) seeRaw(data []byte) {
	var msg struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &msg) != nil {
		return
	}
	if msg.Method == "notifications/progress" {
		t.seeProgress(msg.Params)
		return
	}
	t.seeResult(msg.Result)
}

// seeProgress counts a progress notification read.
func (t *tap) seeProgress(params json.RawMessage) {
	if t.relays == nil {
		return
	}
	var p struct {
		Token any `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) == nil {
		t.relays.progressRead(p.Token)
	}
}

// seeResult keeps result when it is a tools/list result.
func (t *tap) seeResult(result json.RawMessage) {
	if len(result) == 0 {
		return
	}
	var probe struct {
		Tools json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(result, &probe) == nil && len(probe.Tools) > 0 && probe.Tools[0] == '[' {
		t.mu.Lock()
		t.raw = bytes.Clone(result)
		t.mu.Unlock()
	}
}

// tapTransport wraps the connection of a transport in a tapConn.
type tapTransport struct {
	mcp.Transport
	tap  *tap
	fed  bool     // the transport feeds the tap itself (HTTP+SSE)
	conn *tapConn // the connection made
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	tp := t.tap
	if t.fed {
		tp = nil
	}
	t.conn = &tapConn{Connection: c, tap: tp, pending: pending{ended: make(chan struct{})}}
	return t.conn, nil
}

// tapConn shows the tap (when not nil) what the SDK reads, and carries the
// requests strata sends beside the SDK: it writes them, and takes their
// responses off what it reads.
type tapConn struct {
	mcp.Connection
	tap     *tap
	pending pending
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		m, err := c.Connection.Read(ctx)
		if err != nil {
			c.pending.end()
			return m, err
		}
		if r, ok := m.(*jsonrpc.Response); ok && c.pending.deliver(r) {
			continue
		}
		if c.tap != nil {
			c.tap.see(m)
		}
		return m, nil
	}
}

// serverStdin is the server's stdin; closing it ends the server and its
// process group.
type serverStdin struct {
	io.WriteCloser
	cmd   *procs.Cmd
	grace time.Duration
	once  sync.Once
	err   error
}

// Close closes stdin and ends the server (see [procs.End]).
func (w *serverStdin) Close() error {
	w.once.Do(func() {
		w.WriteCloser.Close()
		w.err = procs.End(w.cmd, w.grace)
	})
	return w.err
}
