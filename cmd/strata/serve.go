package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/serve"
)

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
