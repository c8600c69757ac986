// Package discover asks tools what they are: it runs JP's schema action,
// --describe executables and MCP servers' tools/list for the tools a
// config needs, and gathers the answers into a resolve.Found.
//
// Discovery runs programs, so it is contained: each run has a timeout, the
// whole process group is killed when it ends, output is capped, a program
// that fails leaves the others to resolve, a pinned launch runs only as
// pinned, and every program gets the one documented environment. Answers
// are cached on disk, so discovering again runs nothing. A binary is never
// probed with a protocol it was not configured for.
package discover

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/command"
	"github.com/strata-config/strata/internal/exe"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/internal/signin"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// Resolver discovers tools: what [resolve.Build] needs to build their
// catalog. The zero Resolver runs in the current directory with the
// process's environment and caches nothing.
type Resolver struct {
	// Dir is where programs start; "" is Root. Root is the workspace root
	// the tools are told about, and what relative discovery directories and
	// programs are relative to; "" is the current directory.
	Dir, Root string
	// Private makes Dir the base of private places to start: each program
	// (each discovery run, each call, each MCP server's session) starts
	// in a new, empty directory made there, removed once it has ended.
	// Cache keys and pins name Dir, so they stay the same from one run to
	// the next.
	Private bool
	// Environ is the host's environment; nil is the process's. Programs get
	// the part of it procs.Env gives, plus what the config sets.
	Environ []string
	// InheritEnv gives every program the whole of Environ, as if each
	// env_vars held "*" (see procs.Env).
	InheritEnv bool
	// Cache keeps discovery answers; nil caches nothing.
	Cache *cache.Cache
	// Refresh ignores cached answers (and stores new ones).
	Refresh bool
	// Offline never runs a program: answers come from the cache or not at
	// all.
	Offline bool
	// Timeout bounds each discovery run; 0 is DefaultTimeout.
	Timeout time.Duration
	// Parallel bounds the runs at once. 0 is a run per CPU while the
	// CPUs are busy, and more while they stay idle, up to twice the
	// number of CPUs and at least 8 (procs.Fill): a tool that waits (for
	// an interpreter, a server) leaves room for another, and tools that
	// answer at once only take turns on busy CPUs.
	Parallel int
	// Pins are the pinned launches, by config key (tools.<name>,
	// mcp_servers.<name>); a launch that differs from its pin does not run.
	Pins map[string]trust.Pin
	// Builtins are the tools the host implements, by name.
	Builtins map[string]resolve.Discovered
	// MaxDepth bounds how deeply the answers of tools nest; 0 is the
	// default of codec.Limits.
	MaxDepth int
	// Budget bounds the tool list of each MCP server, all pages together;
	// the zero Budget is the default of codec.Limits.
	Budget mcpclient.Budget
	// Servers, when not nil, keeps the MCP servers that resolutions and
	// calls start running, for the next ones.
	Servers *upstream.Servers
	// MCPTransport, when set, connects to MCP servers instead of starting
	// them (tests give in-memory servers through it; nothing of such a
	// server is cached).
	MCPTransport func(ctx context.Context, name string, s config.MCPServer) (mcp.Transport, error)
	// InProcess connects to the host's in-process MCP servers (those of
	// in_process = true), by name: each call returns a new transport to
	// the server. A server it lacks fails, saying so.
	InProcess map[string]func(ctx context.Context) (mcp.Transport, error)
	// Untrusted is the workspace nobody trusted, if any: a launch that
	// resolves into it does not run, and its tool or server is left out
	// with a warning (see untrusted.Workspace.Check).
	Untrusted untrusted.Workspace
	// TrustFix, with Private, says how to have programs start in Root
	// again ("run strata trust, or pass --trust"), in the warning about
	// an MCP server whose argument names a path there (see
	// untrusted.Relative), which a private start leaves naming nothing of
	// Root; "" says to trust the directory.
	TrustFix string
	// Progress, when set, is told of each program discovery starts (a
	// tool asked for its schema, an MCP server started to list its
	// tools) as it starts, with what names it for the user; done is
	// called once it has answered or failed.
	Progress func(what string) (done func())
	// Setting says how to give key of the MCP server name the value in
	// the file that configures the server, for the fixes messages name;
	// nil says "under [mcp_servers.<name>]".
	Setting func(name, key, value string) string
	// Now is the clock failures are remembered by; nil is time.Now.
	Now func() time.Time
	// SignIns, when set, keeps the user's sign-ins to remote servers: a
	// remote server without a token of its own (bearer_token_env_var, an
	// Authorization header) is sent the one kept for its URL, refreshed
	// when it expires; nil sends none.
	SignIns *signin.Store
}

// DefaultTimeout bounds a discovery run.
const DefaultTimeout = 5 * time.Second

// Discover runs every discovery c needs. The error is the context's, when
// it ends first; the problems of single tools are in the Found.
func (r *Resolver) Discover(ctx context.Context, c config.Config) (resolve.Found, error) {
	return r.DiscoverFor(ctx, c, nil)
}

// DiscoverFor runs the discovery that the tools named (a call of them)
// need: a source that may give one of them is asked as Discover asks it
// (the tool's own command, the discovery directories' executable of its
// name, the MCP server its source names), and every other answers from
// the cache or not at all; no program of another tool starts. Every
// other configured tool is left out without a report. A tool missing
// from what it found may be among what was not asked: Discover finds it.
// With no names, it is Discover.
func (r *Resolver) DiscoverFor(ctx context.Context, c config.Config, names []string) (resolve.Found, error) {
	s := r.session(ctx)
	if len(names) > 0 {
		s.only = map[string]bool{}
		for _, n := range names {
			s.only[n] = true
		}
	}
	s.discover(c)
	s.flush()
	if err := ctx.Err(); err != nil {
		return resolve.Found{}, err
	}
	if s.only != nil {
		// The call needs its tools alone: the others are left out
		// without a report, whatever discovery found of them.
		for _, name := range c.Tools.Names() {
			if !s.only[name] {
				s.found.Failed[partial.Path{"tools", name}.String()] = true
			}
		}
	}
	s.found.Started = int(s.started.Load())
	s.found.Builtins = r.Builtins
	return s.found, nil
}

// session is one discovery.
type session struct {
	r       *Resolver
	ctx     context.Context
	env     map[string]string
	environ []string
	started atomic.Int64
	mu      sync.Mutex
	found   resolve.Found

	// only, when not nil, names the tools discovery is for (see
	// DiscoverFor).
	only map[string]bool

	// What the discovery learned goes to the cache from one goroutine,
	// beside the runs (see write).
	writer  sync.Once
	writes  chan cacheWrite
	written chan struct{}
}

// cacheWrite is an answer to store under its key, or a failure to
// remember, or (forget) a failure to forget now that it answered, or
// (answers) the answers of a discovery directory's executables, of which
// programs are there now.
type cacheWrite struct {
	key      cache.Key
	answer   []byte
	failure  *cache.Failure
	forget   bool
	answers  *cache.Answers
	programs []string
}

// write queues w for the cache. One goroutine writes the answers (and
// failures) while the programs still run, in the order they came, rather
// than each run's slot writing its own: a cold discovery of 200 tools
// renamed 200 files into one directory from eight slots at once, which
// took half as long again as the runs themselves (BenchmarkDescribe). The
// executables of a discovery directory are written once, all together,
// after their runs (see cache.Answers). flush waits for the writes.
func (s *session) write(w cacheWrite) {
	s.writer.Do(func() {
		s.writes = make(chan cacheWrite, 64)
		s.written = make(chan struct{})
		go func() {
			defer close(s.written)
			for w := range s.writes {
				var err error
				switch {
				case w.answers != nil:
					err = w.answers.Write(w.programs)
				case w.failure != nil:
					err = s.r.Cache.PutFailure(w.key, *w.failure)
				default:
					if w.forget {
						s.r.Cache.Forget(w.key)
					}
					if w.answer != nil {
						err = s.r.Cache.Put(w.key, w.answer)
					}
				}
				if err != nil {
					s.warn(&diag.Error{Code: diag.CodeWrite, Source: "cache", Msg: err.Error(), Err: err})
				}
			}
		}()
	})
	s.writes <- w
}

// flush waits until what write queued is written.
func (s *session) flush() {
	s.writer.Do(func() {}) // nothing was stored: no writer starts after this
	if s.writes != nil {
		close(s.writes)
		<-s.written
	}
}

// wanted reports whether discovery is for the tool name (a call of it),
// or for every tool.
func (s *session) wanted(name string) bool { return s.only == nil || s.only[name] }

func (r *Resolver) session(ctx context.Context) *session {
	s := &session{r: r, ctx: ctx, environ: r.Environ, env: map[string]string{}}
	if s.environ == nil {
		s.environ = os.Environ()
	}
	for _, kv := range s.environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s.env[k] = v
		}
	}
	root := r.Root
	if root == "" {
		root, _ = os.Getwd()
	}
	root, _ = filepath.Abs(root)
	dir := r.Dir
	if dir == "" {
		dir = root
	}
	dir, _ = filepath.Abs(dir)
	s.found = resolve.Found{
		Schemas:   map[string]resolve.Discovered{},
		Described: map[string]resolve.Described{},
		Servers:   map[string]map[string]resolve.Discovered{},
		Failed:    map[string]bool{},
		Known:     map[string][]string{},
		Dir:       dir,
		Root:      root,
		Private:   r.Private,
		Untrusted: r.Untrusted.Root(),
	}
	s.found.InheritEnv = r.InheritEnv
	return s
}

// inherit returns the names of the variables a program inherits from
// the host, names its config gives: with InheritEnv, all of them ("*").
func (r *Resolver) inherit(names []string) []string {
	if !r.InheritEnv || slices.Contains(names, "*") {
		return names
	}
	return append(slices.Clip(names), "*")
}

func (s *session) fail(e *diag.Error) {
	s.mu.Lock()
	s.found.Errors = append(s.found.Errors, e)
	s.mu.Unlock()
}

func (s *session) warn(e *diag.Error) {
	e.Severity = diag.SeverityWarning
	s.mu.Lock()
	s.found.Warnings = append(s.found.Warnings, e)
	s.mu.Unlock()
}

// leaveOut leaves out the tool or server at key, whose launch resolves
// into the untrusted workspace, with one warning at at that says why.
func (s *session) leaveOut(key, at partial.Path, err error) {
	s.mu.Lock()
	s.found.Failed[key.String()] = true
	s.mu.Unlock()
	s.warn(s.refusal(at, err))
}

// refusal is the warning of a launch at path that does not run: what of
// it resolves into the untrusted workspace, and the fix.
func (s *session) refusal(path partial.Path, err error) *diag.Error {
	e := &diag.Error{Code: diag.CodeUntrusted, Source: "skipped", Path: path, Msg: "not run: " + err.Error(), Err: err}
	var r *untrusted.Refused
	if errors.As(err, &r) {
		e.Hint = r.HintWith(cmp.Or(s.r.TrustFix, "trust the workspace"))
	}
	return e
}

// check returns why a launch of program with args and the config's
// variables env may not run: it resolves into the untrusted workspace.
func (s *session) check(program string, args []string, env []string) error {
	return s.r.Untrusted.Check(untrusted.Launch{Program: program, Args: args, Dir: s.found.Dir, Private: s.found.Private, Env: env, Interpreter: exe.IsInterpreter(program)})
}

// failed marks a config key whose discovery failed, and reports it.
func (s *session) failed(key partial.Path, e *diag.Error) {
	s.mu.Lock()
	s.found.Failed[key.String()] = true
	s.mu.Unlock()
	s.fail(e)
}

// task is one discovery run.
type task struct {
	kind    resolve.ExecKind
	name    string       // the configured tool, for the schema action
	path    partial.Path // the key that names the program
	program string
	args    []string
	env     map[string]string // set for the program
	inherit []string          // inherited from the host
	timeout time.Duration     // 0: the resolver's
	// wanted is false for a program a call does not need: it answers
	// from the cache or not at all.
	wanted bool
	// answers, for an executable of a discovery directory, are the
	// answers of that directory's executables, where its own is kept.
	answers *cache.Answers
}

// discover runs every discovery the config needs.
func (s *session) discover(c config.Config) {
	var tasks []task
	for _, name := range c.Tools.Names() {
		t := c.Tools[name]
		if !t.IsLocal() || t.Command.IsZero() {
			continue
		}
		if e, _ := c.Tools.Effective(name); !e.Enabled() {
			continue
		}
		path := partial.Path{"tools", name}
		if !t.Command.Shell {
			s.startsElsewhere("tool", path.Append("command", "args"), t.Command.Args, t.Command.Args)
		}
		ctxData := protocol.NewContext(protocol.ActionSchema, s.found.Root, t.Source.Name(name), nil, nil, t.Options).Value()
		if t.DefinesSchema() {
			// A config-defined tool is never asked for a schema; a program
			// of the untrusted workspace leaves it out now rather than at
			// its first call (its arguments are checked at each call).
			if program, err := command.Program(words(t.Command), t.Command.Shell, ctxData, s.found.Root); err == nil {
				if err := s.check(s.lookPath(program), nil, trust.LaunchEnv(t.Env, s.r.inherit(t.EnvVars))); err != nil {
					s.leaveOut(path, path.Append("command"), err)
				}
			}
			continue
		}
		program, args, err := command.Render(words(t.Command), t.Command.Shell, ctxData, nil)
		if err != nil {
			s.failed(path, &diag.Error{Code: diag.CodeBadValue, Path: path.Append("command"), Msg: err.Error()})
			continue
		}
		program = s.lookPath(command.Absolute(program, s.found.Root))
		if err := s.check(program, args, trust.LaunchEnv(t.Env, s.r.inherit(t.EnvVars))); err != nil {
			s.leaveOut(path, path.Append("command"), err)
			continue
		}
		if pin, ok := s.r.Pins[path.String()]; ok {
			if err := pin.Check(s.toolLaunch(t, program)); err != nil {
				s.failed(path, pinError(path, err))
				continue
			}
		}
		tasks = append(tasks, task{kind: resolve.ExecJP, name: name, path: path.Append("command"), program: program, args: args, env: t.Env, inherit: s.r.inherit(t.EnvVars),
			timeout: seconds(c.DiscoverTimeoutSec(name), 0), wanted: s.wanted(name)})
	}
	// The answers of each discovery directory, and its executables.
	type dirAnswers struct {
		answers  *cache.Answers
		programs []string
	}
	var dirs []*dirAnswers
	seen := map[string]*dirAnswers{}
	for i, dir := range c.Discover.Dirs {
		dirPath := partial.Path{"discover", "dirs", strconv.Itoa(i)}
		abs := s.expand(dir)
		if s.r.Untrusted.Holds(abs) {
			r := s.r.Untrusted.Refuse(untrusted.Tools, abs)
			s.warn(&diag.Error{Code: diag.CodeUntrusted, Source: "skipped", Path: dirPath, Msg: r.Error(), Hint: r.HintWith(cmp.Or(s.r.TrustFix, "trust the workspace")), Err: r})
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			s.warn(&diag.Error{Code: diag.CodeRead, Source: "skipped", Path: dirPath, Msg: fmt.Sprintf("cannot read the directory %s: %v; no tools from it", abs, unwrap(err)), Err: err})
			continue
		}
		d := seen[abs] // a directory named twice is one
		if d == nil {
			d = &dirAnswers{answers: s.r.Cache.Answers(string(resolve.ExecDescribe), abs)}
			seen[abs] = d
			dirs = append(dirs, d)
		}
		for _, e := range entries {
			p := filepath.Join(abs, e.Name())
			info, err := os.Stat(p)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
				continue // not an executable file
			}
			d.programs = append(d.programs, p)
			if err := s.check(p, nil, nil); err != nil {
				s.warn(s.refusal(dirPath, err)) // a link into the workspace
				continue
			}
			if key, err := s.describePin(c, p); err != nil {
				s.failed(key, pinError(key, err))
				continue
			}
			// A tool's own timeout is found by the executable's name, which
			// is the tool's until it has described itself.
			name := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
			tasks = append(tasks, task{kind: resolve.ExecDescribe, name: name, path: dirPath, program: p, args: []string{"--describe"}, inherit: s.r.inherit(nil),
				timeout: seconds(c.DiscoverTimeoutSec(name), 0), wanted: s.wanted(name), answers: d.answers})
		}
	}
	answers := make([][]byte, len(tasks))
	each := procs.Each
	if s.r.Parallel <= 0 {
		each = procs.Fill
	}
	each(s.ctx, defaultParallel(s.r.Parallel), len(tasks), func(ctx context.Context, i int) {
		answers[i] = s.run(ctx, tasks[i])
	})
	if s.r.Cache != nil && s.ctx.Err() == nil {
		for _, d := range dirs {
			s.write(cacheWrite{answers: d.answers, programs: d.programs})
		}
	}
	for i, t := range tasks {
		if answers[i] == nil {
			continue
		}
		switch t.kind {
		case resolve.ExecJP:
			s.schemaAnswer(c, t, answers[i])
		case resolve.ExecDescribe:
			s.describeAnswer(t, answers[i])
		}
	}
	s.mcpServers(c)
}

// words are the program and arguments of a command.
func words(c config.Command) []string { return append([]string{c.Program}, c.Args...) }

// toolLaunch is the launch a pin of a local tool covers: its program, its
// command's arguments as written (they are rendered for each call), its
// environment and directory.
func (s *session) toolLaunch(t config.Tool, program string) trust.Launch {
	return trust.Launch{Program: program, Args: t.Command.Args, Env: trust.LaunchEnv(t.Env, s.r.inherit(t.EnvVars)), Dir: s.found.Dir}
}

// describePin checks the executable program of a discovery directory
// against the pin of the tool it was pinned as (tools.<name>, whose
// program it is), and returns that tool's key. The launch is the one a
// call of the tool makes: the program, with the env of the tool's config,
// in the directory programs start in.
func (s *session) describePin(c config.Config, program string) (partial.Path, error) {
	for _, key := range slices.Sorted(maps.Keys(s.r.Pins)) {
		pin := s.r.Pins[key]
		if pin.Program != program {
			continue
		}
		path, err := partial.ParsePath(key)
		if err != nil || len(path) != 2 || path[0] != "tools" {
			continue
		}
		if t := c.Tools[path[1]]; !t.Command.IsZero() {
			continue // a configured command's pin, checked as its tool's
		}
		t, _ := c.Tools.Effective(path[1])
		return path, pin.Check(trust.Launch{Program: program, Env: trust.LaunchEnv(t.Tool.Env, s.r.inherit(t.Tool.EnvVars)), Dir: s.found.Dir})
	}
	return nil, nil
}

// pinError reports a launch that differs from its pin.
func pinError(path partial.Path, err error) *diag.Error {
	return &diag.Error{Code: diag.CodePinChanged, Path: path, Msg: "not run: " + err.Error(), Hint: trust.RepinHint(path.String()), Err: err}
}

// expand makes a discovery directory absolute: ~ is the home directory,
// and relative directories are relative to the root.
func (s *session) expand(dir string) string {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		dir = filepath.Join(s.env["HOME"], dir[1:])
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.found.Root, dir)
	}
	return filepath.Clean(dir)
}

// lookPath finds a program in the PATH of the environment.
func (s *session) lookPath(program string) string { return exe.LookPath(program, s.environ) }

// run runs one discovery, through the cache; it returns the answer, or nil
// after reporting the problem.
func (s *session) run(ctx context.Context, t task) []byte {
	key, keyErr := s.r.Cache.Key(t.program)
	key.Protocol = string(t.kind)
	key.Argv = append([]string{t.program}, t.args...)
	key.AddScript(t.program, t.args, s.found.Dir)
	env := procs.Env(s.environ, t.env, t.inherit)
	key.AddPackage(t.program, t.args, s.found.Dir, env)
	switch {
	case slices.Contains(t.inherit, "*"):
		key.Env = env // all it inherits: values are hashed with the key, never stored
	case len(t.env) > 0 || len(t.inherit) > 0:
		key.Env = procs.Env(nil, t.env, nil)
		for _, name := range t.inherit {
			key.Env = append(key.Env, name+"="+s.env[name])
		}
	}
	timeout := t.timeout
	if timeout == 0 {
		timeout = cmp.Or(s.r.Timeout, DefaultTimeout)
	}
	if keyErr == nil && !s.r.Refresh {
		if t.answers != nil {
			if answer, written, ok := t.answers.Get(key); ok {
				s.origin(t, resolve.Origin{Program: t.program, Cache: t.answers.Path(), Written: written})
				return answer
			}
		} else if answer, ok := s.r.Cache.Get(key); ok {
			entry, written, _ := s.r.Cache.Entry(key)
			s.origin(t, resolve.Origin{Program: t.program, Cache: entry, Written: written})
			return answer
		}
		// A failure that cost time is not waited for again soon, unless
		// the tool now has longer.
		if f, ok := s.r.Cache.Failed(key, s.now()); ok && f.Timeout >= timeout {
			if t.wanted {
				s.remembered(t, f, false, true)
			}
			return nil
		}
	}
	if !t.wanted {
		return nil // a call of another tool: not asked
	}
	s.origin(t, resolve.Origin{Program: t.program})
	if s.r.Offline {
		s.report(t, fmt.Errorf("%s is not in the cache, and offline mode runs nothing", t.program))
		return nil
	}
	s.started.Add(1)
	if s.r.Progress != nil {
		done := s.r.Progress(s.waitingFor(t, timeout))
		defer done()
	}
	res, err := procs.Run(ctx, procs.Invocation{
		Program: t.program,
		Args:    t.args,
		Dir:     s.found.Dir,
		Private: s.found.Private,
		Env:     env,
		Timeout: timeout,
	})
	var pe *procs.Error
	if errors.As(err, &pe) && pe.Kind == procs.KindTimeout {
		f := cache.Failure{Err: s.slow(t, timeout), At: s.now(), Timeout: timeout}
		if keyErr == nil {
			s.write(cacheWrite{key: key, failure: &f})
		}
		s.remembered(t, f, true, keyErr == nil)
		return nil
	}
	if err != nil {
		s.report(t, err)
		return nil
	}
	answer := res.Stdout
	if !json.Valid(answer) {
		s.report(t, fmt.Errorf("%s: the answer is not JSON: %s", t.program, snippet(answer)))
		return nil
	}
	if keyErr == nil {
		// Asked again (--refresh), it answered: a failure it had is
		// forgotten.
		switch {
		case t.answers != nil:
			if err := t.answers.Put(key, answer, s.now()); err != nil {
				s.warn(&diag.Error{Code: diag.CodeWrite, Source: "cache", Msg: err.Error(), Err: err})
			}
			if s.r.Refresh {
				s.write(cacheWrite{key: key, forget: true})
			}
		default:
			s.write(cacheWrite{key: key, answer: answer, forget: s.r.Refresh})
		}
	}
	return answer
}

// origin records where the answer of t came from.
func (s *session) origin(t task, o resolve.Origin) {
	key := t.path.String()
	switch t.kind {
	case resolve.ExecDescribe:
		key = t.program
	case resolve.ExecJP:
		key = partial.Path{"tools", t.name}.String()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.found.Origins == nil {
		s.found.Origins = map[string]resolve.Origin{}
	}
	s.found.Origins[key] = o
}

// now is the time failures are remembered by.
func (s *session) now() time.Time {
	if s.r.Now != nil {
		return s.r.Now()
	}
	return time.Now()
}

// shortName names the program of t for the user: relative to the root
// when it lies below it.
func (s *session) shortName(t task) string {
	if rel, err := filepath.Rel(s.found.Root, t.program); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return t.program
}

// waitingFor says what the run of t is waited for, for progress.
func (s *session) waitingFor(t task, timeout time.Duration) string {
	if t.kind == resolve.ExecJP {
		return fmt.Sprintf("%s to answer the schema action for %s (timeout %s)", s.shortName(t), partial.Path{"tools", t.name}, timeout)
	}
	return fmt.Sprintf("%s to describe itself (timeout %s)", s.shortName(t), timeout)
}

// slow says that t did not answer within timeout.
func (s *session) slow(t task, timeout time.Duration) string {
	if t.kind == resolve.ExecJP {
		return fmt.Sprintf("%s: did not answer the schema action within %s", s.shortName(t), timeout)
	}
	return fmt.Sprintf("%s: did not describe itself within %s", s.shortName(t), timeout)
}

// remembered reports t's failure f, which the cache keeps for
// cache.FailureTTL from when it happened: no resolution waits for it
// again until then, unless it is given longer or asked with --refresh.
// fresh is true when it has just failed, false when the cache recalled
// it; kept is false without a cache, where nothing is remembered.
func (s *session) remembered(t task, f cache.Failure, fresh, kept bool) {
	msg := f.Err
	switch {
	case !kept:
	case fresh:
		msg += " (remembered for " + minutes(cache.FailureTTL) + "; --refresh retries)"
	default:
		now := s.now()
		msg += fmt.Sprintf(" (%s ago, not asked again for %s more; --refresh retries)", ago(now.Sub(f.At)), minutes(f.At.Add(cache.FailureTTL).Sub(now)))
	}
	own := partial.Path{"tools", t.name, "discover_timeout_sec"}.String()
	setting := "discover.timeout_sec, or " + own + " for this tool alone"
	if t.kind == resolve.ExecJP {
		setting = own
	}
	hint := "if it needs longer, set " + setting
	switch t.kind {
	case resolve.ExecJP:
		s.failed(partial.Path{"tools", t.name}, &diag.Error{Code: diag.CodeDiscovery, Path: t.path, Msg: msg, Hint: hint})
	default:
		s.warn(&diag.Error{Code: diag.CodeDiscovery, Source: "skipped", Path: t.path, Msg: msg, Hint: hint})
	}
}

// minutes writes d in whole minutes, rounded up: "N min".
func minutes(d time.Duration) string {
	return fmt.Sprintf("%d min", max(int((d+time.Minute-1)/time.Minute), 1))
}

// ago writes how long ago something was: seconds under a minute, else
// whole minutes.
func ago(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", max(int(d/time.Second), 1))
	}
	return fmt.Sprintf("%d min", int(d/time.Minute))
}

// report records a failed discovery: a configured tool fails, an
// executable of a discovery directory is skipped.
func (s *session) report(t task, err error) {
	switch t.kind {
	case resolve.ExecJP:
		s.failed(partial.Path{"tools", t.name}, &diag.Error{Code: diag.CodeDiscovery, Path: t.path, Msg: "cannot get the tool's schema: " + err.Error(), Hint: "make the program answer the schema action, or give the parameters in the config", Err: err})
	default:
		s.warn(&diag.Error{Code: diag.CodeDiscovery, Source: "skipped", Path: t.path, Msg: err.Error(), Err: err})
	}
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// describeKeys are the keys of a --describe answer.
var describeKeys = []string{"name", "description", "parameters"}

// describeAnswer reads a --describe answer: {name, description,
// parameters}, and nothing else (a misspelled key would leave the tool
// without its schema).
func (s *session) describeAnswer(t task, answer []byte) {
	skip := func(msg string) {
		s.warn(&diag.Error{Code: diag.CodeDiscovery, Source: "skipped", Path: t.path, Msg: t.program + ": " + msg})
	}
	v, err := jsonv.Options{MaxDepth: s.r.MaxDepth}.Parse(answer)
	if err != nil {
		skip("the answer cannot be read: " + err.Error())
		return
	}
	if v.Kind() != jsonv.Object {
		skip("the answer is not a JSON object; --describe must print {name, description, parameters}")
		return
	}
	for _, k := range v.Keys() {
		if !contains(describeKeys, k) {
			hint := "--describe prints {name, description, parameters}"
			if c := suggest.Closest(k, describeKeys); c != "" {
				hint = "did you mean " + c + "?"
			}
			skip(fmt.Sprintf("the answer has an unknown key %q; %s", k, hint))
			return
		}
	}
	name, ok := v.Get("name").Str()
	if !ok || name == "" {
		skip("the answer has no name; --describe must print {name, description, parameters}")
		return
	}
	if !export.Strata.Allows(name) {
		skip(fmt.Sprintf("the name %s is not one strata takes; %s", limits.CutQuoted(strconv.Quote(name), limits.Quote), export.Strata.NameRule()))
		return
	}
	var description string
	if d := v.Get("description"); d != nil && d.Kind() != jsonv.Null {
		if description, ok = d.Str(); !ok {
			skip("the description must be a string")
			return
		}
	}
	schema := v.Get("parameters")
	switch {
	case schema == nil || schema.Kind() == jsonv.Null:
		schema = jsonv.MustParse(`{"type":"object","properties":{},"required":[]}`)
	case schema.Kind() != jsonv.Object:
		skip("parameters must be a JSON Schema object")
		return
	}
	if prev, dup := s.found.Described[name]; dup {
		skip(fmt.Sprintf("it also describes a tool named %s; %s is used", name, prev.Path))
		return
	}
	// Copies of the texts (Str shares the answer's memory), so that the
	// answer, its schema written anew, is not held.
	s.found.Described[name] = resolve.Described{Discovered: resolve.Discovered{Name: strings.Clone(name), Description: strings.Clone(description), InputSchema: schemaOf(schema)}, Path: t.program}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// schemaAnswer reads a JP schema answer for a configured tool.
func (s *session) schemaAnswer(c config.Config, t task, answer []byte) {
	tool := c.Tools[t.name]
	upstream := tool.Source.Name(t.name)
	toolPath := partial.Path{"tools", t.name}
	var a struct {
		Tools []struct {
			Name        string          `json:"name"`
			Summary     string          `json:"summary"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		s.failed(toolPath, &diag.Error{Code: diag.CodeDiscovery, Path: t.path, Msg: "the schema answer is not {\"tools\": [...]}: " + err.Error(), Err: err})
		return
	}
	var names []string
	for _, d := range a.Tools {
		names = append(names, d.Name)
		if d.Name != upstream {
			continue
		}
		var params *jsonv.Value
		if len(d.Parameters) > 0 && string(d.Parameters) != "null" {
			v, err := jsonv.Options{MaxDepth: s.r.MaxDepth}.Parse(d.Parameters)
			if err != nil {
				s.failed(toolPath, &diag.Error{Code: diag.CodeDiscovery, Path: t.path, Msg: "the schema answer for " + upstream + " has invalid parameters: " + err.Error(), Err: err})
				return
			}
			params = v
		}
		schema, err := fromJP(params)
		if err != nil {
			s.failed(toolPath, &diag.Error{Code: diag.CodeDiscovery, Path: t.path, Msg: "the schema answer for " + upstream + ": " + err.Error(), Err: err})
			return
		}
		s.found.Schemas[t.name] = resolve.Discovered{Name: upstream, Summary: d.Summary, Description: d.Description, InputSchema: schemaOf(schema)}
		return
	}
	sort.Strings(names)
	hint := "the program offers no tools"
	if len(names) > 0 {
		hint = "it offers " + strings.Join(names, ", ") + `; pick one with source = "local.<tool>"`
	}
	s.failed(toolPath, &diag.Error{Code: diag.CodeNotFound, Path: toolPath.Append("source"), Msg: fmt.Sprintf("the program describes no tool named %s", upstream), Hint: hint})
}

// minParallel is the least number of discovery runs at once by default,
// while the processors stay idle (see procs.Fill: a run per processor
// while they are busy). On a machine of few CPUs twice their number leaves
// tools that wait little to overlap: with 2 CPUs, 100 tools that each wait
// 20 ms are discovered 2.8 times as fast as one after the other at 4 at
// once, 3.2 times at 8. Tools that answer at once keep the processors
// busy, and more of them at once than there are processors only take
// turns: 200 of them took 1.23 times as long at 4 or 8 at once as at 2 on
// 2 CPUs (under load).
const minParallel = 8

func defaultParallel(n int) int {
	if n > 0 {
		return n
	}
	return max(minParallel, 2*runtime.NumCPU())
}

// schemaOf returns the schema whose value is v: its text, which a resolve
// reads again only where the config overrides it.
func schemaOf(v *jsonv.Value) resolve.Schema {
	s, _ := resolve.ParseSchema(v.JSON()) // the text of a value is JSON
	return s
}
