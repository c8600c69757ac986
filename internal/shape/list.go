package shape

import "reflect"

// Head returns the head of partial.List v, of type t: Items[:Before],
// capped so that an append copies.
func Head(v reflect.Value, t *Type) reflect.Value {
	n := int(v.Field(t.At.Before).Int())
	return v.Field(t.At.Items).Slice3(0, n, n)
}

// Tail returns the tail of partial.List v, of type t: Items[Before:].
func Tail(v reflect.Value, t *Type) reflect.Value {
	items := v.Field(t.At.Items)
	return items.Slice(int(v.Field(t.At.Before).Int()), items.Len())
}

// SetItems sets the items of partial.List v, of type t, to head then tail:
// the one of them that has items where the other has none, else a new
// slice of both.
func SetItems(v reflect.Value, t *Type, head, tail reflect.Value) {
	items := v.Field(t.At.Items)
	switch {
	case head.Len() == 0 && (!tail.IsNil() || head.IsNil()):
		items.Set(tail)
	case tail.Len() == 0:
		items.Set(head)
	default:
		s := reflect.MakeSlice(items.Type(), 0, head.Len()+tail.Len())
		items.Set(reflect.AppendSlice(reflect.AppendSlice(s, head), tail))
	}
	v.Field(t.At.Before).SetInt(int64(head.Len()))
}
