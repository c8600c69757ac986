package shape

import (
	"reflect"
	"unsafe"
)

// Merge merges partial value src over dst (addressable), in place: tables
// merge key by key, values replace, lists follow their strategy, unsets
// drop what dst said. src is not modified and dst shares no map or list
// with it afterwards. Package merge documents the rules.
func Merge(dst, src reflect.Value, t *Type) { merge(dst, src, t, nil) }

// Shared merges layers into one partial that shares with them the entries
// of their maps (partial.Map) that no later layer changes: an entry that
// one layer alone sets (a tool that one file defines, as most are) is
// the layer's own, not a copy of it. An entry that a later layer changes
// is copied whole the first time, and changed in the copy: merging never
// changes a layer. Only the maps of the partial's own structs share
// their entries: what lies inside an entry, or under a partial.Nested,
// is the merge's own copy once it is changed. The layers must not change
// once merged, nor the merge: each would change the other. The zero
// Shared is ready to use; it keeps track of the entries it copied, to
// change them in place afterwards, so one Shared serves one merge.
type Shared struct {
	owned map[unsafe.Pointer]struct{} // the entries the merge copied, which it may change
}

// Merge merges src over dst, as [Merge] does, sharing the entries of
// src's maps that dst does not have when share is set, else copying them.
// dst is the merge, made of new(T) and Shared.Merge alone.
func (s *Shared) Merge(dst, src reflect.Value, t *Type, share bool) {
	merge(dst, src, t, &sharing{s, share})
}

// sharing is how one merge treats the entries of maps: nil copies each,
// as Merge does, into a dst that is the merge's own.
type sharing struct {
	*Shared
	share bool // src's entries go into dst as they are
}

// made records an entry the merge made, which it may change.
func (s *sharing) made(p reflect.Value) {
	if s.owned == nil {
		s.owned = map[unsafe.Pointer]struct{}{}
	}
	s.owned[p.UnsafePointer()] = struct{}{}
}

// mine returns the entry e of map m at key k, copied whole first unless
// the merge made it: the entry to change, all of it the merge's own.
func (s *sharing) mine(m, k, e reflect.Value, elem *Type) reflect.Value {
	if s == nil {
		return e
	}
	if _, ok := s.owned[e.UnsafePointer()]; ok {
		return e
	}
	n := reflect.New(elem.Go)
	CloneInto(n.Elem(), e.Elem(), elem)
	m.SetMapIndex(k, n)
	s.made(n)
	return n
}

func merge(dst, src reflect.Value, t *Type, s *sharing) {
	switch t.Kind {
	case Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			merge(dst.FieldByIndex(f.Index), src.FieldByIndex(f.Index), f.Type, s)
		}
	case Value:
		if src.Field(t.At.State).Uint() != StateAbsent {
			dst.Set(src)
		}
	case List:
		mergeList(dst, src, t)
	case Map:
		if src.Field(t.At.Reset).Bool() {
			CloneInto(dst, src, t)
			return
		}
		mergeEntries(dst.Field(t.At.Entries), src.Field(t.At.Entries), dst.Field(t.At.Reset).Bool(), t.Elem, s)
	case Nested:
		switch src.Field(t.At.State).Uint() {
		case StateUnset:
			dst.Set(reflect.Zero(t.Go))
			dst.Field(t.At.State).SetUint(StateUnset)
		case StatePresent:
			switch dst.Field(t.At.State).Uint() {
			case StatePresent:
				// dst's V is the merge's copy, all of it.
				merge(dst.Field(t.At.V).Elem(), src.Field(t.At.V).Elem(), t.Elem, nil)
			case StateUnset:
				CloneInto(dst, src, t)
				Reset(dst.Field(t.At.V).Elem(), t.Elem)
			default:
				CloneInto(dst, src, t)
			}
		}
	case Any:
		mergeAny(dst, src, t)
	}
}

func mergeList(dst, src reflect.Value, t *Type) {
	if IsZero(src, t) {
		return
	}
	if src.Field(t.At.Base).Uint() != BaseLower {
		CloneInto(dst, src, t)
		return
	}
	if src.Field(t.At.Items).Len() > 0 {
		// src's head goes before dst's items, its tail after them. Where
		// dst's base is empty nothing lies between dst's head and tail, so
		// src's head goes in front of dst's tail: a replaced list keeps
		// one run of items.
		dh, dt, sh, st := Head(dst, t), Tail(dst, t), Head(src, t), Tail(src, t)
		items := dst.Field(t.At.Items)
		s := reflect.MakeSlice(items.Type(), 0, items.Len()+src.Field(t.At.Items).Len())
		if dst.Field(t.At.Base).Uint() == BaseEmpty {
			s = reflect.AppendSlice(reflect.AppendSlice(reflect.AppendSlice(reflect.AppendSlice(s, dh), sh), dt), st)
		} else {
			s = reflect.AppendSlice(reflect.AppendSlice(reflect.AppendSlice(reflect.AppendSlice(s, sh), dh), dt), st)
			dst.Field(t.At.Before).SetInt(int64(sh.Len() + dh.Len()))
		}
		items.Set(s)
	}
	if src.Field(t.At.Dedup).Bool() || dst.Field(t.At.Dedup).Bool() {
		dst.Field(t.At.Dedup).SetBool(true)
		DedupList(dst, t)
	}
}

// entries merges the entries of a partial.Map. reset says that dst drops
// lower layers, so removing an entry dst does not have is a no-op. s, when
// not nil, shares src's new entries or copies them, and copies an entry
// of dst it did not make before changing it.
func mergeEntries(dst, src reflect.Value, reset bool, elem *Type, s *sharing) {
	if src.Len() == 0 {
		return
	}
	if dst.IsNil() {
		dst.Set(reflect.MakeMapWithSize(dst.Type(), src.Len()))
	}
	kp := Key(src.Type().Key()) // reused: iter.Key copies each key to the heap
	defer PutKey(kp)
	k := *kp
	iter := src.MapRange()
	for iter.Next() {
		k.SetIterKey(iter)
		sv := iter.Value()
		dv := dst.MapIndex(k)
		switch {
		case sv.IsNil():
			if reset && !dv.IsValid() {
				continue
			}
			dst.SetMapIndex(k, sv)
		case !dv.IsValid() && s != nil && s.share:
			dst.SetMapIndex(k, sv)
		case !dv.IsValid():
			n := reflect.New(elem.Go)
			CloneInto(n.Elem(), sv.Elem(), elem)
			dst.SetMapIndex(k, n)
			if s != nil {
				s.made(n)
			}
		case dv.IsNil():
			// Removed below, defined again here: it starts again from its
			// defaults.
			n := reflect.New(elem.Go)
			CloneInto(n.Elem(), sv.Elem(), elem)
			Reset(n.Elem(), elem)
			dst.SetMapIndex(k, n)
			if s != nil {
				s.made(n)
			}
		default:
			merge(s.mine(dst, k, dv, elem).Elem(), sv.Elem(), elem, nil)
		}
	}
}
