package resolve

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/schemacheck"
)

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
	if ts := p.Type.Schema(); len(ts) == 1 {
		s.Set("type", jsonv.MustOf(ts[0]))
	} else if len(ts) > 1 {
		s.Set("type", jsonv.MustOf(ts))
	}
	if d := config.Join(p.Summary, p.Description); d != "" {
		s.Set("description", jsonv.MustOf(d))
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

// validator checks values against parts of one tool's schema, which the
// overrides change as they go: each check is against the schema as it is
// then. The schema is compiled again only when it changed since the last
// check, and each part of it once, so that the checks of a parameter's
// enum values share one compile.
type validator struct {
	root     *jsonv.Value
	text     []byte // the root's text when compiler was made
	compiler *schemacheck.Compiler
	parts    map[string]*schemacheck.Schema // by JSON pointer
}

// check validates x against the subschema at JSON pointer ptr of the root
// schema (the root being where $ref and $defs resolve).
func (v *validator) check(x any, ptr string) error {
	if text := v.root.JSON(); v.compiler == nil || !bytes.Equal(text, v.text) {
		c, err := schemacheck.NewCompiler(v.root.Interface())
		if err != nil {
			return fmt.Errorf("the discovered schema cannot be checked: %v", err)
		}
		v.text, v.compiler, v.parts = text, c, map[string]*schemacheck.Schema{}
	}
	sch, ok := v.parts[ptr]
	if !ok {
		var err error
		if sch, err = v.compiler.Compile(ptr); err != nil {
			return fmt.Errorf("the discovered schema cannot be checked: %v", err)
		}
		v.parts[ptr] = sch
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
