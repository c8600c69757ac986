package resolve

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/schemacheck"
)

// jpParamKeys are the keys of JP's parameter format (ToolParameterConfig).
var jpParamKeys = []string{"type", "summary", "description", "default", "enum", "examples", "items", "properties", "required"}

// fromJP converts the parameters of a JP schema answer, a map from name to
// JP's parameter format, into a JSON Schema object. A parameter without a
// default is required, unless it says otherwise. Keys JP does not define
// pass through as JSON Schema keywords.
func fromJP(params *jsonv.Value) (*jsonv.Value, error) {
	root := jsonv.MustParse(`{"type":"object","properties":{},"required":[]}`)
	if params == nil {
		return root, nil
	}
	if params.Kind() != jsonv.Object {
		return nil, fmt.Errorf("parameters must be an object of parameters by name")
	}
	props, required := root.Get("properties"), root.Get("required")
	for _, name := range params.Keys() {
		p := params.Get(name)
		s, err := jpParam(p)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		props.Set(name, s)
		req := p.Get("default") == nil
		if r := p.Get("required"); r != nil {
			req = r.String() == "true"
		}
		if req {
			required.Append(jsonv.MustOf(name))
		}
	}
	return root, nil
}

func jpParam(p *jsonv.Value) (*jsonv.Value, error) {
	if p.Kind() != jsonv.Object {
		return nil, fmt.Errorf("expected an object, found %s", p)
	}
	s := jsonv.NewObject()
	summary, description := p.Get("summary"), p.Get("description")
	for _, k := range p.Keys() {
		v := p.Get(k)
		switch k {
		case "summary", "required":
		case "description":
			s.Set("description", describe(summary, description))
		case "items":
			it, err := jpParam(v)
			if err != nil {
				return nil, fmt.Errorf("items: %w", err)
			}
			s.Set("items", it)
		case "properties":
			obj, err := fromJP(v)
			if err != nil {
				return nil, fmt.Errorf("properties: %w", err)
			}
			s.Set("properties", obj.Get("properties"))
			if len(obj.Get("required").Items()) > 0 {
				s.Set("required", obj.Get("required"))
			}
		default:
			s.Set(k, v.Clone())
		}
	}
	if description == nil && summary != nil {
		s.Set("description", summary.Clone())
	}
	return s, nil
}

// describe joins a parameter's summary and description into the one JSON
// Schema description: the summary first, when the description does not
// start with it.
func describe(summary, description *jsonv.Value) *jsonv.Value {
	d, _ := description.Str()
	sm, ok := summary.Str()
	if !ok || sm == "" || strings.HasPrefix(d, sm) {
		return description.Clone()
	}
	return jsonv.MustOf(sm + "\n\n" + d)
}

// fromConfig builds the input schema of a tool whose parameters the config
// defines alone.
func fromConfig(params map[string]config.Parameter) *jsonv.Value {
	root := jsonv.MustParse(`{"type":"object","properties":{},"required":[]}`)
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := params[n]
		root.Get("properties").Set(n, configParam(p))
		if p.Required != nil && *p.Required {
			root.Get("required").Append(jsonv.MustOf(n))
		}
	}
	return root
}

func configParam(p config.Parameter) *jsonv.Value {
	s := jsonv.NewObject()
	if len(p.Type) == 1 {
		s.Set("type", jsonv.MustOf(p.Type[0]))
	} else if len(p.Type) > 1 {
		s.Set("type", jsonv.MustOf([]string(p.Type)))
	}
	switch {
	case p.Description != "":
		s.Set("description", describe(jsonv.MustOf(p.Summary), jsonv.MustOf(p.Description)))
	case p.Summary != "":
		s.Set("description", jsonv.MustOf(p.Summary))
	}
	if p.Default != nil {
		s.Set("default", jsonv.MustOf(p.Default))
	}
	if len(p.Enum) > 0 {
		s.Set("enum", jsonv.MustOf(p.Enum))
	}
	if len(p.Examples) > 0 {
		s.Set("examples", jsonv.MustOf(p.Examples))
	}
	if p.Items != nil {
		s.Set("items", configParam(*p.Items))
	}
	if len(p.Properties) > 0 {
		obj := fromConfig(p.Properties)
		s.Set("properties", obj.Get("properties"))
		if len(obj.Get("required").Items()) > 0 {
			s.Set("required", obj.Get("required"))
		}
	}
	return s
}

// typesOf returns the type names a schema allows, or nil when it names
// none.
func typesOf(s *jsonv.Value) []string {
	t := s.Get("type")
	if t == nil {
		return nil
	}
	if n, ok := t.Str(); ok {
		return []string{n}
	}
	var out []string
	for _, it := range t.Items() {
		if n, ok := it.Str(); ok {
			out = append(out, n)
		}
	}
	return out
}

// narrows reports whether every type of want is allowed by have: the same
// name, or integer where number is allowed.
func narrows(have, want []string) (string, bool) {
	for _, w := range want {
		if !slices.Contains(have, w) && !(w == "integer" && slices.Contains(have, "number")) {
			return w, false
		}
	}
	return "", true
}

// validator checks values against parts of one tool's schema.
type validator struct {
	root *jsonv.Value
}

// check validates x against the subschema at JSON pointer ptr of the root
// schema (the root being where $ref and $defs resolve).
func (v validator) check(x any, ptr string) error {
	sch, err := schemacheck.Compile(v.root.JSON(), ptr)
	if err != nil {
		return fmt.Errorf("the discovered schema cannot be checked: %v", err)
	}
	problems, err := sch.Validate(jsonv.MustOf(x).JSON())
	if err != nil {
		return err
	}
	if len(problems) == 0 {
		return nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Msg
		if p.Path != "$" {
			msgs[i] += " at " + p.Path
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// pointer escapes a key for a JSON pointer.
func pointer(keys ...string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
	}
	return b.String()
}
