package shape

import (
	"math"
	"reflect"
)

// A partial.Any stands for a function from the value lower layers give (its
// input, possibly nothing) to the value it gives: it starts from its input
// (BaseLower), the default (BaseDefault) or nothing (BaseEmpty), from its
// Fill when that start is nothing, and then
//
//	replaces the start with V                      (V alone; "replace")
//	merges Table's entries into it                 (Table; "deep_merge", "merge", "keep")
//	wraps it in Head and Tail when it is of V's kind, else gives V
//	                                               (Head and Tail; "append", "prepend", "wrap")
//	keeps it                                       (nothing but Fill; "fill")
//
// These forms are closed under composition, which is what merging two
// layers computes (mergeAny): the result of merging b over a is the form of
// "a, then b", so merging is associative. A form that does not depend on
// its input at all (a replace, or a table merged into nothing) is written
// with BaseLower (for V) or BaseEmpty (for Table).

// AnyOp is what a present partial.Any does with its start.
type AnyOp uint8

// Operations of a present partial.Any.
const (
	OpReplace AnyOp = iota // V replaces the start
	OpTable                // Table's entries merge into the start
	OpWrap                 // Head and Tail wrap a start of V's kind
	OpFill                 // the start is kept (with Fill when it is nothing)
)

// anyVal is the content of a partial.Any.
type anyVal struct {
	state uint64
	v     any
	table reflect.Value // *partial.Map[partial.Any], possibly nil
	head  any
	tail  any
	base  uint64
	fill  any
}

// readAny reads partial.Any v, which t describes.
func readAny(v reflect.Value, t *Type) anyVal {
	return anyVal{
		state: v.Field(t.At.State).Uint(),
		v:     v.Field(t.At.V).Interface(),
		table: v.Field(t.At.Table),
		head:  v.Field(t.At.Head).Interface(),
		tail:  v.Field(t.At.Tail).Interface(),
		base:  v.Field(t.At.Base).Uint(),
		fill:  v.Field(t.At.Fill).Interface(),
	}
}

func (a anyVal) op() AnyOp {
	switch {
	case !a.table.IsNil():
		return OpTable
	case a.head != nil:
		return OpWrap
	case a.v == nil && a.fill != nil:
		return OpFill
	}
	return OpReplace
}

// Op returns what present partial.Any v, which t describes, does with its
// start.
func Op(v reflect.Value, t *Type) AnyOp { return readAny(v, t).op() }

func setIface(f reflect.Value, x any) {
	if x == nil {
		f.Set(reflect.Zero(f.Type()))
		return
	}
	f.Set(reflect.ValueOf(x))
}

// replaceAny makes dst a present Any that replaces its start with x.
func replaceAny(dst reflect.Value, t *Type, x any) {
	dst.Set(reflect.Zero(t.Go))
	dst.Field(t.At.State).SetUint(StatePresent)
	setIface(dst.Field(t.At.V), x)
}

// mergeAny merges partial.Any src over dst: dst becomes "dst, then src".
func mergeAny(dst, src reflect.Value, t *Type) {
	s := readAny(src, t)
	switch s.state {
	case StateAbsent:
		return
	case StateUnset:
		dst.Set(reflect.Zero(t.Go))
		dst.Field(t.At.State).SetUint(StateUnset)
		return
	}
	sop := s.op()
	if s.base != BaseLower || sop == OpReplace {
		CloneInto(dst, src, t) // src does not depend on what lies below
		return
	}
	d := readAny(dst, t)
	switch d.state {
	case StateAbsent:
		CloneInto(dst, src, t)
		return
	case StateUnset:
		CloneInto(dst, src, t)
		dst.Field(t.At.Base).SetUint(BaseDefault)
		return
	}
	if sop == OpFill && d.op() != OpReplace {
		return // dst always gives something, or fills first
	}
	switch d.op() {
	case OpFill:
		// src's operation on dst's start, filled with dst's Fill.
		CloneInto(dst, src, t)
		dst.Field(t.At.Base).SetUint(d.base)
		setIface(dst.Field(t.At.Fill), fitFill(d.fill, sop, s.v))
	case OpReplace:
		out := reflect.New(t.Go).Elem()
		ApplyAnyTo(out, src, d.v, t)
		dst.Set(out)
	case OpTable:
		switch sop {
		case OpTable:
			mergeEntries(d.table.Elem().Field(t.Elem.At.Entries), s.table.Elem().Field(t.Elem.At.Entries), false, t, nil)
		case OpWrap:
			replaceAny(dst, t, s.v)
		}
	case OpWrap:
		switch sop {
		case OpWrap:
			if !sameKind(d.v, s.v) {
				replaceAny(dst, t, s.v)
				return
			}
			setIface(dst.Field(t.At.Head), concat(s.head, d.head))
			setIface(dst.Field(t.At.Tail), concat(d.tail, s.tail))
			setIface(dst.Field(t.At.V), concat(concat(s.head, d.v), s.tail))
		case OpTable:
			CloneInto(dst, src, t)
			dst.Field(t.At.Base).SetUint(BaseEmpty)
			dst.Field(t.At.Fill).Set(reflect.Zero(dst.Field(t.At.Fill).Type()))
		}
	}
}

// fitFill returns fill when it can matter to operation op (with value v),
// and nil otherwise: a table's fill must be a table, a wrap's of v's kind.
func fitFill(fill any, op AnyOp, v any) any {
	switch op {
	case OpTable:
		if _, ok := fill.(map[string]any); ok {
			return fill
		}
		return nil
	case OpWrap:
		if sameKind(fill, v) {
			return fill
		}
		return nil
	case OpFill:
		return fill
	}
	return nil
}

// ApplyAnyTo sets addressable dst to present partial.Any src applied to
// the fixed value x (nil: nothing), as merging src over a replace with x
// gives.
func ApplyAnyTo(dst, src reflect.Value, x any, t *Type) {
	s := readAny(src, t)
	if s.state != StatePresent || s.base != BaseLower {
		CloneInto(dst, src, t)
		return
	}
	if x == nil {
		x = s.fill
	}
	switch s.op() {
	case OpReplace:
		CloneInto(dst, src, t)
	case OpFill:
		constAny(dst, x, t, BaseEmpty)
	case OpWrap:
		if sameKind(x, s.v) {
			replaceAny(dst, t, concat(concat(s.head, x), s.tail))
		} else {
			replaceAny(dst, t, s.v)
		}
	case OpTable:
		if m, ok := x.(map[string]any); ok {
			constAny(dst, m, t, BaseEmpty)
			mergeEntries(dst.Field(t.At.Table).Elem().Field(t.Elem.At.Entries), s.table.Elem().Field(t.Elem.At.Entries), false, t, nil)
			return
		}
		CloneInto(dst, src, t)
		dst.Field(t.At.Base).SetUint(BaseEmpty)
		dst.Field(t.At.Fill).Set(reflect.Zero(dst.Field(t.At.Fill).Type()))
	}
}

// constAny sets dst to the Any that always gives plain value x: a replace,
// or for a table, a table merged into nothing (with base, at the top).
func constAny(dst reflect.Value, x any, t *Type, base uint64) {
	m, ok := x.(map[string]any)
	if !ok {
		replaceAny(dst, t, x)
		return
	}
	dst.Set(reflect.Zero(t.Go))
	dst.Field(t.At.State).SetUint(StatePresent)
	dst.Field(t.At.Base).SetUint(base)
	tbl := reflect.New(t.Elem.Go)
	entries := tbl.Elem().Field(t.Elem.At.Entries)
	entries.Set(reflect.MakeMapWithSize(entries.Type(), len(m)))
	for k, e := range m {
		n := reflect.New(t.Go)
		constAny(n.Elem(), e, t, BaseLower)
		entries.SetMapIndex(reflect.ValueOf(k), n)
	}
	dst.Field(t.At.Table).Set(tbl)
}

// ApplyAny returns what partial.Any v, which t describes, gives over
// input, the value lower layers give (nil: nothing), with def the default
// at the same place: what an unset gives.
func ApplyAny(v reflect.Value, t *Type, input, def any) any {
	a := readAny(v, t)
	switch a.state {
	case StateAbsent:
		return input
	case StateUnset:
		return def
	}
	start := input
	switch a.base {
	case BaseDefault:
		start = def
	case BaseEmpty:
		start = nil
	}
	if start == nil {
		start = a.fill
	}
	switch a.op() {
	case OpFill:
		return start
	case OpWrap:
		if start = plainKind(start); sameKind(start, a.v) {
			return concat(concat(a.head, start), a.tail)
		}
		return a.v
	case OpTable:
		base, _ := plainKind(start).(map[string]any)
		defs, _ := plainKind(def).(map[string]any)
		entries := a.table.Elem().Field(t.Elem.At.Entries)
		out := make(map[string]any, len(base)+entries.Len())
		for k, x := range base {
			out[k] = x
		}
		iter := entries.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			var x any
			if e := iter.Value(); e.IsNil() {
				x = defs[k] // an unset key is what the defaults give
			} else {
				x = ApplyAny(e.Elem(), t, out[k], defs[k])
			}
			if x == nil {
				delete(out, k)
			} else {
				out[k] = x
			}
		}
		return out
	}
	return a.v
}

// plainKind returns x with its kind normalised where a strategy needs to
// tell it (a default may hold []string or map[string]string).
func plainKind(x any) any {
	switch x.(type) {
	case nil, string, []any, map[string]any:
		return x
	}
	switch reflect.ValueOf(x).Kind() {
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		return Normalize(x)
	}
	return x
}

// sameKind reports whether a and b are both strings or both arrays.
func sameKind(a, b any) bool {
	switch a.(type) {
	case string:
		_, ok := b.(string)
		return ok
	case []any:
		_, ok := b.([]any)
		return ok
	}
	return false
}

// concat joins two strings or two arrays (of the same kind); the result
// shares nothing with the inputs.
func concat(a, b any) any {
	if s, ok := a.(string); ok {
		return s + b.(string)
	}
	x, y := a.([]any), b.([]any)
	out := make([]any, 0, len(x)+len(y))
	return append(append(out, x...), y...)
}

// Normalize returns v as decoding a document gives it: integers as int64
// (unsigned ones that do not fit stay uint64), floats as float64, slices
// as []any and maps with string keys as map[string]any, at every depth.
// Other values are returned as they are.
func Normalize(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		return v
	case int:
		return int64(x)
	case float32:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Normalize(e)
		}
		return out
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u)
		}
		return rv.Uint()
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = Normalize(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return v
		}
		out := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			out[iter.Key().String()] = Normalize(iter.Value().Interface())
		}
		return out
	}
	return v
}
