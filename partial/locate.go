package partial

import "errors"

// LocateErrors gives a position to each problem in err that has a key path
// but no source, such as the problems [Finalize] reports: the position
// where the highest of docs (listed lowest first) that mentions the path
// defines it. Other problems are kept as they are.
func LocateErrors(err error, docs ...*Document) error {
	if err == nil {
		return nil
	}
	var es Errors
	var one *Error
	switch {
	case errors.As(err, &es):
	case errors.As(err, &one):
		es = Errors{one}
	default:
		return err
	}
	out := make(Errors, len(es))
	for i, e := range es {
		out[i] = e
		if e.Source != "" || len(e.Path) == 0 {
			continue
		}
		for j := len(docs) - 1; j >= 0; j-- {
			if docs[j] == nil || !docs[j].Has(e.Path[:1]) {
				continue
			}
			if line, col, ok := docs[j].Locate(e.Path); ok {
				c := *e
				c.Source, c.Line, c.Column, c.Snippet = docs[j].name, line, col, docs[j].d.Line(line)
				out[i] = &c
				break
			}
		}
	}
	return out
}
