package cli

import (
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/command"
	"github.com/strata-config/strata/internal/termtext"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

type mergeCmd struct {
	Cfg   []string `name:"cfg" placeholder:"X" sep:"none" help:"Override after the files: key=value, key:=json, key+=value, key:+=json, or a JSON object; repeatable, applied in order."`
	Final bool     `help:"Print the finalized config (defaults filled, unsets applied) instead of the merged layer."`
	JSON  bool     `name:"json" help:"Print JSON instead of TOML."`
	Files []string `arg:"" name:"FILE" help:"Layer files, lowest precedence first (.toml, .json, .yaml), each with the files it extends."`
}

func (c *mergeCmd) Run(e *env) error {
	merged := new(config.Partial)
	docs, err := readLayers(e, c.Files, func(layers []*config.Partial) {
		for _, l := range layers {
			merge.Into(merged, l)
		}
	})
	if err != nil {
		return err
	}
	if err := applyCfg(merged, c.Cfg); err != nil {
		return err
	}
	var out any = merged
	if c.Final {
		cfg, err := config.Finalize(merged)
		if err == nil {
			// as strata.Open does: the runtime checks the command templates
			err = command.CheckTools(cfg, nil)
		}
		if err != nil {
			return codec.LocateErrors(err, docs...)
		}
		out = cfg
	}
	return write(e, out, c.JSON)
}

// write prints v as TOML, or as JSON when asJSON is set. A value that
// came from a variable or an input (a secret.String) prints as its
// reference.
func write(e *env, v any, asJSON bool) error {
	f := partial.TOML
	if asJSON {
		f = partial.JSON
	}
	b, err := codec.Encode(v, f)
	if err != nil {
		return err
	}
	if asJSON {
		b = termtext.JSON(b) // the same JSON, safe to print
	}
	_, err = e.Stdout.Write(b)
	return err
}
