// Package delta computes the difference between two partial layers (JP's
// PartialConfigDelta is [Between]), exact
// after finalize: the layer that, merged over the first, gives what
// finalizes to the same config as the second.
//
// For partials a and b of the same type, merge(a, Between(a, b)) finalizes
// to the same config as b, removals included: a field that b leaves out or
// unsets and a sets becomes an unset in the delta, and an entry b does not
// have is removed. Between(a, a) is empty, and the delta holds no field
// whose value is the same in a and b.
//
// Equality is judged after finalize: a field that is absent in one layer
// and unset in the other is the same (both mean the default).
//
// Between turns one layer into another: what b does not repeat of a is
// undone. For the layer an overlay adds to a (a workspace's over a user's),
// diff a with the overlay merged over it:
//
//	d := delta.Between(user, merge.Layers(user, workspace))
//
// An overlay is not a config: finalizing it alone fails where it relies on
// the layers below it (a server whose command the user's layer gives).
//
// Between knows no defaults, so it keeps a value that the defaults give
// anyway ([tools.'*'] run = "ask" over nothing). [Smallest] takes the
// defaults and leaves out every field whose finalized value is the same.
package delta

import (
	"reflect"
	"strings"

	"github.com/strata-config/strata/internal/shape"
)

// Between returns the layer that turns from into to: JP's
// PartialConfigDelta (partial_config_delta), removals included. The inputs
// are not modified and the result shares no map or list with them.
func Between[P any](from, to *P) *P {
	t, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		panic(err)
	}
	out := new(P)
	if from == nil {
		from = new(P)
	}
	if to == nil {
		to = new(P)
	}
	between(reflect.ValueOf(out).Elem(), reflect.ValueOf(from).Elem(), reflect.ValueOf(to).Elem(), t)
	return out
}

// Empty reports whether layer p says nothing.
func Empty[P any](p *P) bool {
	if p == nil {
		return true
	}
	t, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		panic(err)
	}
	return shape.IsZero(reflect.ValueOf(p).Elem(), t)
}

func between(out, a, b reflect.Value, t *shape.Type) {
	switch t.Kind {
	case shape.Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			between(out.FieldByIndex(f.Index), a.FieldByIndex(f.Index), b.FieldByIndex(f.Index), f.Type)
		}
	case shape.Value:
		ap := a.Field(t.At.State).Uint() == shape.StatePresent
		bp := b.Field(t.At.State).Uint() == shape.StatePresent
		switch {
		case bp && (!ap || !shape.EqualLeaf(a.Field(t.At.V), b.Field(t.At.V), t.Elem)):
			out.Set(b)
		case !bp && ap:
			out.Field(t.At.State).SetUint(shape.StateUnset)
		}
	case shape.List:
		list(out, a, b, t)
	case shape.Map:
		mapDelta(out, a, b, t)
	case shape.Nested:
		ap := a.Field(t.At.State).Uint() == shape.StatePresent
		bp := b.Field(t.At.State).Uint() == shape.StatePresent
		switch {
		case bp && ap:
			p := reflect.New(t.Elem.Go)
			between(p.Elem(), a.Field(t.At.V).Elem(), b.Field(t.At.V).Elem(), t.Elem)
			if !shape.IsZero(p.Elem(), t.Elem) {
				out.Field(t.At.State).SetUint(shape.StatePresent)
				out.Field(t.At.V).Set(p)
			}
		case bp:
			shape.CloneInto(out, b, t)
		case ap:
			out.Field(t.At.State).SetUint(shape.StateUnset)
		}
	case shape.Any:
		anyDelta(out, a, b, t)
	}
}

// list computes a list delta: an extension of a when b extends a, and
// otherwise a reset to the default followed by b's items.
func list(out, a, b reflect.Value, t *shape.Type) {
	ab, bb := a.Field(t.At.Base).Uint(), b.Field(t.At.Base).Uint()
	class := func(base uint64) uint64 { // lower and default both stand on the default
		if base == shape.BaseEmpty {
			return base
		}
		return shape.BaseLower
	}
	ah, at := shape.Head(a, t), shape.Tail(a, t)
	bh, bt := shape.Head(b, t), shape.Tail(b, t)
	ad, bd := a.Field(t.At.Dedup).Bool(), b.Field(t.At.Dedup).Bool()
	if class(ab) == class(bb) && ad == bd && equal(ah, bh, t.Elem) && equal(at, bt, t.Elem) {
		return
	}
	if bb == shape.BaseEmpty {
		shape.CloneInto(out, b, t)
		return
	}
	if ab != shape.BaseEmpty && (bd || !ad) &&
		ah.Len() <= bh.Len() && equal(ah, bh.Slice(bh.Len()-ah.Len(), bh.Len()), t.Elem) &&
		at.Len() <= bt.Len() && equal(at, bt.Slice(0, at.Len()), t.Elem) {
		shape.SetItems(out, t, copySlice(bh.Slice(0, bh.Len()-ah.Len())), copySlice(bt.Slice(at.Len(), bt.Len())))
		out.Field(t.At.Dedup).SetBool(bd && !ad)
		return
	}
	shape.CloneInto(out, b, t)
	out.Field(t.At.Base).SetUint(shape.BaseDefault)
}

func equal(a, b reflect.Value, elem *shape.Type) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		if !shape.EqualLeaf(a.Index(i), b.Index(i), elem) {
			return false
		}
	}
	return true
}

func copySlice(s reflect.Value) reflect.Value {
	if s.Len() == 0 {
		return reflect.Zero(s.Type())
	}
	c := reflect.MakeSlice(s.Type(), s.Len(), s.Len())
	reflect.Copy(c, s)
	return c
}

// mapDelta computes the delta of two partial.Maps entry by entry. An
// entry that a sets and b does not is unset, which brings back what the
// defaults give, as b does.
func mapDelta(out, a, b reflect.Value, t *shape.Type) {
	ae, be := a.Field(t.At.Entries), b.Field(t.At.Entries)
	d := reflect.MakeMap(ae.Type())
	iter := be.MapRange()
	for iter.Next() {
		k, bv := iter.Key(), iter.Value()
		av := ae.MapIndex(k)
		switch {
		case bv.IsNil():
			if av.IsValid() && !av.IsNil() {
				d.SetMapIndex(k, bv)
			}
		case !av.IsValid() || av.IsNil():
			n := reflect.New(t.Elem.Go)
			shape.CloneInto(n.Elem(), bv.Elem(), t.Elem)
			d.SetMapIndex(k, n)
		default:
			n := reflect.New(t.Elem.Go)
			between(n.Elem(), av.Elem(), bv.Elem(), t.Elem)
			if !shape.IsZero(n.Elem(), t.Elem) {
				d.SetMapIndex(k, n)
			}
		}
	}
	iter = ae.MapRange()
	for iter.Next() {
		if !iter.Value().IsNil() && !be.MapIndex(iter.Key()).IsValid() {
			d.SetMapIndex(iter.Key(), reflect.Zero(ae.Type().Elem()))
		}
	}
	if d.Len() > 0 {
		out.Field(t.At.Entries).Set(d)
	}
}

// anyDelta computes the delta of two partial.Any values. At finalize an
// Any's input is the default at its place, and so is the input of each
// entry of a table that starts from it; so an unset stands for "what b
// leaves alone", and two such tables differ entry by entry. Otherwise the
// delta is b standing on its own: resting on the default where b rests on
// lower layers.
func anyDelta(out, a, b reflect.Value, t *shape.Type) {
	ap := a.Field(t.At.State).Uint() == shape.StatePresent
	bp := b.Field(t.At.State).Uint() == shape.StatePresent
	switch {
	case !bp:
		if ap {
			out.Field(t.At.State).SetUint(shape.StateUnset)
		}
		return
	case !ap:
		shape.CloneInto(out, b, t) // a leaves the input (the default) as it is
		return
	case shape.Equal(a, b, t):
		return
	case tableOnDefault(a, t) && tableOnDefault(b, t):
		m := reflect.New(t.Elem.Go)
		mapDelta(m.Elem(), a.Field(t.At.Table).Elem(), b.Field(t.At.Table).Elem(), t.Elem)
		if !shape.IsZero(m.Elem(), t.Elem) {
			out.Field(t.At.State).SetUint(shape.StatePresent)
			out.Field(t.At.Table).Set(m)
		}
		return
	case wrapExtension(out, a, b, t):
		return
	}
	shape.CloneInto(out, b, t)
	shape.Reset(out, t)
}

// tableOnDefault reports whether present Any v (of type t) merges a table into its
// input or the default, without a fill: its entries' inputs are then the
// defaults at their places.
func tableOnDefault(v reflect.Value, t *shape.Type) bool {
	return shape.Op(v, t) == shape.OpTable && v.Field(t.At.Base).Uint() != shape.BaseEmpty && v.Field(t.At.Fill).IsNil()
}

// wrapExtension sets out to the wrap that, merged over a, gives b, when b
// wraps a's input in more than a does (append after append); it reports
// whether there is one.
func wrapExtension(out, a, b reflect.Value, t *shape.Type) bool {
	if shape.Op(a, t) != shape.OpWrap || shape.Op(b, t) != shape.OpWrap ||
		a.Field(t.At.Base).Uint() != shape.BaseLower || b.Field(t.At.Base).Uint() != shape.BaseLower ||
		!reflect.DeepEqual(a.Field(t.At.Fill).Interface(), b.Field(t.At.Fill).Interface()) {
		return false
	}
	av, bv := a.Field(t.At.V).Interface(), b.Field(t.At.V).Interface()
	ah, at := a.Field(t.At.Head).Interface(), a.Field(t.At.Tail).Interface()
	bh, bt := b.Field(t.At.Head).Interface(), b.Field(t.At.Tail).Interface()
	head, ok1 := trimEnd(bh, ah)
	tail, ok2 := trimStart(bt, at)
	if !ok1 || !ok2 || !reflect.DeepEqual(bv, join(join(head, av), tail)) {
		return false
	}
	out.Field(t.At.State).SetUint(shape.StatePresent)
	out.Field(t.At.Head).Set(reflect.ValueOf(head))
	out.Field(t.At.Tail).Set(reflect.ValueOf(tail))
	out.Field(t.At.V).Set(reflect.ValueOf(join(head, tail)))
	return true
}

// trimEnd returns s without suffix, for strings and arrays alike.
func trimEnd(s, suffix any) (any, bool) {
	switch s := s.(type) {
	case string:
		x, ok := suffix.(string)
		if !ok || !strings.HasSuffix(s, x) {
			return nil, false
		}
		return s[:len(s)-len(x)], true
	case []any:
		x, ok := suffix.([]any)
		if !ok || len(x) > len(s) || !reflect.DeepEqual(append([]any{}, s[len(s)-len(x):]...), append([]any{}, x...)) {
			return nil, false
		}
		return append([]any{}, s[:len(s)-len(x)]...), true
	}
	return nil, false
}

// trimStart returns s without prefix, for strings and arrays alike.
func trimStart(s, prefix any) (any, bool) {
	switch s := s.(type) {
	case string:
		x, ok := prefix.(string)
		if !ok || !strings.HasPrefix(s, x) {
			return nil, false
		}
		return s[len(x):], true
	case []any:
		x, ok := prefix.([]any)
		if !ok || len(x) > len(s) || !reflect.DeepEqual(append([]any{}, s[:len(x)]...), append([]any{}, x...)) {
			return nil, false
		}
		return append([]any{}, s[len(x):]...), true
	}
	return nil, false
}

// join joins two strings or two arrays.
func join(a, b any) any {
	if s, ok := a.(string); ok {
		return s + b.(string)
	}
	return append(append([]any{}, a.([]any)...), b.([]any)...)
}
