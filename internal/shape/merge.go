package shape

import "reflect"

// Merge merges partial value src over dst (addressable), in place: tables
// merge key by key, values replace, lists follow their strategy, unsets
// drop what dst said. src is not modified and dst shares no map or list
// with it afterwards. Package merge documents the rules.
func Merge(dst, src reflect.Value, t *Type) {
	switch t.Kind {
	case Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			Merge(dst.FieldByIndex(f.Index), src.FieldByIndex(f.Index), f.Type)
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
		mergeEntries(dst.Field(t.At.Entries), src.Field(t.At.Entries), dst.Field(t.At.Reset).Bool(), t.Elem)
	case Nested:
		switch src.Field(t.At.State).Uint() {
		case StateUnset:
			dst.Set(reflect.Zero(t.Go))
			dst.Field(t.At.State).SetUint(StateUnset)
		case StatePresent:
			switch dst.Field(t.At.State).Uint() {
			case StatePresent:
				Merge(dst.Field(t.At.V).Elem(), src.Field(t.At.V).Elem(), t.Elem)
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
	head, tail := dst.Field(t.At.Head), dst.Field(t.At.Tail)
	if dst.Field(t.At.Base).Uint() == BaseEmpty {
		// Nothing lies between head and tail, so a prepend goes in front of
		// the tail: a replaced list keeps one run of items.
		head = tail
	}
	if sh := src.Field(t.At.Head); sh.Len() > 0 {
		h := reflect.MakeSlice(head.Type(), 0, sh.Len()+head.Len())
		head.Set(reflect.AppendSlice(reflect.AppendSlice(h, sh), head))
	}
	if st := src.Field(t.At.Tail); st.Len() > 0 {
		tl := reflect.MakeSlice(tail.Type(), 0, st.Len()+tail.Len())
		tail.Set(reflect.AppendSlice(reflect.AppendSlice(tl, tail), st))
	}
	if src.Field(t.At.Dedup).Bool() || dst.Field(t.At.Dedup).Bool() {
		dst.Field(t.At.Dedup).SetBool(true)
		DedupList(dst, t)
	}
}

// entries merges the entries of a partial.Map. reset says that dst drops
// lower layers, so removing an entry dst does not have is a no-op.
func mergeEntries(dst, src reflect.Value, reset bool, elem *Type) {
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
		case !dv.IsValid():
			n := reflect.New(elem.Go)
			CloneInto(n.Elem(), sv.Elem(), elem)
			dst.SetMapIndex(k, n)
		case dv.IsNil():
			// Removed below, defined again here: it starts again from its
			// defaults.
			n := reflect.New(elem.Go)
			CloneInto(n.Elem(), sv.Elem(), elem)
			Reset(n.Elem(), elem)
			dst.SetMapIndex(k, n)
		default:
			Merge(dv.Elem(), sv.Elem(), elem)
		}
	}
}
