// Command strata resolves the tool definitions an LLM application gives to
// a model: it merges layered configuration, shows differences between
// layers, prints the JSON Schema of the config file, and resolves, calls
// and serves tools.
//
// strata links no MCP SDK, whose initialisation alone (net/http, TLS, gob)
// would double the time of a small command such as strata config. The
// commands that need it (resolve, call, serve, trust) run in strata-mcp,
// the same command line with the SDK linked, which strata finds beside
// itself and runs in its place.
package main

import (
	"context"
	"io"
	"os"
	"slices"

	"github.com/strata-config/strata/internal/cli"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// programs runs resolve, call, serve and trust: strata-mcp, in strata's
// place. (Tests run them in the test's process.)
var programs cli.Programs = sibling{}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if _, ok := programs.(sibling); ok && len(args) > 0 && slices.Contains(handedOver, args[0]) {
		// strata-mcp parses the command line with the same grammar, and
		// says the same of its mistakes: strata, whose start is all the
		// hand-over costs, does not parse it first.
		e := &cli.Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr, Args: args}
		if err := delegate(e, args[0]); err != nil {
			return cli.Report(stderr, err)
		}
		return 0
	}
	return cli.Run(ctx, args, stdin, stdout, stderr, programs)
}
