// Package mcpcommands runs the commands of strata's command line that
// start programs or talk to MCP servers: resolve, call, serve and trust.
package mcpcommands

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/strata-config/strata/internal/cli"
)

// Programs runs resolve, call, serve and trust in the process: a
// [cli.Programs].
type Programs struct {
	// StopOnSignals ends the context of these commands on SIGINT and
	// SIGTERM, with stopOnSignals; a command line's main sets it. (Tests
	// run commands in their own process, which they keep as it is.)
	StopOnSignals bool
	// OneProc runs strata serve with one P, with oneProc, once it has
	// resolved the catalog; a command line's main sets it.
	OneProc bool
}

// handleSignals is called first by the commands: it returns their env,
// whose context ends on SIGINT and SIGTERM in the strata process when p
// says so, and the function that restores the signals' default action.
func (p Programs) handleSignals(e *cli.Env) (*cli.Env, context.CancelFunc) {
	if !p.StopOnSignals {
		return e, func() {}
	}
	ctx, stop := stopOnSignals(e.Ctx)
	c := *e
	c.Ctx = ctx
	return &c, stop
}

// stopGrace is how long strata may take to end cleanly after SIGINT or
// SIGTERM (stopping the programs it started) before it exits anyway.
const stopGrace = 5 * time.Second

// stopOnSignals returns ctx ended also by the first SIGINT or SIGTERM:
// the programs a command started run in process groups of their own, where
// a Ctrl-C on the terminal does not reach them, so the command must stop
// them (every command that starts programs ends with its context). A
// second signal then ends strata at once, as it would have without
// strata's handler; so does the end of the grace period, should something
// not have looked at ctx.
//
// Commands that start no program and write no file leave signals as they
// are: the handler's thread and system calls cost such a small command a
// twentieth of its time, and the default action, to end the process, loses
// nothing of theirs.
func stopOnSignals(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal kills
		if context.Cause(ctx) == context.Canceled {
			return // the command ended
		}
		time.Sleep(stopGrace)
		fmt.Fprintln(os.Stderr, "strata: stopped by a signal; not ended after", stopGrace)
		os.Exit(1)
	}()
	return ctx, stop
}
