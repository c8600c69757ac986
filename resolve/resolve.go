// Package resolve turns a tool configuration into the tool definitions a
// model receives: it discovers what tools say about themselves (JP's
// schema action, --describe executables, and MCP servers), applies the user's overrides under strict rules, and
// exports the result in strata's format or a vendor's.
//
// Discovery runs programs, so it is contained: each run has a timeout, the
// whole process group is killed when it ends, output is capped, and a
// program that fails leaves the others to resolve. Programs that a
// workspace's own files bring run only when the workspace is trusted (see
// [Trust]). Answers are cached on disk (see [Cache]), so resolving again
// runs nothing.
package resolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
)

// Resolver resolves tool definitions. The zero Resolver runs in the
// current directory with the process's environment, trusts everything and
// caches nothing.
type Resolver struct {
	// Root is where tools run and what relative discovery directories are
	// relative to: the workspace root. "" is the current directory.
	Root string
	// Environ is the environment, for PATH and HOME; nil is the process's.
	// Tools run with a minimal part of it.
	Environ []string
	// Cache keeps discovery answers; nil caches nothing.
	Cache *Cache
	// Refresh ignores cached answers (and stores new ones).
	Refresh bool
	// Offline never runs a program: answers come from the cache or not at
	// all.
	Offline bool
	// Trust decides which programs may run; nil trusts all.
	Trust Trust
	// Timeout bounds each discovery run; 0 is DefaultTimeout.
	Timeout time.Duration
	// Parallel bounds the runs at once; 0 is twice the number of CPUs: a
	// tool that waits (for an interpreter, a server) leaves room for
	// another.
	Parallel int
	// Locate positions problems of the config at the layer that set them.
	Locate Locator
	// Builtins are the tools the host implements, by name, for
	// source = "builtin".
	Builtins map[string]Discovered
	// MCPTransport connects to an MCP server; nil starts the server's
	// command over stdio. Tests give in-memory servers through it (and then
	// nothing of the server is cached).
	MCPTransport func(ctx context.Context, name string, s config.MCPServer) (mcp.Transport, error)
	// Servers, when not nil, keeps the MCP servers that resolutions and
	// calls start running, for the next ones.
	Servers *Servers
}

// DefaultTimeout bounds a discovery run.
const DefaultTimeout = 5 * time.Second

// Resolve resolves the enabled tools of c. It returns the catalog of the
// tools that resolved even when others failed; the error then lists every
// configured tool that failed, with where it is configured. Problems that
// leave a tool out without failing (an executable of a discovery directory
// that cannot describe itself, a program held back by trust) are in the
// catalog's Warnings.
func (r *Resolver) Resolve(ctx context.Context, c config.Config) (*Catalog, error) {
	s := r.session(ctx)
	s.discover(c)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var tools []Definition
	for _, name := range c.Tools.Names() {
		t, _ := c.Tools.Effective(name)
		if !t.Enabled() {
			delete(s.described, name)
			continue
		}
		if d, ok := s.definition(name, t); ok {
			tools = append(tools, d)
		}
	}
	// Discovered executables that the config does not name.
	defaults := c.Tools[config.EveryTool]
	for name, dt := range s.described {
		if _, named := c.Tools[name]; named {
			continue
		}
		t, _ := config.Tools{config.EveryTool: defaults, name: {}}.Effective(name)
		if !t.Enabled() {
			continue
		}
		if d, ok := s.definition(name, t); ok {
			d.Source = "local"
			d.Call = Call{Protocol: ProtocolDescribe, Path: dt.path, Root: s.root}
			tools = append(tools, d)
		}
	}
	tools = append(tools, s.exposed(c)...)
	cat := newCatalog(tools)
	sort.SliceStable(s.warnings, func(i, j int) bool { return s.warnings[i].Error() < s.warnings[j].Error() })
	cat.Warnings = s.warnings
	cat.Started = int(s.started.Load())
	if len(s.errs) > 0 {
		sort.SliceStable(s.errs, func(i, j int) bool { return s.errs[i].Key() < s.errs[j].Key() })
		return cat, s.errs
	}
	return cat, nil
}

// session is one resolution.
type session struct {
	r        *Resolver
	ctx      context.Context
	root     string
	environ  []string
	env      map[string]string
	mu       sync.Mutex
	started  atomic.Int64
	errs     diag.Errors
	warnings diag.Errors
	// described are the tools of discovery directories, by name.
	described map[string]describedTool
	// schemas are the JP schema answers, by tool name.
	schemas map[string]Discovered
	// mcp are the MCP tools, by server and upstream name.
	mcp map[string]map[string]Discovered
	// held are the tools whose program trust held back; heldDirs is set
	// when a discovery directory was held back.
	held     map[string]bool
	heldDirs bool
}

type describedTool struct {
	Discovered
	path string
}

func (r *Resolver) session(ctx context.Context) *session {
	s := &session{r: r, ctx: ctx, environ: r.Environ, described: map[string]describedTool{}, schemas: map[string]Discovered{}, held: map[string]bool{}}
	if s.environ == nil {
		s.environ = os.Environ()
	}
	s.env = map[string]string{}
	for _, kv := range s.environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s.env[k] = v
		}
	}
	s.root = r.Root
	if s.root == "" {
		s.root, _ = os.Getwd()
	}
	s.root, _ = filepath.Abs(s.root)
	return s
}

func (s *session) fail(e *diag.Error) {
	if s.r.Locate != nil && e.Source == "" {
		e = s.r.Locate(e)
	}
	s.mu.Lock()
	s.errs = append(s.errs, e)
	s.mu.Unlock()
}

// place positions a problem at the layer that set its path.
func (s *session) place(e *diag.Error) *diag.Error {
	if s.r.Locate != nil && e.Source == "" {
		return s.r.Locate(e)
	}
	return e
}

func (s *session) warn(e *diag.Error) {
	s.mu.Lock()
	s.warnings = append(s.warnings, e)
	s.mu.Unlock()
}

func (s *session) allow(path partial.Path, program string) bool {
	if s.r.Trust == nil {
		return true
	}
	ok, why := s.r.Trust.Allow(path, program)
	if !ok {
		s.warn(&diag.Error{Source: "held back", Path: path, Msg: why})
	}
	return ok
}

// task is one discovery run.
type task struct {
	protocol Protocol
	name     string       // the configured tool, for the schema action
	path     partial.Path // the key that names the program
	dir      int          // the discovery directory, for --describe
	program  string
	args     []string
	order    int
}

// discover runs every discovery the config needs.
func (s *session) discover(c config.Config) {
	var tasks []task
	for _, name := range c.Tools.Names() {
		t := c.Tools[name]
		if !isLocal(t) || t.Command.IsZero() {
			continue
		}
		if e, _ := c.Tools.Effective(name); !e.Enabled() {
			continue
		}
		upstream := t.Source.Name(name)
		path := partial.Path{"tools", name, "command"}
		if configDefined(t) {
			// Not run here, but calls run it: it is held back on the same
			// terms. Only its program matters (its arguments may name
			// those of a call).
			command := config.Command{Program: t.Command.Program, Shell: t.Command.Shell}
			program, _, err := render(command, protocol.NewContext(protocol.ActionRun, s.root, upstream, nil, nil, t.Options).Value())
			if err != nil {
				s.fail(&diag.Error{Path: path, Msg: err.Error()})
			} else if !s.allow(path, s.lookPath(s.absolute(program))) {
				s.held[name] = true
			}
			continue
		}
		ctxData := protocol.NewContext(protocol.ActionSchema, s.root, upstream, nil, nil, t.Options).Value()
		program, args, err := render(t.Command, ctxData)
		if err != nil {
			s.fail(&diag.Error{Path: path, Msg: err.Error()})
			continue
		}
		program = s.absolute(program)
		if !s.allow(path, s.lookPath(program)) {
			s.held[name] = true
			continue
		}
		tasks = append(tasks, task{protocol: ProtocolJP, name: name, path: path, program: program, args: args, order: len(tasks)})
	}
	for i, dir := range c.Discover.Dirs {
		dirPath := partial.Path{"discover", "dirs", strconv.Itoa(i)}
		abs := s.expand(dir)
		entries, err := os.ReadDir(abs)
		if err != nil {
			s.warn(&diag.Error{Source: "skipped", Path: dirPath, Msg: fmt.Sprintf("cannot read the directory %s: %v; no tools from it", abs, unwrap(err))})
			continue
		}
		var held []string
		var why string
		for _, e := range entries {
			p := filepath.Join(abs, e.Name())
			info, err := os.Stat(p)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
				continue // not an executable file
			}
			if s.r.Trust != nil {
				if ok, w := s.r.Trust.Allow(dirPath, p); !ok {
					held, why = append(held, e.Name()), w
					continue
				}
			}
			tasks = append(tasks, task{protocol: ProtocolDescribe, path: dirPath, dir: i, program: p, args: []string{"--describe"}, order: len(tasks)})
		}
		if len(held) > 0 {
			s.heldDirs = true
			s.warn(&diag.Error{Source: "held back", Path: dirPath, Msg: fmt.Sprintf("%d executables of %s (%s): %s", len(held), abs, strings.Join(held, ", "), why)})
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
		switch t.protocol {
		case ProtocolJP:
			s.schemaAnswer(c, t, answers[i])
		case ProtocolDescribe:
			s.describeAnswer(t, answers[i])
		}
	}
	s.mcpServers(c)
}

func isLocal(t config.Tool) bool {
	return t.Source.Kind == config.SourceLocal || t.Source.Kind == "" && !t.Command.IsZero()
}

// configDefined reports whether a local tool's parameters define its
// schema: when any gives a type, the config is the schema and the command
// is never asked for one (as in JP: asking a command that does not speak
// the schema action would run it for real). Parameters without types
// override what the command describes.
func configDefined(t config.Tool) bool {
	for _, p := range t.Parameters {
		if len(p.Type) > 0 {
			return true
		}
	}
	return false
}

// expand makes a discovery directory absolute: ~ is the home directory,
// and relative directories are relative to the root.
func (s *session) expand(dir string) string {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		dir = filepath.Join(s.env["HOME"], dir[1:])
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.root, dir)
	}
	return filepath.Clean(dir)
}

// absolute makes a program path with a slash absolute, relative to the
// root; a bare name stays for PATH lookup.
func (s *session) absolute(program string) string {
	if strings.ContainsRune(program, '/') && !filepath.IsAbs(program) {
		return filepath.Join(s.root, program)
	}
	return program
}

// lookPath finds a program in the PATH of the environment.
func (s *session) lookPath(program string) string {
	if strings.ContainsRune(program, '/') {
		return program
	}
	for _, dir := range filepath.SplitList(s.env["PATH"]) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, program)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return program
}

// run runs one discovery, through the cache; it returns the answer, or nil
// after reporting the problem.
func (s *session) run(ctx context.Context, t task) []byte {
	exe := s.lookPath(t.program)
	key, keyErr := s.r.Cache.fingerprint(exe)
	key.Protocol = t.protocol
	key.Argv = append([]string{t.program}, t.args...)
	if keyErr == nil && !s.r.Refresh {
		if answer, ok := s.r.Cache.get(key); ok {
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
	res, err := procs.Run(ctx, procs.Spec{
		Program: t.program,
		Args:    t.args,
		Dir:     s.root,
		Env:     procs.Env(s.environ, nil, nil),
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
		if err := s.r.Cache.put(key, answer); err != nil {
			s.warn(&diag.Error{Source: "cache", Msg: err.Error()})
		}
	}
	return answer
}

// report records a failed discovery: a configured tool fails, an
// executable of a discovery directory is skipped.
func (s *session) report(t task, err error) {
	switch t.protocol {
	case ProtocolJP:
		s.fail(&diag.Error{Path: t.path, Msg: "cannot get the tool's schema: " + err.Error(), Hint: "make the program answer the schema action, or give the parameters in the config"})
	default:
		s.warn(&diag.Error{Source: "skipped", Path: t.path, Msg: err.Error()})
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

// describeAnswer reads a --describe answer.
func (s *session) describeAnswer(t task, answer []byte) {
	skip := func(msg string) {
		s.warn(&diag.Error{Source: "skipped", Path: t.path, Msg: t.program + ": " + msg})
	}
	v, err := jsonv.Parse(answer)
	if err != nil || v.Kind() != jsonv.Object {
		skip("the answer is not a JSON object; --describe must print {name, description, parameters}")
		return
	}
	name, ok := v.Get("name").Str()
	if !ok || name == "" {
		skip("the answer has no name; --describe must print {name, description, parameters}")
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
	if prev, dup := s.described[name]; dup {
		skip(fmt.Sprintf("it also describes a tool named %s; %s is used", name, prev.path))
		return
	}
	s.described[name] = describedTool{Discovered: Discovered{Name: name, Description: description, InputSchema: schema}, path: t.program}
}

// schemaAnswer reads a JP schema answer for a configured tool.
func (s *session) schemaAnswer(c config.Config, t task, answer []byte) {
	tool := c.Tools[t.name]
	upstream := tool.Source.Name(t.name)
	var a struct {
		Tools []struct {
			Name        string          `json:"name"`
			Summary     string          `json:"summary"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		s.fail(&diag.Error{Path: t.path, Msg: "the schema answer is not {\"tools\": [...]}: " + err.Error()})
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
			v, err := jsonv.Parse(d.Parameters)
			if err != nil {
				s.fail(&diag.Error{Path: t.path, Msg: "the schema answer for " + upstream + " has invalid parameters: " + err.Error()})
				return
			}
			params = v
		}
		schema, err := fromJP(params)
		if err != nil {
			s.fail(&diag.Error{Path: t.path, Msg: "the schema answer for " + upstream + ": " + err.Error()})
			return
		}
		s.schemas[t.name] = Discovered{Name: upstream, Summary: d.Summary, Description: d.Description, InputSchema: schema}
		return
	}
	sort.Strings(names)
	hint := "the program offers no tools"
	if len(names) > 0 {
		hint = "it offers " + strings.Join(names, ", ") + `; pick one with source = "local.<tool>"`
	}
	s.fail(&diag.Error{Path: partial.Path{"tools", t.name, "source"}, Msg: fmt.Sprintf("the program describes no tool named %s", upstream), Hint: hint})
}

// definition builds the definition of a configured tool, or reports why it
// cannot.
func (s *session) definition(name string, t config.EffectiveTool) (Definition, bool) {
	path := partial.Path{"tools", name}
	d := Definition{Name: name, Examples: t.Tool.Examples, Options: t.Tool.Options, Questions: questions(t.Tool.Questions), Run: t.Run(), Result: t.Result()}
	var base Discovered
	var params map[string]config.Parameter = t.Tool.Parameters
	own := t.Tool // what overrides the discovered text
	switch {
	case t.Tool.Source.Kind == config.SourceBuiltin:
		b, ok := s.r.Builtins[t.Tool.Source.Name(name)]
		if !ok {
			s.fail(&diag.Error{Path: path.Append("source"), Msg: "the host has no builtin tool named " + t.Tool.Source.Name(name)})
			return Definition{}, false
		}
		base, d.Source, d.Call = b, "builtin", Call{Protocol: ProtocolBuiltin, Tool: t.Tool.Source.Name(name), Root: s.root}
	case t.Tool.Source.Kind == config.SourceMCP:
		if s.held["mcp."+t.Tool.Source.Server] {
			return Definition{}, false
		}
		tools, ok := s.mcp[t.Tool.Source.Server]
		if !ok {
			return Definition{}, false // the server's problem is reported
		}
		upstream := t.Tool.Source.Name(name)
		mt, ok := tools[upstream]
		if !ok {
			names := make([]string, 0, len(tools))
			for n := range tools {
				names = append(names, n)
			}
			sort.Strings(names)
			s.fail(&diag.Error{Path: path.Append("source"), Msg: fmt.Sprintf("the MCP server %s has no tool named %s", t.Tool.Source.Server, upstream), Hint: closestHint(upstream, names)})
			return Definition{}, false
		}
		base, d.Source = mt, t.Tool.Source.String()
		d.Call = Call{Protocol: ProtocolMCP, Server: t.Tool.Source.Server, Tool: upstream, Root: s.root}
	case isLocal(t.Tool) && configDefined(t.Tool):
		if s.held[name] {
			return Definition{}, false
		}
		// The config defines the tool: it is the schema and the text.
		base = Discovered{Name: name, Summary: t.Tool.Summary, Description: t.Tool.Description, InputSchema: fromConfig(t.Tool.Parameters)}
		params, own = nil, config.Tool{}
		d.Source, d.Call = t.Tool.Source.String(), Call{Protocol: ProtocolJP, Command: t.Tool.Command, Tool: t.Tool.Source.Name(name), Root: s.root}
		if d.Source == "" {
			d.Source = "local"
		}
	case isLocal(t.Tool):
		if s.held[name] {
			return Definition{}, false
		}
		b, ok := s.schemas[name]
		if !ok {
			return Definition{}, false // reported by discovery
		}
		base = b
		d.Source, d.Call = t.Tool.Source.String(), Call{Protocol: ProtocolJP, Command: t.Tool.Command, Tool: t.Tool.Source.Name(name), Root: s.root}
		if d.Source == "" {
			d.Source = "local"
		}
	default:
		dt, ok := s.described[name]
		if !ok {
			if t.Tool.Source.Kind == "" && s.heldDirs {
				s.warn(s.place(&diag.Error{Path: path, Msg: "no discovered tool has this name; discovery directories were held back (see above)"}))
				return Definition{}, false
			}
			if t.Tool.Source.Kind == "" {
				s.fail(&diag.Error{Path: path, Msg: "the tool has no source, no command, and no discovered tool has its name", Hint: `give it a source and a command, or put an executable that answers --describe in a discover.dirs directory`})
			} else {
				s.fail(&diag.Error{Path: path.Append("command"), Msg: "a local tool needs a command", Hint: `write command = "my-tool {{tool}} {{context}}"`})
			}
			return Definition{}, false
		}
		delete(s.described, name)
		base, d.Source = dt.Discovered, "local"
		d.Call = Call{Protocol: ProtocolDescribe, Path: dt.path, Root: s.root}
	}
	d.Title = base.Title
	d.Summary, d.Description = text(base, own)
	d.OutputSchema, d.Annotations = base.OutputSchema, base.Annotations
	schema := base.InputSchema
	if schema == nil {
		schema = jsonv.MustParse(`{"type":"object","properties":{}}`)
	}
	schema = schema.Clone()
	if len(params) > 0 {
		o := overrides{path: path, locate: s.r.Locate}
		if schema.Get("properties") == nil {
			schema.Set("properties", jsonv.NewObject())
		}
		o.params(validator{root: schema}, schema, "", params, path.Append("parameters"), true)
		if len(o.errs) > 0 {
			s.mu.Lock()
			s.errs = append(s.errs, o.errs...)
			s.mu.Unlock()
			return Definition{}, false
		}
		d.Call.Forced = o.forced
	}
	d.InputSchema = schema
	return d, true
}

func closestHint(name string, names []string) string {
	if c := closestName(name, names); c != "" {
		return "did you mean " + c + "?"
	}
	if len(names) == 0 {
		return "it has no tools"
	}
	return "it has " + strings.Join(names, ", ")
}

// questions returns a tool's questions as the catalog writes them.
func questions(qs map[string]config.Question) map[string]Question {
	out := make(map[string]Question, len(qs))
	for id, q := range qs {
		out[id] = Question{Target: q.Target, Answer: q.Answer}
	}
	return out
}

// Question is a configured question of a resolved tool.
type Question struct {
	Target config.Target `json:"target,omitempty"`
	Answer any           `json:"answer,omitempty"`
}

func defaultParallel(n int) int {
	if n > 0 {
		return n
	}
	return 2 * runtime.NumCPU()
}

func closestName(name string, names []string) string { return suggest.Closest(name, names) }
