// Command confighost is a host that only loads strata's configuration
// (load and config): the weight such a host carries, for the binary sizes
// in CONTRIBUTING's dependency table. It prints how many tools the
// configuration of the working directory names.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
)

func main() {
	app := &load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Environ: os.Environ()}
	res, err := app.Load(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(len(res.Config.Tools), "tools")
}
