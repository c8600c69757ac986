package policy

import (
	"fmt"
	"maps"
	"slices"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/rules"
	"github.com/strata-config/strata/partial"
)

// bounds narrows the parameters of c's tools to the bounds of every
// policy: a bound the layers did not set is the policy's; one they set
// looser falls back to the policy's (a clamp); one they set tighter
// stays. The policy's bounds stay where the tool's own schema is
// tighter (config.Bounded): the tighten-only check of overrides decides
// that when the tool resolves. A policy's pattern holds besides the
// parameter's own.
func (s Set) bounds(c *config.Config, out []Clamp) []Clamp {
	for _, p := range s {
		for _, name := range slices.Sorted(maps.Keys(p.Tools)) {
			pt := p.Tools[name]
			if name == config.EveryTool || len(pt.Parameters) == 0 {
				continue
			}
			t := c.Tools[name]
			t.Parameters = maps.Clone(t.Parameters)
			if t.Parameters == nil {
				t.Parameters = map[string]config.Parameter{}
			}
			for _, param := range slices.Sorted(maps.Keys(pt.Parameters)) {
				key := partial.Path{"tools", name, "parameters", param}
				by := bound{p: p, key: key, reason: p.reason(pt.Reason)}
				b := pt.Parameters[param]
				if b.Enum != nil {
					// The values every policy allows; where they allow
					// none in common, the parameter takes none.
					b.Enum = s.enum(name, param)
				}
				q, cs := by.narrow(t.Parameters[param], b)
				t.Parameters[param] = q
				out = append(out, cs...)
			}
			c.Tools[name] = t
		}
	}
	return out
}

// enum is the values of the parameter param of tool name that every
// policy with an enum for it allows, in the first one's order.
func (s Set) enum(name, param string) []any {
	var out []any
	seen := false
	for _, p := range s {
		b, ok := p.Tools[name].Parameters[param]
		if !ok || b.Enum == nil {
			continue
		}
		if !seen {
			out, seen = slices.Clone(b.Enum), true
			continue
		}
		out = slices.DeleteFunc(out, func(x any) bool { return !slices.ContainsFunc(b.Enum, func(y any) bool { return rules.Equal(x, y) }) })
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// bound is one policy's bounds of one parameter.
type bound struct {
	p      *Policy
	key    partial.Path
	reason string
}

// narrow returns q within the bounds b of the policy.
func (by bound) narrow(q, b config.Parameter) (config.Parameter, []Clamp) {
	var out []Clamp
	bd := &config.Bounded{Key: by.key.String(), At: by.p.at(by.key), Reason: by.reason}
	if q.Bounded != nil {
		// The first policy that bounds the parameter names it.
		bd.Keys, bd.Patterns, bd.Key, bd.At, bd.Reason = slices.Clone(q.Bounded.Keys), slices.Clone(q.Bounded.Patterns), q.Bounded.Key, q.Bounded.At, q.Bounded.Reason
		bd.Ats = maps.Clone(q.Bounded.Ats)
	}
	naming := q.Bounded == nil || q.Bounded.Key == bd.Key && q.Bounded.At == by.p.at(by.key)
	// place records where the bound key is, when the policy that names
	// the parameter wrote it (the others' are in their own clamps).
	place := func(key string) {
		if _, ok := bd.Ats[key]; !ok && naming {
			if line, col := by.p.locate(by.key.Append(key)); line > 0 {
				if bd.Ats == nil {
					bd.Ats = map[string]string{}
				}
				bd.Ats[key] = fmt.Sprintf("%s:%d:%d", by.p.Source, line, col)
			}
		}
	}
	mark := func(key string) {
		if !slices.Contains(bd.Keys, key) {
			bd.Keys = append(bd.Keys, key)
		}
		place(key)
	}
	clamp := func(key string, from, to any) {
		out = append(out, by.clamp(key, fmt.Sprint(from), fmt.Sprint(to)))
	}
	narrow(&q.Minimum, b.Minimum, true, "minimum", clamp, mark)
	narrow(&q.Maximum, b.Maximum, false, "maximum", clamp, mark)
	narrow(&q.ExclusiveMinimum, b.ExclusiveMinimum, true, "exclusive_minimum", clamp, mark)
	narrow(&q.ExclusiveMaximum, b.ExclusiveMaximum, false, "exclusive_maximum", clamp, mark)
	narrow(&q.MinLength, b.MinLength, true, "min_length", clamp, mark)
	narrow(&q.MaxLength, b.MaxLength, false, "max_length", clamp, mark)
	narrow(&q.MinItems, b.MinItems, true, "min_items", clamp, mark)
	narrow(&q.MaxItems, b.MaxItems, false, "max_items", clamp, mark)
	if b.Enum != nil {
		if q.Enum == nil {
			q.Enum = slices.Clone(b.Enum)
		} else {
			kept := slices.DeleteFunc(slices.Clone(q.Enum), func(x any) bool {
				return !slices.ContainsFunc(b.Enum, func(y any) bool { return rules.Equal(x, y) })
			})
			if len(kept) == 0 {
				kept = slices.Clone(b.Enum)
			}
			if len(kept) != len(q.Enum) {
				clamp("enum", q.Enum, kept)
			}
			q.Enum = kept
		}
		mark("enum")
	}
	if b.Pattern != "" && b.Pattern != q.Pattern && !slices.Contains(bd.Patterns, b.Pattern) {
		bd.Patterns = append(bd.Patterns, b.Pattern)
		place("pattern")
	}
	if len(bd.Keys)+len(bd.Patterns) > 0 {
		q.Bounded = bd
	}
	return q, out
}

// clamp is the record of the bound key of the parameter moved from from
// to to.
func (by bound) clamp(key, from, to string) Clamp {
	line, col := by.p.locate(by.key.Append(key))
	return Clamp{Key: append(by.key.Append(), key), From: from, To: to, Policy: by.key.Append(key), Source: by.p.Source, Line: line, Column: col, Reason: by.reason,
		Detail: fmt.Sprintf("%s falls back to %s: the policy allows no wider", from, to)}
}

// narrow holds a parameter's bound (have) to a policy's (pol): a lower
// bound (lower) may only rise and an upper one only fall. A bound no
// layer set becomes the policy's; a looser one falls back to it, told to
// clamp; either way the key is marked as the policy's.
func narrow[T int | float64](have **T, pol *T, lower bool, key string, clamp func(string, any, any), mark func(string)) {
	if pol == nil {
		return
	}
	x := *pol
	switch h := *have; {
	case h == nil:
		*have = &x
	case lower && *h < x, !lower && *h > x:
		clamp(key, *h, x)
		*have = &x
	}
	mark(key)
}
