package main

import (
	"github.com/strata-config/strata/delta"
)

type diffCmd struct {
	Cfg  []string `name:"cfg" placeholder:"X" sep:"none" help:"Override applied to TO (key=value, key:=json, key+=value, key:+=json, or a JSON object); repeatable."`
	JSON bool     `name:"json" help:"Print JSON instead of TOML."`
	From string   `arg:"" name:"FROM" help:"The layer to start from."`
	To   string   `arg:"" name:"TO" help:"The layer to arrive at."`
}

func (c *diffCmd) Run(e *env) error {
	layers, _, err := readLayers(e.ctx, []string{c.From, c.To})
	if err != nil {
		return err
	}
	if err := applyCfg(layers[1], c.Cfg); err != nil {
		return err
	}
	d := delta.Between(layers[0], layers[1])
	if err := write(e, d, c.JSON); err != nil {
		return err
	}
	if !delta.Empty(d) {
		return exitError(1)
	}
	return nil
}
