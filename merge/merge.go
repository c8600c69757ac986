// Package merge folds partial layers into one, lowest precedence first.
//
// Tables (partial structs, [partial.Map] entries, [partial.Any] tables)
// merge key by key, so an upper layer changes only what it mentions. Values
// ([partial.Value]) replace. Lists ([partial.List]) follow their strategy:
// append and prepend extend what lower layers give, replace and unset start
// again; a plain array in a file uses the field's default strategy, given by
// the struct tag `strata:"append"` or `strata:"prepend"` (replace when
// there is none). An unset in an upper layer drops what lower layers said,
// so the default applies again.
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
			into(dst, reflect.ValueOf(l).Elem(), t)
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
	into(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem(), partialType[P]())
}

func partialType[P any]() *shape.Type {
	t, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		panic(err)
	}
	return t
}

// into merges src over dst.
func into(dst, src reflect.Value, t *shape.Type) {
	switch t.Kind {
	case shape.Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			into(dst.Field(f.Index), src.Field(f.Index), f.Type)
		}
	case shape.Value:
		if src.Field(shape.ValueState).Uint() != shape.StateAbsent {
			dst.Set(src)
		}
	case shape.List:
		list(dst, src, t)
	case shape.Map:
		if src.Field(shape.MapReset).Bool() {
			shape.CloneInto(dst, src, t)
			return
		}
		entries(dst.Field(shape.MapEntries), src.Field(shape.MapEntries), dst.Field(shape.MapReset).Bool(), t.Elem)
	case shape.Nested:
		switch src.Field(shape.NestedState).Uint() {
		case shape.StateUnset:
			dst.Set(reflect.Zero(t.Go))
			dst.Field(shape.NestedState).SetUint(shape.StateUnset)
		case shape.StatePresent:
			switch dst.Field(shape.NestedState).Uint() {
			case shape.StatePresent:
				into(dst.Field(shape.NestedV).Elem(), src.Field(shape.NestedV).Elem(), t.Elem)
			case shape.StateUnset:
				shape.CloneInto(dst, src, t)
				shape.Reset(dst.Field(shape.NestedV).Elem(), t.Elem)
			default:
				shape.CloneInto(dst, src, t)
			}
		}
	case shape.Any:
		anyValue(dst, src, t)
	}
}

func list(dst, src reflect.Value, t *shape.Type) {
	if shape.IsZero(src, t) {
		return
	}
	if src.Field(shape.ListBase).Uint() != shape.BaseLower {
		shape.CloneInto(dst, src, t)
		return
	}
	head, tail := dst.Field(shape.ListHead), dst.Field(shape.ListTail)
	if dst.Field(shape.ListBase).Uint() == shape.BaseEmpty {
		// Nothing lies between head and tail, so a prepend goes in front of
		// the tail: a replaced list keeps one run of items.
		head = tail
	}
	if sh := src.Field(shape.ListHead); sh.Len() > 0 {
		h := reflect.MakeSlice(head.Type(), 0, sh.Len()+head.Len())
		head.Set(reflect.AppendSlice(reflect.AppendSlice(h, sh), head))
	}
	if st := src.Field(shape.ListTail); st.Len() > 0 {
		tl := reflect.MakeSlice(tail.Type(), 0, st.Len()+tail.Len())
		tail.Set(reflect.AppendSlice(reflect.AppendSlice(tl, tail), st))
	}
	if src.Field(shape.ListDedup).Bool() || dst.Field(shape.ListDedup).Bool() {
		dst.Field(shape.ListDedup).SetBool(true)
		shape.DedupList(dst, t)
	}
}

// entries merges the entries of a partial.Map. reset says that dst drops
// lower layers, so removing an entry dst does not have is a no-op.
func entries(dst, src reflect.Value, reset bool, elem *shape.Type) {
	if src.Len() == 0 {
		return
	}
	if dst.IsNil() {
		dst.Set(reflect.MakeMapWithSize(dst.Type(), src.Len()))
	}
	iter := src.MapRange()
	for iter.Next() {
		k, sv := iter.Key(), iter.Value()
		dv := dst.MapIndex(k)
		switch {
		case sv.IsNil():
			if reset && !dv.IsValid() {
				continue
			}
			dst.SetMapIndex(k, sv)
		case !dv.IsValid():
			n := reflect.New(elem.Go)
			shape.CloneInto(n.Elem(), sv.Elem(), elem)
			dst.SetMapIndex(k, n)
		case dv.IsNil():
			// Removed below, defined again here: it starts again from its
			// defaults.
			n := reflect.New(elem.Go)
			shape.CloneInto(n.Elem(), sv.Elem(), elem)
			shape.Reset(n.Elem(), elem)
			dst.SetMapIndex(k, n)
		default:
			into(dv.Elem(), sv.Elem(), elem)
		}
	}
}

func anyValue(dst, src reflect.Value, t *shape.Type) {
	switch src.Field(shape.AnyState).Uint() {
	case shape.StateAbsent:
		return
	case shape.StateUnset:
		dst.Set(reflect.Zero(t.Go))
		dst.Field(shape.AnyState).SetUint(shape.StateUnset)
		return
	}
	st := src.Field(shape.AnyTable)
	if st.IsNil() {
		dst.Set(src) // a scalar or an array replaces
		return
	}
	dt := dst.Field(shape.AnyTable)
	switch {
	case dst.Field(shape.AnyState).Uint() == shape.StatePresent && !dt.IsNil():
		into(dt.Elem(), st.Elem(), t.Elem)
	case dst.Field(shape.AnyState).Uint() == shape.StateUnset:
		shape.CloneInto(dst, src, t)
		dst.Field(shape.AnyTable).Elem().Field(shape.MapReset).SetBool(true)
	default:
		shape.CloneInto(dst, src, t)
	}
}
