package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/cli"
)

// installBoth says how to install strata with strata-mcp beside it.
const installBoth = "install both: go install github.com/strata-config/strata/cmd/...@latest"

// handedOver are the commands strata-mcp runs.
var handedOver = []string{"resolve", "call", "serve", "trust"}

// sibling hands the commands that need the MCP SDK to strata-mcp.
type sibling struct{}

func (sibling) Resolve(e *cli.Env, _ *cli.ResolveCmd) error { return delegate(e, "resolve") }
func (sibling) Call(e *cli.Env, _ *cli.CallCmd) error       { return delegate(e, "call") }
func (sibling) Serve(e *cli.Env, _ *cli.ServeCmd) error     { return delegate(e, "serve") }
func (sibling) Trust(e *cli.Env, _ *cli.TrustCmd) error     { return delegate(e, "trust") }

// mcpName is the file name of strata-mcp.
func mcpName() string {
	if runtime.GOOS == "windows" {
		return "strata-mcp.exe"
	}
	return "strata-mcp"
}

// delegate runs strata-mcp, found beside the strata program, with e's
// command line and standard files: in strata's place (the same process)
// where the system can, so that signals, the terminal and the exit status
// are strata-mcp's own. It is only looked for beside strata, never in
// PATH: what runs is what was installed with strata.
func delegate(e *cli.Env, command string) error {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return fmt.Errorf("strata %s needs strata-mcp, beside the strata program, which is not found: %w", command, err)
	}
	dir := filepath.Dir(self)
	path := filepath.Join(dir, mcpName())
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return &diag.Error{
			Msg:  fmt.Sprintf("strata %s needs strata-mcp, the strata command with the MCP SDK, and there is none beside strata in %s", command, dir),
			Hint: installBoth,
		}
	}
	if me, err := os.Stat(self); err == nil && os.SameFile(me, fi) {
		// A link to strata itself would run strata in its own place
		// forever.
		return &diag.Error{
			Msg:  fmt.Sprintf("strata %s needs strata-mcp, and %s is strata itself", command, path),
			Hint: installBoth,
		}
	}
	if canReplace && e.Stdin == os.Stdin && e.Stdout == os.Stdout && e.Stderr == os.Stderr {
		err := replace(path, e.Args) // returns only when it fails
		return fmt.Errorf("strata %s: running %s: %w", command, path, err)
	}
	return spawn(e, path)
}

// spawn runs strata-mcp as a child with e's command line and files, and
// returns its exit status as strata's.
func spawn(e *cli.Env, path string) error {
	cmd := exec.CommandContext(e.Ctx, path, e.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.Stdin, e.Stdout, e.Stderr
	stop := passSignals()
	defer stop()
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 {
			code = 1 // ended by a signal
		}
		return cli.ExitError(code)
	}
	return err
}
