package codec

import (
	"encoding"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"

	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/partial"
)

// Encode writes v as a document in format f (TOML or JSON). v is a partial
// struct (or a pointer to one), written with its unset paths in the root
// unset list, or any other value, such as a resolved config, written with
// its zero fields left out. The output is deterministic: struct fields in
// declaration order, map entries sorted.
func Encode(v any, f partial.Format) ([]byte, error) {
	root, err := tree(v)
	if err != nil {
		return nil, err
	}
	return write(root, f)
}

// write writes a document tree in format f.
func write(root *doc.Node, f partial.Format) ([]byte, error) {
	if f == partial.JSON {
		return doc.WriteJSON(root)
	}
	if f == partial.YAML {
		return nil, fmt.Errorf("strata: writing YAML is not supported; use TOML or JSON")
	}
	return doc.WriteTOML(root)
}

// tree builds the document tree of v; see [Encode]. A secret.String is
// written as its reference, as it writes itself.
func tree(v any) (*doc.Node, error) {
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
	var enc encoder
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
			list.Key = partial.UnsetKey
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
		fv := v.FieldByIndex(f.Index)
		switch f.Type.Kind {
		case shape.Value:
			if fv.Field(f.Type.At.State).Uint() == shape.StateUnset {
				n++
			}
		case shape.Nested:
			if fv.Field(f.Type.At.State).Uint() != shape.StatePresent || worthUnset(fv.Field(f.Type.At.V).Elem(), f.Type.Elem) {
				n++
			}
		case shape.Any:
			if fv.Field(f.Type.At.State).Uint() == shape.StateUnset || fv.Field(f.Type.At.Base).Uint() == shape.BaseDefault {
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
	enc.unsets = append(enc.unsets, partial.Path(path).String())
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
	if t.ValueCodec && t.Marshals && !shape.IsZero(v, t) && !unsets(v, t) {
		// A table that reads a shorthand writes it where one says the same.
		if x, err := v.Interface().(partial.ValueMarshaler).MarshalValue(); err == nil {
			switch x.(type) {
			case bool, string:
				return enc.anyPlain(x, path, true)
			}
		}
	}
	tbl := doc.NewTable()
	tbl.Inline = t.ValueCodec
	for i := range t.Fields {
		f := &t.Fields[i]
		if n := enc.field(v.FieldByIndex(f.Index), f, enc.child(path, f.Key), covered); n != nil {
			tbl.Set(f.Key, n)
		}
	}
	if len(tbl.Entries) == 0 && !present {
		return nil
	}
	return tbl
}

// unsets reports whether partial struct v unsets any of its fields (which
// only the unset list can say).
func unsets(v reflect.Value, t *shape.Type) bool {
	for i := range t.Fields {
		f := &t.Fields[i]
		fv := v.FieldByIndex(f.Index)
		if f.Type.Kind == shape.Value {
			if fv.Field(f.Type.At.State).Uint() == shape.StateUnset {
				return true
			}
		} else if shape.IsReset(fv, f.Type) {
			return true
		}
	}
	return false
}

func (enc *encoder) field(v reflect.Value, f *shape.Field, path []string, covered bool) *doc.Node {
	return enc.partial(v, f.Type, f.Strategy, path, covered)
}

func (enc *encoder) partial(v reflect.Value, t *shape.Type, strategy shape.Strategy, path []string, covered bool) *doc.Node {
	switch t.Kind {
	case shape.Struct:
		return enc.structure(v, t, path, covered, false)
	case shape.Value:
		switch v.Field(t.At.State).Uint() {
		case shape.StatePresent:
			return enc.plain(v.Field(t.At.V), t.Elem, path, true)
		case shape.StateUnset:
			if !covered {
				enc.unset(path)
			}
		}
		return nil
	case shape.List:
		return enc.list(v, t, strategy, path, covered)
	case shape.Map:
		if v.Field(t.At.Reset).Bool() && !covered {
			enc.unset(path)
		}
		return enc.entries(v.Field(t.At.Entries), t.Elem, path)
	case shape.Nested:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			if !covered {
				enc.unset(path)
			}
		case shape.StatePresent:
			return enc.structure(v.Field(t.At.V).Elem(), t.Elem, path, covered, true)
		}
		return nil
	case shape.Any:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			if !covered {
				enc.unset(path)
			}
		case shape.StatePresent:
			return enc.anyValue(v.Interface().(partial.Any), t, path, covered)
		}
		return nil
	}
	return nil
}

var (
	anyType  = shape.MustOf(reflect.TypeFor[any]())
	anyShape = shape.MustOf(reflect.TypeFor[partial.Any]())
)

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
	base := v.Field(t.At.Base).Uint()
	head, tail := shape.Head(v, t), shape.Tail(v, t)
	if base == shape.BaseEmpty {
		// Nothing lies between head and tail: they are one replacement.
		head, tail = reflect.Zero(head.Type()), v.Field(t.At.Items)
	}
	dedup := v.Field(t.At.Dedup).Bool()
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
	case base == shape.BaseEmpty && tail.Len() == 1 && !dedup && t.Elem.Shorthand:
		if x, ok := tail.Index(0).Interface().(partial.Shorthander).Shorthand(); ok {
			return enc.anyPlain(x, path, true) // run = "ask"
		}
		return form(tail, shape.Replace)
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
		x, err := v.Interface().(partial.ValueMarshaler).MarshalValue()
		if err != nil {
			enc.err = fmt.Errorf("%s: %w", partial.Path(path), err)
			return nil
		}
		return enc.plain(reflect.ValueOf(&x).Elem(), anyType, path, true)
	}
	if t.Kind == shape.Custom {
		if m, ok := v.Interface().(encoding.TextMarshaler); ok {
			b, err := m.MarshalText()
			if err != nil {
				enc.err = fmt.Errorf("%s: %w", partial.Path(path), err)
				return nil
			}
			return doc.NewString(string(b))
		}
		enc.err = fmt.Errorf("%s: %s cannot be written (it implements neither MarshalValue nor MarshalText)", partial.Path(path), v.Type())
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
			enc.err = fmt.Errorf("%s: %d does not fit in a 64-bit signed integer", partial.Path(path), u)
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
			fv := v.FieldByIndex(f.Index)
			if fv.IsZero() {
				continue
			}
			if n := enc.plain(fv, f.Type, enc.child(path, f.Key), inline); n != nil {
				tbl.Set(f.Key, n)
			}
		}
		return tbl
	}
	enc.err = fmt.Errorf("%s: cannot write %s", partial.Path(path), v.Type())
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
		for _, k := range slices.Sorted(maps.Keys(x)) {
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
		enc.err = fmt.Errorf("%s: %w", partial.Path(path), err)
		return nil
	}
	return enc.plain(rv, t, path, inline)
}

// anyValue writes a present free-form value: plain where it is one, else
// the strategy table that reads back as a; see package decode's strategy.go.
func (enc *encoder) anyValue(a partial.Any, t *shape.Type, path []string, covered bool) *doc.Node {
	if a.Base == partial.BaseDefault && !covered {
		enc.unset(path)
	}
	switch shape.Op(reflect.ValueOf(a), t) {
	case shape.OpTable:
		entries := enc.entries(reflect.ValueOf(a.Table.Entries), t, path)
		if entries == nil {
			entries = doc.NewTable()
			entries.Inline = false
		}
		switch {
		case a.Base == partial.BaseEmpty:
			return strategyNode(entries, "replace", nil)
		case a.Fill != nil:
			return strategyNode(entries, "deep_merge", enc.literal(a.Fill, path))
		case keepsOnly(a.Table):
			value := doc.NewTable()
			for _, k := range a.Table.Keys() {
				value.Set(k, enc.plainAny(a.Table.Entries[k].Fill, enc.child(path, k)))
			}
			return strategyNode(value, "keep", nil)
		case a.Table.Entries["value"] != nil && a.Table.Entries["strategy"] != nil:
			return strategyNode(entries, "deep_merge", nil) // not to be read as a strategy
		}
		return entries
	case shape.OpWrap:
		n := wrapNode(a, enc.plainAny(a.V, path), func(x any) *doc.Node { return enc.plainAny(x, path) })
		if a.Fill != nil {
			n.Set("fill", enc.literal(a.Fill, path))
		}
		return n
	case shape.OpFill:
		return strategyNode(enc.literal(a.Fill, path), "fill", nil)
	}
	return enc.plainAny(a.V, path)
}

// keepsOnly reports whether every entry of table t fills a missing key
// and nothing else, as strategy keep does.
func keepsOnly(t *partial.Map[partial.Any]) bool {
	for _, e := range t.Entries {
		if e == nil || e.Base != partial.BaseLower || shape.Op(reflect.ValueOf(*e), anyShape) != shape.OpFill {
			return false
		}
	}
	return len(t.Entries) > 0
}

// strategyNode builds { value = ..., strategy = "...", fill = ... }.
func strategyNode(value *doc.Node, strategy string, fill *doc.Node) *doc.Node {
	n := doc.NewTable()
	n.Inline = true
	n.Set("value", value)
	n.Set("strategy", doc.NewString(strategy))
	if fill != nil {
		n.Set("fill", fill)
	}
	return n
}

// separators are the separators of string strategies, by name.
var separators = []struct{ name, text string }{{"none", ""}, {"space", " "}, {"line", "\n"}, {"paragraph", "\n\n"}}

// wrapNode writes a wrap: as append or prepend where it is one (with a
// separator, for strings), else as wrap with prepend and append.
func wrapNode(a partial.Any, value *doc.Node, write func(any) *doc.Node) *doc.Node {
	empty := func(x any) bool {
		switch x := x.(type) {
		case string:
			return x == ""
		case []any:
			return len(x) == 0
		}
		return false
	}
	if s, ok := a.V.(string); ok {
		head, tail := a.Head.(string), a.Tail.(string)
		for _, sep := range separators {
			if head == "" && tail == sep.text+s {
				return separated(value, "append", sep.name)
			}
			if tail == "" && head == s+sep.text {
				return separated(value, "prepend", sep.name)
			}
		}
	} else {
		switch {
		case empty(a.Head) && reflect.DeepEqual(a.Tail, a.V):
			return strategyNode(value, "append", nil)
		case empty(a.Tail) && reflect.DeepEqual(a.Head, a.V):
			return strategyNode(value, "prepend", nil)
		}
	}
	n := strategyNode(value, "wrap", nil)
	if !empty(a.Head) {
		n.Set("prepend", write(a.Head))
	}
	if !empty(a.Tail) {
		n.Set("append", write(a.Tail))
	}
	return n
}

func separated(value *doc.Node, strategy, sep string) *doc.Node {
	n := strategyNode(value, strategy, nil)
	if sep != "none" {
		n.Set("separator", doc.NewString(sep))
	}
	return n
}

// literal writes the value of a strategy's value or fill key: a table
// there is a table, whatever its keys.
func (enc *encoder) literal(x any, path []string) *doc.Node {
	m, ok := x.(map[string]any)
	if !ok {
		return enc.plainAny(x, path)
	}
	tbl := doc.NewTable()
	tbl.Inline = true
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if n := enc.plainAny(m[k], enc.child(path, k)); n != nil {
			tbl.Set(k, n)
		}
	}
	return tbl
}

// plainAny writes a free-form value taken as it is; a table in it with the
// keys value and strategy is written as { value = <it>, strategy =
// "replace" }, so that it does not read back as a strategy.
func (enc *encoder) plainAny(x any, path []string) *doc.Node {
	switch x := x.(type) {
	case map[string]any:
		if _, v := x["value"]; v {
			if _, s := x["strategy"]; s {
				return strategyNode(enc.literal(x, path), "replace", nil)
			}
		}
		return enc.literal(x, path)
	case []any:
		a := doc.NewArray()
		for i, e := range x {
			if n := enc.plainAny(e, enc.child(path, fmt.Sprint(i))); n != nil {
				a.Append(n)
			}
		}
		return a
	}
	return enc.anyPlain(x, path, true)
}
