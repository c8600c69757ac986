package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/serve"
)

// serving is called once strata serve has resolved the catalog, before it
// serves; main sets it to oneProc. (Tests run commands in their own
// process, which they keep as it is.)
var serving = func() {}

// oneProc runs the goroutines of the process on one thread at a time
// (GOMAXPROCS=1), unless the GOMAXPROCS variable says otherwise.
//
// A stdio server's work is a chain of goroutines handing each request on
// (the transport's reader, the SDK's reader and handler, the handler of
// the call, the readers of the tool's output), waiting for I/O in between;
// it has little to do in parallel. With more than one P, each handoff
// wakes another thread, which finds the work taken and sleeps again: on a
// 2-vCPU machine strata serve switched context 42 times a tool call with
// two Ps and 25 with one, and took a third less CPU time from the tool it
// ran and from the client.
func oneProc() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

type serveCmd struct {
	resolveFlags `embed:""`
	Timeout      time.Duration `default:"60s" help:"Bound each run of a local tool (MCP tools have their server's tool_timeout_sec)."`
}

func (c *serveCmd) Run(e *env) error {
	// stdin is the MCP client's: inputs are never asked there.
	w, err := c.open(&env{ctx: e.ctx, stdin: strings.NewReader(""), stdout: e.stdout, stderr: e.stderr}, strata.CallTimeout(c.Timeout))
	if err != nil {
		return err
	}
	defer w.Close()
	serving()
	err = w.Serve(e.ctx, e.stdin, e.stdout, func(err error) {
		var stale *serve.StaleError
		if errors.As(err, &stale) {
			fmt.Fprintln(e.stderr, "strata: warning: the config changed and does not resolve; still serving the catalog before:")
		}
		warn(e, diag.All(err))
	})
	if e.ctx.Err() != nil {
		return nil // stopped by a signal: a clean end
	}
	return err
}
