package strata

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/diag"
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
func (w *Workspace[P, R]) Serve(ctx context.Context, in io.Reader, out io.Writer, warn func(error)) error {
	report := func(err error) {
		if warn != nil && err != nil {
			warn(err)
		}
	}
	first := true
	warned := map[string]bool{} // the warnings of resolving, said once
	var clientSet clientToolSet
	srv := &mcpserver.Server{
		Load: func(ctx context.Context) (*mcpserver.Snapshot, error) {
			cur := w
			if !first {
				next, err := open[P, R](ctx, w.defaults, w.s, w.servers, false)
				if err != nil {
					return nil, err
				}
				cur = next
			}
			first = false
			clientSet.apply(cur)
			cat, err := cur.Resolve(ctx)
			if cat == nil {
				return nil, err
			}
			r := cur.newRunner(cat, w.s.confirm)
			report(diagOrNil(err)) // the tools that failed are left out
			var fresh diag.Errors
			for _, e := range cat.Warnings {
				if !warned[e.Error()] {
					warned[e.Error()] = true
					fresh = append(fresh, e)
				}
			}
			if len(fresh) > 0 {
				report(fresh) // a list cut by its budget, say
			}
			return &mcpserver.Snapshot{Runner: r, Watch: cur.Watch(), Empty: cur.whyEmpty(cat, err)}, nil
		},
		Warn:  report,
		Stale: func(err error) { report(&serve.StaleError{Err: err}) },
		// The MCP servers relay for the client: they are declared its
		// sampling and elicitation capabilities (and resolved again with
		// them, since a server may list other tools), and their log
		// messages, at the level it asks for, go to it.
		Client: func(_ context.Context, ss *mcp.ServerSession) bool {
			reload := w.servers.Serve(upstream.ClientOf(ss))
			return clientSet.choose(w, ss) || reload
		},
		LogLevel: w.servers.SetLogLevel,
	}
	w.servers.OnChange = func(string) { srv.Invalidate() }
	return srv.Serve(ctx, in, out)
}

// maxWhyEmpty is how many problems whyEmpty names; the others are
// counted.
const maxWhyEmpty = 5

// whyEmpty says why cat, resolved with err, has no tools ("" when it has
// some): the problems of loading and resolving, or that the config names
// no tool.
func (w *Workspace[P, R]) whyEmpty(cat *resolve.Catalog, err error) string {
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

// clientToolSet is the tool set the MCP client's name chose (see
// [Workspace.ToolSetFor]); each resolution of the server holds to it.
type clientToolSet struct {
	mu  sync.Mutex
	set string
}

// choose chooses the client's set, and reports whether it is not the
// run's: the catalog is then resolved again for it.
func (c *clientToolSet) choose(w interface {
	ToolSet() string
	ToolSetFor(string) string
}, ss *mcp.ServerSession) bool {
	name := ""
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		name = p.ClientInfo.Name
	}
	set := w.ToolSetFor(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = set
	return set != w.ToolSet()
}

// apply makes the client's set the one w selects.
func (c *clientToolSet) apply(w interface{ setClient(string) }) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w.setClient(c.set)
}
