package cli

import (
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// readLayers reads layer files, each with the files it extends as load
// reads them, and gives each file's layers, lowest first, to each as the
// file is read (merge folds them in, so that no file's layers outlive
// it); it returns the documents of all of them, reporting the problems of
// all files together and printing the warnings.
func readLayers(e *env, names []string, each func([]*config.Partial)) ([]*codec.Document, error) {
	var errs diag.Collector
	var docs []*codec.Document
	for _, name := range names {
		layers, warnings, err := layerApp.File(e.Ctx, name)
		warn(e, warnings)
		if err != nil {
			errs.Add(err)
			continue
		}
		ps := make([]*config.Partial, len(layers))
		for i, l := range layers {
			ps[i] = l.Partial
			docs = append(docs, l.Doc)
		}
		if errs.Err() == nil {
			each(ps)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return docs, nil
}

// layerApp reads layer files for merge and diff: strata's own model, MCP
// files of other clients included.
var layerApp = &load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), MCPServers: partial.Path{"mcp_servers"}}
