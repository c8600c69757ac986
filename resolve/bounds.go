package resolve

import (
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/schemacheck"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
)

// bound is one JSON Schema bound a parameter override may set.
type bound struct {
	key     string // the config's key: exclusive_minimum
	keyword string // JSON Schema's: exclusiveMinimum
	what    string // what it bounds, for messages: "a number"
	types   []string
	lower   bool // a lower bound, which an override may only raise
	name    string
}

var (
	numbers = []string{"number", "integer"}
	minimum = bound{"minimum", "minimum", "a number", numbers, true, "minimum"}
	maximum = bound{"maximum", "maximum", "a number", numbers, false, "maximum"}
	exclMin = bound{"exclusive_minimum", "exclusiveMinimum", "a number", numbers, true, "exclusive minimum"}
	exclMax = bound{"exclusive_maximum", "exclusiveMaximum", "a number", numbers, false, "exclusive maximum"}
	minLen  = bound{"min_length", "minLength", "a string's length", []string{"string"}, true, "minimum length"}
	maxLen  = bound{"max_length", "maxLength", "a string's length", []string{"string"}, false, "maximum length"}
	minIt   = bound{"min_items", "minItems", "an array's length", []string{"array"}, true, "minimum number of items"}
	maxIt   = bound{"max_items", "maxItems", "an array's length", []string{"array"}, false, "maximum number of items"}
)

// boundsOf says which keys bound which types, for hints.
const boundsOf = "numbers take minimum, maximum, exclusive_minimum, exclusive_maximum and multiple_of; " +
	"strings min_length, max_length, pattern and format; arrays min_items, max_items and unique_items"

// bounds applies the bounds a parameter's override sets to its schema
// prop: each may tighten what the tool's schema says, never loosen it. A
// bound the schema lacks is added; one it has may move only inward; a
// pattern holds besides the tool's own (allOf); a format only where the
// tool's schema has none, or the same. path is the parameter's key path.
func (o *overrides) bounds(prop *jsonv.Value, p config.Parameter, path partial.Path) {
	set := false
	for _, b := range []struct {
		bound
		v *float64
	}{{minimum, p.Minimum}, {maximum, p.Maximum}, {exclMin, p.ExclusiveMinimum}, {exclMax, p.ExclusiveMaximum}} {
		if b.v != nil && o.applies(prop, b.bound, path) && !(p.Bounded.Sets(b.key) && within(prop, b.bound, *b.v)) {
			o.number(prop, b.bound, *b.v, path)
			set = true
		}
	}
	if set {
		o.nonEmpty(prop, path, minimum, exclMin, maximum, exclMax, "number")
	}
	if p.MultipleOf != nil {
		o.multipleOf(prop, *p.MultipleOf, path)
	}
	set = false
	for _, b := range []struct {
		bound
		v *int
	}{{minLen, p.MinLength}, {maxLen, p.MaxLength}, {minIt, p.MinItems}, {maxIt, p.MaxItems}} {
		if b.v == nil || !o.applies(prop, b.bound, path) || p.Bounded.Sets(b.key) && within(prop, b.bound, float64(*b.v)) {
			continue
		}
		if *b.v < 0 {
			o.fail(path.Append(b.key), fmt.Sprintf("must be 0 or more, found %d", *b.v), "a length is never negative")
			continue
		}
		o.number(prop, b.bound, float64(*b.v), path)
	}
	if p.MinLength != nil || p.MaxLength != nil {
		o.nonEmpty(prop, path, minLen, bound{}, maxLen, bound{}, "string")
	}
	if p.MinItems != nil || p.MaxItems != nil {
		o.nonEmpty(prop, path, minIt, bound{}, maxIt, bound{}, "array")
	}
	if p.UniqueItems != nil {
		o.uniqueItems(prop, *p.UniqueItems, path)
	}
	if p.Pattern != "" {
		o.pattern(prop, p.Pattern, path)
	}
	if p.Bounded != nil {
		for _, re := range p.Bounded.Patterns {
			o.pattern(prop, re, path) // a policy's: besides the parameter's own
		}
	}
	if p.Format != "" {
		o.format(prop, p.Format, path)
	}
}

// paramBounds applies the bounds of parameters a tool's config defines
// (params, at path) to the schema fromConfig built of them, obj: checked
// as an override's are, against nothing discovered.
func (o *overrides) paramBounds(obj *jsonv.Value, params map[string]config.Parameter, path partial.Path) {
	var one func(prop *jsonv.Value, p config.Parameter, path partial.Path)
	one = func(prop *jsonv.Value, p config.Parameter, path partial.Path) {
		o.bounds(prop, p, path)
		if items := prop.Get("items"); p.Items != nil && items != nil {
			one(items, *p.Items, path.Append("items"))
		}
		if len(p.Properties) > 0 && prop.Get("properties") != nil {
			o.paramBounds(prop, p.Properties, path.Append("properties"))
		}
	}
	props := obj.Get("properties")
	for _, name := range slices.Sorted(maps.Keys(params)) {
		if prop := props.Get(name); prop != nil {
			one(prop, params[name], path.Append(name))
		}
	}
}

// within reports whether the schema prop has a bound b at least as tight
// as x already: a policy's bound (config.Bounded) then leaves it be, for
// the tool's own schema is inside the policy.
func within(prop *jsonv.Value, b bound, x float64) bool {
	have := prop.Get(b.keyword)
	if have == nil {
		return false
	}
	cur, ok := rat(have)
	if !ok {
		return false
	}
	c := cur.Cmp(ratOf(numberText(x)))
	return b.lower && c >= 0 || !b.lower && c <= 0
}

// applies reports whether bound b fits the parameter's types (any, when
// its schema names none), and says why not when it does not.
func (o *overrides) applies(prop *jsonv.Value, b bound, path partial.Path) bool {
	have := typesOf(prop)
	if have == nil || slices.ContainsFunc(have, func(t string) bool { return slices.Contains(b.types, t) }) {
		return true
	}
	o.fail(path.Append(b.key), fmt.Sprintf("%s bounds %s; the parameter is %s", b.key, b.what, strings.Join(have, " or ")), boundsOf)
	return false
}

// number sets bound b to x, where the tool's schema has no such bound or
// a looser one.
func (o *overrides) number(prop *jsonv.Value, b bound, x float64, path partial.Path) {
	want := numberText(x)
	if have := prop.Get(b.keyword); have != nil {
		if have.Kind() == jsonv.Bool {
			// Draft 4 writes exclusiveMinimum as a flag of minimum.
			near := "minimum"
			if !b.lower {
				near = "maximum"
			}
			o.fail(path.Append(b.key), fmt.Sprintf("the tool's schema writes %s as draft 4's flag of %s", b.keyword, near), "set "+near+" instead")
			return
		}
		cur, ok := rat(have)
		if !ok {
			o.fail(path.Append(b.key), fmt.Sprintf("the tool's %s is %s, not a number", b.keyword, have), "remove "+b.key)
			return
		}
		switch c := ratOf(want).Cmp(cur); {
		case c == 0:
			return
		case b.lower && c < 0:
			o.fail(path.Append(b.key), fmt.Sprintf("cannot lower the %s to %s; the tool's %s is %s", b.name, want, b.keyword, have),
				fmt.Sprintf("an override may only raise it: write %s = %s or more", b.key, have))
			return
		case !b.lower && c > 0:
			o.fail(path.Append(b.key), fmt.Sprintf("cannot raise the %s to %s; the tool's %s is %s", b.name, want, b.keyword, have),
				fmt.Sprintf("an override may only lower it: write %s = %s or less", b.key, have))
			return
		}
	}
	prop.Set(b.keyword, jsonv.MustOf(x))
}

// nonEmpty fails when the bounds of prop leave no value of kind: its
// lower bound (lo, or the exclusive xlo) above its upper one (hi, xhi).
func (o *overrides) nonEmpty(prop *jsonv.Value, path partial.Path, lo, xlo, hi, xhi bound, kind string) {
	type end struct {
		b     bound
		v     *big.Rat
		text  string
		exclu bool
	}
	get := func(bs ...bound) []end {
		var out []end
		for i, b := range bs {
			if b.keyword == "" {
				continue
			}
			if v := prop.Get(b.keyword); v != nil {
				if r, ok := rat(v); ok {
					out = append(out, end{b, r, v.String(), i == 1})
				}
			}
		}
		return out
	}
	for _, l := range get(lo, xlo) {
		for _, h := range get(hi, xhi) {
			c := l.v.Cmp(h.v)
			if c > 0 || c == 0 && (l.exclu || h.exclu) {
				o.fail(path, fmt.Sprintf("no %s fits between %s %s and %s %s", kind, l.b.keyword, l.text, h.b.keyword, h.text),
					"an override may only narrow the range the tool's schema allows")
				return
			}
		}
	}
}

// multipleOf makes numbers a multiple of k: k alone where the tool's
// schema has no multipleOf, a multiple of the tool's otherwise.
func (o *overrides) multipleOf(prop *jsonv.Value, k float64, path partial.Path) {
	b := bound{key: "multiple_of", what: "a number", types: numbers}
	if !o.applies(prop, b, path) {
		return
	}
	p := path.Append("multiple_of")
	want := ratOf(numberText(k))
	if want.Sign() <= 0 {
		o.fail(p, "must be more than 0, found "+numberText(k), "numbers are multiples of a positive number")
		return
	}
	if have := prop.Get("multipleOf"); have != nil {
		cur, ok := rat(have)
		if !ok || cur.Sign() <= 0 {
			o.fail(p, fmt.Sprintf("the tool's multipleOf is %s, not a positive number", have), "remove multiple_of")
			return
		}
		if !new(big.Rat).Quo(want, cur).IsInt() {
			o.fail(p, fmt.Sprintf("%s is not a multiple of the tool's multipleOf %s", numberText(k), have),
				"an override may only ask for multiples of the tool's: "+have.String()+", or a multiple of it")
			return
		}
	}
	prop.Set("multipleOf", jsonv.MustOf(k))
}

// uniqueItems makes the items of an array differ; it may not let them
// repeat where the tool's schema says they differ.
func (o *overrides) uniqueItems(prop *jsonv.Value, unique bool, path partial.Path) {
	if !o.applies(prop, bound{key: "unique_items", what: "an array's items", types: []string{"array"}}, path) {
		return
	}
	have := prop.Get("uniqueItems")
	switch {
	case unique:
		prop.Set("uniqueItems", jsonv.MustOf(true))
	case have != nil && have.String() == "true":
		o.fail(path.Append("unique_items"), "cannot let items repeat; the tool's schema says uniqueItems", "remove unique_items = false")
	}
}

// pattern adds a regular expression a string must match, besides the one
// the tool's schema may have: both hold.
func (o *overrides) pattern(prop *jsonv.Value, re string, path partial.Path) {
	if !o.applies(prop, bound{key: "pattern", what: "a string", types: []string{"string"}}, path) {
		return
	}
	want := jsonv.MustOf(re)
	// The schema checker reads patterns with Go's regexp.
	if _, err := regexp.Compile(re); err != nil {
		o.fail(path.Append("pattern"), fmt.Sprintf("%s is not a regular expression: %s", want, strings.TrimPrefix(err.Error(), "error parsing regexp: ")),
			"write it as Go's regexp reads it (RE2: no lookaround or backreferences), in single quotes in TOML: '^[a-z]+$'")
		return
	}
	have := prop.Get("pattern")
	if have == nil {
		prop.Set("pattern", want)
		return
	}
	if jsonv.Equal(have, want) {
		return
	}
	all := prop.Get("allOf")
	if all == nil || all.Kind() != jsonv.Array {
		all = jsonv.NewArray()
		prop.Set("allOf", all)
	}
	extra := jsonv.NewObject()
	extra.Set("pattern", want)
	for _, it := range all.Items() {
		if jsonv.Equal(it, extra) {
			return
		}
	}
	all.Append(extra)
}

// format adds a format a string must have, where the tool's schema gives
// none (or the same).
func (o *overrides) format(prop *jsonv.Value, f string, path partial.Path) {
	if !o.applies(prop, bound{key: "format", what: "a string", types: []string{"string"}}, path) {
		return
	}
	p := path.Append("format")
	if !slices.Contains(schemacheck.Formats, f) {
		hint := "strata checks " + strings.Join(schemacheck.Formats, ", ")
		if s := suggest.Closest(f, schemacheck.Formats); s != "" {
			hint = "did you mean " + s + "?"
		}
		o.fail(p, fmt.Sprintf("strata does not check the format %q", f), hint)
		return
	}
	if have := prop.Get("format"); have != nil {
		if s, _ := have.Str(); s == f {
			return
		}
		o.fail(p, fmt.Sprintf("cannot change the format to %s; the tool's format is %s", f, have),
			"an override may add a format only where the tool's schema gives none; remove format, or add a pattern")
		return
	}
	prop.Set("format", jsonv.MustOf(f))
}

// numberText writes x as JSON does.
func numberText(x float64) string { return jsonv.MustOf(x).String() }

// ratOf reads the JSON number text s exactly.
func ratOf(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return new(big.Rat)
	}
	return r
}

// rat reads the number v exactly; ok is false when v is not a number.
func rat(v *jsonv.Value) (*big.Rat, bool) {
	if v == nil || v.Kind() != jsonv.Number {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(v.String())
	return r, ok
}
