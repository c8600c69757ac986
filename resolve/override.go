package resolve

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
)

// overrides applies a tool's configuration on top of what it discovered:
// the user's text replaces (with {{description}} standing for the
// discovered one), the discovered schema stays the base, and an override
// may tighten it but never loosen it.
type overrides struct {
	path   partial.Path // tools.<name>
	errs   diag.Errors
	forced map[string]any // parameters whose one-value enum forces them
}

func (o *overrides) fail(p partial.Path, msg, hint string) {
	o.errs = append(o.errs, &diag.Error{Code: diag.CodeOverride, Path: p, Msg: msg, Hint: hint})
}

// describe returns the one text a model is told about a tool or a
// parameter, and its summary, from what was discovered (a summary, which
// only JP's schema action gives, and a description) and what the config
// says (summary and description), under DESIGN.md's override rules:
//
//   - the config's description is the text, nothing put before it; each
//     {{description}} in it stands for the discovered text as written;
//   - a summary and no description: the summary takes the place of the
//     discovered summary (or first sentence), before the rest;
//   - neither: the discovered text as written (JP's summary, a blank line,
//     its description);
//   - the summary is the config's, else the discovered one, else the
//     first sentence of the text: a short form of it, never added to it.
func describe(foundSummary, foundDescription, summary, description string) (sum, text string) {
	written := config.Join(foundSummary, foundDescription)
	rest := foundDescription
	if foundSummary == "" {
		_, rest = config.Split(foundDescription)
	}
	switch {
	case description != "":
		text = strings.ReplaceAll(description, "{{description}}", written)
	case summary != "":
		text = config.Join(summary, rest)
	default:
		text = written
	}
	switch {
	case summary != "":
		sum = summary
	case foundSummary != "":
		sum = foundSummary
	default:
		sum, _ = config.Split(text)
	}
	return sum, text
}

// params applies parameter overrides to the object schema obj (whose
// properties and required list they change). ptr is obj's JSON pointer in
// the root schema, path the key path of the parameters table.
func (o *overrides) params(v *validator, obj *jsonv.Value, ptr string, params map[string]config.Parameter, path partial.Path, top bool) {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	props := obj.Get("properties")
	for _, name := range names {
		p := params[name]
		pp := path.Append(name)
		prop := props.Get(name)
		if prop == nil {
			known := props.Keys()
			hint := ""
			if s := suggest.Closest(name, known); s != "" {
				hint = "did you mean " + s + "?"
			} else if len(known) > 0 {
				hint = "its parameters are " + strings.Join(known, ", ")
			} else {
				hint = "it takes no parameters"
			}
			o.fail(pp, "the tool has no parameter "+partial.Path{name}.String(), hint)
			continue
		}
		o.required(obj, name, p.Required, pp)
		forcible := ""
		if top {
			forcible = name
		}
		o.param(v, prop, ptr+pointer("properties", name), p, pp, forcible)
	}
}

// required makes a parameter required when the override says so; it
// refuses to make a required one optional.
func (o *overrides) required(obj *jsonv.Value, name string, want *bool, path partial.Path) {
	if want == nil {
		return
	}
	req := obj.Get("required")
	has := false
	for _, r := range req.Items() {
		if s, _ := r.Str(); s == name {
			has = true
		}
	}
	switch {
	case *want && !has:
		if req == nil {
			req = jsonv.NewArray()
			obj.Set("required", req)
		}
		req.Append(jsonv.MustOf(name))
	case !*want && has:
		o.fail(path.Append("required"), "cannot make a required parameter optional", "an override may only make parameters required; remove required = false")
	}
}

// param applies one parameter's overrides to its schema prop, at pointer
// ptr of the root schema. name is set for the tool's own parameters, whose
// one-value enums force their value in calls.
func (o *overrides) param(v *validator, prop *jsonv.Value, ptr string, p config.Parameter, path partial.Path, name string) {
	if len(p.Type) > 0 {
		have := typesOf(prop)
		if have == nil {
			o.fail(path.Append("type"), "the discovered schema gives this parameter no type to narrow", "remove the type override")
		} else if bad, ok := narrows(have, p.Type.Schema()); !ok {
			if bad == "string" && !p.Type.Has("string") {
				bad = "path" // the name the config gave
			}
			o.fail(path.Append("type"), fmt.Sprintf("cannot change the type to %s; the tool takes %s", bad, strings.Join(have, " or ")),
				"an override may only narrow a list of types to some of them (path narrows string)")
		} else if ts := p.Type.Schema(); len(ts) == 1 {
			prop.Set("type", jsonv.MustOf(ts[0]))
		} else {
			prop.Set("type", jsonv.MustOf(ts))
		}
	}
	o.bounds(prop, p, path)
	if len(p.Enum) > 0 || p.Bounded.Sets("enum") {
		values := p.Enum
		if p.Bounded.Sets("enum") {
			// A policy's enum: the values the tool takes of it.
			values = takes(v, prop, ptr, values)
			if len(values) == 0 {
				o.fail(path.Append("enum"), "the tool takes none of the values the policy "+p.Bounded.Key+".enum ("+p.Bounded.AtOf("enum")+") allows", "the tool cannot be called within the policy: leave it out, or have the policy changed")
			}
		}
		if len(values) > 0 {
			o.enum(v, prop, ptr, values, path.Append("enum"), name)
		}
	}
	if p.Default != nil {
		if err := v.check(p.Default, ptr); err != nil {
			o.fail(path.Append("default"), fmt.Sprintf("the default %s does not fit the parameter's schema: %v", jsonv.MustOf(p.Default), err), defaultHint(p.Default, path.Append("default")))
		} else {
			prop.Set("default", jsonv.MustOf(p.Default))
		}
	}
	if p.Description != "" || p.Summary != "" {
		discovered, _ := prop.Get("description").Str()
		_, text := describe("", discovered, p.Summary, p.Description)
		prop.Set("description", jsonv.MustOf(text))
	}
	if len(p.Examples) > 0 {
		prop.Set("examples", jsonv.MustOf(p.Examples))
	}
	if p.Items != nil {
		items := prop.Get("items")
		if items == nil || items.Kind() != jsonv.Object {
			o.fail(path.Append("items"), "the parameter has no items schema to override", "items overrides apply to array parameters")
		} else {
			o.param(v, items, ptr+"/items", *p.Items, path.Append("items"), "")
		}
	}
	if len(p.Properties) > 0 {
		if prop.Get("properties") == nil {
			o.fail(path.Append("properties"), "the parameter has no properties to override", "properties overrides apply to object parameters")
		} else {
			o.params(v, prop, ptr, p.Properties, path.Append("properties"), false)
		}
	}
}

// takes returns the values the parameter's schema prop takes: those of
// its enum when it has one, that fit its schema.
func takes(v *validator, prop *jsonv.Value, ptr string, values []any) []any {
	var out []any
	for _, x := range values {
		if have := prop.Get("enum"); have != nil && !slices.ContainsFunc(have.Items(), func(a *jsonv.Value) bool { return jsonv.Equal(a, jsonv.MustOf(x)) }) {
			continue
		}
		if v.check(x, ptr) == nil {
			out = append(out, x)
		}
	}
	return out
}

// enum narrows a parameter's allowed values: a subset of a discovered
// enum, or values the schema accepts. One value forces it.
func (o *overrides) enum(v *validator, prop *jsonv.Value, ptr string, values []any, path partial.Path, name string) {
	if have := prop.Get("enum"); have != nil {
		var allowed []string
		for _, a := range have.Items() {
			allowed = append(allowed, a.String())
		}
		for _, x := range values {
			found := false
			for _, a := range have.Items() {
				if jsonv.Equal(a, jsonv.MustOf(x)) {
					found = true
				}
			}
			if !found {
				o.fail(path, fmt.Sprintf("%s is not one of the tool's values (%s)", jsonv.MustOf(x), strings.Join(allowed, ", ")), "an override may only narrow an enum to some of its values")
				return
			}
			if err := v.check(x, ptr); err != nil { // the bounds an override set
				o.fail(path, fmt.Sprintf("%s does not fit the parameter's schema: %v", jsonv.MustOf(x), err), "list values the bounds allow")
				return
			}
		}
	} else {
		for _, x := range values {
			if err := v.check(x, ptr); err != nil {
				o.fail(path, fmt.Sprintf("%s does not fit the parameter's schema: %v", jsonv.MustOf(x), err), "list values the tool accepts")
				return
			}
		}
	}
	prop.Set("enum", jsonv.MustOf(values))
	if len(values) == 1 {
		prop.Set("default", jsonv.MustOf(values[0]))
		if name != "" {
			if o.forced == nil {
				o.forced = map[string]any{}
			}
			o.forced[name] = values[0]
		}
	}
}

// defaultHint is the fix of a default that does not fit: a string that
// reads as JSON of another type (500, true, [1]) was meant as that value,
// which TOML writes without quotes and --cfg with := (key=500 is the
// text "500").
func defaultHint(def any, key partial.Path) string {
	s, ok := def.(string)
	if !ok || strings.HasPrefix(strings.TrimSpace(s), `"`) || !json.Valid([]byte(s)) {
		return "give a default the tool accepts"
	}
	return fmt.Sprintf("to give it as a number, boolean, array or object rather than a string, write it without quotes in TOML (default = %s), or with := on the command line (--cfg %s:=%s)", s, key, s)
}
