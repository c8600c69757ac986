// Package strata is the one entry point to strata: a [Workspace] loads a
// host's configuration from all its sources, decides what the user
// trusts, resolves the tool definitions a model receives, calls tools,
// serves them over MCP, explains where every value comes from, and says
// what to watch for changes. strata's own command line uses nothing else,
// and a host that embeds strata gets the same behaviour, safety included.
//
// A workspace nobody trusted runs nothing of its own and changes nothing
// about how the user's tools run: until the user trusts it (a
// [trust.Store], or [TrustWorkspace] for one open), its workspace file,
// directory files and whatever they extend do not apply, and each program
// starts in a private, empty directory of its own rather than in the
// workspace (see [Workspace.Trusted]). A host that
// configures no trust store gets an untrusted workspace, never "trust
// everything".
//
// The host's config type may hold strata's tools model anywhere
// ([Mount]): the key path of its tools, mcp_servers and discover tables.
// Problems are reported at the host's own key paths, positioned in the
// file that set them.
package strata

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/command"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/exe"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/signin"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/policy"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// Workspace is a host's configuration, loaded from every source, and what
// it resolves to. Its methods may be called from several goroutines at
// once. Close stops the MCP servers it started.
type Workspace[P, R any] struct {
	*engine // what resolving, calling and serving need, whatever P and R
	loaded  *load.Result[P, R]
}

// engine is a workspace without the host's types: the model, trust, the
// catalog and the servers. Only loading needs the host's types; what the
// runtime reads of what loading found is view.
type engine struct {
	s       settings
	view    loadedView
	model   config.Config
	trusted bool   // the workspace (or the working directory) is trusted
	root    string // the workspace root, or the working directory
	dir     string // where programs start: root, or the base of private directories
	list    trust.List
	environ []string
	servers *upstream.Servers
	owned   bool // Close stops servers
	// reopen opens the workspace again with the same options, sharing
	// servers (serve, on a change).
	reopen func(ctx context.Context, servers *upstream.Servers) (*engine, error)

	swept   sync.Once // the private directories a crash left, once
	mu      sync.Mutex
	full    *resolve.Catalog // every tool, before a tool set is chosen
	catalog *resolve.Catalog // the tools of the run's set
	errs    error
	runner  *call.Runner
	client  string // the tool set an MCP client's name chose (serve)
	// full is the catalog as it resolved, before the lock (see lock.go)
	// and the tool set; catalog is what they leave of it.
	fullErrs  error
	found     resolve.Found // what discovery found, for explaining
	lockState LockState
	lockErr   error
	lockSaid  bool              // the warning about the untrusted workspace's files names its lock
	locked    map[string]string // the source of each tool the lock has an entry for (see lockedTools)

	specMu sync.Mutex
	specs  map[string]upstream.Server // the MCP servers calls reach, by name (see server)

	signInOnce sync.Once
	store      *signin.Store // the sign-ins kept (see SignIns), or nil

	policies policy.Set     // the policy layers (see Policies)
	clamps   []policy.Clamp // what they clamped
	deniedMu sync.Mutex
	denied   map[string]deniedTool // the tools their tool lists leave out, by name
}

// loadedView is what the engine reads of a load.Result, whatever the
// host's types.
type loadedView struct {
	explain  func(key string) (load.Explanation, error)
	locate   func(e *diag.Error) *diag.Error
	ReadFile func(ctx context.Context, path string) ([]byte, error) // through the gate (load.Result.ReadFile)
	watch    func() []string
	root     string // the workspace root, "" outside a workspace
	// untrustedRoot is the root of what nobody trusted (see
	// load.Result.UntrustedRoot).
	untrustedRoot string
	// area is the root of what the workspace may write, trusted or not
	// (see load.Result.Area).
	area     string
	warnings diag.Errors // the problems that did not fail loading
	layers   []layerInfo // every layer, lowest first
}

// layerInfo is what the engine reads of a layer.
type layerInfo struct {
	Kind         load.Kind
	Name, Client string
	Doc          *codec.Document
	Dropped      bool
}

// viewOf is the engine's view of res.
func viewOf[P, R any](res *load.Result[P, R]) loadedView {
	v := loadedView{explain: res.Explain, locate: res.Locate, ReadFile: res.ReadFile, watch: res.Watch, root: res.Root, untrustedRoot: res.UntrustedRoot(), area: res.Area(), warnings: res.Warnings}
	for _, l := range res.Layers {
		v.layers = append(v.layers, layerInfo{Kind: l.Kind, Name: l.Name, Client: l.Client, Doc: l.Doc, Dropped: l.Dropped})
	}
	return v
}

// Equal reports whether w and o are the same workspace, a handle that owns
// running servers. It lets go-cmp compare values that hold workspaces.
func (w *Workspace[P, R]) Equal(o *Workspace[P, R]) bool { return w == o }

// Open loads the configuration of a host whose resolved config type is R
// and partial type P, with defaults as the lowest layer. Problems of the
// configuration are returned all at once, positioned; a workspace that
// does not load is not returned.
func Open[P, R any](ctx context.Context, defaults R, opts ...Option) (*Workspace[P, R], error) {
	s := settings{loading: loading{Name: "strata"}}
	for _, o := range opts {
		o.apply(&s)
	}
	servers := &upstream.Servers{}
	if s.sampling != nil || s.elicitation != nil {
		servers.Serve(hostClient(s.sampling, s.elicitation))
	}
	return open[P, R](ctx, defaults, s, servers, true)
}

// hostClient is the client the servers of a host that answers their
// sampling or elicitation requests (see [Sampling], [Elicitation]) are a
// client of: each function, when not nil, answers its kind, as JSON.
func hostClient(sampling, elicitation func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)) upstream.Client {
	var c upstream.Client
	if sampling != nil {
		c.Capabilities.Sampling = &mcp.SamplingCapabilities{}
	}
	if elicitation != nil {
		c.Capabilities.Elicitation = &mcp.ElicitationCapabilities{}
	}
	c.Ask = func(ctx context.Context, server string, req mcp.InputRequest) (mcp.InputResponse, error) {
		switch req.(type) {
		case *mcp.CreateMessageWithToolsParams:
			return answerAs[mcp.CreateMessageWithToolsResult](ctx, sampling, server, req, "sampling request", "CreateMessageResult")
		case *mcp.ElicitParams:
			return answerAs[mcp.ElicitResult](ctx, elicitation, server, req, "elicitation request", "ElicitResult")
		}
		return nil, mcpclient.ErrNoClient // roots: not the host's to answer
	}
	return c
}

// answerAs has f answer the request req of server as JSON, read as an R
// (a result named result in messages); a nil f leaves it unanswered.
func answerAs[R any, PR interface {
	*R
	mcp.InputResponse
}](ctx context.Context, f func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error), server string, req mcp.InputRequest, what, result string) (mcp.InputResponse, error) {
	if f == nil {
		return nil, mcpclient.ErrNoClient
	}
	params, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	answer, err := f(ctx, server, params)
	if err != nil {
		return nil, err
	}
	res := PR(new(R))
	if err := json.Unmarshal(answer, res); err != nil {
		return nil, fmt.Errorf("the host's answer to the %s of %s is not a %s: %w", what, server, result, err)
	}
	return res, nil
}

func open[P, R any](ctx context.Context, defaults R, s settings, servers *upstream.Servers, owned bool) (*Workspace[P, R], error) {
	if s.mountErr != nil {
		return nil, fmt.Errorf("strata: Mount: %w", s.mountErr)
	}
	if s.names != "" {
		if err := s.names.Check(); err != nil {
			return nil, fmt.Errorf("strata: ToolNames: %w", err)
		}
	}
	var flags *P
	if s.Flags != nil {
		f, ok := s.Flags.(*P)
		if !ok {
			return nil, fmt.Errorf("strata: Flags is a %T, not a *%s", s.Flags, reflect.TypeFor[P]())
		}
		flags = f
	}
	sources := s.Sources
	if len(s.inProcess) > 0 {
		sources = append([]load.HostSource{inProcessLayer(s.Mount, slices.Sorted(maps.Keys(s.inProcess)))}, sources...)
	}
	app := &load.App[P, R]{
		Name: s.Name, Defaults: defaults, Dir: s.Dir, ConfigHome: s.ConfigHome, Environ: s.Environ, Cfg: s.Cfg, Flags: flags,
		Provenance: s.Provenance, MCPServers: s.Mount.Append("mcp_servers"),
		TrustStore: s.Store, TrustWorkspace: s.TrustOnce, TrustHint: s.TrustHint,
		UnknownEnv: s.UnknownEnv, Input: s.Input, Sources: sources, Limits: s.Limits,
		Overrides: s.Overrides, OverrideFlag: s.OverrideFlag, EnvPrefix: s.EnvPrefix, HostEnv: s.HostEnv,
	}
	if s.signIns != "" {
		app.Private = []string{filepath.Dir(s.signIns)} // no workspace file names the sign-ins
	}
	if len(s.builtins) > 0 {
		// The host's tools are known by name before any layer names
		// them: variables are read against them.
		app.Known = map[string][]string{s.Mount.Append("tools").String(): slices.Sorted(maps.Keys(s.builtins))}
	}
	if s.LeaveOutside {
		app.Checked = s.Mount.Append()
	}
	res, err := app.Load(ctx)
	if err != nil {
		return nil, err
	}
	w := &Workspace[P, R]{loaded: res, engine: &engine{s: s, view: viewOf(res), list: res.TrustList, environ: res.Environ, servers: servers, owned: owned}}
	w.reopen = func(ctx context.Context, servers *upstream.Servers) (*engine, error) {
		next, err := open[P, R](ctx, defaults, s, servers, false)
		if err != nil {
			return nil, err
		}
		return next.engine, nil
	}
	if w.model, err = modelOf(&res.Config, s.Mount); err != nil {
		return nil, err
	}
	if w.model.ToolNames == "" {
		w.model.ToolNames = s.names // the host's, under the config's
	}
	var problems diag.Collector
	if _, own := any(&res.Config).(*config.Config); !own || len(s.Mount) > 0 {
		// strata's own model validates as it finalizes; a host's model is
		// validated here, at the host's key paths.
		problems.Add(w.model.ValidateAt(s.Mount))
	}
	// Command templates are checked here, by the runtime that renders
	// them, not as the config finalizes (see command.CheckTools).
	problems.Add(command.CheckTools(w.model, s.Mount))
	if err := problems.Err(); err != nil {
		return nil, w.place(err)
	}
	w.root, w.trusted = cmp.Or(res.Root, res.Dir), res.Trusted
	w.dir = w.root
	if !w.trusted && !s.startIn {
		w.dir = privateBase(s.cacheDir, s.Name, w.environ)
		w.sayLock()
		res.Warnings = w.view.warnings // Loaded says what Warnings says
	}
	if err := w.clamp(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// inProcessLayer is the layer that declares the host's in-process servers
// names (see InProcess): mcp_servers.<name>.in_process = true, under the
// mount, right above the defaults.
func inProcessLayer(mount partial.Path, names []string) load.HostSource {
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = map[string]any{"in_process": true}
	}
	var values any = map[string]any{"mcp_servers": servers}
	for i := len(mount) - 1; i >= 0; i-- {
		values = map[string]any{mount[i]: values}
	}
	return load.HostSource{Name: "the host's in-process servers (strata.InProcess)", Read: func(context.Context) (map[string]any, error) {
		return values.(map[string]any), nil
	}}
}

// privateBase returns the directory in which the programs of an untrusted
// workspace get their private places to start (see procs.PrivateDir): each
// discovery run and each call a new, empty directory, removed once it has
// ended, and each MCP server one for its session. Nothing of the workspace
// is found there (no node_modules, no scripts relative to it), and nothing
// one program leaves there reaches another. It is "start" in the cache
// directory (the host's, else the user's), else <name> in
// $XDG_RUNTIME_DIR, else $TMPDIR/strata-<uid>; it is made private, and
// checked before each use, so that one another user made first, or one in
// a directory anyone may write to (a shared /tmp), is refused.
//
// Cache keys and pins name this directory, the same from one run to the
// next, rather than the new one each program starts in.
func privateBase(cacheDir, name string, environ []string) string {
	if cacheDir == "" {
		cacheDir = cache.DefaultDir(name, environ)
	}
	if cacheDir != "" {
		if abs, err := filepath.Abs(cacheDir); err == nil {
			return filepath.Join(abs, "start")
		}
	}
	env := func(name string) string {
		v := ""
		for _, kv := range environ {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
	if rt := env("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		return filepath.Join(rt, name)
	}
	if runtime.GOOS == "windows" {
		return filepath.Join(os.TempDir(), "strata") // the user's own temporary directory
	}
	tmp := env("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, fmt.Sprintf("strata-%d", os.Geteuid()))
}

// DefaultCacheDir returns where an application called name usually keeps
// its cache: $XDG_CACHE_HOME/<name>/schemas, or $HOME/.cache/<name>/schemas,
// read from environ; "" when neither is set.
func DefaultCacheDir(name string, environ []string) string { return cache.DefaultDir(name, environ) }

// CacheDir returns the directory of the workspace's cache ([CacheDir]):
// discovery's answers and the token counts of definitions
// (budget.OpenCounts) are kept there; "" when there is none.
func (w *engine) CacheDir() string { return w.s.cacheDir }

// Config returns the resolved config: the host's whole config.
func (w *Workspace[P, R]) Config() R { return w.loaded.Config }

// Model returns strata's tools model, as mounted in the host's config.
func (w *engine) Model() config.Config { return w.model }

// Loaded returns what loading found: every layer and where it came from,
// the files looked for, the workspace root. It is the workspace's, to
// read: its layers and their merge share storage (see [load.Result]).
func (w *Workspace[P, R]) Loaded() *load.Result[P, R] { return w.loaded }

// Root returns the workspace root, or the working directory outside a
// workspace.
func (w *engine) Root() string { return w.root }

// Trusted reports whether the workspace is trusted: its own files apply,
// and programs start in it. Until it is, each program starts in a
// private, empty directory of its own, removed once it has ended (an MCP
// server's, once its session ends).
func (w *engine) Trusted() bool { return w.trusted }

// Warnings returns the problems of loading that did not fail it: files of
// an untrusted workspace not applied, servers of another tool's file that
// cannot start. Each has [diag.SeverityWarning]. It is a list, not an
// error: none is an empty list, never an error value that is not nil.
func (w *engine) Warnings() []*diag.Error { return slices.Clip(w.view.warnings) }

// Explain says which layers set the key (a dotted key path of the host's
// config, such as "assistant.tools.grep.run"), in order, and which wins;
// a policy layer that clamped its value is the last step, and wins.
func (w *engine) Explain(key string) (load.Explanation, error) {
	ex, err := w.view.explain(key)
	if err != nil {
		return ex, err
	}
	return policy.Explain(ex, w.clamps), nil
}

// resolver is the resolver of the workspace. Untrusted, its programs
// start in private directories; the first resolver removes those that a
// strata that ended left.
func (w *engine) resolver() *discover.Resolver {
	if w.private() {
		w.swept.Do(func() { procs.SweepPrivate(w.dir) })
	}
	r := &discover.Resolver{
		Dir: w.dir, Private: w.private(), Root: w.root, TrustFix: w.trustFix(), InProcess: w.s.inProcess, Environ: w.environ, InheritEnv: w.s.inherit,
		Refresh: w.s.refresh, Offline: w.s.offline, Timeout: w.s.timeout,
		Pins: w.list.Pins, Builtins: w.s.builtins, Servers: w.servers,
		MaxDepth: w.s.Limits.WithDefaults().Depth, Untrusted: w.untrusted(),
		Budget:   mcpclient.Budget{Tools: w.s.Limits.ServerTools, Bytes: w.s.Limits.ServerListing},
		Progress: w.s.progress, SignIns: w.signIns(),
		Setting: w.serverSetting,
	}
	if w.s.cacheDir != "" {
		r.Cache = &cache.Cache{Dir: w.s.cacheDir}
		w.servers.Cache = r.Cache
	}
	return r
}

// private reports whether programs start in private directories: the
// workspace is not trusted, and the host did not take StartInWorkspace.
func (w *engine) private() bool { return !w.trusted && !w.s.startIn }

// trustFix says how to start programs in the workspace again, as the
// host's TrustHint says (for no files); "" when the host gave none.
func (w *engine) trustFix() string {
	if w.s.TrustHint == nil || !w.private() {
		return ""
	}
	// The directory whose trust applies: outside a workspace, the
	// repository's root, as load decided (UntrustedRoot).
	return w.s.TrustHint(load.Untrusted{Dir: cmp.Or(w.view.untrustedRoot, w.root), Workspace: w.view.root != "", Outside: w.view.root == "", Once: true})
}

// untrusted returns the workspace when nobody trusted it: what resolves
// into it is its content, and never runs.
func (w *engine) untrusted() untrusted.Workspace {
	if !w.private() {
		return untrusted.Workspace{}
	}
	// load decided it, for the files it read: the same root for launches.
	return untrusted.New(w.view.untrustedRoot, "")
}

// Resolve returns the catalog of the workspace's tools: discovered (from
// the cache when it has them) and overridden by the config, less the tools
// the lock holds back (see [Workspace.Lock]). It returns the catalog of
// the tools that resolved even when others failed; the error is then a
// [*PartialError], which lists every problem, positioned, and the servers
// that failed. With a nil catalog, the error says why nothing resolved.
// The catalog is resolved once; later calls return the same, which the
// workspace serves and calls from: read it, never change it in place
// (clone its Tools to change them).
//
// The catalog holds the tools of the tool set the run selects (see
// [Toolset] and [Workspace.Toolset]), each with its load decided (see
// [resolve.Choose]).
func (w *engine) Resolve(ctx context.Context) (*resolve.Catalog, error) {
	full, err := w.resolveAll(ctx)
	if full == nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.catalog != nil || w.lockErr != nil {
		return w.catalog, w.errs
	}
	cat, st, warnings, lerr := w.applyLock(ctx, full)
	w.lockState, w.lockErr = st, lerr
	if cat == nil {
		w.errs = lerr
		return nil, lerr
	}
	if len(warnings) > 0 {
		if cat == full {
			c := *full
			cat = &c
		}
		cat.Warnings = append(slices.Clone(cat.Warnings), warnings...)
	}
	sel, serr := cat.Select(w.model, w.toolSet())
	if serr != nil {
		return nil, w.place(serr)
	}
	w.catalog, w.errs = sel, partialOf(sel, err)
	return w.catalog, w.errs
}

// PartialError is the error [Workspace.Resolve] returns beside a catalog:
// the catalog holds every tool that resolved, and the error says what did
// not. A host may give the model the catalog as it is (its tools do not
// depend on what failed: a server that is down never changes which tools
// another gives), tell its user the problems, and resolve again later.
// Resolve's error is a *PartialError exactly when its catalog is not nil;
// errors.Is and errors.As see the problems through it (diag.All lists
// them).
type PartialError struct {
	// Catalog is the catalog of the tools that resolved, as Resolve
	// returned it.
	Catalog *resolve.Catalog
	// Servers are the MCP servers that did not start or list their tools,
	// in the order of their names: their tools are left out.
	Servers []*resolve.ServerError
	// Problems are every problem, positioned: the servers' included.
	Problems diag.Errors
}

// Error says how many problems there are, and the first.
func (e *PartialError) Error() string { return e.Problems.Error() }

// Unwrap returns the problems.
func (e *PartialError) Unwrap() error { return e.Problems }

// partialOf is the *PartialError of err, the error of resolving cat; nil
// when err is.
func partialOf(cat *resolve.Catalog, err error) error {
	if err == nil {
		return nil
	}
	pe := &PartialError{Catalog: cat, Problems: diag.All(err)}
	for _, e := range pe.Problems {
		if se := (*resolve.ServerError)(nil); errors.As(e, &se) {
			pe.Servers = append(pe.Servers, se)
		}
	}
	slices.SortStableFunc(pe.Servers, func(a, b *resolve.ServerError) int { return strings.Compare(a.Server, b.Server) })
	return pe
}

// resolveAll returns the catalog as it resolves, before the lock and the
// tool set.
func (w *engine) resolveAll(ctx context.Context) (*resolve.Catalog, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.full != nil {
		return w.full, w.fullErrs
	}
	f, err := w.resolver().Discover(ctx, w.model)
	if err != nil {
		return nil, err
	}
	cat, err := resolve.BuildAt(w.model, f, w.s.Mount)
	if cat == nil {
		return nil, err
	}
	if len(w.policies) > 0 {
		cat = w.admitTools(cat)
	}
	for i, e := range cat.Warnings {
		cat.Warnings[i] = w.placeOne(e)
	}
	w.found = f
	w.full, w.fullErrs = cat, w.place(err)
	return w.full, w.fullErrs
}

// Toolset returns the tool set the run selects: the [Toolset] option's,
// else the one an MCP client's name chose (serve), else the config's
// toolset key; "" is every tool.
func (w *engine) Toolset() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.toolSet()
}

func (w *engine) toolSet() string {
	switch {
	case w.s.toolset != nil:
		return *w.s.toolset
	case w.client != "":
		return w.client
	}
	return w.model.Toolset
}

// setClient makes set the tool set an MCP client's name chose; the
// catalog is the run's until it is resolved (serve resolves a new
// workspace).
func (w *engine) setClient(set string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if set != w.model.Toolset {
		w.client = set
	}
}

// ToolsetFor returns the tool set of an MCP client: the first set (by
// name) whose clients patterns match the name it gives itself
// (clientInfo.name), else the run's (see [Workspace.Toolset]). The
// [Toolset] option, when given, holds for every client. It is the hook
// by which strata serve gives each client its set; a server over HTTP may
// choose by the request's path the same way.
func (w *engine) ToolsetFor(client string) string {
	if w.s.toolset != nil {
		return *w.s.toolset
	}
	if set := forClient(w.model.Toolsets, client); set != "" {
		return set
	}
	return w.model.Toolset
}

// forClient returns the tool set of ts whose clients patterns match an
// MCP client's name (clientInfo.name), the first by name; "" when none
// does.
func forClient(ts config.Toolsets, client string) string {
	for _, name := range slices.Sorted(maps.Keys(ts)) {
		for _, p := range ts[name].Clients {
			if ok, _ := path.Match(p, client); ok {
				return name
			}
		}
	}
	return ""
}

// place puts problems at the host's key paths and positions them in the
// layer that set them.
func (w *engine) place(err error) error {
	if err == nil {
		return nil
	}
	var es diag.Errors
	if !errors.As(err, &es) {
		var e *diag.Error
		if !errors.As(err, &e) {
			return err
		}
		return w.placeOne(e)
	}
	out := make(diag.Errors, len(es))
	for i, e := range es {
		out[i] = w.placeOne(e)
	}
	return out
}

func (w *engine) placeOne(e *diag.Error) *diag.Error {
	if len(e.Path) == 0 || e.Line > 0 {
		return e
	}
	label := e.Source
	switch label {
	case "", "skipped", "renamed", "changed", "cache":
	default:
		return e // positioned by its source already
	}
	c := *e
	if len(w.s.Mount) > 0 && !partial.Path(c.Path).HasPrefix(w.s.Mount) {
		c.Path = w.s.Mount.Append(c.Path...)
	}
	c.Source = ""
	if located := w.view.locate(&c); located.Source != "" {
		return located // the file and line say where; the message what
	}
	c.Source = label
	return &c
}

// Watch returns the files and directories whose change changes what the
// workspace resolves to: the config files read or looked for, the policy
// files, the trust list, the discovery directories, and the programs of
// local tools and MCP servers. Paths that do not exist yet count when they appear.
func (w *engine) Watch() []string {
	set := map[string]bool{}
	for _, p := range w.view.watch() {
		set[p] = true
	}
	for _, user := range []bool{false, true} {
		if p := w.LockPath(user); p != "" && w.model.Lock.Policy.Or() != config.LockOff {
			set[p] = true // written by strata lock: what it accepts comes back
		}
	}
	home := ""
	for _, kv := range w.environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	for _, d := range w.model.Discover.Dirs {
		if d == "~" || strings.HasPrefix(d, "~/") {
			d = filepath.Join(home, d[1:])
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(w.root, d)
		}
		set[d] = true
	}
	for _, name := range w.model.Tools.Names() {
		t := w.model.Tools[name]
		if !t.IsLocal() || t.Command.IsZero() {
			continue
		}
		data := protocol.NewContext(protocol.ActionSchema, w.root, t.Source.Name(name), nil, nil, t.Options).Value()
		if p, err := command.Program(append([]string{t.Command.Program}, t.Command.Args...), t.Command.Shell, data, w.root); err == nil {
			set[exe.LookPath(p, w.environ)] = true
		}
	}
	for _, srv := range w.model.MCPServers {
		set[discover.Program(srv, w.root, w.environ)] = true
	}
	for _, f := range w.s.policies {
		set[f.path] = true // a policy file, present or to come
	}
	out := make([]string, 0, len(set))
	for p := range set {
		if abs, err := filepath.Abs(p); err == nil && filepath.IsAbs(p) {
			out = append(out, abs)
		}
	}
	sort.Strings(out)
	return out
}

// Launch returns the launch of what the config key launches: tools.<name>
// (a local tool's command, or the executable of a discovery directory that
// described the tool) or mcp_servers.<name>, at the host's key path. It is
// what [trust.Launch.Pin] pins. A tool that is not configured is looked
// for in the catalog, which may run discovery.
func (w *engine) Launch(ctx context.Context, key string) (trust.Launch, error) {
	path, err := partial.ParsePath(key)
	if err != nil {
		return trust.Launch{}, err
	}
	p := partial.Path(path)
	notLaunch := &diag.Error{Code: diag.CodeUsage, Path: path, Msg: "not something that launches a program", Hint: "pin " + w.key("tools.<name>") + " or " + w.key("mcp_servers.<name>")}
	if !p.HasPrefix(w.s.Mount) || len(p) != len(w.s.Mount)+2 {
		return trust.Launch{}, notLaunch
	}
	kind, name := p[len(w.s.Mount)], p[len(w.s.Mount)+1]
	switch kind {
	case "tools":
		t, ok := w.model.Tools[name]
		if ok && t.IsLocal() && !t.Command.IsZero() {
			data := protocol.NewContext(protocol.ActionRun, w.root, t.Source.Name(name), nil, nil, t.Options).Value()
			program, err := command.Program(append([]string{t.Command.Program}, t.Command.Args...), t.Command.Shell, data, w.root)
			if err != nil {
				return trust.Launch{}, &diag.Error{Code: diag.CodeBadValue, Path: path.Append("command"), Msg: err.Error(), Err: err}
			}
			return trust.Launch{Program: exe.LookPath(program, w.environ), Args: t.Command.Args, Dir: w.dir}, nil
		}
		return w.discoveredLaunch(ctx, path, name)
	case "mcp_servers":
		srv, ok := w.model.MCPServers[name]
		if !ok {
			e := &diag.Error{Code: diag.CodeNotFound, Path: path, Msg: "no MCP server has this name"}
			if c := suggest.Closest(name, slices.Sorted(maps.Keys(w.model.MCPServers))); c != "" {
				e.Hint = "did you mean " + w.key("mcp_servers."+tomltext.Key(c)) + "?"
			}
			return trust.Launch{}, e
		}
		if srv.IsRemote() {
			return trust.Launch{}, &diag.Error{Code: diag.CodeUsage, Path: path, Msg: "a remote server (url) launches no program: there is nothing to pin"}
		}
		return w.resolver().Server(name, srv, w.dir, w.root).Launch, nil
	}
	return trust.Launch{}, notLaunch
}

// discoveredLaunch is the launch of a tool of the catalog that no
// configured command runs: the executable of a discovery directory that
// described it.
func (w *engine) discoveredLaunch(ctx context.Context, path partial.Path, name string) (trust.Launch, error) {
	cat, err := w.Resolve(ctx)
	if cat == nil {
		return trust.Launch{}, err
	}
	def, ok := cat.Tool(name)
	if !ok {
		e := &diag.Error{Code: diag.CodeNotFound, Path: path, Msg: "no tool of the catalog has this name"}
		names := make([]string, 0, len(cat.Tools))
		for _, d := range cat.Tools {
			names = append(names, d.Name)
		}
		if c := suggest.Closest(name, names); c != "" {
			e.Hint = "did you mean " + w.key("tools."+tomltext.Key(c)) + "?"
		} else if err != nil {
			e.Hint = "it may be among the tools that did not resolve: " + err.Error()
		}
		return trust.Launch{}, e
	}
	switch def.Exec.Kind {
	case resolve.ExecDescribe:
		return trust.Launch{Program: def.Exec.Path, Env: trust.LaunchEnv(def.Exec.Env, def.Exec.EnvVars), Dir: def.Exec.Dir}, nil
	case resolve.ExecMCP:
		return trust.Launch{}, &diag.Error{Code: diag.CodeUsage, Path: path, Msg: "the MCP server " + def.Exec.Server + " runs this tool", Hint: "pin " + w.key("mcp_servers."+tomltext.Key(def.Exec.Server)) + ", which launches it"}
	}
	return trust.Launch{}, &diag.Error{Code: diag.CodeUsage, Path: path, Msg: "the tool launches no program of its own (" + string(def.Exec.Kind) + "): there is nothing to pin"}
}

// key writes a key of the model (tools.<name>) at the host's mount.
func (w *engine) key(k string) string {
	if len(w.s.Mount) == 0 {
		return k
	}
	return w.s.Mount.String() + "." + k
}

// Close stops the MCP servers the workspace started.
func (w *engine) Close() error {
	if !w.owned {
		return nil
	}
	return w.servers.Close()
}

// modelOf finds the tools model in a host's resolved config: the fields
// tools, mcp_servers, discover, budget, toolsets, toolset and lock of the
// table at mount. The host may leave out all but tools.
func modelOf[R any](r *R, mount partial.Path) (config.Config, error) {
	if c, ok := any(r).(*config.Config); ok && len(mount) == 0 {
		return *c, nil
	}
	v := reflect.ValueOf(r).Elem()
	for i, key := range mount {
		t, err := shape.Of(v.Type())
		if err != nil || t.Kind != shape.Struct {
			return config.Config{}, fmt.Errorf("strata: Mount %s: %s is not a table of the host's config", mount, mount[:i])
		}
		f, ok := t.Field(key)
		if !ok {
			return config.Config{}, fmt.Errorf("strata: Mount %s: the host's config has no key %s", mount, mount[:i+1])
		}
		v = v.FieldByIndex(f.Index)
	}
	t, err := shape.Of(v.Type())
	if err != nil || t.Kind != shape.Struct {
		return config.Config{}, fmt.Errorf("strata: Mount %s: not a table of the host's config", mount)
	}
	var c config.Config
	found := false
	for _, part := range []struct {
		key string
		dst any
	}{{"tools", &c.Tools}, {"mcp_servers", &c.MCPServers}, {"discover", &c.Discover}, {"budget", &c.Budget}, {"toolsets", &c.Toolsets}, {"toolset", &c.Toolset}, {"lock", &c.Lock}} {
		f, ok := t.Field(part.key)
		if !ok {
			continue
		}
		fv := v.FieldByIndex(f.Index)
		dst := reflect.ValueOf(part.dst).Elem()
		if fv.Type() != dst.Type() {
			return config.Config{}, fmt.Errorf("strata: Mount %s: %s is a %s, not a %s", mount, mount.Append(part.key), fv.Type(), dst.Type())
		}
		dst.Set(fv)
		found = found || part.key == "tools"
	}
	if !found {
		return config.Config{}, fmt.Errorf("strata: Mount %s: the host's config has no key %s", mount, mount.Append("tools"))
	}
	return c, nil
}
