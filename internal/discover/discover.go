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
	// Cache keeps discovery answers; nil caches nothing.
	Cache *cache.Cache
	// Refresh ignores cached answers (and stores new ones).
	Refresh bool
	// Offline never runs a program: answers come from the cache or not at
	// all.
	Offline bool
	// Timeout bounds each discovery run; 0 is DefaultTimeout.
	Timeout time.Duration
	// Parallel bounds the runs at once; 0 is twice the number of CPUs,
	// and at least 8: a tool that waits (for an interpreter, a
	// server) leaves room for another.
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
	// Untrusted is the workspace nobody trusted, if any: a launch that
	// resolves into it does not run, and its tool or server is left out
	// with a warning (see untrusted.Workspace.Check).
	Untrusted untrusted.Workspace
}

// DefaultTimeout bounds a discovery run.
const DefaultTimeout = 5 * time.Second

// Discover runs every discovery c needs. The error is the context's, when
// it ends first; the problems of single tools are in the Found.
func (r *Resolver) Discover(ctx context.Context, c config.Config) (resolve.Found, error) {
	s := r.session(ctx)
	s.discover(c)
	s.flush()
	if err := ctx.Err(); err != nil {
		return resolve.Found{}, err
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

	// What the discovery learned goes to the cache from one goroutine,
	// beside the runs (see store).
	writer  sync.Once
	writes  chan cacheWrite
	written chan struct{}
}

// cacheWrite is an answer to store under its key.
type cacheWrite struct {
	key    cache.Key
	answer []byte
}

// store queues answer for the cache under key. One goroutine writes the
// answers while the programs still run, in the order they came, rather
// than each run's slot writing its own: a cold discovery of 200 tools
// renamed 200 files into one directory from eight slots at once, which
// took half as long again as the runs themselves (BenchmarkDescribe).
// flush waits for the writes.
func (s *session) store(key cache.Key, answer []byte) {
	s.writer.Do(func() {
		s.writes = make(chan cacheWrite, 64)
		s.written = make(chan struct{})
		go func() {
			defer close(s.written)
			for w := range s.writes {
				if err := s.r.Cache.Put(w.key, w.answer); err != nil {
					s.warn(&diag.Error{Source: "cache", Msg: err.Error(), Err: err})
				}
			}
		}()
	})
	s.writes <- cacheWrite{key, answer}
}

// flush waits until what store queued is written.
func (s *session) flush() {
	s.writer.Do(func() {}) // nothing was stored: no writer starts after this
	if s.writes != nil {
		close(s.writes)
		<-s.written
	}
}

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
	return s
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
	s.warn(refusal(at, err))
}

// refusal is the warning of a launch at path that does not run: what of
// it resolves into the untrusted workspace, and the fix.
func refusal(path partial.Path, err error) *diag.Error {
	e := &diag.Error{Source: "skipped", Path: path, Msg: "not run: " + err.Error(), Err: err}
	var r *untrusted.Refused
	if errors.As(err, &r) {
		e.Hint = r.Hint()
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
		ctxData := protocol.NewContext(protocol.ActionSchema, s.found.Root, t.Source.Name(name), nil, nil, t.Options).Value()
		if t.DefinesSchema() {
			// A config-defined tool is never asked for a schema; a program
			// of the untrusted workspace leaves it out now rather than at
			// its first call (its arguments are checked at each call).
			if program, err := command.Program(words(t.Command), t.Command.Shell, ctxData, s.found.Root); err == nil {
				if err := s.check(s.lookPath(program), nil, trust.LaunchEnv(t.Env, t.EnvVars)); err != nil {
					s.leaveOut(path, path.Append("command"), err)
				}
			}
			continue
		}
		program, args, err := command.Render(words(t.Command), t.Command.Shell, ctxData, nil)
		if err != nil {
			s.failed(path, &diag.Error{Path: path.Append("command"), Msg: err.Error()})
			continue
		}
		program = s.lookPath(command.Absolute(program, s.found.Root))
		if err := s.check(program, args, trust.LaunchEnv(t.Env, t.EnvVars)); err != nil {
			s.leaveOut(path, path.Append("command"), err)
			continue
		}
		if pin, ok := s.r.Pins[path.String()]; ok {
			if err := pin.Check(s.toolLaunch(t, program)); err != nil {
				s.failed(path, pinError(path, err))
				continue
			}
		}
		tasks = append(tasks, task{kind: resolve.ExecJP, name: name, path: path.Append("command"), program: program, args: args, env: t.Env, inherit: t.EnvVars})
	}
	for i, dir := range c.Discover.Dirs {
		dirPath := partial.Path{"discover", "dirs", strconv.Itoa(i)}
		abs := s.expand(dir)
		if s.r.Untrusted.Holds(abs) {
			r := s.r.Untrusted.Refuse(untrusted.Tools, abs)
			s.warn(&diag.Error{Source: "skipped", Path: dirPath, Msg: r.Error(), Hint: r.Hint(), Err: r})
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			s.warn(&diag.Error{Source: "skipped", Path: dirPath, Msg: fmt.Sprintf("cannot read the directory %s: %v; no tools from it", abs, unwrap(err)), Err: err})
			continue
		}
		for _, e := range entries {
			p := filepath.Join(abs, e.Name())
			info, err := os.Stat(p)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
				continue // not an executable file
			}
			if err := s.check(p, nil, nil); err != nil {
				s.warn(refusal(dirPath, err)) // a link into the workspace
				continue
			}
			if key, err := s.describePin(c, p); err != nil {
				s.failed(key, pinError(key, err))
				continue
			}
			tasks = append(tasks, task{kind: resolve.ExecDescribe, path: dirPath, program: p, args: []string{"--describe"}})
		}
	}
	answers := make([][]byte, len(tasks))
	procs.Each(s.ctx, defaultParallel(s.r.Parallel), len(tasks), func(ctx context.Context, i int) {
		answers[i] = s.run(ctx, tasks[i])
	})
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
	return trust.Launch{Program: program, Args: t.Command.Args, Env: trust.LaunchEnv(t.Env, t.EnvVars), Dir: s.found.Dir}
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
		return path, pin.Check(trust.Launch{Program: program, Env: trust.LaunchEnv(t.Tool.Env, t.Tool.EnvVars), Dir: s.found.Dir})
	}
	return nil, nil
}

// pinError reports a launch that differs from its pin.
func pinError(path partial.Path, err error) *diag.Error {
	return &diag.Error{Path: path, Msg: "not run: " + err.Error(), Hint: "check what changed; if the change is yours, pin " + path.String() + " again", Err: err}
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
	if len(t.env) > 0 || len(t.inherit) > 0 {
		key.Env = procs.Env(nil, t.env, nil)
		for _, name := range t.inherit {
			key.Env = append(key.Env, name+"="+s.env[name])
		}
	}
	if keyErr == nil && !s.r.Refresh {
		if answer, ok := s.r.Cache.Get(key); ok {
			return answer
		}
	}
	if s.r.Offline {
		s.report(t, fmt.Errorf("%s is not in the cache, and offline mode runs nothing", t.program))
		return nil
	}
	timeout := s.r.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	s.started.Add(1)
	res, err := procs.Run(ctx, procs.Invocation{
		Program: t.program,
		Args:    t.args,
		Dir:     s.found.Dir,
		Private: s.found.Private,
		Env:     env,
		Timeout: timeout,
	})
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
		s.store(key, answer)
	}
	return answer
}

// report records a failed discovery: a configured tool fails, an
// executable of a discovery directory is skipped.
func (s *session) report(t task, err error) {
	switch t.kind {
	case resolve.ExecJP:
		s.failed(partial.Path{"tools", t.name}, &diag.Error{Path: t.path, Msg: "cannot get the tool's schema: " + err.Error(), Hint: "make the program answer the schema action, or give the parameters in the config", Err: err})
	default:
		s.warn(&diag.Error{Source: "skipped", Path: t.path, Msg: err.Error(), Err: err})
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
		s.warn(&diag.Error{Source: "skipped", Path: t.path, Msg: t.program + ": " + msg})
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
	s.found.Described[name] = resolve.Described{Discovered: resolve.Discovered{Name: name, Description: description, InputSchema: json.RawMessage(schema.JSON())}, Path: t.program}
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
		s.failed(toolPath, &diag.Error{Path: t.path, Msg: "the schema answer is not {\"tools\": [...]}: " + err.Error(), Err: err})
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
				s.failed(toolPath, &diag.Error{Path: t.path, Msg: "the schema answer for " + upstream + " has invalid parameters: " + err.Error(), Err: err})
				return
			}
			params = v
		}
		schema, err := fromJP(params)
		if err != nil {
			s.failed(toolPath, &diag.Error{Path: t.path, Msg: "the schema answer for " + upstream + ": " + err.Error(), Err: err})
			return
		}
		s.found.Schemas[t.name] = resolve.Discovered{Name: upstream, Summary: d.Summary, Description: d.Description, InputSchema: json.RawMessage(schema.JSON())}
		return
	}
	sort.Strings(names)
	hint := "the program offers no tools"
	if len(names) > 0 {
		hint = "it offers " + strings.Join(names, ", ") + `; pick one with source = "local.<tool>"`
	}
	s.failed(toolPath, &diag.Error{Path: toolPath.Append("source"), Msg: fmt.Sprintf("the program describes no tool named %s", upstream), Hint: hint})
}

// minParallel is the least number of discovery runs at once by default.
// On a machine of few CPUs twice their number leaves tools that wait
// little to overlap: with 2 CPUs, 100 tools that each wait 20 ms are
// discovered 2.8 times as fast as one after the other at 4 at once, 3.2
// times at 8; tools that answer at once take the same time at 4, 8 or 16.
const minParallel = 8

func defaultParallel(n int) int {
	if n > 0 {
		return n
	}
	return max(minParallel, 2*runtime.NumCPU())
}
