package cli

import (
	"fmt"
	"time"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/termtext"
	"github.com/strata-config/strata/partial"
)

// Run runs strata doctor: every enabled MCP server of the config is
// started (or connected to), asked for its tools and stopped, each timed;
// one that fails is named with its problem and the fix.
func (c *doctorCmd) Run(e *env) error {
	e, stop := stopOnSignals(e)
	defer stop()
	w, err := open(e, c.OpenFlags)
	if err != nil {
		return err
	}
	defer w.Close()
	checks := w.CheckServers(e.Ctx)
	if len(checks) == 0 {
		// Nothing checked is not all well: say so (a warning above has
		// said why when the workspace's layers were left out).
		fmt.Fprintln(e.Stdout, "no MCP server to check: none is enabled in the layers applied (strata config --explain mcp_servers shows them)")
		return nil
	}
	failed := 0
	for _, r := range checks {
		if r.Err != nil {
			failed++
			// Every text here is the server's or the config's: one line
			// each, escaped by the writer. The server's stderr is for the
			// local user who runs doctor.
			problem := r.Err.Msg // the fix follows
			if text := mcpclient.StderrText(r.Err.Stderr); text != "" {
				problem += "; " + text
			}
			// The fix as resolve words it for the same failure (a launch
			// that differs from its pin: strata trust --pin again).
			fix := repin(&diag.Error{Code: diag.CodeServer, Path: partial.Path{"mcp_servers", r.Name}, Hint: r.Fix, Err: r.Err}).Hint
			fmt.Fprintf(e.Stdout, "FAIL %s (%v): %s\n     fix: %s\n", termtext.Line(r.Name), r.Duration.Round(time.Millisecond), termtext.Line(problem), termtext.Line(fix))
		} else {
			fmt.Fprintf(e.Stdout, "ok   %s: %s in %v\n", termtext.Line(r.Name), diag.Counted(r.Tools, "tool"), r.Duration.Round(time.Millisecond))
		}
		if r.SignIn != "" {
			fmt.Fprintf(e.Stdout, "     sign-in: %s\n", termtext.Line(r.SignIn))
		}
	}
	if failed > 0 {
		return exitStatus(1)
	}
	return nil
}
