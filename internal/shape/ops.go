package shape

import (
	"reflect"
	"sync"
)

// IsZero reports whether partial value v says nothing: every leaf absent.
func IsZero(v reflect.Value, t *Type) bool {
	switch t.Kind {
	case Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			if !IsZero(v.FieldByIndex(f.Index), f.Type) {
				return false
			}
		}
		return true
	case Value:
		return v.Field(t.At.State).Uint() == StateAbsent
	case List:
		return v.Field(t.At.Base).Uint() == BaseLower && v.Field(t.At.Items).Len() == 0 &&
			!v.Field(t.At.Dedup).Bool()
	case Map:
		return !v.Field(t.At.Reset).Bool() && v.Field(t.At.Entries).Len() == 0
	case Nested:
		return v.Field(t.At.State).Uint() == StateAbsent
	case Any:
		return v.Field(t.At.State).Uint() == StateAbsent
	}
	return v.IsZero()
}

// IsReset reports whether partial value v discards everything lower layers
// said about it, as an unset does.
func IsReset(v reflect.Value, t *Type) bool {
	switch t.Kind {
	case Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			if !IsReset(v.FieldByIndex(f.Index), f.Type) {
				return false
			}
		}
		return len(t.Fields) > 0
	case Value:
		return v.Field(t.At.State).Uint() != StateAbsent
	case List:
		return v.Field(t.At.Base).Uint() != BaseLower
	case Map:
		return v.Field(t.At.Reset).Bool()
	case Nested:
		switch v.Field(t.At.State).Uint() {
		case StateUnset:
			return true
		case StatePresent:
			return IsReset(v.Field(t.At.V).Elem(), t.Elem)
		}
		return false
	case Any:
		switch v.Field(t.At.State).Uint() {
		case StateUnset:
			return true
		case StatePresent:
			return v.Field(t.At.Base).Uint() != BaseLower || Op(v, t) == OpReplace
		}
	}
	return false
}

// Reset makes addressable partial value v discard what lower layers said,
// keeping what v itself sets: a value becomes unset unless v sets it; a list
// or map starts again from the defaults; a struct resets every field.
func Reset(v reflect.Value, t *Type) {
	switch t.Kind {
	case Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			Reset(v.FieldByIndex(f.Index), f.Type)
		}
	case Value:
		if v.Field(t.At.State).Uint() == StateAbsent {
			v.Field(t.At.State).SetUint(StateUnset)
		}
	case List:
		if v.Field(t.At.Base).Uint() == BaseLower {
			v.Field(t.At.Base).SetUint(BaseDefault)
		}
	case Map:
		v.Field(t.At.Reset).SetBool(true)
	case Nested:
		switch v.Field(t.At.State).Uint() {
		case StateAbsent:
			v.Field(t.At.State).SetUint(StateUnset)
		case StatePresent:
			Reset(v.Field(t.At.V).Elem(), t.Elem)
		}
	case Any:
		switch v.Field(t.At.State).Uint() {
		case StateAbsent:
			v.Field(t.At.State).SetUint(StateUnset)
		case StatePresent:
			if v.Field(t.At.Base).Uint() == BaseLower && Op(v, t) != OpReplace {
				v.Field(t.At.Base).SetUint(BaseDefault)
			}
		}
	}
}

// Clone returns a deep copy of partial value v: maps, lists and nested
// partials are new; leaf values (strings, slices inside a Value) are shared
// and must be treated as immutable.
func Clone(v reflect.Value, t *Type) reflect.Value {
	out := reflect.New(t.Go).Elem()
	CloneInto(out, v, t)
	return out
}

// CloneInto sets addressable dst to a deep copy of src.
func CloneInto(dst, src reflect.Value, t *Type) {
	switch t.Kind {
	case Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			CloneInto(dst.FieldByIndex(f.Index), src.FieldByIndex(f.Index), f.Type)
		}
	case List:
		dst.Set(src)
		if s := src.Field(t.At.Items); s.Len() > 0 {
			c := reflect.MakeSlice(s.Type(), s.Len(), s.Len())
			reflect.Copy(c, s)
			dst.Field(t.At.Items).Set(c)
		}
	case Map:
		dst.Field(t.At.Reset).Set(src.Field(t.At.Reset))
		dst.Field(t.At.Entries).Set(CloneEntries(src.Field(t.At.Entries), t.Elem))
	case Nested:
		dst.Field(t.At.State).Set(src.Field(t.At.State))
		if p := src.Field(t.At.V); !p.IsNil() {
			n := reflect.New(t.Elem.Go)
			CloneInto(n.Elem(), p.Elem(), t.Elem)
			dst.Field(t.At.V).Set(n)
		}
	case Any:
		dst.Set(src) // plain values are shared
		if p := src.Field(t.At.Table); !p.IsNil() {
			n := reflect.New(t.Elem.Go)
			CloneInto(n.Elem(), p.Elem(), t.Elem)
			dst.Field(t.At.Table).Set(n)
		}
	default:
		dst.Set(src)
	}
}

// CloneEntries deep-copies the entries of a partial.Map (a map[string]*V).
func CloneEntries(m reflect.Value, elem *Type) reflect.Value {
	if m.IsNil() {
		return reflect.Zero(m.Type())
	}
	out := reflect.MakeMapWithSize(m.Type(), m.Len())
	kp := Key(m.Type().Key()) // reused: iter.Key copies each key to the heap
	defer PutKey(kp)
	k := *kp
	iter := m.MapRange()
	for iter.Next() {
		k.SetIterKey(iter)
		e := iter.Value()
		if e.IsNil() {
			out.SetMapIndex(k, e)
			continue
		}
		n := reflect.New(elem.Go)
		CloneInto(n.Elem(), e.Elem(), elem)
		out.SetMapIndex(k, n)
	}
	return out
}

// Equal reports whether partial values a and b are the same layer.
func Equal(a, b reflect.Value, t *Type) bool {
	switch t.Kind {
	case Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			if !Equal(a.FieldByIndex(f.Index), b.FieldByIndex(f.Index), f.Type) {
				return false
			}
		}
		return true
	case Value:
		s := a.Field(t.At.State).Uint()
		return s == b.Field(t.At.State).Uint() && (s != StatePresent || EqualLeaf(a.Field(t.At.V), b.Field(t.At.V), t.Elem))
	case List:
		return a.Field(t.At.Base).Uint() == b.Field(t.At.Base).Uint() &&
			a.Field(t.At.Dedup).Bool() == b.Field(t.At.Dedup).Bool() &&
			a.Field(t.At.Before).Int() == b.Field(t.At.Before).Int() &&
			equalSlice(a.Field(t.At.Items), b.Field(t.At.Items), t.Elem)
	case Map:
		if a.Field(t.At.Reset).Bool() != b.Field(t.At.Reset).Bool() {
			return false
		}
		return equalEntries(a.Field(t.At.Entries), b.Field(t.At.Entries), t.Elem)
	case Nested:
		s := a.Field(t.At.State).Uint()
		return s == b.Field(t.At.State).Uint() && (s != StatePresent || Equal(a.Field(t.At.V).Elem(), b.Field(t.At.V).Elem(), t.Elem))
	case Any:
		s := a.Field(t.At.State).Uint()
		if s != b.Field(t.At.State).Uint() {
			return false
		}
		if s != StatePresent {
			return true
		}
		if a.Field(t.At.Base).Uint() != b.Field(t.At.Base).Uint() {
			return false
		}
		for _, i := range [...]int{t.At.V, t.At.Head, t.At.Tail, t.At.Fill} {
			if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
				return false
			}
		}
		ta, tb := a.Field(t.At.Table), b.Field(t.At.Table)
		if ta.IsNil() != tb.IsNil() {
			return false
		}
		return ta.IsNil() || Equal(ta.Elem(), tb.Elem(), t.Elem)
	}
	return EqualLeaf(a, b, t)
}

func equalEntries(a, b reflect.Value, elem *Type) bool {
	if a.Len() != b.Len() {
		return false
	}
	iter := a.MapRange()
	for iter.Next() {
		x := iter.Value()
		y := b.MapIndex(iter.Key())
		if !y.IsValid() || x.IsNil() != y.IsNil() {
			return false
		}
		if !x.IsNil() && !Equal(x.Elem(), y.Elem(), elem) {
			return false
		}
	}
	return true
}

func equalSlice(a, b reflect.Value, elem *Type) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		if !EqualLeaf(a.Index(i), b.Index(i), elem) {
			return false
		}
	}
	return true
}

// EqualLeaf reports whether two plain values are equal: with the type's
// own Equal method where it has one (see [Type].Equals).
func EqualLeaf(a, b reflect.Value, t *Type) bool {
	if t.Equals {
		return t.equal.Call([]reflect.Value{a, b})[0].Bool()
	}
	switch t.Kind {
	case String:
		return a.String() == b.String()
	case Bool:
		return a.Bool() == b.Bool()
	case Int:
		return a.Int() == b.Int()
	case Uint:
		return a.Uint() == b.Uint()
	case Float:
		return a.Float() == b.Float()
	case Slice:
		if a.IsNil() != b.IsNil() && (a.Len() > 0 || b.Len() > 0) {
			return false
		}
		return equalSlice(a, b, t.Elem)
	case GoMap:
		if a.Len() != b.Len() {
			return false
		}
		iter := a.MapRange()
		for iter.Next() {
			y := b.MapIndex(iter.Key())
			if !y.IsValid() || !EqualLeaf(iter.Value(), y, t.Elem) {
				return false
			}
		}
		return true
	case Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return EqualLeaf(a.Elem(), b.Elem(), t.Elem)
	case Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			if !EqualLeaf(a.FieldByIndex(f.Index), b.FieldByIndex(f.Index), f.Type) {
				return false
			}
		}
		return true
	}
	if t.Comparable {
		return a.Equal(b)
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// DedupList drops repeated items from the head and the tail of list v,
// keeping the first of each.
func DedupList(v reflect.Value, t *Type) {
	SetItems(v, t, DedupSlice(Head(v, t), t.Elem), DedupSlice(Tail(v, t), t.Elem))
}

// DedupSlice returns s without repeated items, keeping the first of each.
func DedupSlice(s reflect.Value, elem *Type) reflect.Value {
	if s.Len() < 2 {
		return s
	}
	out := reflect.MakeSlice(s.Type(), 0, s.Len())
next:
	for j := 0; j < s.Len(); j++ {
		for k := 0; k < out.Len(); k++ {
			if EqualLeaf(out.Index(k), s.Index(j), elem) {
				continue next
			}
		}
		out = reflect.Append(out, s.Index(j))
	}
	return out
}

// Find follows path through partial value v (of type t): fields of
// structs, entries of maps and of free-form tables, and present nested
// structs, which take no key of their own. It returns the value it reaches,
// its type and how many keys of path it used, fewer than len(path) when a
// value or a list comes first; ok is false when v holds nothing at path
// (an unknown field, a missing or unset entry, an absent nested struct).
func Find(v reflect.Value, t *Type, path []string) (_ reflect.Value, _ *Type, used int, ok bool) {
	for used < len(path) {
		k := path[used]
		switch t.Kind {
		case Struct:
			f, ok := t.Field(k)
			if !ok {
				return v, t, used, false
			}
			v, t = v.FieldByIndex(f.Index), f.Type
		case Map:
			e := v.Field(t.At.Entries).MapIndex(reflect.ValueOf(k))
			if !e.IsValid() || e.IsNil() {
				return v, t, used, false
			}
			v, t = e.Elem(), t.Elem
		case Nested:
			if v.Field(t.At.State).Uint() != StatePresent {
				return v, t, used, false
			}
			v, t = v.Field(t.At.V).Elem(), t.Elem
			continue // the struct inside takes the key
		case Any:
			if v.Field(t.At.State).Uint() != StatePresent || v.Field(t.At.Table).IsNil() {
				return v, t, used, false
			}
			e := v.Field(t.At.Table).Elem().Field(t.Elem.At.Entries).MapIndex(reflect.ValueOf(k))
			if !e.IsValid() || e.IsNil() {
				return v, t, used, false
			}
			v = e.Elem() // an entry of a free-form table is free-form too
		default:
			return v, t, used, true
		}
		used++
	}
	return v, t, used, true
}

var stringType = reflect.TypeFor[string]()

// keys holds settable string values for the loops over a map's keys:
// SetIterKey needs one (iter.Key copies each key to the heap), and a new
// one for each map merged, cloned or finalized was an allocation for each
// tool and each of its maps.
var keys = sync.Pool{New: func() any { k := reflect.New(stringType).Elem(); return &k }}

// Key returns a settable value of map key type t, for SetIterKey; give
// it back with PutKey.
func Key(t reflect.Type) *reflect.Value {
	if t == stringType {
		return keys.Get().(*reflect.Value)
	}
	k := reflect.New(t).Elem()
	return &k
}

// PutKey gives back a value Key returned.
func PutKey(k *reflect.Value) {
	if k.Type() == stringType {
		k.SetString("") // not to keep the last key alive
		keys.Put(k)
	}
}
