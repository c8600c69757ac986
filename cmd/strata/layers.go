package main

import (
	"context"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
)

// readLayers reads and decodes layer files within the default limits,
// reporting the problems of all of them together (as many as the limit
// allows, and how many more there were).
func readLayers(ctx context.Context, names []string) ([]*config.Partial, []*load.Document, error) {
	var errs diag.Collector
	layers := make([]*config.Partial, 0, len(names))
	docs := make([]*load.Document, 0, len(names))
	for _, name := range names {
		p, d, err := readLayer(ctx, name)
		if err != nil {
			errs.Add(err)
			continue
		}
		layers, docs = append(layers, p), append(docs, d)
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	return layers, docs, nil
}

func readLayer(ctx context.Context, name string) (*config.Partial, *load.Document, error) {
	format, ok := load.FormatOf(name)
	if !ok {
		return nil, nil, &diag.Error{Source: name, Msg: "cannot tell the format from the file name", Hint: "use a .toml, .json, .yaml or .yml file"}
	}
	data, err := load.Limits{}.ReadFile(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	d, err := load.Limits{}.Parse(name, data, format)
	if err != nil {
		return nil, nil, err
	}
	p := new(config.Partial)
	if err := d.Decode(p); err != nil {
		return nil, nil, err
	}
	return p, d, nil
}
