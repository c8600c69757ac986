package codec

import (
	"errors"
	"sort"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/decode"
	"github.com/strata-config/strata/partial"
)

// LocateErrors gives a position to each problem in err that has a key path
// but no source, such as the problems [partial.Finalize] reports: the position
// where the highest of docs (listed lowest first) that mentions the path
// defines it, or, when none does, the deepest part of it any of them
// defines (the highest such document). Other problems are kept as they are.
// The problems come back in document order: those located in docs by
// document (lowest first), then line and column; the others after them,
// in the order given.
func LocateErrors(err error, docs ...*Document) error {
	if err == nil {
		return nil
	}
	var es diag.Errors
	var one *diag.Error
	switch {
	case errors.As(err, &es):
	case errors.As(err, &one):
		es = diag.Errors{one}
	default:
		return err
	}
	out := make(diag.Errors, len(es))
	rank := make(map[*diag.Error]int, len(es))
	for i, e := range es {
		out[i] = e
		rank[e] = len(docs)
		if e.Source != "" || len(e.Path) == 0 {
			continue
		}
		// A document that mentions only an enclosing table (say, tools,
		// for an error about tools.a) is not where the problem is.
		best, depth := -1, 0
		for j := len(docs) - 1; j >= 0; j-- {
			if docs[j] == nil {
				continue
			}
			if n := docs[j].depth(e.Path); n > depth {
				best, depth = j, n
			}
		}
		if best < 0 {
			continue
		}
		if off, ok := docs[best].locate(e.Path); ok {
			c := *e
			c.Source = docs[best].name
			decode.At(&c, docs[best].d, off)
			out[i] = &c
			rank[&c] = best
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		ea, eb := out[a], out[b]
		if rank[ea] != rank[eb] {
			return rank[ea] < rank[eb]
		}
		if ea.Line != eb.Line {
			return ea.Line < eb.Line
		}
		return ea.Column < eb.Column
	})
	return out
}

// depth returns how many leading keys of p the document defines.
func (d *Document) depth(p partial.Path) int {
	n := d.tree().Root
	for i, k := range p {
		if n = n.Get(k); n == nil {
			return i
		}
	}
	return len(p)
}
