// Package upstream runs the MCP servers strata is a client of: it starts
// them (or connects to them), lists their tools, calls them, and, for a
// host that lives longer than one resolution, keeps them running between
// resolutions and calls ([Servers]).
package upstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/exe"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/launcher"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/signin"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
	"github.com/strata-config/strata/trust"
)

// Server is one MCP server as the config describes it: how to reach it
// (a program to start, or a URL), and what holds it (pin, budget, the
// untrusted workspace).
type Server struct {
	// Name is the server's name in the config.
	Name string
	// Command, Args and Env are secrets where the config's values were
	// (see package secret): only the launch (mcpclient.Start) and the
	// checks on its way (Refused, the identity) read their values.
	Command secret.String // the program: a path, or a name found in PATH
	Args    []secret.String
	Env     []secret.String // the whole environment of the process
	Dir     string
	// Private starts the server in a new, empty directory made in Dir for
	// its session, removed when it stops (see procs.Invocation.Private).
	Private bool
	// Startup bounds the start and the handshake; ToolTimeout bounds a
	// listing or a call.
	Startup, ToolTimeout time.Duration
	// Launch is what a pin covers; Pin, when set, must match it right
	// before the server starts.
	Launch trust.Launch
	Pin    *trust.Pin
	// Key is the cache key of the server's tools; nil when they are not
	// cached.
	Key *cache.Key
	// Remote, when its URL is set, is a remote server to connect to over
	// HTTP instead of a program to start; TokenVar names the variable its
	// bearer token was to come from, for messages.
	Remote   mcpclient.Remote
	TokenVar string
	// SignInErr, when set, is why the sign-in of a remote server cannot
	// be made (a machine's secret or key missing): it does not start.
	SignInErr error
	// Transport, when set, connects to the server instead of starting
	// Command (tests give in-memory servers through it).
	Transport func(ctx context.Context) (mcp.Transport, error)
	// InProcess reports that Transport reaches the host's own server,
	// served in its process.
	InProcess bool
	// Client are the capabilities of the client strata serves that are
	// declared to the server (see [Servers.Serve]): they are part of what
	// the server is started with, since a server may list tools by them.
	Client mcpclient.Capabilities
	// Budget bounds the server's tool list, all pages together; the zero
	// Budget is the default.
	Budget mcpclient.Budget
	// Untrusted is the workspace nobody trusted, if any: a server whose
	// launch resolves into it does not start (see [Server.Refused]).
	Untrusted untrusted.Workspace
	// Offer is how strata serve offers the server's resources and
	// prompts (see [Aggregate]).
	Offer Naming
	// Launcher, when not nil, is the launcher Command is (npx, uvx, ...):
	// while npx installs the server, its start waits (see
	// [mcpclient.Local].Installing), and a start that fails says what to
	// delete when an install that was stopped left npx's copy broken.
	Launcher *launcher.Launch
	// Installs reports that the start installs the server first.
	Installs bool
	// Setting says how to give the server's key (startup_timeout_sec)
	// the value in the file that configures the server, and, for key "",
	// where the server is configured ("under [mcp_servers.fs] in
	// .strata/config.toml", "of mcpServers.fs in .mcp.json"), for the
	// fixes messages name; nil says "under [mcp_servers.<name>]".
	Setting func(key, value string) string
}

// Refused returns why the server may not start, a [*untrusted.Refused]:
// its program, directory, script or a variable the config sets resolves
// into the untrusted workspace. Nil for a server that may, and for a
// remote one.
func (s Server) Refused() error {
	if s.Transport != nil || !s.Remote.URL.Empty() {
		return nil
	}
	program := s.Command.Reveal()
	return s.Untrusted.Check(untrusted.Launch{Program: program, Args: secret.Values(s.Args), Dir: s.Dir, Private: s.Private, Env: s.Launch.Env, Interpreter: exe.IsInterpreter(program)})
}

// Answer is what a server says: who it is, and its tools, schemas byte for
// byte.
type Answer struct {
	ServerInfo *mcp.Implementation `json:"serverInfo,omitempty"`
	Tools      []mcpclient.Tool    `json:"tools"`
	// Identity is the server's answer to seed 002's server/identity, when
	// it gave one: while it stays the same, so do the tools.
	Identity *mcpclient.Identity `json:"identity,omitempty"`
	// Cut, when not nil, says that the tool list went past the budget
	// (see [Server].Budget): Tools are its first tools within it.
	Cut *mcpclient.Cut `json:"cut,omitempty"`
}

// Cached returns the tools of the server of s that c holds, or nil: none,
// or an answer larger than the budget of s allows, which an earlier
// strata, without a budget, may have written (more tools, or more than
// twice the budget's bytes). That is listed again, within the budget.
func Cached(c *cache.Cache, s Server) *Answer {
	if s.Key == nil || c == nil {
		return nil
	}
	b := s.Budget.WithDefaults()
	data, ok := c.Get(*s.Key)
	if !ok || int64(len(data)) > 2*b.Bytes {
		return nil
	}
	var a Answer
	if a.UnmarshalJSON(data) != nil || len(a.Tools) > b.Tools {
		return nil
	}
	return &a
}

// answerJSON is how an [Answer] is kept: each tool once, as the server
// listed it (its raw JSON, whose members give the tool's fields), or, for
// an answer Decoded from what the SDK decoded (a transport that hides the
// raw listing), its fields as an MCP tool.
type answerJSON struct {
	ServerInfo *mcp.Implementation `json:"serverInfo,omitempty"`
	Tools      []json.RawMessage   `json:"tools"`
	Decoded    bool                `json:"decoded,omitempty"`
	Identity   *mcpclient.Identity `json:"identity,omitempty"`
	Cut        *mcpclient.Cut      `json:"cut,omitempty"`
}

// MarshalJSON writes the answer as the cache keeps it: each tool once,
// as the server listed it (see [Answer.UnmarshalJSON]).
func (a Answer) MarshalJSON() ([]byte, error) {
	f := answerJSON{ServerInfo: a.ServerInfo, Tools: make([]json.RawMessage, len(a.Tools)), Identity: a.Identity, Cut: a.Cut}
	for _, t := range a.Tools {
		if t.Raw == nil {
			f.Decoded = true
		}
	}
	for i, t := range a.Tools {
		if !f.Decoded {
			f.Tools[i] = t.Raw
			continue
		}
		t.Raw = nil // its fields as an MCP tool, as it read them: none left out, none added
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		f.Tools[i] = b
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what [Answer.MarshalJSON] wrote, with the checks
// of jsonv.Parse, into text: the tools are slices of one compact copy of
// b (see [mcpclient.ToolOf]), and no jsonv Values are made.
func (a *Answer) UnmarshalJSON(b []byte) error {
	c, err := jsonv.Compact(b)
	if err != nil {
		return err
	}
	if c[0] != '{' {
		return errors.New("an answer is not a JSON object")
	}
	var out Answer
	keys := []string{"serverInfo", "identity", "cut", "decoded", "tools"}
	m := jsonv.Members(c, keys...)
	for i, x := range []any{&out.ServerInfo, &out.Identity, &out.Cut} {
		if m[i] != nil {
			if err := json.Unmarshal(m[i], x); err != nil {
				return fmt.Errorf("%s: %w", keys[i], err)
			}
		}
	}
	decoded := string(m[3]) == "true"
	tools, ok := jsonv.Elements(m[4])
	if !ok {
		return errors.New("an answer has no tools array")
	}
	out.Tools = make([]mcpclient.Tool, 0, len(tools))
	for _, t := range tools {
		if t[0] != '{' {
			return errors.New("a tool is not a JSON object")
		}
		tool := mcpclient.ToolOf(t, decoded)
		if tool.Name == "" {
			return errors.New("a tool has no name")
		}
		out.Tools = append(out.Tools, tool)
	}
	*a = out
	return nil
}

// SameTools reports whether a and b list the same tools of the same
// server, whatever identity each was given with. They are compared as
// JSON values (see [jsonv.Equal]), texts written the same way as bytes.
func SameTools(a, b Answer) bool {
	if len(a.Tools) != len(b.Tools) || (a.Cut == nil) != (b.Cut == nil) || a.Cut != nil && *a.Cut != *b.Cut {
		return false
	}
	if (a.ServerInfo == nil) != (b.ServerInfo == nil) {
		return false
	}
	if a.ServerInfo != nil {
		ia, err1 := json.Marshal(a.ServerInfo)
		ib, err2 := json.Marshal(b.ServerInfo)
		if err1 != nil || err2 != nil || !sameJSON(ia, ib) {
			return false
		}
	}
	for i := range a.Tools {
		x, y := &a.Tools[i], &b.Tools[i]
		if x.Name != y.Name || x.Title != y.Title || x.Description != y.Description ||
			!sameJSON(x.InputSchema, y.InputSchema) || !sameJSON(x.OutputSchema, y.OutputSchema) ||
			!sameJSON(x.Annotations, y.Annotations) || !sameJSON(x.Raw, y.Raw) {
			return false
		}
	}
	return true
}

// sameJSON reports whether a and b, JSON texts or nil, are the same JSON
// value (see [jsonv.Equal]); the same bytes are, without reading them.
func sameJSON(a, b []byte) bool {
	switch {
	case a == nil || b == nil:
		return a == nil && b == nil
	case bytes.Equal(a, b):
		return true
	}
	x, err1 := jsonv.Parse(a)
	y, err2 := jsonv.Parse(b)
	return err1 == nil && err2 == nil && jsonv.Equal(x, y)
}

// EnvNames returns the names of the variables the server's process
// receives (never their values), in the order of its environment.
func (s Server) EnvNames() []string {
	out := make([]string, 0, len(s.Env))
	for _, kv := range s.Env {
		name, _, _ := strings.Cut(kv.Reveal(), "=")
		out = append(out, name)
	}
	return out
}

// CommandLine is the server's command line, or its URL, for messages: a
// secret's reference stands for its value.
func (s Server) CommandLine() string {
	if s.InProcess {
		return "the host's in-process server " + s.Name
	}
	if !s.Remote.URL.Empty() {
		return s.Remote.URL.String()
	}
	return shellquote.Join(append([]string{s.Command.String()}, secret.Texts(s.Args)...)...)
}

// id is what identifies a running server: everything it was started with,
// secrets by their values, hashed.
func (s Server) id() string {
	r := s.Remote
	headers := make(map[string]string, len(r.Headers))
	for k, v := range r.Headers {
		headers[k] = v.Reveal()
	}
	b, _ := json.Marshal(struct {
		Name, Command string
		Args, Env     []string
		Dir           string
		Private       bool `json:",omitempty"`
		URL           string
		Headers       map[string]string
		Token         string
		Environ       []string
		MaxMessage    int
		AllowHTTP     bool
		Client        *mcpclient.Capabilities `json:",omitempty"`
	}{s.Name, s.Command.Reveal(), secret.Values(s.Args), secret.Values(s.Env), s.Dir, s.Private,
		r.URL.Reveal(), headers, r.BearerToken.Reveal(), r.Environ, r.MaxMessage, r.AllowHTTP, declared(s.Client)})
	sum := sha256.Sum256(b)
	return s.Name + " " + hex.EncodeToString(sum[:])
}

// ID returns what identifies the running server of s.
func (s Server) ID() string { return s.id() }

// InstallGrace is how long a server that installs as it starts may take
// to exit once its stdin closes, and again after SIGTERM: npm undoes an
// install it was told to stop (see [Server].Installs).
const InstallGrace = 2 * time.Second

// Waiting says what a start of the server waits for, for progress: "the
// MCP server fs to start and list its tools (timeout 10s)", and what it
// installs first.
func (s Server) Waiting() string {
	what := "the MCP server " + s.Name + " to start and list its tools"
	if s.Installs && s.Launcher != nil && s.Launcher.Package != "" {
		what = fmt.Sprintf("the MCP server %s to start: %s installs %s first", s.Name, s.Launcher.Launcher, s.Launcher.Package)
	}
	if s.Installs && s.Launcher != nil && s.Launcher.Dir != "" {
		return fmt.Sprintf("%s (timeout %v, longer while npx installs)", what, s.Startup)
	}
	return fmt.Sprintf("%s (timeout %v)", what, s.Startup)
}

// setting says how to give key of the server of s the value: as
// s.Setting says, else under its table.
func (s Server) setting(key, value string) string {
	if s.Setting != nil {
		return s.Setting(key, value)
	}
	table := "under [" + tomltext.Path(partial.Path{"mcp_servers", s.Name}) + "]"
	if key == "" {
		return table
	}
	return key + " = " + value + " " + table
}

// ListGrace is how long a server that only listed its tools may take to
// exit after SIGTERM: it has nothing to finish, and resolution waits for
// it, so it is sent SIGTERM as its stdin closes (see
// [mcpclient.Session.SetIdle]) rather than given time to exit on its own.
const ListGrace = 100 * time.Millisecond

// declared returns c, or nil when it declares nothing, so that a server
// started for no client is identified and keyed as before there were
// clients.
func declared(c mcpclient.Capabilities) *mcpclient.Capabilities {
	if c.IsZero() {
		return nil
	}
	return &c
}

// Start starts the server (or connects to it), checking first that its
// launch is not the untrusted workspace's ([Server.Refused]) and matches its
// pin. relay, when not nil, relays what the server sends for the client
// strata serves.
func Start(ctx context.Context, s Server, relay *mcpclient.Relay) (*mcpclient.Session, error) {
	if err := s.Refused(); err != nil {
		return nil, err
	}
	if s.Transport != nil {
		t, err := s.Transport(ctx)
		if err != nil {
			return nil, err
		}
		return mcpclient.Connect(ctx, t, s.Startup, relay)
	}
	if !s.Remote.URL.Empty() {
		if s.TokenVar != "" && s.Remote.BearerToken.Empty() {
			return nil, fmt.Errorf("the variable %s, which bearer_token_env_var names, is not set", s.TokenVar)
		}
		if s.SignInErr != nil {
			return nil, s.SignInErr
		}
		r := s.Remote
		r.Relay = relay
		return mcpclient.Dial(ctx, r, s.Startup)
	}
	if s.Pin != nil {
		if err := s.Pin.Check(s.Launch); err != nil {
			return nil, err
		}
	}
	local := mcpclient.Local{Command: s.Command, Args: s.Args, Dir: s.Dir, Private: s.Private, Env: s.Env, Relay: relay}
	if l := s.Launcher; l != nil && l.Dir != "" {
		local.Installing = func() bool { return l.Installing(time.Now()) }
	}
	if s.Installs {
		// Stopped midway (the user's interrupt, MaxInstallWait), the
		// launcher has time to undo what it installed (npm does, on
		// SIGTERM).
		local.Grace = InstallGrace
	}
	return mcpclient.Start(ctx, local, s.Startup)
}

// List starts the server, lists its tools and stops it. known, when not
// nil, are its tools as last listed: when the server gave an identity
// then and gives the same now, they are its tools, and tools/list is not
// sent.
func List(ctx context.Context, s Server, known *Answer) (Answer, error) {
	sess, err := Start(ctx, s, nil)
	if err != nil {
		return Answer{}, startFailed(s, err)
	}
	sess.SetIdle(ListGrace)
	defer sess.Close()
	a, _, err := list(ctx, sess, s, known)
	return a, err
}

// IdentityGrace is how long a listing waits for the answer to
// server/identity once tools/list has answered: a server that answers
// neither it nor an error holds up no listing for longer.
const IdentityGrace = time.Second

// list lists the tools of a running server, under its tool timeout, and
// asks who it is (seed 002's server/identity) beside. known, when not
// nil, are its tools as last listed: when they came with an identity, the
// server is asked who it is first, and while it says the same, they are
// its tools and tools/list is not sent (listed says whether it was).
func list(ctx context.Context, sess *mcpclient.Session, s Server, known *Answer) (a Answer, listed bool, err error) {
	lctx, cancel := context.WithTimeout(ctx, s.ToolTimeout)
	defer cancel()
	if known != nil && known.Identity != nil {
		id, err := sess.Identity(lctx)
		if err == nil && id.Same(*known.Identity) {
			a := *known
			a.Identity = id
			return a, false, nil
		}
		tools, cut, err := listTools(lctx, sess, s)
		if err != nil {
			return Answer{}, true, err
		}
		return Answer{ServerInfo: sess.Info, Tools: tools, Identity: id, Cut: cut}, true, nil
	}
	ids := make(chan *mcpclient.Identity, 1)
	ictx, icancel := context.WithCancel(lctx)
	defer icancel()
	go func() {
		id, _ := sess.Identity(ictx)
		ids <- id
	}()
	tools, cut, err := listTools(lctx, sess, s)
	if err != nil {
		return Answer{}, true, err
	}
	a = Answer{ServerInfo: sess.Info, Tools: tools, Cut: cut}
	grace := time.NewTimer(IdentityGrace)
	defer grace.Stop()
	select {
	case a.Identity = <-ids:
	case <-grace.C:
	}
	return a, true, nil
}

// listTools sends tools/list, page by page, within the budget of s.
func listTools(ctx context.Context, sess *mcpclient.Session, s Server) ([]mcpclient.Tool, *mcpclient.Cut, error) {
	tools, cut, err := sess.Tools(ctx, s.Budget)
	if e := signInError(err); e != nil {
		return nil, nil, e
	}
	if err != nil {
		return nil, nil, &Error{Msg: fmt.Sprintf("%s: %v", s.CommandLine(), err), Err: err, Stderr: sess.StderrEnd(1)}
	}
	return tools, cut, nil
}

// call calls tool on a running server under the server's tool timeout.
func call(ctx context.Context, sess *mcpclient.Session, s Server, tool string, args json.RawMessage, meta map[string]any) (*mcp.CallToolResult, error) {
	cctx, cancel := context.WithTimeout(ctx, s.ToolTimeout)
	defer cancel()
	res, err := sess.Call(cctx, tool, args, meta)
	if err == nil {
		return res, nil
	}
	if e := signInError(err); e != nil {
		return nil, e
	}
	select {
	case <-sess.Done():
		return nil, &Error{Msg: fmt.Sprintf("the server %s ended during the call", s.Name), Err: err, Stderr: sess.StderrEnd(1)}
	default:
	}
	if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, &Error{Msg: fmt.Sprintf("%s: no answer within %v", tool, s.ToolTimeout), Err: context.DeadlineExceeded}
	}
	var rpc *jsonrpc.Error
	if ctx.Err() != nil || errors.As(err, &rpc) {
		return nil, err // the caller gave up, or the server answered
	}
	// The connection failed: a remote server that went away, whose
	// event stream could not be resumed (see mcpclient.ReconnectRetries).
	// The next call connects again.
	return nil, &Error{Msg: fmt.Sprintf("the server %s went away during the call: %v", s.Name, err), Err: err}
}

// startFailed is the error of the server of s that did not start (err):
// what it did and what it wrote to stderr (err says), and the fix: what
// to delete of a copy an install left broken, else the setting that
// changes it, written for the file that configures the server.
func startFailed(s Server, err error) error {
	if e := signInError(err); e != nil {
		return e
	}
	e := &Error{Msg: fmt.Sprintf("cannot start %s: %v", s.CommandLine(), err), Err: err}
	var timeout mcpclient.TimeoutError
	var start *mcpclient.StartError
	var exit *exec.Error
	if fix := s.Broken(err); fix != "" {
		e.Hint = fix
		return e
	}
	switch {
	case errors.As(err, &timeout):
		raise := strconv.FormatFloat(max(2*s.Startup.Seconds(), 60), 'f', -1, 64)
		e.Hint = fmt.Sprintf("if it is only slow to start, raise its startup timeout (%v): %s", s.Startup, s.setting("startup_timeout_sec", raise))
		if s.Remote.URL.Empty() {
			e.Hint += "; if it never starts, check its command and args"
		}
	case errors.As(err, &exit), errors.Is(err, fs.ErrNotExist):
		e.Hint = "check command " + s.setting("", "") + ": a program in PATH, or its path"
	case errors.As(err, &start):
		e.Hint = "check command and args " + s.setting("", "") + "; run that command line yourself to see it fail"
	}
	return e
}

// signInError returns the error of a server that needs a sign-in, as the
// sign-in says it (which server, and strata login), without what the
// transport wrapped around it; nil for any other error.
func signInError(err error) error {
	var ns *signin.NeedsSignIn
	if errors.As(err, &ns) {
		return &Error{Msg: ns.Error(), Err: ns}
	}
	return nil
}

// Broken returns the fix of a start of the server that failed with err
// because an install that was stopped left npx's copy of it broken:
// what to delete, and why; "" when nothing says so (see
// [launcher.Launch.Broken]).
func (s Server) Broken(err error) string {
	if s.Launcher == nil || s.Launcher.Dir == "" || err == nil {
		return ""
	}
	var said []string
	var start *mcpclient.StartError
	if errors.As(err, &start) {
		said = start.Stderr
	}
	why := s.Launcher.Broken(context.Background(), time.Now(), said)
	if why == "" {
		return ""
	}
	return "delete " + s.Launcher.Dir + " (rm -rf " + shellquote.Join(s.Launcher.Dir) + "), and npx installs it again at the next start: " + why
}

// Error is a server's failure, with its cause, and the fix where it is
// known. Its text holds no secret's value (a command line shows their
// references) and nothing of the server's stderr, so that it may reach
// the clients of a gateway.
type Error struct {
	Msg  string
	Hint string
	Err  error
	// Stderr are the last lines the server wrote to its stderr, for the
	// local user only (mcpclient.StderrOf); nil to take those of Err.
	Stderr []string
}

func (e *Error) Error() string {
	if e.Hint != "" {
		return e.Msg + "; " + e.Hint
	}
	return e.Msg
}
func (e *Error) Unwrap() error { return e.Err }

// ServerStderr returns the last lines the server wrote to its stderr.
func (e *Error) ServerStderr() []string {
	if e.Stderr == nil {
		return mcpclient.StderrOf(e.Err)
	}
	return e.Stderr
}
