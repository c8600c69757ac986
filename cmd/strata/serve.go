package main

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/serve"
)

type serveCmd struct {
	resolveFlags `embed:""`
	Timeout      time.Duration `default:"60s" help:"Bound each run of a local tool (MCP tools have their server's tool_timeout_sec)."`
}

func (c *serveCmd) Run(e *env) error {
	servers := &resolve.Servers{}
	defer servers.Close()
	srv := &serve.Server{
		Load: func(ctx context.Context) (*serve.Catalog, error) {
			w, err := c.resolve(&env{ctx: ctx, stdin: e.stdin, stdout: io.Discard, stderr: e.stderr}, servers)
			if w == nil {
				return nil, err
			}
			warn(e, diag.All(err)) // the tools that failed are left out
			r := &call.Runner{Catalog: w.catalog, Config: w.config, Resolver: w.resolver, Timeout: c.Timeout,
				// An MCP client asks its user before it calls a tool.
				Confirm: func(context.Context, string, json.RawMessage) (bool, error) { return true, nil }}
			return &serve.Catalog{Runner: r, Watch: w.watch}, nil
		},
		Warn: func(err error) { warn(e, diag.All(err)) },
	}
	servers.OnChange = func(string) { srv.Invalidate() }
	err := srv.Run(e.ctx, &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}})
	if e.ctx.Err() != nil {
		return nil // stopped by a signal: a clean end
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
