package main

import (
	"fmt"
	"os"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
)

// readLayers reads and decodes layer files, reporting the problems of all
// of them together.
func readLayers(names []string) ([]*config.Partial, []*load.Document, error) {
	var errs diag.Errors
	layers := make([]*config.Partial, 0, len(names))
	docs := make([]*load.Document, 0, len(names))
	for _, name := range names {
		p, d, err := readLayer(name)
		if err != nil {
			errs = append(errs, diag.All(err)...)
			continue
		}
		layers, docs = append(layers, p), append(docs, d)
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	return layers, docs, nil
}

func readLayer(name string) (*config.Partial, *load.Document, error) {
	format, ok := load.FormatOf(name)
	if !ok {
		return nil, nil, &diag.Error{Source: name, Msg: "cannot tell the format from the file name", Hint: "use a .toml, .json, .yaml or .yml file"}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, &diag.Error{Source: name, Msg: fmt.Sprintf("cannot read: %v", unwrapPath(err))}
	}
	d, err := load.Parse(name, data, format)
	if err != nil {
		return nil, nil, err
	}
	p := new(config.Partial)
	if err := d.Decode(p); err != nil {
		return nil, nil, err
	}
	return p, d, nil
}

// unwrapPath drops the path from an *os.PathError, which the message names
// already.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
