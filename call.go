package strata

import (
	"context"
	"encoding/json"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/resolve"
)

// Call validates and runs the tool name of the workspace's catalog with
// args, a JSON object (see call.Runner.Call): only a tool of the catalog
// runs, its arguments get their defaults and are checked against its
// schema, a question the config answers is answered, and a pinned launch
// runs only as pinned. MCP servers started for calls keep running until
// Close.
func (w *Workspace[P, R]) Call(ctx context.Context, name string, args json.RawMessage, opts ...call.Option) (*call.Response, error) {
	r, err := w.Runner(ctx)
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
func (w *Workspace[P, R]) Runner(ctx context.Context) (*call.Runner, error) {
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
func (w *Workspace[P, R]) newRunner(cat *resolve.Catalog, confirm func(ctx context.Context, tool string, args json.RawMessage) (bool, error)) *call.Runner {
	return &call.Runner{
		Catalog: cat, Environ: w.environ, Pins: w.list.Pins, MCP: upstream.Caller{Servers: w.servers, Server: w.server},
		Timeout: w.s.callTime, Ask: w.s.ask, Confirm: confirm, Builtin: w.s.builtin,
	}
}

// server is how to reach the MCP server name of the workspace.
func (w *Workspace[P, R]) server(name string) (upstream.Server, bool) {
	srv, ok := w.model.MCPServers[name]
	if !ok {
		return upstream.Server{}, false
	}
	return w.resolver().Server(name, srv, w.dir, w.root), true
}
