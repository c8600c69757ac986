package strata

import (
	"context"
	"encoding/json"
	"os"
	"reflect"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/resolve"
)

// Call validates and runs the tool name of the workspace's catalog with
// args, a JSON object (see call.Runner.Call): only a tool of the catalog
// runs, its arguments get their defaults and are checked against its
// schema, a question the config answers is answered, and a pinned launch
// runs only as pinned. MCP servers started for calls keep running until
// Close.
func (w *engine) Call(ctx context.Context, name string, args json.RawMessage, opts ...call.Option) (*call.Response, error) {
	r, err := w.Runner(ctx, name)
	if r == nil {
		return nil, err
	}
	if _, ok := r.Catalog.Tool(name); !ok && err != nil {
		return nil, err // the tool may be among those that failed
	}
	return r.Call(ctx, name, args, opts...)
}

// Runner returns the call.Runner of the workspace's catalog, resolving it
// first; the error is Resolve's. A host that runs many calls, or calls
// with its own Ask or Confirm, may use it directly.
//
// With the names of tools, the runner is for calls of those alone, and
// discovery asks only what may give them: their own commands, the
// discovery directories' executables of their names, the MCP servers
// their sources name. Every other program and server answers from the
// cache or not at all, so a tool that hangs never delays a call of
// another. Its catalog holds those tools (the error is about them alone);
// when one is not found there, the whole catalog is resolved, as without
// names: the tool may be among what was not asked, and if it is nowhere,
// the whole catalog says why (its problem, a name close to it).
func (w *engine) Runner(ctx context.Context, tools ...string) (*call.Runner, error) {
	if len(tools) > 0 {
		w.mu.Lock()
		resolved := w.catalog != nil
		w.mu.Unlock()
		if !resolved {
			if r, ok, err := w.runnerFor(ctx, tools); ok {
				return r, err
			}
		}
	}
	cat, err := w.Resolve(ctx)
	if cat == nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.runner == nil {
		w.runner = w.newRunner(cat, w.s.confirm)
	}
	return w.runner, err
}

// newRunner returns a runner of cat that confirms with confirm.
func (w *engine) newRunner(cat *resolve.Catalog, confirm func(ctx context.Context, tool string, args json.RawMessage) (bool, error)) *call.Runner {
	return &call.Runner{
		Catalog: cat, Environ: w.environ, Pins: w.list.Pins, MCP: upstream.Caller{Servers: w.servers, Server: w.server},
		Timeout: w.s.callTime, Ask: w.s.ask, Confirm: confirm, Builtin: w.s.builtin, Admit: w.admit,
	}
}

// lockMayApply reports whether a lock file may apply to the catalog: the
// lock is not off, and the workspace's or the user's lock file exists.
func (w *engine) lockMayApply() bool {
	if w.model.Lock.Policy.Or() == config.LockOff {
		return false
	}
	for _, user := range []bool{false, true} {
		if path := w.LockPath(user); path != "" {
			if _, err := os.Lstat(path); err == nil {
				return true
			}
		}
	}
	return false
}

// server is how to reach the MCP server name of the workspace. Every call
// of a server's tool asks; it is made once (it looks the command up on
// PATH and builds its environment) and made again when the capabilities
// declared to servers changed (a client of strata serve declared its own).
func (w *engine) server(name string) (upstream.Server, bool) {
	srv, ok := w.model.MCPServers[name]
	if !ok {
		return upstream.Server{}, false
	}
	declared := w.servers.Declared()
	w.specMu.Lock()
	spec, ok := w.specs[name]
	w.specMu.Unlock()
	if ok && reflect.DeepEqual(spec.Client, declared) {
		return spec, true
	}
	spec = w.resolver().Server(name, srv, w.dir, w.root)
	w.specMu.Lock()
	if w.specs == nil {
		w.specs = map[string]upstream.Server{}
	}
	w.specs[name] = spec
	w.specMu.Unlock()
	return spec, true
}

// runnerFor returns a runner for calls of tools alone (see Runner); ok is
// false when a tool was not found: the whole catalog is needed.
func (w *engine) runnerFor(ctx context.Context, tools []string) (*call.Runner, bool, error) {
	if w.Toolset() != "" || w.lockMayApply() {
		// What the tool set leaves out and what the lock holds back are
		// decided over the whole catalog.
		return nil, false, nil
	}
	found, err := w.resolver().DiscoverFor(ctx, w.model, tools)
	if err != nil {
		return nil, true, err
	}
	cat, err := resolve.Build(w.model, found)
	if cat == nil {
		return nil, true, w.place(err)
	}
	if len(w.policies) > 0 {
		cat = w.admitTools(cat)
	}
	for _, name := range tools {
		if _, ok := cat.Tool(name); !ok {
			return nil, false, nil
		}
	}
	for i, e := range cat.Warnings {
		cat.Warnings[i] = w.placeOne(e)
	}
	return w.newRunner(cat, w.s.confirm), true, w.place(err)
}
