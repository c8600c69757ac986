package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/gateway"
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
	// A file named that is not applied (untrusted) is a warning: serve
	// goes on with the tools it has, and applies it once the user trusts
	// the workspace (the trust list is watched).
	c.partial = true
	// stdin is the MCP client's: inputs are never asked there, nor
	// whether to trust the workspace.
	w, err := openResolve(&env{Ctx: e.Ctx, Stdin: strings.NewReader(""), Stdout: e.Stdout, Stderr: e.Stderr}, c.ResolveFlags, strata.CallTimeout(c.Timeout))
	if err != nil {
		return err
	}
	defer w.Close()
	if c.HTTP != "" {
		return c.serveHTTP(e, w)
	}
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
	err = w.Serve(e.Ctx, in, e.Stdout, serveWarn(e, c.Verbose))
	if e.Ctx.Err() != nil {
		return nil // stopped by a signal: a clean end
	}
	return err
}

// serveWarn is how strata serve reports what does not stop it.
func serveWarn(e *env, verbose bool) func(error) {
	return func(err error) {
		var stale *serve.StaleError
		if errors.As(err, &stale) {
			fmt.Fprintln(e.Stderr, "strata: warning: the config changed and does not resolve; still serving the catalog before:")
		}
		warnVerbose(e, diag.All(err), verbose)
	}
}

// serveHTTP runs strata serve --http.
func (c *serveCmd) serveHTTP(e *env, w *strataWorkspace) error {
	loopback := gateway.IsLoopback(c.HTTP)
	if !loopback && !c.AllowRemote {
		return usage(fmt.Errorf("--http %s: not a loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT); to let other machines reach strata, add --allow-remote (and put TLS in front of it)", c.HTTP))
	}
	opts := serve.HTTP{Origins: c.AllowOrigin, NoToken: c.NoToken}
	if loopback {
		opts.Hosts = append(slices.Clone(gateway.LoopbackHosts), c.AllowHost...)
	} else {
		opts.Hosts = c.AllowHost // none: any name
	}
	var err error
	switch {
	case c.NoToken && (!loopback || c.TokenFile != ""):
		return usage(errors.New("--no-token: only on a loopback address, and without --token-file"))
	case c.NoToken:
		fmt.Fprintln(e.Stderr, "strata: warning: --no-token: any program of this machine may call the tools")
	case c.TokenFile != "":
		if opts.Token, err = gateway.ReadToken(c.TokenFile); err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
	default:
		dir := cache.DefaultDir("strata", os.Environ())
		if dir == "" {
			return usage(errors.New("--http: no cache directory (HOME and XDG_CACHE_HOME are unset) to keep a token in; give one with --token-file FILE"))
		}
		var path string
		if opts.Token, path, err = gateway.GeneratedToken(filepath.Dir(dir)); err != nil {
			return fmt.Errorf("--http: keeping a token: %w", err)
		}
		fmt.Fprintf(e.Stderr, "strata: the bearer token clients must send is in %s\n", path)
	}
	switch c.CallLog {
	case "":
	case "-":
		opts.CallLog = e.Stderr
	default:
		f, err := os.OpenFile(c.CallLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("--call-log: %w", err)
		}
		defer f.Close()
		opts.CallLog = f
	}
	opts.LogArguments = c.LogArguments
	ln, err := net.Listen("tcp", c.HTTP)
	if err != nil {
		return err
	}
	if !loopback {
		fmt.Fprintf(e.Stderr, "strata: warning: serving on %s, which other machines may reach; strata speaks plain HTTP: put a reverse proxy with TLS in front of it\n", ln.Addr())
	}
	fmt.Fprintf(e.Stderr, "strata: serving MCP on http://%s/mcp\n", ln.Addr())
	err = w.ServeHTTP(e.Ctx, ln, opts, serveWarn(e, c.Verbose))
	if e.Ctx.Err() != nil {
		return nil // stopped by a signal: a clean end
	}
	return err
}
