package strata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/gateway"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/serve"
)

// Serve serves the workspace's catalog as an MCP server over in and out
// (stdio) until ctx is done or the client goes away. When a watched file
// changes (see Watch), the workspace is opened and resolved again with the
// same options; a catalog that no longer loads keeps the previous one
// served, and the problem goes to warn (nil drops it), as do the tools
// that failed to resolve. A tool whose run mode is "ask" (the default)
// or "edit" runs once the host's Confirm says yes; without one, the
// client's user is asked through MCP elicitation when the client declared
// it, and otherwise the call is refused with a result that says why and
// names the fix (run = "unattended", for tools the client's own approval
// is enough for).
func (w *engine) Serve(ctx context.Context, in io.Reader, out io.Writer, warn func(error)) error {
	var clientSet clientToolset
	srv, _ := w.mcpServer(warn, &clientSet)
	// The MCP servers relay for the client: they are declared its
	// sampling and elicitation capabilities (and resolved again with
	// them, since a server may list other tools), and their log messages,
	// at the level it asks for, go to it.
	srv.Client = func(_ context.Context, client *mcp.InitializeParams, ss *mcp.ServerSession) bool {
		reload := w.servers.Serve(upstream.ClientOf(client.Capabilities, ss))
		return clientSet.choose(w, client) || reload
	}
	srv.LogLevel = w.servers.SetLogLevel
	w.watchSources(ctx, srv, warn)
	return srv.Serve(ctx, in, out)
}

// watchSources has srv resolve again when a host's source that watches
// (see [load.HostSource].Watch), a layer's or a policy's, says it
// changed, until ctx is done: a policy is read and clamped again.
func (w *engine) watchSources(ctx context.Context, srv *mcpserver.Server, warn func(error)) {
	for _, src := range slices.Concat(w.s.Sources, w.s.policySources) {
		if src.Watch == nil {
			continue
		}
		if err := src.Watch(ctx, srv.Invalidate); err != nil && warn != nil {
			warn(fmt.Errorf("not watching %s for changes: %w", src.Name, err))
		}
	}
}

// mcpServer is the server of the workspace's catalog, resolved again
// when a watched file changes or an MCP server's tools do.
func (w *engine) mcpServer(warn func(error), clientSet *clientToolset) (*mcpserver.Server, func() *engine) {
	report := func(err error) {
		if warn != nil && err != nil {
			warn(err)
		}
	}
	first := true
	var latestMu sync.Mutex
	latest := w                 // the workspace of the catalog served
	warned := map[string]bool{} // the warnings of resolving, said once
	var wmu sync.Mutex
	once := func(err error) { // the offers' warnings, said once
		wmu.Lock()
		seen := warned[err.Error()]
		warned[err.Error()] = true
		wmu.Unlock()
		if !seen {
			report(err)
		}
	}
	srv := &mcpserver.Server{
		Load: func(ctx context.Context) (*mcpserver.Snapshot, error) {
			cur := w
			if !first {
				next, err := w.reopen(ctx, w.servers)
				if err != nil {
					return nil, err
				}
				cur = next
			}
			first = false
			latestMu.Lock()
			latest = cur
			latestMu.Unlock()
			clientSet.apply(cur)
			cat, err := cur.Resolve(ctx)
			if cat == nil {
				return nil, err
			}
			r := cur.newRunner(cat, w.s.confirm)
			report(diagOrNil(err)) // the tools that failed are left out
			var fresh diag.Errors
			wmu.Lock()
			for _, e := range cat.Warnings {
				if !warned[e.Error()] {
					warned[e.Error()] = true
					fresh = append(fresh, e)
				}
			}
			wmu.Unlock()
			if len(fresh) > 0 {
				report(fresh) // a list cut by its budget, say
			}
			snap := &mcpserver.Snapshot{Runner: r, Watch: cur.Watch(), Empty: cur.whyEmpty(cat, err)}
			if o := cur.offers(once); o != nil {
				snap.Offers = o
			}
			return snap, nil
		},
		Warn:  report,
		Stale: func(err error) { report(&serve.StaleError{Err: err}) },
		// A client that lists the tools asks for those of the servers
		// that are down too: they are started again when due.
		Asked: func() { w.servers.Want() },
		Unserved: func(tool string) (string, string) {
			latestMu.Lock()
			cur := latest
			latestMu.Unlock()
			return cur.unserved(tool)
		},
	}
	// A server a call needed that did not start: the client gets the
	// error, strata's own user the whole of it, its stderr too.
	w.servers.OnCallFailed = func(name string, err error) {
		once(&diag.Error{Code: diag.CodeServer, Path: w.s.Mount.Append("mcp_servers", name), Msg: "a call could not start the server: " + err.Error(), Err: err})
	}
	w.servers.OnChange = func(string) { srv.Invalidate() }
	// A server's resources or prompts that changed are listed again with
	// the catalog; its resources updated go to the clients subscribed.
	w.servers.OnOffersChange = func(string) { srv.Invalidate() }
	w.servers.OnUpdated = srv.ResourceUpdated
	return srv, func() *engine {
		latestMu.Lock()
		defer latestMu.Unlock()
		return latest
	}
}

// unserved says why tool, which the catalog does not have, is not served
// when an MCP server that is down has it ("server fs is down: ...,
// retrying in 4s"), or may have it (the server never listed its tools);
// "" when no server that is down has it. A tool a policy left out, or
// whose server it left out, is answered with the policy's decision. The servers named are started
// again when due (see [upstream.Servers.Want]): a client asks for them.
func (w *engine) unserved(tool string) (why, server string) {
	if d := w.deniedDecision(tool); d != nil {
		return d.Message, d.Server // a policy left it out
	}
	var has, may []string
	for _, d := range w.servers.Down() {
		switch w.downHas(d.Server, tool) {
		case hasTool:
			has = append(has, d.Server)
		case mayHaveTool:
			may = append(may, d.Server)
		}
	}
	if len(has) == 0 && len(may) == 0 {
		return "", ""
	}
	w.servers.Want(append(has, may...)...)
	down := map[string]*upstream.DownError{}
	for _, d := range w.servers.Down() { // again: some may be starting now
		down[d.Server] = d
	}
	if len(has) > 0 {
		if d := down[has[0]]; d != nil {
			return tool + ": " + d.Error(), has[0]
		}
		return tool + ": server " + has[0] + " was down, and is starting again: call it again", has[0]
	}
	var said []string
	for _, name := range may {
		if d := down[name]; d != nil {
			said = append(said, d.Error())
		}
	}
	if len(said) == 0 {
		return "", ""
	}
	return fmt.Sprintf("no tool %s is served now; it may be a tool of a server that is down and has not listed its tools yet (they are served once it starts): %s", tool, strings.Join(said, "; ")), ""
}

// toolOfDown says whether a server that is down has a tool.
type toolOfDown int

const (
	notTool     toolOfDown = iota
	hasTool                // the config names it its server's, or the server listed it
	mayHaveTool            // the server exposes all its tools and never listed them
)

// downHas says whether the MCP server name, which is down, has the tool
// the catalog would name tool: the config names it a tool of the
// server, or the server listed it last time (the cache), or the server's
// expose names it; a server that exposes all and never listed its tools
// may have it.
func (w *engine) downHas(name, tool string) toolOfDown {
	srv, ok := w.model.MCPServers[name]
	if !ok || !srv.IsEnabled() || srv.Expose.None {
		return notTool
	}
	if t, ok := w.model.Tools[tool]; ok && t.Source.Kind == config.SourceMCP && t.Source.Server == name {
		return hasTool
	}
	n, ok := w.model.ToolNamesOf(name).Tool(name, tool)
	if !ok || !resolve.Exposes(srv, n) {
		return notTool
	}
	if spec, ok := w.server(name); ok {
		if a := upstream.Cached(w.servers.Cache, spec); a != nil {
			for _, t := range a.Tools {
				if t.Name == n {
					return hasTool
				}
			}
			return notTool
		}
	}
	if !srv.Expose.All() {
		return hasTool // Exposes(n): named in its expose
	}
	return mayHaveTool
}

// served returns the MCP servers the workspace serves, by name: those
// enabled whose launch is not refused (the catalog's warnings say why
// one is).
func (w *engine) served() []upstream.Server {
	var out []upstream.Server
	for _, name := range slices.Sorted(maps.Keys(w.model.MCPServers)) {
		if !w.model.MCPServers[name].IsEnabled() {
			continue
		}
		if spec, _ := w.server(name); spec.Refused() == nil {
			out = append(out, spec)
		}
	}
	return out
}

// offers are the resources, resource templates and prompts of the
// workspace's MCP servers that are enabled (and may start), as strata
// serve offers them (see [upstream.Aggregate]); nil when it has none.
// warn is told what leaves something out.
func (w *engine) offers(warn func(error)) *upstream.Aggregate {
	specs := w.served()
	if len(specs) == 0 {
		return nil
	}
	return &upstream.Aggregate{Servers: w.servers, Specs: specs, Warn: warn}
}

// ServeHTTP serves the workspace's catalog over streamable HTTP on ln
// until ctx is done, to many clients at once (see [serve.HTTP] for what
// guards it): every client a session of its own, one catalog, and one
// process (or connection) per MCP server for all of them, started once
// and started again when it ends. The MCP servers are declared sampling
// and elicitation (the clients' requests go to the client whose call is
// under way, and a client that cannot answer gets an error), so the
// catalog is the one a client that can answer both sees over stdio. Each
// client gets the servers' log messages at the level it asked for; the
// servers are asked for the most detailed level any client asked. Beside
// /mcp, behind the same checks, /health answers the servers' states as
// JSON and /metrics the counts of calls (by tool, server and outcome),
// their time, and the servers' states, in Prometheus's text format; every
// call goes to opts.CallLog.
func (w *engine) ServeHTTP(ctx context.Context, ln net.Listener, opts serve.HTTP, warn func(error)) error {
	if opts.Token == "" && !opts.NoToken {
		return errors.New("strata serve over HTTP needs a bearer token")
	}
	// A server's roots/list during a call goes to the client of the call;
	// outside calls, it is answered with an error (whose roots would they
	// be?).
	srv, latest := w.mcpServer(warn, &clientToolset{}) // one catalog: the run's tool set
	// Their log messages outside calls go to every client that set a
	// level they reach.
	w.servers.Serve(upstream.Client{Capabilities: relayed(), Log: srv.Log})
	obs := &gateway.Observer{Log: opts.CallLog}
	srv.OnCall = func(c mcpserver.Call) {
		gc := gateway.Call{Time: c.Time, Client: c.Client, Tool: c.Tool, Server: c.Server, Duration: c.Duration, Outcome: c.Outcome}
		if opts.LogArguments {
			gc.Arguments = c.Arguments
		}
		if c.Decision != nil {
			gc.Decision, _ = json.Marshal(c.Decision) // it holds no argument
		}
		obs.Record(gc)
	}
	health := func() []gateway.Health {
		var out []gateway.Health
		known := map[string]bool{}
		for _, st := range w.servers.States() {
			h := gateway.Health{Server: st.Name, State: st.State, FailedStarts: st.Failures}
			if st.Err != nil {
				h.Error = st.Err.Error()
			}
			if !st.Retry.IsZero() {
				h.Retry = st.Retry.UTC().Format(time.RFC3339)
			}
			out = append(out, h)
			known[st.Name] = true
		}
		// The servers served that have not started (their tools came
		// from the cache): stopped, started at their first call.
		for _, spec := range latest().served() {
			if !known[spec.Name] {
				out = append(out, gateway.Health{Server: spec.Name, State: "stopped"})
			}
		}
		slices.SortFunc(out, func(a, b gateway.Health) int { return strings.Compare(a.Server, b.Server) })
		return out
	}
	paths := map[string]http.Handler{"/health": gateway.HealthHandler(health), "/metrics": obs.MetricsHandler(health)}
	for p, h := range opts.Paths {
		paths[p] = h
	}
	opts.Paths = paths
	var levels mcpserver.LogLevels
	srv.LogLevel = func(ctx context.Context, level mcp.LoggingLevel) {
		if l, ok := levels.Lower(level); ok {
			w.servers.SetLogLevel(ctx, l)
		}
	}
	w.watchSources(ctx, srv, warn)
	return srv.ServeHTTP(ctx, ln, opts.Handler)
}

// maxWhyEmpty is how many problems whyEmpty names; the others are
// counted.
const maxWhyEmpty = 5

// whyEmpty says why cat, resolved with err, has no tools ("" when it has
// some): the problems of loading and resolving, or that the config names
// no tool.
func (w *engine) whyEmpty(cat *resolve.Catalog, err error) string {
	if len(cat.Tools) > 0 {
		return ""
	}
	var why []string
	for _, e := range slices.Concat(w.Warnings(), diag.All(err), cat.Warnings) {
		why = append(why, e.Error())
	}
	if len(why) == 0 {
		return "strata serves no tools: the config names none (no [tools.<name>] with a command or source, no [mcp_servers], no discover.dirs); strata config --sources lists the files read"
	}
	if len(why) > maxWhyEmpty {
		why = append(why[:maxWhyEmpty], fmt.Sprintf("and %d more", len(why)-maxWhyEmpty))
	}
	return "strata serves no tools: " + strings.Join(why, "; ")
}

func diagOrNil(err error) error {
	if len(diag.All(err)) == 0 {
		return nil
	}
	return err
}

// clientToolset is the tool set the MCP client's name chose (see
// [Workspace.ToolsetFor]); each resolution of the server holds to it.
type clientToolset struct {
	mu  sync.Mutex
	set string
}

// choose chooses the client's set, and reports whether it is not the
// run's: the catalog is then resolved again for it.
func (c *clientToolset) choose(w interface {
	Toolset() string
	ToolsetFor(string) string
}, client *mcp.InitializeParams) bool {
	name := ""
	if client.ClientInfo != nil {
		name = client.ClientInfo.Name
	}
	set := w.ToolsetFor(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = set
	return set != w.Toolset()
}

// apply makes the client's set the one w selects.
func (c *clientToolset) apply(w interface{ setClient(string) }) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w.setClient(c.set)
}
