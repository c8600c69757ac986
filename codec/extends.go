package codec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/decode"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
)

// ExtendsKey is the root key of a layer file that lists the files it
// extends:
//
//	extends = ["base.toml", "config.d/*.toml", { path = "local.toml", strategy = "after" }]
//
// Paths are relative to the declaring file; a glob's matches are read in
// sorted order. An extended file is a layer below the declaring file,
// unless its strategy is "after", and may extend others in turn. A cycle, a
// missing file and a glob that matches nothing are errors that name the
// chain of files.
const ExtendsKey = "extends"

// Extend is one entry of a layer's extends list: the Path (or glob) of
// the files it reads, relative to the declaring file; After when they are
// layers above it ("after"), not below; and the Format of another client's
// file it names ("" for a strata layer).
type Extend struct {
	Path   string
	After  bool
	Format string
	d      *Document
	at     partial.Path // where the entry is, for messages
	node   *doc.Node    // the entry, for its position
}

// Equal reports whether e and o name the same files in the same way,
// written at the same place of the same document. It lets go-cmp
// compare entries.
func (e Extend) Equal(o Extend) bool {
	return e.Path == o.Path && e.After == o.After && e.Format == o.Format &&
		e.d.Equal(o.d) && slices.Equal(e.at, o.at)
}

// Problem returns an error with code positioned at the entry e of its
// document.
func (e Extend) Problem(code diag.Code, msg, hint string) *diag.Error {
	return e.d.errAt(code, e.node, e.at, msg, hint)
}

// Extends takes the extends entry ([ExtendsKey]) out of the document and
// returns its entries, or every problem of it; formats are the names its
// format key may take.
func (d *Document) Extends(formats []string) ([]Extend, error) {
	n := d.tree().Root.Get(ExtendsKey)
	if n == nil {
		return nil, nil
	}
	defer d.tree().Root.Delete(ExtendsKey)
	d.changed = true
	where := partial.Path{ExtendsKey}
	items := n.Entries
	switch n.Kind {
	case doc.String:
		items = []*doc.Node{n}
	case doc.Array:
	default:
		return nil, d.errAt(diag.CodeType, n, where, "expected an array of paths, found "+decode.Describe(n), `write extends = ["base.toml"]`)
	}
	var out []Extend
	var errs diag.Errors
	for i, it := range items {
		at := where
		if n.Kind == doc.Array {
			at = where.Append(fmt.Sprint(i))
		}
		switch it.Kind {
		case doc.String:
			if it.Str == "" {
				errs = append(errs, d.errAt(diag.CodeBadValue, it, at, "the path is empty", ""))
				continue
			}
			out = append(out, Extend{Path: it.Str, d: d, at: at, node: it})
		case doc.Table:
			e := Extend{d: d, at: at, node: it}
			for _, f := range it.Entries {
				switch f.Key {
				case "path":
					if f.Kind != doc.String || f.Str == "" {
						errs = append(errs, d.errAt(diag.CodeType, f, at.Append(f.Key), "expected a path, found "+decode.Describe(f), ""))
						continue
					}
					e.Path = f.Str
				case "format":
					switch names := formats; {
					case f.Kind == doc.String && slices.Contains(names, f.Str):
						e.Format = f.Str
					default:
						hint := ""
						if c := suggest.Closest(f.Str, names); c != "" && f.Kind == doc.String {
							hint = "did you mean " + c + "?"
						}
						errs = append(errs, d.errAt(diag.CodeBadValue, f, at.Append(f.Key), "expected "+strings.Join(names, ", ")+", found "+decode.Describe(f), hint))
					}
				case "strategy":
					switch {
					case f.Kind == doc.String && f.Str == "before":
					case f.Kind == doc.String && f.Str == "after":
						e.After = true
					default:
						hint := ""
						if c := suggest.Closest(f.Str, []string{"before", "after"}); c != "" && f.Kind == doc.String {
							hint = "did you mean " + c + "?"
						}
						errs = append(errs, d.errAt(diag.CodeBadValue, f, at.Append(f.Key), "expected before or after, found "+decode.Describe(f), hint))
					}
				default:
					hint := ""
					if c := suggest.Closest(f.Key, []string{"path", "strategy", "format"}); c != "" {
						hint = "did you mean " + c + "?"
					}
					errs = append(errs, d.errAtKey(diag.CodeUnknownKey, f, at.Append(f.Key), "unknown key", hint))
				}
			}
			if e.Path == "" {
				if len(errs) == 0 {
					errs = append(errs, d.errAt(diag.CodeInvalid, it, at, "an extends table needs a path", `write { path = "x.toml", strategy = "after" }`))
				}
				continue
			}
			out = append(out, e)
		default:
			errs = append(errs, d.errAt(diag.CodeType, it, at, "expected a path or { path, strategy }, found "+decode.Describe(it), ""))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}
