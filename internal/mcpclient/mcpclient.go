// Package mcpclient talks to MCP servers with the official Go SDK, over
// stdio ([Start]) or HTTP ([Dial]: streamable HTTP, falling back to the
// older HTTP+SSE), handling its known traps deliberately:
//
//   - the client advertises no capabilities (the SDK's default advertises
//     roots, and servers change their tool lists in response);
//   - tools/list is read page by page within a budget of tools and bytes
//     for all pages together ([Budget]: the first tools within it are
//     kept, and a [Cut] says so), with a guard against a cursor that
//     repeats; the SDK is given only the tools it checks (those with
//     x-mcp-header annotations), since it decodes each into maps, and
//     strata reads the others from the raw result, only those it keeps;
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
//   - what a server sends never piles up while that client reads slowly:
//     log messages and progress go through a bounded queue
//     ([RelayQueueMessages], [RelayQueueBytes]) that drops what does not
//     fit and tells the client how many, and the server's requests past
//     [MaxServerRequests] waiting at once are answered with an error;
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
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/internal/termtext"
	"github.com/strata-config/strata/secret"
)

// Local is a server strata starts, and talks to over its stdin and stdout
// (a [Remote] is one it reaches over HTTP).
//
// Its command, arguments and environment are secrets where the config's
// were (see package secret): Start is where their values are read, to
// start the program, and its errors and the server's stderr it quotes
// show their references.
type Local struct {
	Command secret.String
	Args    []secret.String
	Dir     string
	// Private starts the server in a new, empty directory made in Dir,
	// removed once it has ended (see procs.Invocation.Private).
	Private bool
	Env     []secret.String // the complete environment
	// Grace is how long the server may take to exit once its stdin closes,
	// and again after SIGTERM; 0 is [DefaultGrace].
	Grace time.Duration
	// Relay, when not nil, relays what the server sends for the client
	// strata serves.
	Relay *Relay
	// Installing, when not nil, reports whether the launcher the server
	// is run through is installing it now: while it is when the startup
	// time is over, the start waits for the install to end (at most
	// [MaxInstallWait]), then gives the server the startup time again.
	// An install killed midway can leave a copy that never works (npx's).
	Installing func() bool
}

// secrets are the secrets of l that its errors and its stderr may quote:
// its command, its arguments and the values of its environment.
func (l Local) secrets() []secret.String {
	out := slices.Concat([]secret.String{l.Command}, l.Args)
	for _, e := range l.Env {
		if e.IsSecret() {
			out = append(out, e.Derive(func(kv string) string {
				_, v, _ := strings.Cut(kv, "=")
				return v
			}))
		}
	}
	return out
}

// MaxInstallWait bounds how long a start waits, past its startup time,
// for a launcher that goes on installing (see [Local].Installing): npm
// gives up on a registry that does not answer well before it (its fetch
// timeout is 5 minutes, with two retries of a request, each started
// afresh).
const MaxInstallWait = 10 * time.Minute

// DefaultGrace is how long a server may take to exit once asked.
const DefaultGrace = 300 * time.Millisecond

// Stderr keeps the first bytes a server writes to stderr, and its last.
type Stderr struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	tail  []byte // the last stderrTail bytes, once buf is full
	total int64
}

const (
	stderrCap  = 64 << 10
	stderrTail = 8 << 10
)

// Write keeps what fits under the cap, and the last bytes of the rest.
func (s *Stderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += int64(len(p))
	if room := stderrCap - s.buf.Len(); room > 0 {
		s.buf.Write(p[:min(len(p), room)])
		p = p[min(len(p), room):]
	}
	if len(p) > 0 {
		s.tail = append(s.tail, p[max(0, len(p)-stderrTail):]...)
		if over := len(s.tail) - stderrTail; over > 0 {
			s.tail = append(s.tail[:0], s.tail[over:]...)
		}
	}
	return len(p), nil
}

// end returns the last bytes written, at most stderrTail of them, from
// the start of a line where it can.
func (s *Stderr) end() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.total <= stderrCap {
		b := s.buf.Bytes()
		return string(b[max(0, len(b)-stderrTail):])
	}
	if s.total-stderrCap >= stderrTail {
		return string(s.tail)
	}
	head := s.buf.Bytes()[stderrCap-(stderrTail-len(s.tail)):]
	return string(head) + string(s.tail)
}

// LastLines returns the last n lines the server wrote to stderr that say
// something, oldest first, each at most 200 bytes, as written (escape
// them to print them): blank lines, and the frames of a JavaScript or
// Java stack trace ("    at f (file:1:2)"), are left out, so that the
// error a trace follows shows.
func (s *Stderr) LastLines(n int) []string {
	lines := strings.Split(s.end(), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "at ") && lines[i] != l {
			continue
		}
		if len(l) > 200 {
			l = strings.ToValidUTF8(l[:200], "") + "..."
		}
		out = append(out, l)
	}
	slices.Reverse(out)
	return out
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
	stdin  *serverStdin       // a started server's stdin, which holds its grace
	Stderr *Stderr
	// Info is the server's serverInfo.
	Info *mcp.Implementation
	// changes is signalled when the server says its tool list changed;
	// offersChanged, its resources or prompts.
	changes, offersChanged chan struct{}
	done                   chan struct{} // closed when the connection ends
	once                   sync.Once
	// transport is what the session runs over: TransportStdio,
	// TransportStreamable or TransportSSE; "" for a transport given to
	// Connect.
	transport string
	// relays are the calls under way relayed for a client strata serves.
	relays relays
	// hostAsk answers the server's requests outside such calls
	// ([Relay].Ask); nil: they are refused.
	hostAsk func(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error)
	// queue passes the server's log messages and progress on to that
	// client; nil without a relay.
	queue *relayQueue
	// raw sends the requests the SDK does not know (server/identity).
	raw rawCaller
	// secrets are what the server was started with or is sent that the
	// errors of the session and the server's stderr may quote (net/http
	// names the URL, a server may echo its arguments): they show their
	// references instead (see hide and StderrEnd).
	secrets []secret.String
}

// StderrEnd returns the last n lines the server wrote to stderr that say
// something (see [Stderr.LastLines]), a secret's value replaced by its
// reference: for the local user's terminal, never for a client.
func (s *Session) StderrEnd(n int) []string {
	lines := s.Stderr.LastLines(n)
	for i, l := range lines {
		lines[i] = secret.Redact(l, s.secrets...)
	}
	return lines
}

// hide replaces the values of the session's secrets in *err by their
// references.
func (s *Session) hide(err *error) {
	if *err != nil && len(s.secrets) > 0 {
		*err = secret.RedactError(*err, s.secrets...)
	}
}

// Transport returns what the session runs over: [TransportStdio] for a
// server Start started, [TransportStreamable] or [TransportSSE] for one
// Dial reached, "" for a transport given to [Connect].
func (s *Session) Transport() string { return s.transport }

// Start starts the server of spec and connects to it, waiting at most
// startup for it to answer initialize.
func Start(ctx context.Context, spec Local, startup time.Duration) (*Session, error) {
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	secrets := spec.secrets()
	cmd, err := procs.Command(pctx, procs.Invocation{Program: spec.Command.Reveal(), Args: secret.Values(spec.Args), Dir: spec.Dir, Private: spec.Private, Env: secret.Values(spec.Env)})
	if err != nil {
		stop()
		return nil, secret.RedactError(err, secrets...)
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
		return nil, secret.RedactError(err, secrets...)
	}
	grace := spec.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	in := &serverStdin{WriteCloser: stdin, cmd: cmd}
	in.grace.Store(int64(grace))
	cctx, cancel := withInstall(ctx, startup, spec.Installing, time.Second)
	defer cancel()
	s, err := connect(ctx, cctx, &mcp.IOTransport{Reader: io.NopCloser(stdout), Writer: in}, startup, nil, spec.Relay)
	if err != nil {
		se := &StartError{Err: secret.RedactError(err, secrets...)}
		if !errors.As(err, &se.Timeout) {
			// The connection closed: the server has most likely exited;
			// its exit status says how, once it is reaped.
			var ee *exec.ExitError
			if errors.As(in.Close(), &ee) && ee.Exited() && ee.ExitCode() != 0 {
				se.Exit = ee.String()
			}
		}
		stop()
		_ = in.Close() // reaped: its stderr is whole
		se.Stderr = stderr.LastLines(StderrLines)
		for i, l := range se.Stderr {
			se.Stderr[i] = secret.Redact(l, secrets...)
		}
		return nil, se
	}
	s.stop, s.Stderr, s.stdin, s.transport, s.secrets = stop, stderr, in, TransportStdio, secrets
	return s, nil
}

// StderrLines is how many lines of a server's stderr a [StartError]
// quotes.
const StderrLines = 5

// StartError is why a server started over stdio did not get through its
// start: it did not answer initialize within the startup time (Timeout),
// it exited (Exit), or the connection failed otherwise (Err).
type StartError struct {
	// Timeout is the startup time, when the server did not answer within
	// it; 0 otherwise.
	Timeout TimeoutError
	// Exit is how the server exited during its start ("exit status 1"),
	// when it exited with a status other than 0; "" otherwise.
	Exit string
	// Stderr are the last lines the server wrote to stderr that say
	// something, as written ([Stderr.LastLines]), a secret's value
	// replaced by its reference. They are not part of the error's text,
	// which may reach the clients of a gateway: only the local user sees
	// them ([StderrOf]).
	Stderr []string
	// Err is the connection's error.
	Err error
}

func (e *StartError) Error() string {
	switch {
	case e.Timeout > 0:
		return e.Timeout.Error()
	case e.Exit != "":
		return fmt.Sprintf("exited during its start (%s)", e.Exit)
	}
	return e.Err.Error()
}

func (e *StartError) Unwrap() error { return e.Err }

// ServerStderr returns the last lines the server wrote to stderr.
func (e *StartError) ServerStderr() []string { return e.Stderr }

// StderrOf returns the last lines a server wrote to its stderr that the
// first error of err's chain that keeps them holds (a [StartError], an
// upstream error): nil when none does. Only the local user's terminal
// shows them (strata's stderr, doctor); an error's text, which a
// gateway's clients may get, never holds them.
func StderrOf(err error) []string {
	var s interface{ ServerStderr() []string }
	if errors.As(err, &s) {
		return s.ServerStderr()
	}
	return nil
}

// StderrText is the last lines a server wrote to its stderr, as a line:
// "its stderr ends: a | b", or "" for none. What a terminal acts on in
// them is escaped.
func StderrText(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = termtext.Line(l)
	}
	return "its stderr ends: " + strings.Join(out, " | ")
}

// TimeoutError is a server's start that took longer than the startup
// time it is.
type TimeoutError time.Duration

func (e TimeoutError) Error() string {
	return fmt.Sprintf("did not start within %v", time.Duration(e))
}

// Connect connects over a transport, waiting at most startup (0: no
// limit) for initialize; relay, when not nil, passes on what the server
// sends for the client strata serves, as a started server's does.
func Connect(ctx context.Context, t mcp.Transport, startup time.Duration, relay *Relay) (*Session, error) {
	cctx, cancel := withStartup(ctx, startup)
	defer cancel()
	return connect(ctx, cctx, t, startup, nil, relay)
}

// withInstall returns ctx bounded by startup, as withStartup does, but
// for the time installing reports an install under way when startup is
// over: the bound then waits for the install to end (asking every
// check, at most MaxInstallWait), and starts again. nil installing is
// withStartup.
func withInstall(ctx context.Context, startup time.Duration, installing func() bool, check time.Duration) (context.Context, context.CancelFunc) {
	if startup <= 0 || installing == nil {
		return withStartup(ctx, startup)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	go func() {
		limit := time.NewTimer(startup + MaxInstallWait)
		defer limit.Stop()
		bound := time.NewTimer(startup)
		defer bound.Stop()
		tick := time.NewTicker(check)
		defer tick.Stop()
		// next waits for c: false when the start is over first (done, or
		// past the limit).
		next := func(c <-chan time.Time) bool {
			select {
			case <-cctx.Done():
				return false
			case <-limit.C:
				cancel(context.DeadlineExceeded)
				return false
			case <-c:
				return true
			}
		}
		for next(bound.C) {
			if !installing() {
				cancel(context.DeadlineExceeded)
				return
			}
			// The install goes on: wait for its end, then give the
			// server its startup time.
			for installing() {
				if !next(tick.C) {
					return
				}
			}
			bound.Reset(startup)
		}
	}()
	return cctx, func() { cancel(context.Canceled) }
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
	s := &Session{changes: make(chan struct{}, 1), offersChanged: make(chan struct{}, 1), done: make(chan struct{}), Stderr: &Stderr{}}
	var tt *tapTransport
	if tp == nil {
		tp = &tap{}
		tt = &tapTransport{Transport: t, tap: tp}
		t = tt
	}
	s.tap = tp
	if relay != nil {
		s.queue = newRelayQueue(relay, &s.relays)
	}
	if w, ok := t.(*tapTransport); ok {
		// The connection takes the notifications to relay off what it
		// reads, and bounds the server's requests.
		w.session = s
	} else {
		// The SDK reads the connection (streamable HTTP) and hands them
		// to the handlers; the tap counts the progress read.
		tp.relays = &s.relays
	}
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{}, // no roots: servers answer as to anyone
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changes <- struct{}{}:
			default:
			}
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { s.offersChange() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { s.offersChange() },
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
	if relay != nil && relay.Elicitation != nil {
		client.AddReceivingMiddleware(relayElicitation(s))
	}
	if relay != nil && relay.Capabilities.Roots != nil {
		client.AddReceivingMiddleware(relayRoots(s, relay))
	}
	// The connection outlives whoever connects (a listing, a call), and
	// the SDK handles the server's requests under its context: it takes
	// none of the caller's values (a call's relay, which ends with the
	// call), only the bound of the start.
	lctx, lcancel := context.WithCancel(context.Background())
	defer lcancel()
	defer context.AfterFunc(cctx, lcancel)()
	cs, err := client.Connect(lctx, t, &mcp.ClientSessionOptions{ProtocolVersion: UpstreamProtocol})
	if err != nil {
		if errors.Is(context.Cause(cctx), context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, TimeoutError(startup)
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
	if s.queue != nil {
		// Not ctx: its values are those of whatever started the server.
		go s.queue.run(context.Background(), s.done)
	}
	if ir := cs.InitializeResult(); ir != nil {
		s.Info = ir.ServerInfo
	}
	if relay != nil && relay.Level != "" {
		_ = s.SetLogLevel(cctx, relay.Level) // a server that refuses still serves
	}
	return s, nil
}

// UpstreamProtocol is the protocol version strata asks its servers for:
// 2025-11-25, where a server sends its requests (sampling, elicitation)
// and log messages on its own, and strata relays them to clients of
// either protocol. Servers of 2026-07-28 send log messages only for a
// level a request's _meta names and ask through the results of calls;
// the servers in the field speak 2025-11-25 (the TypeScript SDK's), and
// the Go SDK's conformance server fails its sampling, elicitation and
// logging tools on 2026-07-28.
const UpstreamProtocol = "2025-11-25"

// offersChange signals that the server's resources or prompts changed.
func (s *Session) offersChange() {
	select {
	case s.offersChanged <- struct{}{}:
	default:
	}
}

// Changes signals when the server says its tool list changed.
func (s *Session) Changes() <-chan struct{} { return s.changes }

// Done is closed when the connection ends: the server exited, or the
// session was closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Close ends the session and the server: its stdin is closed, and after
// the server's grace (see [Local]) its whole process group is killed. For a
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
		case <-time.After(2*s.grace() + time.Second):
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

// Tool is a tool as the server lists it, schemas byte for byte: its JSON
// texts are compact, keys and scalars as the server wrote them. They are
// read, not changed.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"` // nil where the server gave none
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// Raw is the tool as the server listed it, every key of it (_meta,
	// icons, execution, annotations it does not know), to pass on as it
	// is; nil for a tool the SDK decoded (a transport that hides the raw
	// listing).
	Raw json.RawMessage `json:"raw,omitempty"`
}

// ToolOf returns the tool whose JSON object, compact, is raw, which has
// its name (see [Tool]): raw is its Raw unless decoded (what the SDK
// decoded), and its schemas and annotations are slices of raw. A
// server's listing is held so as text, once: 10,000 tools are about 3 MB
// so, and some 30 MB as jsonv Values.
func ToolOf(raw json.RawMessage, decoded bool) Tool {
	m := jsonv.Members(raw, "name", "title", "description", "inputSchema", "outputSchema", "annotations")
	name, _ := jsonv.Text(m[0])
	title, _ := jsonv.Text(m[1])
	desc, _ := jsonv.Text(m[2])
	t := Tool{Name: name, Title: title, Description: desc, InputSchema: m[3], OutputSchema: m[4], Annotations: m[5]}
	if !decoded {
		t.Raw = raw
	}
	return t
}

// Budget bounds one server's tool list, all its pages together: how many
// tools are kept, and how many bytes of tools/list results are read. A
// list that goes past it keeps its first tools within it (see [Cut]);
// pages are asked for until then, however many there are.
type Budget struct {
	// Tools is how many tools are kept; 0 is 10,000.
	Tools int
	// Bytes is how many bytes of tools/list results are read, all pages
	// together: the tools kept, and what each page holds besides them (a
	// cursor, _meta). 0 is 4 MiB.
	Bytes int64
}

// WithDefaults returns b with each zero field set to its default.
func (b Budget) WithDefaults() Budget {
	b.Tools = limits.Or(b.Tools, limits.ServerTools)
	if b.Bytes <= 0 {
		b.Bytes = limits.ServerListing
	}
	return b
}

// Cut says that a server's tool list went past its [Budget]: how many of
// its first tools were kept, how many bytes of its pages were read for
// them, and which bound was reached: By is "tools" or "bytes", Bound its
// value.
type Cut struct {
	Kept  int    `json:"kept"`
	Bytes int64  `json:"bytes"`
	By    string `json:"by"`
	Bound int64  `json:"bound"`
}

// Tools lists the tools of the server, page by page, within b: when the
// list goes past it, its first tools are kept, and the Cut says so.
func (s *Session) Tools(ctx context.Context, b Budget) (_ []Tool, _ *Cut, err error) {
	defer s.hide(&err)
	b = b.WithDefaults()
	var out []Tool
	var read int64 // bytes of the pages read, less the tools left out
	seen := map[string]bool{}
	cursor := ""
	for {
		s.tap.reset()
		res, err := s.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, nil, fmt.Errorf("tools/list: %w", err)
		}
		var cut *Cut
		if raw := s.tap.take(); raw != nil {
			out, read, cut, err = pageTools(out, read, raw, b, checked(res))
		} else {
			// A transport that hides the raw result: what the SDK
			// decoded, within the budget's count.
			out, cut, err = fallbackTools(out, res, b)
		}
		if err != nil || cut != nil {
			return out, cut, err
		}
		if res.NextCursor == "" {
			return out, nil, nil
		}
		if seen[res.NextCursor] {
			return nil, nil, fmt.Errorf("tools/list repeats the cursor %q", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// checked returns the names of the tools the SDK kept of a result: a
// tool with x-mcp-header annotations that it dropped (they are invalid)
// is dropped.
func checked(res *mcp.ListToolsResult) map[string]bool {
	names := make(map[string]bool, len(res.Tools))
	for _, t := range res.Tools {
		names[t.Name] = true
	}
	return names
}

// pageTools adds to out the tools of one raw tools/list result, read
// after read bytes of the pages before it, until the budget b is reached:
// only the tools kept are copied and parsed. A tool with x-mcp-header
// annotations is kept only when the SDK kept it (sdk).
func pageTools(out []Tool, read int64, raw []byte, b Budget, sdk map[string]bool) ([]Tool, int64, *Cut, error) {
	var cut *Cut
	var perr error
	err := walkTools(raw, func(t json.RawMessage) bool {
		switch {
		case len(out) == b.Tools:
			cut = &Cut{Kept: len(out), Bytes: read, By: "tools", Bound: int64(b.Tools)}
			return false
		case read+int64(len(t)) > b.Bytes:
			cut = &Cut{Kept: len(out), Bytes: read, By: "bytes", Bound: b.Bytes}
			return false
		}
		read += int64(len(t))
		raw, err := jsonv.Compact(t) // what jsonv.Parse accepts, as it writes it
		if err != nil {
			perr = fmt.Errorf("tools/list: a tool after %d: %w", len(out), err)
			return false
		}
		if tool := ToolOf(raw, false); tool.Name != "" && (sdk[tool.Name] || !bytes.Contains(t, headerAnnotation)) { // the SDK drops these too
			out = append(out, tool)
		}
		return true
	}, func(key string, v json.RawMessage) {
		read += int64(len(key) + len(v))
	})
	switch {
	case perr != nil:
		return out, read, nil, perr
	case err != nil:
		return out, read, nil, fmt.Errorf("tools/list: %w", err)
	case cut == nil && read > b.Bytes:
		// What the page holds besides its tools went past the budget (a
		// page of no tools and a huge cursor, say).
		cut = &Cut{Kept: len(out), Bytes: read, By: "bytes", Bound: b.Bytes}
	}
	return out, read, cut, nil
}

// fallbackTools adds to out the tools the SDK decoded, for a transport
// that hides the raw result, until the budget's count.
func fallbackTools(out []Tool, res *mcp.ListToolsResult, b Budget) ([]Tool, *Cut, error) {
	for _, t := range res.Tools {
		if len(out) == b.Tools {
			return out, &Cut{Kept: len(out), By: "tools", Bound: int64(b.Tools)}, nil
		}
		tool := Tool{Name: t.Name, Title: t.Title, Description: t.Description}
		v, err := jsonv.Of(t.InputSchema)
		if err != nil {
			return nil, nil, err
		}
		tool.InputSchema = v.JSON()
		if t.OutputSchema != nil {
			if v, err := jsonv.Of(t.OutputSchema); err == nil {
				tool.OutputSchema = v.JSON()
			}
		}
		if t.Annotations != nil {
			if v, err := jsonv.Of(t.Annotations); err == nil {
				tool.Annotations = v.JSON()
			}
		}
		out = append(out, tool)
	}
	return out, nil, nil
}

// walkTools reads a tools/list result: each tool of its "tools" array
// goes to tool, in order, until tool returns false (the array is then
// read no further, and nothing after it); a nil tool skips them, with no
// copy. Each other member of the result goes to other, when not nil. A
// result without tools (no "tools", or null) has none.
func walkTools(result []byte, tool func(json.RawMessage) bool, other func(key string, value json.RawMessage)) error {
	dec := json.NewDecoder(bytes.NewReader(result))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("the result is not a JSON object")
	}
	walked := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if key != "tools" || walked {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return err
			}
			if other != nil {
				other(key, v)
			}
			continue
		}
		walked = true
		switch t, err := dec.Token(); {
		case err != nil:
			return err
		case t == nil:
			continue // null: no tools
		case t != json.Delim('['):
			return errors.New(`its "tools" is not an array`)
		}
		for dec.More() {
			if tool == nil {
				// Decoding into nothing reads the value through, and
				// says only that it is not an object.
				var skip struct{}
				var te *json.UnmarshalTypeError
				if err := dec.Decode(&skip); err != nil && !errors.As(err, &te) {
					return err
				}
				continue
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return err
			}
			if !tool(v) {
				return nil
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	return nil
}

// Call calls a tool with args, a JSON object sent as it is ({} when nil).
// meta, when not nil, is sent as the call's _meta; it is copied first, so
// the caller's map is never written.
//
// A call whose context carries a [Downstream] is relayed for it: the
// client's _meta goes with it (meta's keys win), the server's progress
// for it goes to the client under the client's token, and so do its log
// messages and requests while it is under way.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage, meta map[string]any) (_ *mcp.CallToolResult, err error) {
	defer s.hide(&err)
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
// counts the progress notifications and log messages of relayed calls as
// they are read.
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

// keep keeps result, a tools/list result, as it is.
func (t *tap) keep(result []byte) {
	t.mu.Lock()
	t.raw = result
	t.mu.Unlock()
}

// take returns the raw result kept, and keeps it no longer.
func (t *tap) take() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw := t.raw
	t.raw = nil
	return raw
}

// seeRaw sees one raw JSON-RPC message, as read off an HTTP response, and
// reports whether it is a response.
func (t *tap) seeRaw(data []byte) (response bool) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &msg) != nil {
		return false
	}
	switch msg.Method {
	case "notifications/progress":
		t.seeProgress(msg.Params)
		return false
	case "notifications/message":
		if t.relays != nil {
			t.relays.logSeen()
		}
		return false
	}
	t.seeResult(msg.Result)
	return msg.Method == "" && len(msg.ID) > 0
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
	tap     *tap
	fed     bool     // the transport feeds the tap itself (HTTP+SSE)
	conn    *tapConn // the connection made
	session *Session // the session over it (see [Session.intercept])
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
	t.conn = &tapConn{Connection: c, tap: tp, session: t.session, pending: pending{ended: make(chan struct{})}, asked: map[any]bool{}, lists: map[any]bool{}}
	return t.conn, nil
}

// tapConn shows the tap (when not nil) what the SDK reads, and carries the
// requests strata sends beside the SDK: it writes them, and takes their
// responses off what it reads. It takes the notifications the session
// relays off what it reads (see [Session.intercept]), and answers the
// server's requests past [MaxServerRequests] waiting at once with an
// error, so that what a server sends never piles up unbounded in the SDK
// while the client strata serves is slow.
type tapConn struct {
	mcp.Connection
	tap     *tap
	session *Session
	pending pending

	mu    sync.Mutex
	asked map[any]bool // the server's requests not answered yet, by id
	lists map[any]bool // the tools/list requests not answered yet, by id
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
		if r, ok := m.(*jsonrpc.Response); ok && c.listed(r) {
			return m, nil
		}
		if r, ok := m.(*jsonrpc.Request); ok && c.session != nil {
			if !r.IsCall() && c.session.intercept(r) {
				continue
			}
			if r.IsCall() && !c.admit(ctx, r) {
				continue
			}
		}
		return m, nil
	}
}

// admit counts a request of the server as waiting for its answer, or
// answers it with an error when too many wait already.
func (c *tapConn) admit(ctx context.Context, r *jsonrpc.Request) bool {
	c.mu.Lock()
	full := len(c.asked) >= MaxServerRequests
	if !full {
		c.asked[r.ID.Raw()] = true
	}
	c.mu.Unlock()
	if full {
		_ = c.Connection.Write(ctx, &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("strata: %d requests of this server wait for their answers already; ask again once they are answered", MaxServerRequests),
		}})
	}
	return !full
}

// Write writes m, counts an answer to a request of the server as given,
// and remembers the tools/list requests.
func (c *tapConn) Write(ctx context.Context, m jsonrpc.Message) error {
	switch r := m.(type) {
	case *jsonrpc.Response:
		c.mu.Lock()
		delete(c.asked, r.ID.Raw())
		c.mu.Unlock()
	case *jsonrpc.Request:
		if r.Method == "tools/list" && r.IsCall() {
			c.mu.Lock()
			c.lists[r.ID.Raw()] = true
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, m)
}

// listed takes a tools/list result off a response (when r answers one):
// the tap keeps it as it is, and the SDK gets what it uses of it (see
// [sdkTools]).
func (c *tapConn) listed(r *jsonrpc.Response) bool {
	c.mu.Lock()
	list := c.lists[r.ID.Raw()]
	delete(c.lists, r.ID.Raw())
	c.mu.Unlock()
	if !list || r.Error != nil || len(r.Result) == 0 {
		return false
	}
	if c.tap != nil {
		c.tap.keep(r.Result) // read off the connection: it is ours
	}
	r.Result = sdkTools(r.Result)
	return true
}

// headerAnnotation marks the tools whose schemas the SDK checks, and whose
// arguments it sends as headers with calls over streamable HTTP
// (x-mcp-header).
var headerAnnotation = []byte("x-mcp-header")

// sdkTools returns the tools/list result the SDK is given: the result
// less its tools but those with x-mcp-header annotations, which the SDK
// checks (it drops those it finds invalid) and uses in calls. The SDK
// decodes every tool it gets into maps and checks it (about 32 kB of
// garbage a tool): strata reads the tools from the raw result, which
// costs a fraction of that. A result it cannot read is given as it is.
func sdkTools(result json.RawMessage) json.RawMessage {
	var keep func(json.RawMessage) bool
	tools := []json.RawMessage{}
	if bytes.Contains(result, headerAnnotation) {
		keep = func(t json.RawMessage) bool {
			if bytes.Contains(t, headerAnnotation) {
				tools = append(tools, t)
			}
			return true
		}
	}
	var others bytes.Buffer
	err := walkTools(result, keep, func(key string, v json.RawMessage) {
		if key == "tools" {
			return // a second one, which the SDK would read instead
		}
		k, _ := json.Marshal(key)
		others.WriteByte(',')
		others.Write(k)
		others.WriteByte(':')
		others.Write(v)
	})
	list, merr := json.Marshal(tools)
	if err != nil || merr != nil {
		return result
	}
	out := make([]byte, 0, len(`{"tools":}`)+len(list)+others.Len())
	out = append(out, `{"tools":`...)
	out = append(out, list...)
	out = append(out, others.Bytes()...)
	return append(out, '}')
}

// serverStdin is the server's stdin; closing it ends the server and its
// process group.
type serverStdin struct {
	io.WriteCloser
	cmd   *procs.Cmd
	grace atomic.Int64 // a time.Duration
	idle  atomic.Bool  // asked to end (SIGTERM) as its stdin closes
	once  sync.Once
	err   error
}

// Close closes stdin and ends the server (see [procs.End]).
func (w *serverStdin) Close() error {
	w.once.Do(func() {
		w.WriteCloser.Close()
		grace := time.Duration(w.grace.Load())
		wait := grace
		if w.idle.Load() {
			wait = 0
		}
		w.err = procs.End(w.cmd, wait, grace)
	})
	return w.err
}

// grace is how long the server may take to exit; 0 for a server strata
// did not start.
func (s *Session) grace() time.Duration {
	if s.stdin == nil {
		return 0
	}
	return time.Duration(s.stdin.grace.Load())
}

// SetIdle says the server has nothing to finish (its host only listed its
// tools): when the session closes, the server's process group is sent
// SIGTERM as its stdin closes, without waiting for it to exit on its own
// (server-everything keeps Node alive 350 ms after its stdin ends), and
// SIGKILL after grace. It does nothing for a server strata did not start.
func (s *Session) SetIdle(grace time.Duration) {
	if s.stdin != nil && grace > 0 {
		s.stdin.grace.Store(int64(grace))
		s.stdin.idle.Store(true)
	}
}
