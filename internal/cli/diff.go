package cli

import (
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/merge"
)

type diffCmd struct {
	Cfg  []string `name:"cfg" placeholder:"X" sep:"none" help:"Override applied to TO (key=value, key:=json, key+=value, key:+=json, or a JSON object); repeatable."`
	JSON bool     `name:"json" help:"Print JSON instead of TOML."`
	From string   `arg:"" name:"FROM" help:"The layer to start from, with the files it extends."`
	To   string   `arg:"" name:"TO" help:"The layer to arrive at, with the files it extends."`
}

func (c *diffCmd) Run(e *env) error {
	// A file with what it extends is one layer: their merge.
	var files []*config.Partial
	_, err := readLayers(e, []string{c.From, c.To}, func(layers []*config.Partial) {
		files = append(files, merge.Layers(layers...))
	})
	if err != nil {
		return err
	}
	from, to := files[0], files[1]
	if err := applyCfg(to, c.Cfg); err != nil {
		return err
	}
	d := delta.Between(from, to)
	if err := write(e, d, c.JSON); err != nil {
		return err
	}
	if !delta.Empty(d) {
		return exitStatus(1)
	}
	return nil
}
