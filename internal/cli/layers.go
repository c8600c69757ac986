package cli

import (
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// readLayers reads layer files, each with the files it extends as load
// reads them, and returns each file's layers, lowest first, and the
// documents of all of them, reporting the problems of all files together
// and printing the warnings.
func readLayers(e *env, names []string) ([][]load.Layer[config.Partial], []*codec.Document, error) {
	var errs diag.Collector
	files := make([][]load.Layer[config.Partial], 0, len(names))
	var docs []*codec.Document
	for _, name := range names {
		layers, warnings, err := layerApp.File(e.Ctx, name)
		warn(e, warnings)
		if err != nil {
			errs.Add(err)
			continue
		}
		files = append(files, layers)
		for _, l := range layers {
			docs = append(docs, l.Doc)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	return files, docs, nil
}

// layerApp reads layer files for merge and diff: strata's own model, MCP
// files of other clients included.
var layerApp = &load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), MCPServers: partial.Path{"mcp_servers"}}

// secretsOf returns the secrets of docs: the values that came from a
// variable or an input (see codec.Document.Secrets).
func secretsOf(docs []*codec.Document) *codec.Secrets {
	var s codec.Secrets
	for _, d := range docs {
		s.Add(d.Secrets())
	}
	return &s
}

// partials returns the partials of layers, in order.
func partials(layers []load.Layer[config.Partial]) []*config.Partial {
	out := make([]*config.Partial, len(layers))
	for i, l := range layers {
		out[i] = l.Partial
	}
	return out
}
