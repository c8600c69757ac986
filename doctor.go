package strata

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// ServerCheck is what [Workspace.CheckServers] found of one MCP server.
type ServerCheck struct {
	Name     string
	Tools    int                  // the tools it listed
	Duration time.Duration        // to start it and list them
	Err      *resolve.ServerError // why it failed, or nil
	Fix      string               // what to change, when it failed (Err.Fix)
	// SignIn says how strata signs in to a remote server (see
	// [SignInStatus]); "" for a server strata starts.
	SignIn string
}

// CheckServers starts each enabled MCP server of the config (or connects
// to it), lists its tools and stops it, one after the other, in the order
// of their names, bypassing the cache. Each start is told to [Progress].
func (w *engine) CheckServers(ctx context.Context) []ServerCheck {
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
		done := func() {}
		if w.s.progress != nil {
			done = w.s.progress(spec.Waiting())
		}
		t0 := time.Now()
		a, err := upstream.List(ctx, spec, nil)
		done()
		c := ServerCheck{Name: name, Tools: len(a.Tools), Duration: time.Since(t0)}
		if srv := w.model.MCPServers[name]; srv.IsRemote() {
			c.SignIn = w.signInStatus(ctx, srv)
		}
		if err != nil {
			c.Fix = fixOf(w.key("mcp_servers."+name), spec, err, w.environ)
			c.Err = serverError(name, err, c.Fix)
		}
		out = append(out, c)
	}
	return out
}

// serverError is the failure err of the server name, whose fix is fix:
// what happened, without the fix where the server's error named it (the
// fix is its hint, and perhaps more: the credentials it was not given).
func serverError(name string, err error, fix string) *resolve.ServerError {
	se := &resolve.ServerError{Server: name, Msg: err.Error(), Fix: fix, Stderr: mcpclient.StderrOf(err), Err: err}
	if ue := (*upstream.Error)(nil); errors.As(err, &ue) {
		se.Stderr = ue.ServerStderr()
		if ue.Hint != "" && strings.HasPrefix(fix, ue.Hint) {
			se.Msg = ue.Msg
		}
	}
	return se
}

// fixOf names what to change for a server that failed with err, started
// with the environment of the host environ: the fix the failure names
// itself, where it has one (what to delete of a copy an install left
// broken, the setting to raise in the file that configures the server),
// for a launch that differs from its pin what resolve says of it (check
// what changed, and pin it again), else what to check, where the server
// is configured.
func fixOf(key string, spec upstream.Server, err error, environ []string) string {
	var refused *untrusted.Refused
	var ue *upstream.Error
	msg := err.Error()
	if fix := signInFix(err); fix != "" {
		return fix
	}
	place := "under [" + key + "]"
	setting := func(k, v string) string { return k + " = " + v + " " + place }
	if spec.Setting != nil {
		place, setting = spec.Setting("", ""), spec.Setting
	}
	switch {
	case errors.As(err, &refused):
		return "trust the workspace (strata trust), or point " + key + " outside it"
	case errors.Is(err, trust.ErrChanged):
		return trust.RepinHint(key)
	case errors.As(err, &ue) && ue.Hint != "":
		if start := (*mcpclient.StartError)(nil); errors.As(err, &start) {
			// It exited during its start: perhaps for want of a variable.
			return ue.Hint + leftOutEnv(key, spec, environ)
		}
		return ue.Hint
	case strings.Contains(msg, "needs credentials"), strings.Contains(msg, "bearer_token_env_var"):
		return "export its token in a variable, and name the variable: " + setting("bearer_token_env_var", `"TOKEN_VARIABLE"`)
	case !spec.Remote.URL.Empty():
		return "check that " + spec.Remote.URL.String() + " answers, and its url " + place
	case strings.Contains(msg, "executable file not found"), strings.Contains(msg, "no such file"):
		return "install the program, or fix its command " + place
	}
	return "run its command by hand (" + spec.CommandLine() + ") and fix its command and args " + place + leftOutEnv(key, spec, environ)
}

// leftOutEnv says, for a server started without the whole environment,
// which variables of the host's that look like credentials it was not
// given (a client that passes its whole environment, as Claude Code and
// mcp-go do, would have given them), and how to pass them; "" when none.
func leftOutEnv(key string, spec upstream.Server, environ []string) string {
	given := map[string]bool{}
	for _, name := range spec.EnvNames() {
		given[name] = true
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if up := strings.ToUpper(name); !given[name] && !slices.Contains(out, name) &&
			slices.ContainsFunc(credentialWords, func(w string) bool { return strings.Contains(up, w) }) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return ""
	}
	slices.Sort(out)
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return "; it gets only the base environment and the variables " + key + ".env_vars names, not " + strings.Join(out, ", ") +
		": name those it needs there, or write env_vars = [\"*\"] to give it all of yours"
}

// credentialWords are what the names of variables that hold credentials
// or a service's settings hold.
var credentialWords = []string{"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "AUTH", "CREDENTIAL", "API"}
