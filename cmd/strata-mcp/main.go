// Command strata-mcp is strata's command line with the MCP SDK linked: it
// runs every command of strata in its own process, resolve, call, serve
// and trust included. The strata command, which links no SDK so that its
// other commands start fast, hands those four to strata-mcp, installed
// beside it.
package main

import (
	"context"
	"io"
	"os"

	"github.com/strata-config/strata/internal/cli"
	"github.com/strata-config/strata/internal/cli/mcpcommands"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(ctx, args, stdin, stdout, stderr, mcpcommands.Programs{StopOnSignals: true, OneProc: true})
}
