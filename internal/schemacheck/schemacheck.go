// Package schemacheck validates JSON values against JSON Schemas (draft-07
// and 2020-12, with github.com/santhosh-tekuri/jsonschema/v6) and reports
// every problem at its JSONPath, for people; a schema's text, value and
// compiled form are made once for all who read it ([Doc]).
package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/strata-config/strata/internal/jsonv"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled schema.
type Schema struct {
	s *jsonschema.Schema
}

// Compile compiles the JSON Schema document doc, at the JSON pointer ptr
// ("" for the whole document; $ref and $defs resolve against the whole).
// A document without $schema is read as draft 2020-12. Nothing is loaded
// from outside the document. Formats ([Formats]) are checked whatever the
// draft: a schema that says "format": "email" means an email, and
// draft-07's, which most MCP servers write, are checked anyway.
func Compile(doc []byte, ptr string) (*Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c, err := NewCompiler(v)
	if err != nil {
		return nil, err
	}
	return c.Compile(ptr)
}

// Compiler compiles the subschemas of one schema document: the document
// is read once, and each subschema compiled once, however many are asked
// for.
type Compiler struct {
	c *jsonschema.Compiler
}

// NewCompiler returns a compiler of the schema document doc, a value as
// encoding/json decodes JSON with numbers as json.Number (see
// [jsonv.Value.Interface]), which it must not change afterwards. A document
// without $schema is read as draft 2020-12; nothing is loaded from outside
// it.
func NewCompiler(doc any) (*Compiler, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, err
	}
	return &Compiler{c: c}, nil
}

// Compile compiles the subschema at the JSON pointer ptr ("" for the whole
// document; $ref and $defs resolve against the whole).
func (c *Compiler) Compile(ptr string) (*Schema, error) {
	s, err := c.c.Compile("tool.json#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("the schema cannot be compiled: %s", firstLine(err.Error()))
	}
	return &Schema{s: s}, nil
}

// Formats are the values of format that the checker validates; it
// ignores others, as JSON Schema says.
var Formats = []string{
	"date", "date-time", "duration", "email", "hostname", "ipv4", "ipv6", "iri", "iri-reference",
	"json-pointer", "period", "regex", "relative-json-pointer", "semver", "time", "uri",
	"uri-reference", "uri-template", "uuid",
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
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			pr := Problem{Path: jsonPath(inst, e.InstanceLocation), Msg: describe(e.ErrorKind)}
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

// english prints upstream's messages. It is made on first use.
var english = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// describe says what a problem of kind k is, in upstream's words. Upstream
// prints numbers as English prose does (1,500 and 1×10³⁰⁸); the kinds that
// hold numbers are written here with fmt, the same words with the numbers
// as JSON writes them, as the value and the schema the user reads do. The
// names of additional properties come in map order; they are sorted, so
// that a message is the same on every run.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Minimum:
		return fmt.Sprintf("minimum: got %v, want %v", float(k.Got), float(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("maximum: got %v, want %v", float(k.Got), float(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("exclusiveMinimum: got %v, want %v", float(k.Got), float(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("exclusiveMaximum: got %v, want %v", float(k.Got), float(k.Want))
	case *kind.MultipleOf:
		return fmt.Sprintf("multipleOf: got %v, want %v", float(k.Got), float(k.Want))
	case *kind.MinLength:
		return fmt.Sprintf("minLength: got %d, want %d", k.Got, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("maxLength: got %d, want %d", k.Got, k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("minItems: got %d, want %d", k.Got, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("maxItems: got %d, want %d", k.Got, k.Want)
	case *kind.MinProperties:
		return fmt.Sprintf("minProperties: got %d, want %d", k.Got, k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("maxProperties: got %d, want %d", k.Got, k.Want)
	case *kind.AdditionalItems:
		return fmt.Sprintf("last %d additionalItem(s) not allowed", k.Count)
	case *kind.UniqueItems:
		return fmt.Sprintf("items at %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.OneOf:
		if len(k.Subschemas) == 2 {
			return fmt.Sprintf("'oneOf' failed, subschemas %d, %d matched", k.Subschemas[0], k.Subschemas[1])
		}
	case *kind.MinContains:
		if len(k.Got) == 0 {
			return fmt.Sprintf("min %d items required to match contains schema, but none matched", k.Want)
		}
		return fmt.Sprintf("min %d items required to match contains schema, but matched %d items at %s", k.Want, len(k.Got), ints(k.Got))
	case *kind.MaxContains:
		return fmt.Sprintf("max %d items required to match contains schema, but matched %d items at %s", k.Want, len(k.Got), ints(k.Got))
	case *kind.AdditionalProperties:
		k = &kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(k.Properties))}
		return k.LocalizedString(english())
	}
	return k.LocalizedString(english())
}

// float gives r as a float64, as upstream prints it.
func float(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// ints writes indexes as upstream does: "1 3 4".
func ints(is []int) string {
	s := fmt.Sprint(is)
	return s[1 : len(s)-1]
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

// Doc is a schema document read once: its JSON text and, each made on
// first use and shared by every holder of the Doc, its ordered value and
// its compiled form. A Doc never changes; whoever changes the value makes
// a new Doc of a copy ([NewDocOf]).
type Doc struct {
	raw       []byte
	valueOnce sync.Once
	value     *jsonv.Value
	valueErr  error
	compile   sync.Once
	compiled  *Schema
	err       error
}

// NewDoc returns the Doc of raw, a schema's JSON text, which it keeps (the
// caller must not change it); its value is read on first use, within
// jsonv's default limits.
func NewDoc(raw []byte) *Doc { return &Doc{raw: raw} }

// NewDocOf returns the Doc of the value v, which it keeps (the caller
// must not change it afterwards), with v's text.
func NewDocOf(v *jsonv.Value) *Doc {
	d := &Doc{raw: v.JSON(), value: v}
	d.valueOnce.Do(func() {})
	return d
}

// JSON returns the document's text, which the caller must not change.
func (d *Doc) JSON() []byte { return d.raw }

// Value returns the document's ordered value, read on first use, which the
// caller must not change (see [jsonv.Value.Clone]).
func (d *Doc) Value() (*jsonv.Value, error) {
	d.valueOnce.Do(func() {
		d.value, d.valueErr = jsonv.Parse(d.raw)
	})
	return d.value, d.valueErr
}

// Compiled returns the document compiled as a whole, on first use, from
// its value (the text is not read again).
func (d *Doc) Compiled() (*Schema, error) {
	d.compile.Do(func() {
		v, err := d.Value()
		if err != nil {
			d.err = err
			return
		}
		c, err := NewCompiler(v.Interface())
		if err != nil {
			d.err = err
			return
		}
		d.compiled, d.err = c.Compile("")
	})
	return d.compiled, d.err
}

// DocOf returns the Doc of a resolve.Schema (nil for no schema), for the
// packages of the module that check values against it. Package resolve
// sets it: the public API does not show a Doc.
var DocOf func(schema any) *Doc
