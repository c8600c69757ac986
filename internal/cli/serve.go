package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/pollfile"
	"github.com/strata-config/strata/serve"
)

// oneProc runs the goroutines of the process on one thread at a time
// (GOMAXPROCS=1) when stdin is read in the poller, unless the GOMAXPROCS
// variable says otherwise.
//
// A stdio server's work is a chain of goroutines handing each request on
// (the transport's reader, the SDK's reader and handler, the handler of
// the call, the readers of the tool's output), waiting for I/O in between;
// it has little to do in parallel. With more than one P, each handoff
// wakes another thread, which finds the work taken and sleeps again: on a
// 2-vCPU machine strata serve switched context 42 times a tool call with
// two Ps and 25 with one, and took a third less CPU time from the tool it
// ran and from the client. But a goroutine waiting in a system call holds
// the one P until the runtime's sysmon takes it back (20 µs to 10 ms): a
// stdin read in read(2) would hold it whenever the client is quiet (the
// SDK's own stdio server takes 70% longer a round trip with one P), so
// one P only when stdin is read in the poller.
//
// The garbage of resolving the catalog is collected first, with every P:
// collected on one, it delayed the second call by 3 ms.
func oneProc(in io.Reader) {
	f, ok := in.(*os.File)
	if ok && pollfile.Polled(f) && os.Getenv("GOMAXPROCS") == "" {
		runtime.GC()
		runtime.GOMAXPROCS(1)
	}
}

// Run runs strata serve.
func (c *serveCmd) Run(e *env) error {
	e, stop := stopOnSignals(e)
	defer stop()
	// stdin is the MCP client's: inputs are never asked there.
	w, err := openResolve(&env{Ctx: e.Ctx, Stdin: strings.NewReader(""), Stdout: e.Stdout, Stderr: e.Stderr}, c.ResolveFlags, strata.CallTimeout(c.Timeout))
	if err != nil {
		return err
	}
	defer w.Close()
	in := e.Stdin
	if f, ok := in.(*os.File); ok {
		// A pipe is read in the poller, through a file of its own (which
		// serve would open too).
		if p := pollfile.Reopen(f); p != nil {
			defer p.Close()
			in = p
		}
	}
	oneProc(in)
	err = w.Serve(e.Ctx, in, e.Stdout, func(err error) {
		var stale *serve.StaleError
		if errors.As(err, &stale) {
			fmt.Fprintln(e.Stderr, "strata: warning: the config changed and does not resolve; still serving the catalog before:")
		}
		warnVerbose(e, diag.All(err), c.Verbose)
	})
	if e.Ctx.Err() != nil {
		return nil // stopped by a signal: a clean end
	}
	return err
}
