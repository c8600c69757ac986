// Command strata resolves the tool definitions an LLM application gives to
// a model: it merges layered configuration, shows differences between
// layers, prints the JSON Schema of the config file, and resolves, calls
// and serves tools.
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

// programs runs resolve, call, serve and trust. The tests run every
// command in their own process, without the signal handling and the one
// P of a process that serves.
var programs cli.Programs = mcpcommands.Programs{StopOnSignals: true, OneProc: true}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(ctx, args, stdin, stdout, stderr, programs)
}
