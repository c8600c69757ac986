// Command confighostload is a config-only host's side of the whole-process
// load benchmark: it loads strata's tools model as a host that embeds the
// config core alone would (load, config, partial: no MCP SDK, tokenizer,
// JSON Schema validator or shell parser), with the layer files it is
// given as --cfg layers, and prints how many tools the result has.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
)

func main() {
	app := load.App[config.Partial, config.Config]{
		Name: "strata", Defaults: config.Default(), Cfg: os.Args[1:],
		MCPServers: []string{"mcp_servers"},
	}
	res, err := app.Load(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(len(res.Layers), "layers,", len(res.Config.Tools), "tools")
}
