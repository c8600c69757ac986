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
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(ctx, args, stdin, stdout, stderr)
}
