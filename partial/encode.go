package partial

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"

	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/shape"
)

// Encode writes v as a document in format f (TOML or JSON). v is a partial
// struct (or a pointer to one), written with its unset paths in the root
// unset list, or any other value, such as a resolved config, written with
// its zero fields left out. The output is deterministic: struct fields in
// declaration order, map entries sorted.
func Encode(v any, f Format) ([]byte, error) {
	root, err := Tree(v)
	if err != nil {
		return nil, err
	}
	if f == JSON {
		return doc.WriteJSON(root)
	}
	if f == YAML {
		return nil, fmt.Errorf("strata: writing YAML is not supported; use TOML or JSON")
	}
	return doc.WriteTOML(root)
}

// Tree builds the document tree of v; see [Encode].
func Tree(v any) (*doc.Node, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return doc.NewTable(), nil
		}
		rv = rv.Elem()
	}
	t, err := shape.Of(rv.Type())
	if err != nil {
		return nil, err
	}
	enc := encoder{}
	var root *doc.Node
	if t.Kind == shape.Struct && isPartialStruct(t) {
		root = enc.structure(rv, t, nil, false, true)
		if len(enc.unsets) > 0 {
			sort.Slice(enc.unsets, func(i, j int) bool { return enc.unsets[i] < enc.unsets[j] })
			list := doc.NewArray()
			for _, p := range enc.unsets {
				list.Append(doc.NewString(p))
			}
			if root == nil {
				root = doc.NewTable()
			}
			list.Key = UnsetKey
			root.Entries = append([]*doc.Node{list}, root.Entries...)
		}
	} else {
		root = enc.plain(rv, t, nil, false)
	}
	if enc.err != nil {
		return nil, enc.err
	}
	if root == nil {
		root = doc.NewTable()
	}
	if root.Kind != doc.Table {
		return nil, fmt.Errorf("strata: cannot write %s as a document; it must be a struct or a map", rv.Type())
	}
	return root, nil
}

// worthUnset reports whether struct v is best written as an unset of the
// whole struct: every field discards lower layers, and at least two would
// otherwise need an unset path of their own.
func worthUnset(v reflect.Value, t *shape.Type) bool {
	if !shape.IsReset(v, t) {
		return false
	}
	n := 0
	for i := range t.Fields {
		f := &t.Fields[i]
		fv := v.Field(f.Index)
		switch f.Type.Kind {
		case shape.Value:
			if fv.Field(shape.ValueState).Uint() == shape.StateUnset {
				n++
			}
		case shape.Nested:
			if fv.Field(shape.NestedState).Uint() != shape.StatePresent || worthUnset(fv.Field(shape.NestedV).Elem(), f.Type.Elem) {
				n++
			}
		case shape.Any:
			if fv.Field(shape.AnyState).Uint() == shape.StateUnset || !fv.Field(shape.AnyTable).IsNil() {
				n++
			}
		case shape.Struct:
			if worthUnset(fv, f.Type) {
				n++
			}
		default: // lists and maps that are reset
			n++
		}
	}
	return n >= 2
}

// Text renders a plain value (a string, number, slice, map, or a type that
// writes itself) as TOML writes it inline: "ask", ["a", "b"],
// { state = "explicit" }.
func Text(v any) (string, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return "", nil
	}
	t, err := shape.Of(rv.Type())
	if err != nil {
		return "", err
	}
	enc := encoder{}
	n := enc.plain(rv, t, nil, true)
	if enc.err != nil {
		return "", enc.err
	}
	if n == nil {
		return "", nil
	}
	return doc.InlineTOML(n)
}

func isPartialStruct(t *shape.Type) bool {
	for _, f := range t.Fields {
		if !f.Type.Kind.IsPartial() {
			return false
		}
	}
	return true
}

type encoder struct {
	unsets []string
	err    error
	stack  []string // the key path being written; see child
}

func (enc *encoder) unset(path []string) {
	enc.unsets = append(enc.unsets, Path(path).String())
}

// child returns the path of entry key under path. Every path is a prefix
// of one stack, which it pushes key onto: no level copies the path (a
// copy per level makes deep tables quadratic). A path is used before its
// siblings are made, and kept by no one.
func (enc *encoder) child(path []string, key string) []string {
	enc.stack = append(enc.stack[:len(path)], key)
	return enc.stack
}

// structure writes partial struct v. covered says that an unset of an
// enclosing path already resets it. It returns nil when v says nothing and
// present is false.
func (enc *encoder) structure(v reflect.Value, t *shape.Type, path []string, covered, present bool) *doc.Node {
	if !covered && len(path) > 0 && worthUnset(v, t) {
		enc.unset(path)
		covered = true
	}
	tbl := doc.NewTable()
	tbl.Inline = false
	for i := range t.Fields {
		f := &t.Fields[i]
		if n := enc.field(v.Field(f.Index), f, enc.child(path, f.Key), covered); n != nil {
			tbl.Set(f.Key, n)
		}
	}
	if len(tbl.Entries) == 0 && !present {
		return nil
	}
	return tbl
}

func (enc *encoder) field(v reflect.Value, f *shape.Field, path []string, covered bool) *doc.Node {
	return enc.partial(v, f.Type, f.Strategy, path, covered)
}

func (enc *encoder) partial(v reflect.Value, t *shape.Type, strategy shape.Strategy, path []string, covered bool) *doc.Node {
	switch t.Kind {
	case shape.Struct:
		return enc.structure(v, t, path, covered, false)
	case shape.Value:
		switch v.Field(shape.ValueState).Uint() {
		case shape.StatePresent:
			return enc.plain(v.Field(shape.ValueV), t.Elem, path, true)
		case shape.StateUnset:
			if !covered {
				enc.unset(path)
			}
		}
		return nil
	case shape.List:
		return enc.list(v, t, strategy, path, covered)
	case shape.Map:
		if v.Field(shape.MapReset).Bool() && !covered {
			enc.unset(path)
		}
		return enc.entries(v.Field(shape.MapEntries), t.Elem, path)
	case shape.Nested:
		switch v.Field(shape.NestedState).Uint() {
		case shape.StateUnset:
			if !covered {
				enc.unset(path)
			}
		case shape.StatePresent:
			return enc.structure(v.Field(shape.NestedV).Elem(), t.Elem, path, covered, true)
		}
		return nil
	case shape.Any:
		switch v.Field(shape.AnyState).Uint() {
		case shape.StateUnset:
			if !covered {
				enc.unset(path)
			}
		case shape.StatePresent:
			tbl := v.Field(shape.AnyTable)
			if tbl.IsNil() {
				return enc.plain(v.Field(shape.AnyV), anyType, path, true)
			}
			if tbl.Elem().Field(shape.MapReset).Bool() && !covered {
				enc.unset(path)
			}
			n := enc.entries(tbl.Elem().Field(shape.MapEntries), t, path)
			if n == nil {
				n = doc.NewTable()
				n.Inline = false
			}
			return n
		}
		return nil
	}
	return nil
}

var anyType = shape.MustOf(reflect.TypeFor[any]())

// entries writes the entries of a partial.Map; removed entries become
// unset paths.
func (enc *encoder) entries(m reflect.Value, elem *shape.Type, path []string) *doc.Node {
	if m.Len() == 0 {
		return nil
	}
	keys := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	tbl := doc.NewTable()
	tbl.Inline = false
	for _, k := range keys {
		e := m.MapIndex(reflect.ValueOf(k))
		p := enc.child(path, k)
		if e.IsNil() {
			enc.unset(p)
			continue
		}
		var n *doc.Node
		if elem.Kind == shape.Struct {
			covered := worthUnset(e.Elem(), elem)
			if covered {
				enc.unset(p)
			}
			n = enc.structure(e.Elem(), elem, p, covered, true)
		} else {
			n = enc.partial(e.Elem(), elem, shape.Replace, p, false)
			if n == nil && (elem.Kind == shape.Map || elem.Kind == shape.Nested) {
				n = doc.NewTable() // the entry is present, though empty
				n.Inline = false
			}
		}
		if n != nil {
			tbl.Set(k, n)
		}
	}
	if len(tbl.Entries) == 0 {
		return nil
	}
	return tbl
}

func (enc *encoder) list(v reflect.Value, t *shape.Type, def shape.Strategy, path []string, covered bool) *doc.Node {
	base := v.Field(shape.ListBase).Uint()
	head, tail := v.Field(shape.ListHead), v.Field(shape.ListTail)
	dedup := v.Field(shape.ListDedup).Bool()
	if base == shape.BaseDefault && !covered {
		enc.unset(path)
	}
	items := func(s reflect.Value) *doc.Node {
		a := doc.NewArray()
		for i := 0; i < s.Len(); i++ {
			a.Append(enc.plain(s.Index(i), t.Elem, path, true))
		}
		return a
	}
	form := func(s reflect.Value, st shape.Strategy) *doc.Node {
		if st == def && !dedup {
			return items(s)
		}
		tbl := doc.NewTable()
		tbl.Inline = true
		tbl.Set("value", items(s))
		tbl.Set("strategy", doc.NewString(st.String()))
		if dedup {
			tbl.Set("dedup", doc.NewBool(true))
		}
		return tbl
	}
	switch {
	case base == shape.BaseEmpty:
		return form(tail, shape.Replace)
	case head.Len() > 0 && tail.Len() > 0:
		tbl := doc.NewTable()
		tbl.Inline = true
		tbl.Set("prepend", items(head))
		tbl.Set("append", items(tail))
		if dedup {
			tbl.Set("dedup", doc.NewBool(true))
		}
		return tbl
	case head.Len() > 0:
		return form(head, shape.Prepend)
	case tail.Len() > 0 || dedup:
		return form(tail, shape.Append)
	}
	return nil
}

// plain writes a plain value. inline says whether tables are written
// inline; zero fields of structs are left out.
func (enc *encoder) plain(v reflect.Value, t *shape.Type, path []string, inline bool) *doc.Node {
	if enc.err != nil {
		return nil
	}
	if t.Marshals {
		x, err := v.Interface().(ValueMarshaler).MarshalValue()
		if err != nil {
			enc.err = fmt.Errorf("%s: %w", Path(path), err)
			return nil
		}
		return enc.plain(reflect.ValueOf(&x).Elem(), anyType, path, true)
	}
	if t.Kind == shape.Custom {
		if m, ok := v.Interface().(encoding.TextMarshaler); ok {
			b, err := m.MarshalText()
			if err != nil {
				enc.err = fmt.Errorf("%s: %w", Path(path), err)
				return nil
			}
			return doc.NewString(string(b))
		}
		enc.err = fmt.Errorf("%s: %s cannot be written (it implements neither MarshalValue nor MarshalText)", Path(path), v.Type())
		return nil
	}
	switch t.Kind {
	case shape.String:
		return doc.NewString(v.String())
	case shape.Bool:
		return doc.NewBool(v.Bool())
	case shape.Int:
		return doc.NewInt(v.Int())
	case shape.Uint:
		u := v.Uint()
		if u > math.MaxInt64 {
			enc.err = fmt.Errorf("%s: %d does not fit in a 64-bit signed integer", Path(path), u)
			return nil
		}
		return doc.NewInt(int64(u))
	case shape.Float:
		return doc.NewFloat(v.Float())
	case shape.Interface:
		if v.IsNil() {
			return nil
		}
		return enc.anyPlain(v.Elem().Interface(), path, inline)
	case shape.Slice:
		a := doc.NewArray()
		for i := 0; i < v.Len(); i++ {
			if n := enc.plain(v.Index(i), t.Elem, enc.child(path, fmt.Sprint(i)), true); n != nil {
				a.Append(n)
			}
		}
		return a
	case shape.GoMap:
		tbl := doc.NewTable()
		tbl.Inline = inline
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		for _, k := range keys {
			if n := enc.plain(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())), t.Elem, enc.child(path, k), inline); n != nil {
				tbl.Set(k, n)
			} else {
				tbl.Set(k, doc.NewTable())
			}
		}
		return tbl
	case shape.Pointer:
		if v.IsNil() {
			return nil
		}
		return enc.plain(v.Elem(), t.Elem, path, inline)
	case shape.Struct:
		tbl := doc.NewTable()
		tbl.Inline = inline
		for i := range t.Fields {
			f := &t.Fields[i]
			fv := v.Field(f.Index)
			if fv.IsZero() {
				continue
			}
			if n := enc.plain(fv, f.Type, enc.child(path, f.Key), inline); n != nil {
				tbl.Set(f.Key, n)
			}
		}
		return tbl
	}
	enc.err = fmt.Errorf("%s: cannot write %s", Path(path), v.Type())
	return nil
}

// anyPlain writes a free-form value.
func (enc *encoder) anyPlain(x any, path []string, inline bool) *doc.Node {
	switch x := x.(type) {
	case string:
		return doc.NewString(x)
	case bool:
		return doc.NewBool(x)
	case int64:
		return doc.NewInt(x)
	case int:
		return doc.NewInt(int64(x))
	case float64:
		return doc.NewFloat(x)
	case []any:
		a := doc.NewArray()
		for i, e := range x {
			if n := enc.anyPlain(e, enc.child(path, fmt.Sprint(i)), true); n != nil {
				a.Append(n)
			}
		}
		return a
	case map[string]any:
		tbl := doc.NewTable()
		tbl.Inline = inline
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if n := enc.anyPlain(x[k], enc.child(path, k), inline); n != nil {
				tbl.Set(k, n)
			}
		}
		return tbl
	case nil:
		return nil
	}
	rv := reflect.ValueOf(x)
	t, err := shape.Of(rv.Type())
	if err != nil {
		enc.err = fmt.Errorf("%s: %w", Path(path), err)
		return nil
	}
	return enc.plain(rv, t, path, inline)
}
