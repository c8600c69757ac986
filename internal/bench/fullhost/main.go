// Command fullhost is a host that uses all of strata: it opens the
// workspace, resolves its tools, writes them for a vendor, counts their
// tokens, and can serve them over MCP (with -serve): the weight such a
// host carries, for the binary sizes in CONTRIBUTING's dependency table.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/budget"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
)

func main() {
	ctx := context.Background()
	w, err := strata.Open[config.Partial](ctx, config.Default(), strata.Environ(os.Environ()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer w.Close()
	if len(os.Args) > 1 && os.Args[1] == "-serve" {
		if err := w.Serve(ctx, os.Stdin, os.Stdout, func(err error) { fmt.Fprintln(os.Stderr, err) }); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	cat, err := w.Resolve(ctx)
	if cat == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	written, err := export.Write(cat, export.MCP, w.Model().Budget)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(budget.Measure(written, w.Model().Budget).Total, "tokens")
}
