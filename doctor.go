package strata

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/internal/upstream"
)

// ServerCheck is what [Workspace.CheckServers] found of one MCP server.
type ServerCheck struct {
	Name     string
	Tools    int           // the tools it listed
	Duration time.Duration // to start it and list them
	Err      error         // why it failed, or nil
	Fix      string        // what to change, when it failed
}

// CheckServers starts each enabled MCP server of the config (or connects
// to it), lists its tools and stops it, one after the other, in the order
// of their names, bypassing the cache.
func (w *Workspace[P, R]) CheckServers(ctx context.Context) []ServerCheck {
	var names []string
	for name, srv := range w.model.MCPServers {
		if srv.IsEnabled() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []ServerCheck
	for _, name := range names {
		spec, _ := w.server(name)
		t0 := time.Now()
		a, err := upstream.List(ctx, spec, nil)
		c := ServerCheck{Name: name, Tools: len(a.Tools), Duration: time.Since(t0), Err: err}
		if err != nil {
			c.Fix = fixOf(w.key("mcp_servers."+name), spec, err)
		}
		out = append(out, c)
	}
	return out
}

// fixOf names what to change for a server that failed with err.
func fixOf(key string, spec upstream.Server, err error) string {
	var refused *untrusted.Refused
	msg := err.Error()
	switch {
	case errors.As(err, &refused):
		return "trust the workspace (strata trust), or point " + key + " outside it"
	case strings.Contains(msg, "did not start within"):
		return "raise " + key + ".startup_timeout_sec, or run its command by hand to see why it is slow"
	case strings.Contains(msg, "needs credentials"), strings.Contains(msg, "bearer_token_env_var"):
		return "set " + key + ".bearer_token_env_var to a variable that holds its token, and export it"
	case spec.Remote.URL != "":
		return "check that " + spec.Remote.URL + " answers, and " + key + ".url"
	case strings.Contains(msg, "executable file not found"), strings.Contains(msg, "no such file"):
		return "install the program, or fix " + key + ".command"
	}
	return "run its command by hand (" + spec.CommandLine() + ") and fix " + key + ".command and .args"
}
