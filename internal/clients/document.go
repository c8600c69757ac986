package clients

import (
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/decode"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/partial"
)

// document is the client's file being read: its name and its tree.
type document struct {
	name string
	t    *doc.Doc
}

func (d *document) tree() *doc.Doc { return d.t }

// errAt returns an error about path p at the value of node n.
func (d *document) errAt(code diag.Code, n *doc.Node, p partial.Path, msg, hint string) *diag.Error {
	return decode.At(&diag.Error{Code: code, Source: d.name, Path: p, Msg: msg, Hint: hint}, d.tree(), n.ValuePos())
}

// errAtKey returns an error about path p at the key of node n.
func (d *document) errAtKey(code diag.Code, n *doc.Node, p partial.Path, msg, hint string) *diag.Error {
	return decode.At(&diag.Error{Code: code, Source: d.name, Path: p, Msg: msg, Hint: hint}, d.tree(), n.Pos())
}
