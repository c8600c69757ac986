// Package schemacheck validates JSON values against JSON Schemas (draft-07
// and 2020-12, with strata's fork of santhosh-tekuri/jsonschema in
// internal/third_party/jsonschema) and reports every problem at its
// JSONPath, for people.
package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/strata-config/strata/internal/third_party/jsonschema"
	"github.com/strata-config/strata/internal/third_party/jsonschema/kind"
)

// Schema is a compiled schema.
type Schema struct {
	s *jsonschema.Schema
}

// Compile compiles the JSON Schema document doc, at the JSON pointer ptr
// ("" for the whole document; $ref and $defs resolve against the whole).
// A document without $schema is read as draft 2020-12. Nothing is loaded
// from outside the document.
func Compile(doc []byte, ptr string) (*Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource("tool.json", v); err != nil {
		return nil, err
	}
	s, err := c.Compile("tool.json#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("the schema cannot be compiled: %s", firstLine(err.Error()))
	}
	return &Schema{s: s}, nil
}

// noLoader refuses to load schemas from outside the document.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the schema; only references within it are followed", url)
}

// Problem is one way a value fails a schema.
type Problem struct {
	// Path is where in the value, as a JSONPath: $ for the value itself,
	// $.a.b[0] or $["odd key"] inside it.
	Path string
	// Msg says what is wrong.
	Msg string
}

func (p Problem) String() string { return p.Path + ": " + p.Msg }

// Validate checks the JSON value doc against s and returns every problem,
// sorted by path; none when doc is valid.
func (s *Schema) Validate(doc []byte) ([]Problem, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	err = s.s.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []Problem
	seen := map[Problem]bool{}
	p := &kind.Printer{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			pr := Problem{Path: jsonPath(inst, e.InstanceLocation), Msg: e.ErrorKind.LocalizedString(p)}
			if !seen[pr] {
				seen[pr] = true
				out = append(out, pr)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Msg < out[j].Msg
	})
	return out, nil
}

// identifier matches a key JSONPath writes after a dot. It is compiled on
// first use, not at start-up.
var identifier = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// jsonPath renders a location in inst as a JSONPath.
func jsonPath(inst any, loc []string) string {
	var b strings.Builder
	b.WriteByte('$')
	cur := inst
	for _, tok := range loc {
		switch v := cur.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(v) {
				cur = v[i]
			} else {
				cur = nil
			}
			continue
		case map[string]any:
			cur = v[tok]
		default:
			cur = nil
		}
		if identifier().MatchString(tok) {
			b.WriteString("." + tok)
		} else {
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
