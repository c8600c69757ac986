package assign

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/decode"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/partial"
)

// Apply applies the assignments in order to layer p, a pointer to a
// partial struct: usually the merge of the layers below the overrides.
// It is JP's AssignKeyValue (assign_key_value), for many at once. An
// assignment that fails leaves p exactly as it was; the others still apply,
// and every problem is returned.
//
// The limits are the defaults (see [Option]).
func Apply[P any](p *P, as ...Assignment) error {
	t := partialType[P]()
	var errs diag.Errors
	o := newOptions(nil)
	for _, a := range as {
		if err := apply(reflect.ValueOf(p).Elem(), t, a, o); err != nil {
			errs = append(errs, diag.All(err)...)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// Layer returns the layer that assignment a makes over base: merged over
// base, it gives what the assignment asks for. base is only read (an index
// into a list, or += on a list held in a value, needs what base holds).
// Loaders keep such layers to tell which override set what. A JSON value
// is read within the limits opts set.
func Layer[P any](base *P, a Assignment, opts ...Option) (*P, error) {
	if base == nil {
		base = new(P)
	}
	l, err := layer(reflect.ValueOf(base).Elem(), partialType[P](), a, newOptions(opts))
	if err != nil {
		return nil, err
	}
	return l.Interface().(*P), nil
}

func partialType[P any]() *shape.Type {
	t, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		panic(err)
	}
	return t
}

// apply applies a to p. Where every table on the path already exists in p,
// the change is built for the target alone and merged into it there;
// otherwise a whole layer is built and merged. Either way p changes only
// once the change is known to be good.
func apply(p reflect.Value, t *shape.Type, a Assignment, o options) error {
	b, err := newBuilder(a, o)
	if err != nil {
		return err
	}
	b.inPlace = true
	if err := b.walk(p, p, t, 0, shape.Replace); err != errNeedLayer {
		return err
	}
	l, err := layer(p, t, a, o)
	if err != nil {
		return err
	}
	shape.Merge(p, l.Elem(), t)
	return nil
}

// errNeedLayer stops an in-place walk that would have to create a table.
var errNeedLayer = errors.New("assign: the path needs new tables")

// layer builds the layer of a over base.
func layer(base reflect.Value, t *shape.Type, a Assignment, o options) (reflect.Value, error) {
	b, err := newBuilder(a, o)
	if err != nil {
		return reflect.Value{}, err
	}
	out := reflect.New(t.Go)
	if err := b.walk(base, out.Elem(), t, 0, shape.Replace); err != nil {
		return reflect.Value{}, err
	}
	return out, nil
}

// newBuilder checks what does not depend on the layer: the depth of the
// key path and the JSON value, the JSON value itself, and that an
// assignment without a key is an object.
func newBuilder(a Assignment, o options) (*builder, error) {
	b := &builder{a: a, opts: o}
	if len(a.Path) > o.depth {
		return nil, b.fail(diag.CodeLimit, 0, tooDeep(len(a.Path), o.depth).Error(), "")
	}
	if a.Op == SetJSON || a.Op == MergeJSON {
		d, errs := doc.Options{MaxDepth: o.depth, MaxQuote: o.quote}.ReadJSONValue([]byte(a.Value))
		if len(errs) == 0 && len(a.Path)+d.Root.Depth() > o.depth {
			errs = []*doc.Error{{Off: 0, Msg: fmt.Sprintf("the value nests %s levels deep under a key path of %s keys, more than the limit of %s levels", diag.Count(d.Root.Depth()), diag.Count(len(a.Path)), diag.Count(o.depth))}}
		}
		if len(errs) > 0 {
			e := errs[0]
			return nil, b.fail(diag.CodeSyntax, len(a.Path), fmt.Sprintf("invalid JSON after %s at column %d: %s", a.Op, e.Off+1, strings.TrimPrefix(e.Msg, "JSON syntax: ")), "quote strings and keys: key:='\"text\"'")
		}
		b.json = d
	}
	if len(a.Path) == 0 && (a.Op != MergeJSON || b.json.Root.Kind != doc.Table) {
		return nil, b.fail(diag.CodeSyntax, 0, "an assignment without a key must be a JSON object", `write {"tools": {...}} or key=value`)
	}
	return b, nil
}

// builder builds the change one assignment makes. It walks the path in
// base (read only) and in l, the layer being built; in place, l is base
// itself and only the target's change is built apart, then merged in.
type builder struct {
	a       Assignment
	opts    options
	json    *doc.Doc // the value of := and :+=
	inPlace bool
}

// ErrBelow is the cause of a problem that comes of what the layers below
// an assignment or a variable do not hold: a value it reaches into that
// they do not set, an index past the end of their list, a variable's
// name that more than one of their entries would settle. A loader that
// left out a layer that failed need not report such a problem: the
// layer may hold what is missing.
var ErrBelow = errors.New("what the layers below do not hold")

// below gives problem e the cause ErrBelow.
func below(e error) error {
	e.(*diag.Error).Err = ErrBelow
	return e
}

// fail returns a problem at the first n keys of the assignment's path.
func (b *builder) fail(code diag.Code, n int, msg, hint string) error {
	var p partial.Path
	if n > 0 {
		p = limits.CutPath(b.a.Path[:n:n], b.opts.quote)
	}
	return &diag.Error{Code: code, Source: limits.Cut(b.a.Source, b.opts.quote), Path: p, Msg: limits.CutQuoted(msg, b.opts.quote), Hint: limits.CutQuoted(hint, b.opts.quote)}
}

// decoder returns a decoder for the assignment's values.
func (b *builder) decoder() decode.Decoder {
	return decode.Decoder{Source: limits.Cut(b.a.Source, b.opts.quote), MaxQuote: b.opts.quote, MaxDepth: b.opts.depth}
}

// walk follows the path from key i, in base (read only) and in the layer
// l being built, down to the target.
func (b *builder) walk(base, l reflect.Value, t *shape.Type, i int, strategy shape.Strategy) error {
	if i == len(b.a.Path) {
		if b.inPlace {
			change := reflect.New(t.Go).Elem()
			if err := b.target(base, change, t, strategy); err != nil {
				return err
			}
			shape.Merge(base, change, t)
			return nil
		}
		return b.target(base, l, t, strategy)
	}
	key := b.a.Path[i]
	switch t.Kind {
	case shape.Struct:
		f, ok := t.Field(key)
		if !ok {
			return b.unknown(i, t.Keys)
		}
		return b.walk(base.FieldByIndex(f.Index), l.FieldByIndex(f.Index), f.Type, i+1, f.Strategy)
	case shape.Map:
		return b.entry(base.Field(t.At.Entries), l.Field(t.At.Entries), t.Elem, i)
	case shape.Nested:
		if b.inPlace {
			if base.Field(t.At.State).Uint() != shape.StatePresent {
				return errNeedLayer
			}
			v := base.Field(t.At.V).Elem()
			return b.walk(v, v, t.Elem, i, shape.Replace)
		}
		p := reflect.New(t.Elem.Go)
		l.Field(t.At.State).SetUint(shape.StatePresent)
		l.Field(t.At.V).Set(p)
		bv := reflect.Zero(t.Elem.Go)
		if base.Field(t.At.State).Uint() == shape.StatePresent {
			bv = base.Field(t.At.V).Elem()
		}
		return b.walk(bv, p.Elem(), t.Elem, i, shape.Replace)
	case shape.Any:
		if b.inPlace {
			if base.Field(t.At.State).Uint() != shape.StatePresent || base.Field(t.At.Table).IsNil() {
				return errNeedLayer
			}
			entries := base.Field(t.At.Table).Elem().Field(t.Elem.At.Entries)
			return b.entry(entries, entries, t, i)
		}
		tbl := reflect.New(t.Elem.Go)
		l.Field(t.At.State).SetUint(shape.StatePresent)
		l.Field(t.At.Table).Set(tbl)
		bt := reflect.Zero(t.Elem.Go)
		if base.Field(t.At.State).Uint() == shape.StatePresent && !base.Field(t.At.Table).IsNil() {
			bt = base.Field(t.At.Table).Elem()
		}
		return b.entry(bt.Field(t.Elem.At.Entries), tbl.Elem().Field(t.Elem.At.Entries), t, i)
	case shape.Value:
		if base.Field(t.At.State).Uint() != shape.StatePresent {
			return below(b.fail(diag.CodeInvalid, i, "is not set, so nothing inside it can be changed", "give it whole: "+partial.Path(b.a.Path[:i]).String()+":=..."))
		}
		v := reflect.New(t.Elem.Go).Elem()
		v.Set(copyPlain(base.Field(t.At.V)))
		if err := b.inside(v, t.Elem, i); err != nil {
			return err
		}
		l.Field(t.At.V).Set(v)
		l.Field(t.At.State).SetUint(shape.StatePresent)
		return nil
	case shape.List:
		return b.listItem(base, l, t, i)
	}
	return b.fail(diag.CodeInvalid, i, "cannot be reached", "")
}

func (b *builder) unknown(i int, keys []string) error {
	hint := ""
	if s := suggest.Closest(b.a.Path[i], keys); s != "" {
		hint = "did you mean " + tomltext.Key(s) + "?"
	} else if len(keys) > 0 && len(keys) <= 12 {
		hint = "known keys: " + strings.Join(keys, ", ")
	}
	return b.fail(diag.CodeUnknownKey, i+1, "unknown key", hint)
}

// entry builds entry key i of a map (or of an Any table, elem being Any).
func (b *builder) entry(baseEntries, lEntries reflect.Value, elem *shape.Type, i int) error {
	key := reflect.ValueOf(b.a.Path[i])
	if b.inPlace {
		e := baseEntries.MapIndex(key)
		if !e.IsValid() || e.IsNil() || i == len(b.a.Path)-1 && b.a.Op == SetJSON && b.json.Root.Kind == doc.Null {
			return errNeedLayer
		}
		return b.walk(e.Elem(), e.Elem(), elem, i+1, shape.Replace)
	}
	if lEntries.IsNil() {
		lEntries.Set(reflect.MakeMap(lEntries.Type()))
	}
	if i == len(b.a.Path)-1 && b.a.Op == SetJSON && b.json.Root.Kind == doc.Null {
		lEntries.SetMapIndex(key, reflect.Zero(lEntries.Type().Elem())) // unset the entry
		return nil
	}
	bv := reflect.Zero(elem.Go)
	if be := baseEntries.MapIndex(key); be.IsValid() && !be.IsNil() {
		bv = be.Elem()
	}
	n := reflect.New(elem.Go)
	if err := b.walk(bv, n.Elem(), elem, i+1, shape.Replace); err != nil {
		return err
	}
	lEntries.SetMapIndex(key, n)
	return nil
}

// target builds the layer at the end of the path: l is the zero value of
// the target's type in the layer, base what it holds now.
func (b *builder) target(base, l reflect.Value, t *shape.Type, strategy shape.Strategy) error {
	path := b.a.Path
	switch b.a.Op {
	case Set:
		switch t.Kind {
		case shape.Value:
			return b.decode(b.textNode(b.a.Value, t.Elem), l, t, shape.Replace, true)
		case shape.List:
			if t.Elem.Shorthand { // run=ask: one item, not a comma-separated list
				return b.decode(doc.NewString(b.a.Value), l, t, shape.Replace, false)
			}
			return b.decode(b.itemsNode(t.Elem), l, t, shape.Replace, false)
		case shape.Any:
			return b.decode(doc.NewString(b.a.Value), l, t, shape.Replace, false)
		case shape.Struct:
			if t.ValueCodec { // a table that reads a shorthand
				return b.decode(doc.NewString(b.a.Value), l, t, shape.Replace, true)
			}
		case shape.Nested:
			if t.Elem.ValueCodec { // one that may be absent (enable=false)
				return b.decode(doc.NewString(b.a.Value), l, t, shape.Replace, true)
			}
		}
		return b.fail(diag.CodeType, len(path), "is a table, not a single value", b.tableHint())
	case Merge:
		switch t.Kind {
		case shape.List:
			return b.decode(b.itemsNode(t.Elem), l, t, shape.Append, false)
		case shape.Value:
			if t.Elem.Kind == shape.Slice {
				return b.appendToValue(base, l, t, b.itemsNode(t.Elem.Elem))
			}
		case shape.Any:
			return b.appendToAny(base, l, t, b.itemsNode(anyType))
		}
		return b.fail(diag.CodeType, len(path), "+= appends to lists, and "+describeKind(t)+" is not one", "use = to set it, or :+= to merge a JSON value")
	case SetJSON:
		root := b.json.Root
		if root.Kind == doc.Null {
			shape.Reset(l, t)
			return nil
		}
		if err := b.decode(root, l, t, shape.Replace, false); err != nil {
			return err
		}
		// := replaces: what lower layers gave is dropped.
		switch t.Kind {
		case shape.Map:
			l.Field(t.At.Reset).SetBool(true)
		case shape.Struct:
			shape.Reset(l, t)
		case shape.Nested:
			if l.Field(t.At.State).Uint() == shape.StatePresent {
				shape.Reset(l.Field(t.At.V).Elem(), t.Elem)
			}
		case shape.Any:
			shape.Reset(l, t) // a strategy applies to the default
		}
		return nil
	default: // MergeJSON
		root := b.json.Root
		if root.Kind == doc.Null {
			return b.fail(diag.CodeBadValue, len(path), "cannot merge null", "unset with :=null")
		}
		switch {
		case t.Kind == shape.Value && t.Elem.Kind == shape.Slice && root.Kind == doc.Array:
			return b.appendToValue(base, l, t, root)
		case t.Kind == shape.Any && root.Kind == doc.Array:
			return b.appendToAny(base, l, t, root)
		}
		if len(path) == 0 {
			dec := b.decoder()
			dec.Root(root, l, t) // a root object may hold an unset list
			if len(dec.Errs) > 0 {
				return dec.Errs
			}
			return nil
		}
		return b.decode(root, l, t, shape.Append, false)
	}
}

// decode decodes n into the layer value l, reporting every problem. With
// alt, text that fails to decode is tried again as a boolean or a number,
// for types that take those as well as strings (enable=false).
func (b *builder) decode(n *doc.Node, l reflect.Value, t *shape.Type, strategy shape.Strategy, alt bool) error {
	dec := b.decoder()
	dec.Field(n, l, t, strategy, b.a.Path)
	if len(dec.Errs) == 0 {
		return nil
	}
	if other := b.alternative(n); alt && other != nil {
		tmp := reflect.New(t.Go).Elem()
		quiet := decode.Decoder{}
		if quiet.Field(other, tmp, t, strategy, b.a.Path); len(quiet.Errs) == 0 {
			l.Set(tmp)
			return nil
		}
	}
	return dec.Errs
}

// alternative reads text as a boolean or a number, for types that take
// those as well as strings (enable = false).
func (b *builder) alternative(n *doc.Node) *doc.Node {
	if n.Kind != doc.String {
		return nil
	}
	switch s := n.Str; {
	case s == "true" || s == "false":
		return doc.NewBool(s == "true")
	default:
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return doc.NewInt(i)
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return doc.NewFloat(f)
		}
	}
	return nil
}

var anyType = shape.MustOf(reflect.TypeFor[any]())

// textNode converts the text of key=value to the node that a document
// would hold for a field of type t: a boolean or number where the type
// wants one and the text is one, a string otherwise (the decoder then says
// what was expected).
func (b *builder) textNode(text string, t *shape.Type) *doc.Node {
	switch t.Kind {
	case shape.Bool:
		if text == "true" || text == "false" {
			return doc.NewBool(text == "true")
		}
	case shape.Int, shape.Uint:
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return doc.NewInt(i)
		}
	case shape.Float:
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			return doc.NewFloat(f)
		}
	case shape.Slice:
		return b.itemsNode(t.Elem)
	}
	return doc.NewString(text)
}

// itemsNode splits the value at commas (a backslash escapes a comma) into
// an array of items of type elem.
func (b *builder) itemsNode(elem *shape.Type) *doc.Node {
	a := doc.NewArray()
	for _, item := range splitItems(b.a.Value) {
		a.Append(b.textNode(item, elem))
	}
	return a
}

// splitItems splits s at commas not escaped by a backslash; "" has no
// items.
func splitItems(s string) []string {
	if s == "" {
		return nil
	}
	var items []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ',':
			cur.WriteByte(',')
			i++
		case s[i] == ',':
			items = append(items, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(items, cur.String())
}

func (b *builder) tableHint() string {
	p := partial.Path(b.a.Path).String()
	return "set one of its keys (" + p + ".<key>=...), or replace it: " + p + `:={...}`
}

func describeKind(t *shape.Type) string {
	switch t.Kind {
	case shape.Map, shape.Struct, shape.Nested:
		return "a table"
	case shape.Any:
		return "this option"
	}
	return "a single value"
}

// appendToValue appends the items of node a to the slice a Value holds in
// base, giving the layer a Value with the longer slice.
func (b *builder) appendToValue(base, l reflect.Value, t *shape.Type, a *doc.Node) error {
	items := reflect.New(t.Elem.Go).Elem()
	dec := b.decoder()
	if !dec.Leaf(a, items, t.Elem, b.a.Path) {
		return dec.Errs
	}
	var cur reflect.Value
	if base.Field(t.At.State).Uint() == shape.StatePresent {
		cur = base.Field(t.At.V)
	} else {
		cur = reflect.Zero(t.Elem.Go)
	}
	out := reflect.MakeSlice(t.Elem.Go, 0, cur.Len()+items.Len())
	out = reflect.AppendSlice(reflect.AppendSlice(out, cur), items)
	l.Field(t.At.V).Set(out)
	l.Field(t.At.State).SetUint(shape.StatePresent)
	return nil
}

// appendToAny makes the layer append the items of node a to the array an
// option holds: { value = [...], strategy = "append" }. Over a table or a
// single value it is an error, where the layer below tells.
func (b *builder) appendToAny(base, l reflect.Value, t *shape.Type, a *doc.Node) error {
	if base.Field(t.At.State).Uint() == shape.StatePresent {
		switch x := base.Field(t.At.V).Interface(); {
		case !base.Field(t.At.Table).IsNil():
			return b.fail(diag.CodeType, len(b.a.Path), "is a table; += appends to arrays", "use :+= with a JSON object to merge into it")
		case x != nil:
			if _, ok := x.([]any); !ok {
				return b.fail(diag.CodeType, len(b.a.Path), "holds a single value; += appends to arrays", "set it with = or :=")
			}
		}
	}
	dec := b.decoder()
	x, ok := dec.FreeForm(a, b.a.Path)
	if !ok {
		return dec.Errs
	}
	added := x.([]any)
	l.Set(reflect.ValueOf(partial.Any{State: partial.Present, V: added, Head: []any{}, Tail: added}))
	return nil
}

// listItem builds a change to one item of a list field: the layer holds
// the list as base has it, with the item changed, and replaces base's.
func (b *builder) listItem(base, l reflect.Value, t *shape.Type, i int) error {
	src := base.Field(t.At.Items)
	items := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
	reflect.Copy(items, src)
	k, err := b.index(i, items.Len())
	if err != nil {
		return err
	}
	if err := b.inside(items.Index(k), t.Elem, i+1); err != nil {
		return err
	}
	baseKind := base.Field(t.At.Base).Uint()
	if baseKind == shape.BaseLower {
		baseKind = shape.BaseDefault // the layer stands for the whole list
	}
	l.Field(t.At.Base).SetUint(baseKind)
	if items.Len() > 0 {
		l.Field(t.At.Items).Set(items)
		l.Field(t.At.Before).Set(base.Field(t.At.Before))
	}
	l.Field(t.At.Dedup).Set(base.Field(t.At.Dedup))
	return nil
}

// index reads key i as an index into a list of n items.
func (b *builder) index(i, n int) (int, error) {
	k, err := strconv.Atoi(b.a.Path[i])
	if err != nil || k < 0 {
		return 0, b.fail(diag.CodeBadValue, i+1, fmt.Sprintf("%q is not a list index", b.a.Path[i]), "name an item by its number, from 0")
	}
	if k >= n {
		items := "items"
		if n == 1 {
			items = "item"
		}
		return 0, below(b.fail(diag.CodeBadValue, i+1, fmt.Sprintf("index %d is past the end of the list (%d %s)", k, n, items), ""))
	}
	return k, nil
}

// inside changes the plain value v (a copy, addressable) at keys i... of
// the path, as the assignment says.
func (b *builder) inside(v reflect.Value, t *shape.Type, i int) error {
	if t.Kind == shape.Custom {
		// Reach inside by structure, then let the type check the result.
		st, err := shape.Structure(t.Go)
		if err != nil || st.Kind == shape.Custom || st.Kind == shape.Struct && len(st.Fields) == 0 {
			return b.fail(diag.CodeInvalid, i, "cannot be changed part by part", "give it whole: "+partial.Path(b.a.Path[:i]).String()+"=...")
		}
		if err := b.inside(v, st, i); err != nil {
			return err
		}
		return b.recheck(v, t, i)
	}
	if i == len(b.a.Path) {
		return b.setPlain(v, t)
	}
	key := b.a.Path[i]
	switch t.Kind {
	case shape.Struct:
		f, ok := t.Field(key)
		if !ok {
			return b.unknown(i, t.Keys)
		}
		return b.inside(v.FieldByIndex(f.Index), f.Type, i+1)
	case shape.Slice:
		k, err := b.index(i, v.Len())
		if err != nil {
			return err
		}
		return b.inside(v.Index(k), t.Elem, i+1)
	case shape.GoMap:
		mk := reflect.ValueOf(key).Convert(t.Go.Key())
		e := reflect.New(t.Elem.Go).Elem()
		if old := v.MapIndex(mk); old.IsValid() {
			e.Set(old)
		}
		if err := b.inside(e, t.Elem, i+1); err != nil {
			return err
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t.Go))
		}
		v.SetMapIndex(mk, e)
		return nil
	case shape.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(t.Elem.Go))
		}
		return b.inside(v.Elem(), t.Elem, i)
	case shape.Interface:
		if m, ok := v.Interface().(map[string]any); ok {
			e := reflect.New(anyType.Go).Elem()
			if old, ok := m[key]; ok && old != nil {
				e.Set(reflect.ValueOf(old))
			}
			if err := b.inside(e, anyType, i+1); err != nil {
				return err
			}
			c := make(map[string]any, len(m)+1)
			for k, x := range m {
				c[k] = x
			}
			c[key] = e.Interface()
			v.Set(reflect.ValueOf(c))
			return nil
		}
		if arr, ok := v.Interface().([]any); ok {
			k, err := b.index(i, len(arr))
			if err != nil {
				return err
			}
			c := append([]any(nil), arr...)
			e := reflect.New(anyType.Go).Elem()
			e.Set(reflect.ValueOf(&c[k]).Elem())
			if err := b.inside(e, anyType, i+1); err != nil {
				return err
			}
			c[k] = e.Interface()
			v.Set(reflect.ValueOf(c))
			return nil
		}
	}
	return b.fail(diag.CodeType, i, "is a single value; nothing is inside it", "")
}

// setPlain sets plain value v as the assignment says.
func (b *builder) setPlain(v reflect.Value, t *shape.Type) error {
	var n *doc.Node
	switch b.a.Op {
	case Set:
		n = b.textNode(b.a.Value, t)
	case Merge:
		if t.Kind != shape.Slice {
			return b.fail(diag.CodeType, len(b.a.Path), "+= appends to lists, and this is a single value", "use = to set it")
		}
		n = b.itemsNode(t.Elem)
	default:
		n = b.json.Root
		if n.Kind == doc.Null {
			return b.fail(diag.CodeInvalid, len(b.a.Path), "cannot unset part of a value", "unset the whole value, or set this part")
		}
	}
	tmp := reflect.New(t.Go).Elem()
	dec := b.decoder()
	if !dec.Leaf(n, tmp, t, b.a.Path) {
		if alt := b.alternative(n); alt != nil && b.a.Op == Set {
			dec2 := decode.Decoder{}
			if dec2.Leaf(alt, tmp, t, b.a.Path) {
				v.Set(tmp)
				return nil
			}
		}
		return dec.Errs
	}
	if (b.a.Op == Merge || b.a.Op == MergeJSON) && t.Kind == shape.Slice {
		tmp = reflect.AppendSlice(reflect.AppendSlice(reflect.MakeSlice(t.Go, 0, v.Len()+tmp.Len()), v), tmp)
	}
	v.Set(tmp)
	return nil
}

// recheck writes a custom value and reads it back, so that a change made
// inside it is checked by the type itself.
func (b *builder) recheck(v reflect.Value, t *shape.Type, i int) error {
	m, ok := v.Interface().(partial.ValueMarshaler)
	if !ok || !t.ValueCodec {
		return nil
	}
	x, err := m.MarshalValue()
	if err != nil {
		return b.fail(diag.CodeBadValue, i, err.Error(), "")
	}
	fresh := reflect.New(t.Go)
	if err := fresh.Interface().(partial.ValueUnmarshaler).UnmarshalValue(x); err != nil {
		var pe *diag.Error
		if e, ok := err.(*diag.Error); ok {
			pe = e
			return b.fail(cmp.Or(pe.Code, diag.CodeBadValue), i, pe.Msg, pe.Hint)
		}
		return b.fail(diag.CodeBadValue, i, err.Error(), "")
	}
	v.Set(fresh.Elem())
	return nil
}

// copyPlain returns a deep copy of plain value v, so that changing the
// copy cannot reach v.
func copyPlain(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(copyPlain(v.Index(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			c.SetMapIndex(iter.Key(), copyPlain(iter.Value()))
		}
		return c
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(copyPlain(v.Elem()))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(copyPlain(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if c.Field(i).CanSet() {
				c.Field(i).Set(copyPlain(v.Field(i)))
			}
		}
		return c
	}
	return v
}
