// Package merge folds partial layers into one, lowest precedence first.
//
// Tables (partial structs, partial.Map entries, partial.Any tables) merge
// key by key, so an upper layer changes only what it mentions. Values
// (partial.Value) replace. Lists (partial.List) follow their strategy:
// append and prepend extend what lower layers give, replace and unset start
// again; a plain array in a file uses the field's default strategy, given by
// the struct tag `strata:"append"` or `strata:"prepend"` (replace when
// there is none). Free-form values (partial.Any, tool options) follow
// the strategy their layer read from a { value, strategy } table, as JP's
// options do (append, prepend, keep, shallow merge, ...). An unset in an
// upper layer drops what lower layers said, so the default applies again.
//
// Merging is associative, and the empty layer is its identity:
// Layers(Layers(a, b), c) and Layers(a, Layers(b, c)) finalize to the same
// config.
//
// The functions work on any partial struct: a struct whose fields are
// partial.Value, List, Map, Nested, Any or partial structs, with keys from
// their `toml` tags. They panic when given another type, which is a
// programming error.
package merge

import (
	"reflect"

	"github.com/strata-config/strata/internal/shape"
)

// Layers returns the merge of layers, the first lowest. Nil layers are
// skipped. The inputs are not modified, and the result shares no map or
// list with them (leaf values such as strings are shared).
func Layers[P any](layers ...*P) *P {
	t := partialType[P]()
	out := new(P)
	dst := reflect.ValueOf(out).Elem()
	for _, l := range layers {
		if l != nil {
			shape.Merge(dst, reflect.ValueOf(l).Elem(), t)
		}
	}
	return out
}

// Into merges src over dst, in place. src is not modified and dst shares
// no map or list with it afterwards.
func Into[P any](dst, src *P) {
	if src == nil {
		return
	}
	shape.Merge(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem(), partialType[P]())
}

func partialType[P any]() *shape.Type {
	t, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		panic(err)
	}
	return t
}
