package decode

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/partial"
)

// Free-form values (partial.Any, the tool options) read tables with the
// keys value and strategy as merge strategies, as JP does:
//
//	arrays   append, prepend, replace
//	tables   deep_merge (what a plain table does), merge (shallow: each key
//	         replaces), keep (keys lower layers have win; missing ones are
//	         filled), replace
//	strings  append, prepend (with separator = none, space, line or
//	         paragraph), replace
//
// and strata's own, which a merged layer may need: wrap (prepend = ... and
// append = ... at once; value is what a start of another kind gives), fill
// (value only where lower layers give nothing), and a fill key on append,
// prepend, wrap and deep_merge (what to start from where lower layers give
// nothing). replace and fill take any value. Everything else about a table
// with value and strategy is an error, so that a typo never reaches a
// tool. The table given as value is never itself read as a strategy, only
// what is inside it: { value = { value = 1, strategy = "lru" }, strategy =
// "replace" } gives the table { value = 1, strategy = "lru" }.

// Strategy names and separators of free-form values.
var (
	strategyNames  = []string{"append", "prepend", "wrap", "deep_merge", "merge", "keep", "replace", "fill"}
	strategyKeys   = []string{"value", "strategy", "separator", "prepend", "append", "fill"}
	separatorNames = []string{"none", "space", "line", "paragraph"}
)

// separators maps the separator names of a string strategy to their text.
var separators = map[string]string{"none": "", "space": " ", "line": "\n", "paragraph": "\n\n"}

// isStrategy reports whether table n is a merge strategy of a free-form
// value: it has the keys value and strategy.
func isStrategy(n *doc.Node) bool {
	return n.Kind == doc.Table && n.Get("value") != nil && n.Get("strategy") != nil
}

var anyShape = shape.MustOf(reflect.TypeFor[partial.Any]())

func (dec *decoder) anyValue(n *doc.Node, v reflect.Value, path []string) {
	a, ok := dec.anyNode(n, path, false)
	if !ok {
		return
	}
	if v.CanAddr() {
		if p, isAny := v.Addr().Interface().(*partial.Any); isAny {
			*p = a // through a pointer: reflect.ValueOf(a) would copy a to the heap
			return
		}
	}
	v.Set(reflect.ValueOf(a))
}

// anyNode decodes a free-form value. In plain mode (inside a value that
// is taken as it is) null is refused, as no default lies behind it.
func (dec *decoder) anyNode(n *doc.Node, path []string, plain bool) (partial.Any, bool) {
	if n.Kind != doc.Table {
		x, ok := dec.plainValue(n, path)
		return partial.Any{State: partial.Present, V: x}, ok
	}
	if isStrategy(n) {
		return dec.strategyTable(n, path, plain)
	}
	t, ok := dec.anyEntries(n, path, plain)
	return partial.Any{State: partial.Present, Table: t}, ok
}

// anyEntries decodes the entries of table n as free-form values; null
// unsets an entry.
func (dec *decoder) anyEntries(n *doc.Node, path []string, plain bool) (*partial.Map[partial.Any], bool) {
	t := &partial.Map[partial.Any]{Entries: make(map[string]*partial.Any, len(n.Entries))}
	ok := true
	for _, e := range n.Entries {
		p := append(path, e.Key)
		if e.Kind == doc.Null {
			if plain {
				dec.fail(diag.CodeType, e.ValuePos(), p, "null is not allowed inside a value", "")
				ok = false
				continue
			}
			t.Entries[e.Key] = nil
			continue
		}
		a, eok := dec.anyNode(e, p, plain)
		if !eok {
			ok = false
			continue
		}
		t.Entries[e.Key] = &a
	}
	return t, ok
}

// FreeForm decodes a free-form value taken as it is, such as the items
// appended to an option: a strategy table inside it gives what it gives
// over nothing.
func (dec *Decoder) FreeForm(n *doc.Node, path []string) (any, bool) { return dec.plainValue(n, path) }

// plainValue decodes a value taken as it is: a strategy table inside it
// gives what it gives over nothing.
func (dec *decoder) plainValue(n *doc.Node, path []string) (any, bool) {
	switch n.Kind {
	case doc.Array:
		return dec.array(n, path, dec.plainValue)
	case doc.Table:
		if !isStrategy(n) {
			return dec.literal(n, path)
		}
		a, ok := dec.strategyTable(n, path, true)
		if !ok {
			return nil, false
		}
		return shape.ApplyAny(reflect.ValueOf(&a).Elem(), anyShape, nil, nil), true
	}
	return dec.plain(n, path)
}

// literal decodes the value of a strategy's value or fill key: a table
// there is a table, whatever its keys; what is inside it is read as usual.
func (dec *decoder) literal(n *doc.Node, path []string) (any, bool) {
	if n.Kind != doc.Table {
		return dec.plainValue(n, path)
	}
	out := make(map[string]any, len(n.Entries))
	ok := true
	for _, e := range n.Entries {
		x, eok := dec.plainValue(e, append(path, e.Key))
		out[e.Key], ok = x, ok && eok
	}
	return out, ok
}

// kindOf names the kind of value a strategy applies to.
func kindOf(n *doc.Node) string {
	switch n.Kind {
	case doc.Array:
		return "array"
	case doc.String:
		return "string"
	case doc.Table:
		return "table"
	}
	return "value"
}

// strategiesFor lists the strategies that apply to a value of kind k.
func strategiesFor(k string) []string {
	switch k {
	case "array", "string":
		return []string{"append", "prepend", "wrap", "replace", "fill"}
	case "table":
		return []string{"deep_merge", "merge", "keep", "replace", "fill"}
	}
	return []string{"replace", "fill"}
}

// strategyTable decodes a strategy table.
func (dec *decoder) strategyTable(n *doc.Node, path []string, plain bool) (partial.Any, bool) {
	fail := func(code diag.Code, at *doc.Node, key bool, p []string, msg, hint string) (partial.Any, bool) {
		off := at.ValuePos()
		if key {
			off = at.Pos()
		}
		dec.fail(code, off, p, msg, hint)
		return partial.Any{}, false
	}
	keys := map[string]*doc.Node{}
	for _, e := range n.Entries {
		if !slices.Contains(strategyKeys, e.Key) {
			hint := "a merge strategy has the keys " + strings.Join(strategyKeys, ", ")
			if s := suggest.Closest(e.Key, strategyKeys); s != "" {
				hint = "did you mean " + tomltext.Key(s) + "?"
			}
			return fail(diag.CodeUnknownKey, e, true, append(path, e.Key), "unknown key in a merge strategy (a table with value and strategy)", hint)
		}
		keys[e.Key] = e
	}
	value, sn := keys["value"], keys["strategy"]
	kind := kindOf(value)
	names := strategiesFor(kind)
	if sn.Kind != doc.String {
		return fail(diag.CodeType, sn, false, append(path, "strategy"), "expected a strategy name ("+strings.Join(names, ", ")+"), found "+Describe(sn), "")
	}
	name := sn.Str
	if !slices.Contains(strategyNames, name) {
		hint := ""
		if s := suggest.Closest(name, names); s != "" {
			hint = "did you mean " + s + "?"
		}
		return fail(diag.CodeBadValue, sn, false, append(path, "strategy"), fmt.Sprintf("unknown strategy %q for %s; expected one of %s", name, withArticle(kind), strings.Join(names, ", ")), hint)
	}
	if !slices.Contains(names, name) {
		what := withArticle(kind)
		if kind == "value" || kind == "string" {
			what += " (" + Describe(value) + ")"
		}
		return fail(diag.CodeType, value, false, append(path, "value"), fmt.Sprintf("strategy %s does not apply to %s; it applies to %s", name, what, appliesTo(name)), "")
	}
	// Keys that only some strategies take.
	if sep := keys["separator"]; sep != nil && (kind != "string" || name != "append" && name != "prepend") {
		return fail(diag.CodeInvalid, sep, true, append(path, "separator"), "separator goes with strategy append or prepend of a string", "")
	}
	for _, k := range []string{"prepend", "append"} {
		if e := keys[k]; e != nil && name != "wrap" {
			return fail(diag.CodeInvalid, e, true, append(path, k), k+" goes with strategy wrap", `write { value = ..., strategy = "wrap", prepend = ..., append = ... }`)
		}
	}
	var fill any
	if f := keys["fill"]; f != nil {
		switch name {
		case "append", "prepend", "wrap", "deep_merge":
		default:
			return fail(diag.CodeInvalid, f, true, append(path, "fill"), "fill goes with strategy append, prepend, wrap or deep_merge", "")
		}
		if kindOf(f) != kind {
			return fail(diag.CodeType, f, false, append(path, "fill"), fmt.Sprintf("fill must be %s, as value is; found %s", withArticle(kind), Describe(f)), "")
		}
		x, ok := dec.literal(f, append(path, "fill"))
		if !ok {
			return partial.Any{}, false
		}
		fill = x
	}
	vp := append(path, "value")
	out := partial.Any{State: partial.Present, Fill: fill}
	switch name {
	case "replace":
		if kind == "table" {
			t, ok := dec.anyEntries(value, vp, plain)
			out.Table, out.Base = t, partial.BaseEmpty
			return out, ok
		}
		x, ok := dec.plainValue(value, vp)
		out.V = x
		return out, ok
	case "fill":
		x, ok := dec.literal(value, vp)
		out.Fill = x
		return out, ok
	case "deep_merge":
		t, ok := dec.anyEntries(value, vp, plain)
		out.Table = t
		return out, ok
	case "merge":
		t, ok := dec.anyEntries(value, vp, plain)
		for k, e := range t.Entries {
			if e != nil { // each key replaces: it stands on nothing
				c := reflect.New(anyShape.Go)
				shape.ApplyAnyTo(c.Elem(), reflect.ValueOf(e).Elem(), nil, anyShape)
				t.Entries[k] = c.Interface().(*partial.Any)
			}
		}
		out.Table = t
		return out, ok
	case "keep":
		t := &partial.Map[partial.Any]{Entries: make(map[string]*partial.Any, len(value.Entries))}
		ok := true
		for _, e := range value.Entries {
			x, eok := dec.plainValue(e, append(vp, e.Key))
			if !eok {
				ok = false
				continue
			}
			t.Entries[e.Key] = &partial.Any{State: partial.Present, Fill: x}
		}
		out.Table = t
		return out, ok
	}
	// append, prepend, wrap: a string or an array.
	x, ok := dec.plainValue(value, vp)
	if !ok {
		return partial.Any{}, false
	}
	empty := func() any {
		if kind == "string" {
			return ""
		}
		return []any{}
	}
	sep := ""
	if s := keys["separator"]; s != nil {
		if s.Kind != doc.String || separators[s.Str] == "" && s.Str != "none" {
			hint := ""
			if s.Kind == doc.String {
				if c := suggest.Closest(s.Str, separatorNames); c != "" {
					hint = "did you mean " + c + "?"
				}
			}
			return fail(diag.CodeBadValue, s, false, append(path, "separator"), "expected one of "+strings.Join(separatorNames, ", ")+", found "+Describe(s), hint)
		}
		sep = separators[s.Str]
	}
	out.V, out.Head, out.Tail = x, empty(), empty()
	switch name {
	case "append":
		if kind == "string" {
			out.Tail = sep + x.(string)
		} else {
			out.Tail = x
		}
	case "prepend":
		if kind == "string" {
			out.Head = x.(string) + sep
		} else {
			out.Head = x
		}
	case "wrap":
		for _, k := range []string{"prepend", "append"} {
			e := keys[k]
			if e == nil {
				continue
			}
			if kindOf(e) != kind {
				return fail(diag.CodeType, e, false, append(path, k), fmt.Sprintf("%s must be %s, as value is; found %s", k, withArticle(kind), Describe(e)), "")
			}
			y, ok := dec.plainValue(e, append(path, k))
			if !ok {
				return partial.Any{}, false
			}
			if k == "prepend" {
				out.Head = y
			} else {
				out.Tail = y
			}
		}
	}
	return out, true
}

// withArticle names a kind with its article.
func withArticle(kind string) string {
	switch kind {
	case "array":
		return "an array"
	case "value":
		return "a number or boolean"
	}
	return "a " + kind
}

// appliesTo says which kinds of value a strategy applies to.
func appliesTo(name string) string {
	switch name {
	case "append", "prepend", "wrap":
		return "arrays and strings"
	case "deep_merge", "merge", "keep":
		return "tables"
	}
	return "any value"
}
