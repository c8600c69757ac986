// Package decode decodes document trees into partial values, collecting
// every problem with its position. Package load uses it for layer files and
// package assign for the values of overrides.
package decode

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// Decoder decodes the nodes of one document into partial values.
type Decoder struct {
	Doc    *doc.Doc
	Source string      // names the document in problems
	Errs   diag.Errors // the problems kept so far (see MaxErrors)
	// MaxErrors is how many problems Errs keeps; the others are counted
	// (see Err). MaxQuote is how many characters of a key or value a
	// problem quotes. MaxDepth is how many keys an unset path may have.
	// Zero means the default of package limits.
	MaxErrors, MaxQuote, MaxDepth int
	// Checked, when set, is the key path whose unknown keys are problems:
	// an unknown key outside it is left out of the partial, silently (the
	// host reads it another way).
	Checked []string

	omitted int            // problems found beyond MaxErrors
	key     reflect.Value  // reused map key; SetMapIndex copies it
	boxes   map[string]any // short strings already boxed; see box
	tmp     reflect.Value  // see scratch
}

// scratch returns the zero value of type t, settable, to decode into
// before the result is copied where it goes: the same value again when
// the type is the last one asked for (a tool's enable, in every tool).
func (dec *decoder) scratch(t reflect.Type) reflect.Value {
	if !dec.tmp.IsValid() || dec.tmp.Type() != t {
		dec.tmp = reflect.New(t).Elem()
		return dec.tmp
	}
	dec.tmp.SetZero()
	return dec.tmp
}

// Err returns the problems found, nil when there are none: Errs, and a
// last problem that counts those left out, if any (see diag.Collector).
func (dec *Decoder) Err() error {
	c := diag.Collector{Max: len(dec.Errs)}
	for _, e := range dec.Errs {
		c.AddError(e)
	}
	c.Omit(dec.omitted)
	return c.Err()
}

type decoder = Decoder

// mapKey returns a reflect.Value of k without allocating.
func (dec *decoder) mapKey(k string) reflect.Value {
	if !dec.key.IsValid() {
		dec.key = reflect.New(reflect.TypeFor[string]()).Elem()
	}
	dec.key.SetString(k)
	return dec.key
}

// maxBoxed is the length up to which box reuses a string's interface
// value, and maxBoxes how many it keeps.
const maxBoxed, maxBoxes = 16, 1024

// box returns s as an interface value. Short strings repeat in free-form
// values (modes, types, enums), and converting a string to an interface
// allocates: each is boxed once per document.
func (dec *decoder) box(s string) any {
	if len(s) > maxBoxed {
		return s
	}
	if x, ok := dec.boxes[s]; ok {
		return x
	}
	var x any = s
	if dec.boxes == nil {
		dec.boxes = make(map[string]any, 16)
	}
	if len(dec.boxes) < maxBoxes {
		dec.boxes[s] = x
	}
	return x
}

// full reports whether Errs holds as many problems as it keeps.
func (dec *decoder) full() bool { return len(dec.Errs) >= limits.Or(dec.MaxErrors, limits.Problems) }

// fail adds a problem of kind code at offset off, about path.
func (dec *decoder) fail(code diag.Code, off int32, path []string, msg, hint string) {
	if dec.full() {
		dec.omitted++
		return
	}
	quote := limits.Or(dec.MaxQuote, limits.Quote)
	var p partial.Path
	if len(path) > 0 {
		p = slices.Clone(limits.CutPath(path, quote))
	}
	e := &diag.Error{Code: code, Source: dec.Source, Path: p, Msg: limits.CutQuoted(msg, quote), Hint: limits.CutQuoted(hint, quote)}
	dec.Errs = append(dec.Errs, At(e, dec.Doc, off))
}

// At fills e's position from offset off in d, and points it at d's text
// for its snippet.
func At(e *diag.Error, d *doc.Doc, off int32) *diag.Error {
	if d == nil || off < 0 {
		return e
	}
	e.Line, e.Column = d.Position(off)
	e.SetText(d.Data, int(off))
	return e
}

// Root decodes a document's root table into partial struct v, applying
// its unset list.
func (dec *decoder) Root(n *doc.Node, v reflect.Value, t *shape.Type) {
	var unsets *doc.Node
	if _, own := t.Field(partial.UnsetKey); !own {
		if unsets = n.Get(partial.UnsetKey); unsets != nil {
			n = shallowWithout(n, partial.UnsetKey)
		}
	}
	dec.structure(n, v, t, make([]string, 0, 16))
	if unsets == nil {
		return
	}
	if unsets.Kind != doc.Array {
		dec.fail(diag.CodeType, unsets.ValuePos(), []string{partial.UnsetKey}, "expected an array of key paths, found "+Describe(unsets), `write unset = ["tools.grep.run"]`)
		return
	}
	type unset struct {
		i int
		p partial.Path
	}
	var paths []unset
	for i, e := range unsets.Entries {
		ip := []string{partial.UnsetKey, strconv.Itoa(i)}
		if e.Kind != doc.String {
			dec.fail(diag.CodeType, e.ValuePos(), ip, "expected a key path string, found "+Describe(e), "")
			continue
		}
		p, err := partial.ParsePath(e.Str)
		if err != nil {
			dec.fail(diag.CodeSyntax, e.ValuePos(), ip, err.Error(), "")
			continue
		}
		if max := limits.Or(dec.MaxDepth, limits.Depth); len(p) > max {
			dec.fail(diag.CodeLimit, e.ValuePos(), ip, fmt.Sprintf("the key path has %s keys, more than the limit of %s", diag.Count(len(p)), diag.Count(max)), "")
			continue
		}
		paths = append(paths, unset{i, p})
	}
	// Shorter paths first: an unset of a table must not depend on whether
	// the list names paths inside it before or after it.
	slices.SortStableFunc(paths, func(a, b unset) int { return len(a.p) - len(b.p) })
	for _, u := range paths {
		if code, msg, hint := UnsetPath(v, t, u.p); msg != "" {
			e := unsets.Entries[u.i]
			dec.fail(code, e.ValuePos(), []string{partial.UnsetKey, strconv.Itoa(u.i)}, msg, hint)
		}
	}
}

// shallowWithout returns a copy of table n without entry key.
func shallowWithout(n *doc.Node, key string) *doc.Node {
	c := doc.NewTable()
	c.KeyOff, c.Off = n.KeyOff, n.Off
	for _, e := range n.Entries {
		if e.Key != key {
			c.Entries = append(c.Entries, e)
		}
	}
	return c
}

func (dec *decoder) structure(n *doc.Node, v reflect.Value, t *shape.Type, path []string) {
	if n.Kind != doc.Table {
		dec.fail(diag.CodeType, n.ValuePos(), path, "expected a table, found "+Describe(n), "")
		return
	}
	for _, e := range n.Entries {
		f, ok := t.Field(e.Key)
		p := append(path, e.Key)
		if !ok {
			dec.unknown(e, p, t.Keys)
			continue
		}
		dec.Field(e, v.FieldByIndex(f.Index), f.Type, f.Strategy, p)
	}
}

func (dec *decoder) unknown(e *doc.Node, path []string, keys []string) {
	if dec.Checked != nil && !partial.Path(path).HasPrefix(dec.Checked) {
		return // the host's
	}
	if dec.full() {
		dec.omitted++ // no need for a hint no one reads
		return
	}
	hint := ""
	if s := suggest.Closest(e.Key, keys); s != "" {
		hint = "did you mean " + tomltext.Key(s) + "?"
	} else if len(keys) > 0 && len(keys) <= 12 {
		hint = "known keys: " + strings.Join(keys, ", ")
	}
	dec.fail(diag.CodeUnknownKey, e.Pos(), path, "unknown key", hint)
}

// field decodes node n into the partial value v of type t.
// Field decodes node n into the partial value v of type t; strategy is a
// list field's default strategy, path the key path of v.
func (dec *decoder) Field(n *doc.Node, v reflect.Value, t *shape.Type, strategy shape.Strategy, path []string) {
	if n.Kind == doc.Null {
		shape.Reset(v, t)
		return
	}
	switch t.Kind {
	case shape.Struct:
		if t.ValueCodec { // it reads itself, shorthands included
			tmp := dec.scratch(t.Go)
			if dec.custom(n, tmp, t, path) {
				v.Set(tmp)
			}
			return
		}
		dec.structure(n, v, t, path)
	case shape.Value:
		if dec.Leaf(n, v.Field(t.At.V), t.Elem, path) {
			v.Field(t.At.State).SetUint(shape.StatePresent)
		}
	case shape.List:
		dec.list(n, v, t, strategy, path)
	case shape.Map:
		if n.Kind != doc.Table {
			dec.fail(diag.CodeType, n.ValuePos(), path, "expected a table, found "+Describe(n), "")
			return
		}
		entries := v.Field(t.At.Entries)
		if entries.IsNil() && len(n.Entries) > 0 {
			// An empty table says nothing: nil, as a layer built in Go has.
			entries.Set(reflect.MakeMapWithSize(entries.Type(), len(n.Entries)))
		}
		for _, e := range n.Entries {
			if e.Kind == doc.Null {
				entries.SetMapIndex(dec.mapKey(e.Key), reflect.Zero(entries.Type().Elem()))
				continue
			}
			ev := reflect.New(t.Elem.Go)
			dec.Field(e, ev.Elem(), t.Elem, shape.Replace, append(path, e.Key))
			entries.SetMapIndex(dec.mapKey(e.Key), ev)
		}
	case shape.Nested:
		p := reflect.New(t.Elem.Go)
		switch {
		case t.Elem.ValueCodec: // it reads itself, shorthands included
			if !dec.custom(n, p.Elem(), t.Elem, path) {
				return
			}
		case n.Kind != doc.Table:
			dec.fail(diag.CodeType, n.ValuePos(), path, "expected a table, found "+Describe(n), "")
			return
		default:
			dec.structure(n, p.Elem(), t.Elem, path)
		}
		v.Field(t.At.State).SetUint(shape.StatePresent)
		v.Field(t.At.V).Set(p)
	case shape.Any:
		dec.anyValue(n, v, path)
	}
}

func (dec *decoder) list(n *doc.Node, v reflect.Value, t *shape.Type, strategy shape.Strategy, path []string) {
	var dedup bool
	switch n.Kind {
	case doc.Array:
		items, ok := dec.items(n, v.Field(t.At.Items).Type(), t.Elem, path)
		if !ok {
			return
		}
		setList(v, t, strategy, items)
	case doc.Table:
		var value, prepend, appendN *doc.Node
		strategyNode := (*doc.Node)(nil)
		for _, e := range n.Entries {
			switch e.Key {
			case "value":
				value = e
			case "strategy":
				strategyNode = e
			case "dedup":
				if e.Kind != doc.Bool {
					dec.fail(diag.CodeType, e.ValuePos(), append(path, "dedup"), "expected a boolean, found "+Describe(e), "")
					return
				}
				dedup = e.Bool
			case "prepend":
				prepend = e
			case "append":
				appendN = e
			default:
				dec.unknown(e, append(path, e.Key), []string{"value", "strategy", "dedup", "prepend", "append"})
				return
			}
		}
		if value != nil && (prepend != nil || appendN != nil) {
			dec.fail(diag.CodeBadValue, n.ValuePos(), path, "a list has either value (with strategy) or prepend and append, not both", "")
			return
		}
		st := strategy
		if strategyNode != nil {
			if value == nil {
				dec.fail(diag.CodeBadValue, strategyNode.Pos(), append(path, "strategy"), "strategy needs a value", `write { value = [...], strategy = "append" }`)
				return
			}
			s, ok := dec.strategy(strategyNode, append(path, "strategy"))
			if !ok {
				return
			}
			st = s
		}
		lt := v.Field(t.At.Items).Type()
		if value != nil {
			items, ok := dec.items(value, lt, t.Elem, append(path, "value"))
			if !ok {
				return
			}
			setList(v, t, st, items)
		}
		head, tail := reflect.Zero(lt), reflect.Zero(lt)
		if prepend != nil {
			items, ok := dec.items(prepend, lt, t.Elem, append(path, "prepend"))
			if !ok {
				return
			}
			head = items
		}
		if appendN != nil {
			items, ok := dec.items(appendN, lt, t.Elem, append(path, "append"))
			if !ok {
				return
			}
			tail = items
		}
		if prepend != nil || appendN != nil {
			shape.SetItems(v, t, head, tail)
		}
		if value == nil && prepend == nil && appendN == nil && !dedup {
			dec.fail(diag.CodeType, n.ValuePos(), path, "expected an array or { value = [...], strategy = ... }, found an empty table", "")
			return
		}
	case doc.String, doc.Integer, doc.Float, doc.Bool:
		if !t.Elem.Shorthand || !t.Elem.ValueCodec {
			dec.fail(diag.CodeType, n.ValuePos(), path, "expected an array or { value = [...], strategy = ... }, found "+Describe(n), "")
			return
		}
		// A scalar that stands for one item: it replaces the list. The
		// item is decoded in place (MakeSlice would allocate a header
		// besides, for every tool of a catalog that sets run).
		tail := v.Field(t.At.Items)
		tail.SetZero()
		tail.Grow(1)
		tail.SetLen(1)
		if !dec.Leaf(n, tail.Index(0), t.Elem, path) {
			tail.SetZero()
			return
		}
		v.Field(t.At.Base).SetUint(shape.BaseEmpty)
	default:
		dec.fail(diag.CodeType, n.ValuePos(), path, "expected an array or { value = [...], strategy = ... }, found "+Describe(n), "")
		return
	}
	if dedup {
		v.Field(t.At.Dedup).SetBool(true)
		shape.DedupList(v, t)
	}
}

var strategies = []string{"append", "prepend", "replace"}

func (dec *decoder) strategy(n *doc.Node, path []string) (shape.Strategy, bool) {
	if n.Kind != doc.String {
		dec.fail(diag.CodeType, n.ValuePos(), path, "expected one of append, prepend, replace, found "+Describe(n), "")
		return 0, false
	}
	switch n.Str {
	case "append":
		return shape.Append, true
	case "prepend":
		return shape.Prepend, true
	case "replace":
		return shape.Replace, true
	}
	hint := ""
	if s := suggest.Closest(n.Str, strategies); s != "" {
		hint = "did you mean " + s + "?"
	}
	dec.fail(diag.CodeBadValue, n.ValuePos(), path, fmt.Sprintf("unknown list strategy %q; expected one of append, prepend, replace", n.Str), hint)
	return 0, false
}

func setList(v reflect.Value, t *shape.Type, s shape.Strategy, items reflect.Value) {
	v.Field(t.At.Items).Set(items)
	switch s {
	case shape.Prepend:
		v.Field(t.At.Before).SetInt(int64(items.Len()))
	case shape.Append:
	default:
		v.Field(t.At.Base).SetUint(shape.BaseEmpty)
	}
}

func (dec *decoder) items(n *doc.Node, st reflect.Type, elem *shape.Type, path []string) (reflect.Value, bool) {
	if n.Kind != doc.Array {
		dec.fail(diag.CodeType, n.ValuePos(), path, "expected an array, found "+Describe(n), "")
		return reflect.Value{}, false
	}
	out := reflect.MakeSlice(st, len(n.Entries), len(n.Entries))
	ok := true
	for i, e := range n.Entries {
		if !dec.Leaf(e, out.Index(i), elem, append(path, strconv.Itoa(i))) {
			ok = false
		}
	}
	return out, ok
}

// Leaf decodes n into the plain value v; it reports problems and returns
// false on failure.
func (dec *decoder) Leaf(n *doc.Node, v reflect.Value, t *shape.Type, path []string) bool {
	if from, ok := dec.secret(n, path); ok {
		if t.Go != secretType {
			return dec.notSecret(n, from, path)
		}
		v.Set(reflect.ValueOf(secret.From(n.Str, from)))
		return true
	}
	if t.Enum != nil && n.Kind == doc.String && !slices.Contains(t.Enum, n.Str) {
		hint := ""
		if s := suggest.Closest(n.Str, t.Enum); s != "" {
			hint = "did you mean " + s + "?"
		}
		dec.fail(diag.CodeBadValue, n.ValuePos(), path, fmt.Sprintf("expected one of %s, found %q", strings.Join(t.Enum, ", "), n.Str), hint)
		return false
	}
	if t.Enum != nil && n.Kind == doc.String && t.Go.Kind() == reflect.String {
		v.SetString(n.Str) // a listed value of a string type is stored as is
		return true
	}
	switch t.Kind {
	case shape.Custom:
		return dec.custom(n, v, t, path)
	case shape.String:
		if n.Kind != doc.String {
			return dec.mismatch(n, "a string", path)
		}
		v.SetString(n.Str)
	case shape.Bool:
		if n.Kind != doc.Bool {
			return dec.mismatch(n, "a boolean", path)
		}
		v.SetBool(n.Bool)
	case shape.Int:
		if n.Kind != doc.Integer {
			return dec.mismatch(n, "an integer", path)
		}
		if v.OverflowInt(n.Int()) {
			dec.fail(diag.CodeBadValue, n.ValuePos(), path, fmt.Sprintf("integer %d is out of range for %s", n.Int(), v.Type()), "")
			return false
		}
		v.SetInt(n.Int())
	case shape.Uint:
		if n.Kind != doc.Integer {
			return dec.mismatch(n, "a non-negative integer", path)
		}
		if n.Int() < 0 || v.OverflowUint(uint64(n.Int())) {
			dec.fail(diag.CodeBadValue, n.ValuePos(), path, fmt.Sprintf("integer %d is out of range for %s", n.Int(), v.Type()), "")
			return false
		}
		v.SetUint(uint64(n.Int()))
	case shape.Float:
		switch n.Kind {
		case doc.Float:
			if math.IsNaN(n.Float()) || math.IsInf(n.Float(), 0) {
				dec.fail(diag.CodeBadValue, n.ValuePos(), path, fmt.Sprintf("%v is not a valid number here", n.Float()), "")
				return false
			}
			v.SetFloat(n.Float())
		case doc.Integer:
			v.SetFloat(float64(n.Int()))
		default:
			return dec.mismatch(n, "a number", path)
		}
	case shape.Interface:
		x, ok := dec.plain(n, path)
		if !ok {
			return false
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case shape.Slice:
		items, ok := dec.items(n, v.Type(), t.Elem, path)
		if !ok {
			return false
		}
		v.Set(items)
	case shape.GoMap:
		if n.Kind != doc.Table {
			return dec.mismatch(n, "a table", path)
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Entries))
		ok := true
		for _, e := range n.Entries {
			ev := reflect.New(t.Elem.Go).Elem()
			if !dec.Leaf(e, ev, t.Elem, append(path, e.Key)) {
				ok = false
				continue
			}
			m.SetMapIndex(reflect.ValueOf(e.Key).Convert(v.Type().Key()), ev)
		}
		v.Set(m)
		return ok
	case shape.Pointer:
		p := reflect.New(t.Elem.Go)
		if !dec.Leaf(n, p.Elem(), t.Elem, path) {
			return false
		}
		v.Set(p)
	case shape.Struct:
		if n.Kind != doc.Table {
			return dec.mismatch(n, "a table", path)
		}
		before := len(dec.Errs)
		for _, e := range n.Entries {
			f, ok := t.Field(e.Key)
			if !ok {
				dec.unknown(e, append(path, e.Key), t.Keys)
				continue
			}
			dec.Leaf(e, v.FieldByIndex(f.Index), f.Type, append(path, e.Key))
		}
		return len(dec.Errs) == before
	default:
		dec.fail(diag.CodeUsage, n.ValuePos(), path, "cannot decode into "+t.Go.String(), "")
		return false
	}
	return true
}

func (dec *decoder) mismatch(n *doc.Node, want string, path []string) bool {
	if n.Kind == doc.Null {
		dec.fail(diag.CodeType, n.ValuePos(), path, "null is not allowed here; expected "+want, "to unset the field, unset its whole key")
		return false
	}
	dec.fail(diag.CodeType, n.ValuePos(), path, "expected "+want+", found "+Describe(n), "")
	return false
}

func (dec *decoder) custom(n *doc.Node, v reflect.Value, t *shape.Type, path []string) bool {
	var err error
	if t.ValueCodec {
		x, ok := dec.plain(n, path)
		if !ok {
			return false
		}
		err = v.Addr().Interface().(partial.ValueUnmarshaler).UnmarshalValue(x)
		if err == nil && t.Positioned {
			line, col := 0, 0 // a value of an override or a variable: its source alone
			if dec.Doc != nil && n.ValuePos() >= 0 {
				line, col = dec.Doc.Position(n.ValuePos())
			}
			if dec.Source != "" {
				v.Addr().Interface().(partial.Positioned).SetPosition(dec.Source, line, col)
			}
		}
	} else {
		if n.Kind != doc.String {
			return dec.mismatch(n, "a string", path)
		}
		err = v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Str))
	}
	if err == nil {
		return true
	}
	var fe *diag.Error
	if errors.As(err, &fe) {
		target, p := n, path
		for _, k := range fe.Path {
			if c := target.Get(k); c != nil {
				target = c
			} else if target.Kind == doc.Array {
				if i, e := strconv.Atoi(k); e == nil && i >= 0 && i < len(target.Entries) {
					target = target.Entries[i]
				}
			}
			p = append(p, k)
		}
		off := target.ValuePos()
		if len(fe.Path) > 0 {
			off = target.Pos()
		}
		code := fe.Code
		if code == "" {
			code = diag.CodeBadValue
		}
		dec.fail(code, off, p, fe.Msg, fe.Hint)
		return false
	}
	dec.fail(diag.CodeBadValue, n.ValuePos(), path, err.Error(), "")
	return false
}

// secretType is the type that keeps a value a file did not hold.
var secretType = reflect.TypeFor[secret.String]()

// secret returns what the string node n came from, when its value came
// from somewhere other than the document (see doc.Doc.Secrets).
func (dec *decoder) secret(n *doc.Node, path []string) (string, bool) {
	if n.Kind != doc.String || dec.Doc == nil || len(dec.Doc.Secrets) == 0 {
		return "", false
	}
	from, ok := dec.Doc.Secrets[n]
	return from, ok
}

// notSecret refuses to decode the secret n, which came from from, into
// a type that would print its value.
func (dec *decoder) notSecret(n *doc.Node, from string, path []string) bool {
	dec.fail(diag.CodeRefused, n.ValuePos(), path, "the value of "+from+" cannot be kept here: this setting would print it", "write the value out, or set it where a secret may go (a server's command, args, env, cwd, url or headers)")
	return false
}

// plain converts a node to a plain value: string, int64, float64, bool,
// []any or map[string]any. Datetimes, nulls and non-finite numbers have no
// JSON form and are refused.
func (dec *decoder) plain(n *doc.Node, path []string) (any, bool) {
	if from, ok := dec.secret(n, path); ok {
		return nil, dec.notSecret(n, from, path)
	}
	switch n.Kind {
	case doc.String:
		return dec.box(n.Str), true
	case doc.Integer:
		return n.Int(), true
	case doc.Float:
		if math.IsNaN(n.Float()) || math.IsInf(n.Float(), 0) {
			dec.fail(diag.CodeBadValue, n.ValuePos(), path, fmt.Sprintf("%v cannot be passed on as JSON", n.Float()), "")
			return nil, false
		}
		return n.Float(), true
	case doc.Bool:
		return n.Bool, true
	case doc.Datetime:
		dec.fail(diag.CodeType, n.ValuePos(), path, "datetime values are not supported", fmt.Sprintf("quote it as a string: %q", n.Str))
		return nil, false
	case doc.Null:
		dec.fail(diag.CodeType, n.ValuePos(), path, "null is not allowed inside a value", "")
		return nil, false
	case doc.Array:
		return dec.array(n, path, dec.plain)
	case doc.Table:
		out := make(map[string]any, len(n.Entries))
		ok := true
		for _, e := range n.Entries {
			x, eok := dec.plain(e, append(path, e.Key))
			out[e.Key], ok = x, ok && eok
		}
		return out, ok
	}
	return nil, false
}

// array decodes the elements of array n with elem, each at its index
// below path; ok is false when any element fails (all are tried, so that
// every problem is reported).
func (dec *decoder) array(n *doc.Node, path []string, elem func(*doc.Node, []string) (any, bool)) ([]any, bool) {
	out := make([]any, len(n.Entries))
	ok := true
	for i, e := range n.Entries {
		x, eok := elem(e, append(path, strconv.Itoa(i)))
		out[i], ok = x, ok && eok
	}
	return out, ok
}

// Plain converts a node to a plain value without checks, for directives.
func Plain(n *doc.Node) any {
	switch n.Kind {
	case doc.String, doc.Datetime:
		return n.Str
	case doc.Integer:
		return n.Int()
	case doc.Float:
		return n.Float()
	case doc.Bool:
		return n.Bool
	case doc.Array:
		out := make([]any, len(n.Entries))
		for i, e := range n.Entries {
			out[i] = Plain(e)
		}
		return out
	case doc.Table:
		out := make(map[string]any, len(n.Entries))
		for _, e := range n.Entries {
			out[e.Key] = Plain(e)
		}
		return out
	}
	return nil
}

// Describe names a node's kind and value for messages: `string "x"`,
// "integer 7", "an array".
func Describe(n *doc.Node) string {
	switch n.Kind {
	case doc.String:
		s := n.Str
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return "string " + strconv.Quote(s)
	case doc.Integer:
		return "integer " + strconv.FormatInt(n.Int(), 10)
	case doc.Float:
		return "float " + strconv.FormatFloat(n.Float(), 'g', -1, 64)
	case doc.Bool:
		return "boolean " + strconv.FormatBool(n.Bool)
	case doc.Datetime:
		return "datetime " + n.Str
	case doc.Array:
		return "an array"
	case doc.Table:
		return "a table"
	case doc.Null:
		return "null"
	}
	return "an invalid value"
}

// UnsetPath applies one unset path to partial v; it returns the kind of
// problem, a message and a hint when the path does not name a field.
func UnsetPath(v reflect.Value, t *shape.Type, p partial.Path) (diag.Code, string, string) {
	for i := 0; ; i++ {
		if i == len(p) {
			shape.Reset(v, t)
			return "", "", ""
		}
		key := p[i]
		switch t.Kind {
		case shape.Struct:
			f, ok := t.Field(key)
			if !ok {
				hint := ""
				if s := suggest.Closest(key, t.Keys); s != "" {
					hint = "did you mean " + p[:i].Append(s).String() + "?"
				}
				return diag.CodeUnknownKey, fmt.Sprintf("cannot unset %s: %s has no key %s", p, orRoot(p[:i]), tomltext.Key(key)), hint
			}
			v, t = v.FieldByIndex(f.Index), f.Type
		case shape.Map:
			entries := v.Field(t.At.Entries)
			kv := reflect.ValueOf(key)
			e := entries.MapIndex(kv)
			if i == len(p)-1 {
				if e.IsValid() && !e.IsNil() {
					shape.Reset(e.Elem(), t.Elem)
				} else {
					if entries.IsNil() {
						entries.Set(reflect.MakeMap(entries.Type()))
					}
					entries.SetMapIndex(kv, reflect.Zero(entries.Type().Elem()))
				}
				return "", "", ""
			}
			if !e.IsValid() || e.IsNil() {
				if e.IsValid() {
					return diag.CodeInvalid, fmt.Sprintf("cannot unset %s inside %s, which this layer removes", p, p[:i+1]), ""
				}
				if entries.IsNil() {
					entries.Set(reflect.MakeMap(entries.Type()))
				}
				e = reflect.New(t.Elem.Go)
				entries.SetMapIndex(kv, e)
			}
			v, t = e.Elem(), t.Elem
		case shape.Nested:
			switch v.Field(t.At.State).Uint() {
			case shape.StateUnset:
				return diag.CodeInvalid, fmt.Sprintf("cannot unset %s inside %s, which this layer removes", p, p[:i]), ""
			case shape.StateAbsent:
				v.Field(t.At.State).SetUint(shape.StatePresent)
				v.Field(t.At.V).Set(reflect.New(t.Elem.Go))
			}
			v, t = v.Field(t.At.V).Elem(), t.Elem
			i--
		case shape.Any:
			switch {
			case v.Field(t.At.State).Uint() == shape.StateUnset:
				return diag.CodeInvalid, fmt.Sprintf("cannot unset %s inside %s, which this layer removes", p, p[:i]), ""
			case v.Field(t.At.State).Uint() != shape.StatePresent:
				v.Field(t.At.State).SetUint(shape.StatePresent)
				v.Field(t.At.V).Set(reflect.Zero(v.Field(t.At.V).Type()))
				v.Field(t.At.Table).Set(reflect.New(t.Elem.Go))
			case v.Field(t.At.Table).IsNil():
				return diag.CodeType, fmt.Sprintf("cannot unset %s: %s is not a table in this layer", p, p[:i]), ""
			}
			v, t = v.Field(t.At.Table).Elem(), t.Elem
			i--
		default:
			return diag.CodeType, fmt.Sprintf("cannot unset %s: %s is a single value", p, p[:i]), "unset " + p[:i].String() + " as a whole"
		}
	}
}

func orRoot(p partial.Path) string {
	if len(p) == 0 {
		return "the root"
	}
	return p.String()
}
