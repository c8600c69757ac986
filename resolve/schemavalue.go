package resolve

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/schemacheck"
)

// Schema is a JSON Schema of a tool's input or output, read once and
// carried as a value from discovery to export and call: its JSON text,
// exactly as the tool gave it or as the config's overrides rewrote it,
// and, made on first use and shared by every copy of the Schema, its
// ordered value and its compiled form, so that a schema is parsed at most
// once and compiled at most once however many exports, searches and
// calls read it. A Schema never changes. The zero Schema is no schema
// (JSON null).
type Schema struct {
	d *schemacheck.Doc
}

// ParseSchema returns the Schema of data, a JSON Schema's text, which it
// keeps, as a json.RawMessage does: the caller must not change data
// afterwards. Data that is not one JSON value is an error. It is read
// further only when something needs more than its text.
func ParseSchema(data []byte) (Schema, error) {
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return Schema{}, errors.New("a schema must be one JSON value")
	}
	return Schema{schemacheck.NewDoc(data)}, nil
}

// MustSchema is [ParseSchema] for text known to be JSON, such as a
// constant of the host's; it panics on anything else.
func MustSchema(text string) Schema {
	s, err := ParseSchema([]byte(text))
	if err != nil {
		panic(err)
	}
	return s
}

// schemaOf returns the Schema of v, which nothing may change afterwards.
func schemaOf(v *jsonv.Value) Schema { return Schema{schemacheck.NewDocOf(v)} }

// IsZero reports whether s is no schema.
func (s Schema) IsZero() bool { return s.d == nil }

// JSON returns the schema's text; nil for no schema. The caller must not
// change it.
func (s Schema) JSON() json.RawMessage {
	if s.d == nil {
		return nil
	}
	return s.d.JSON()
}

// String returns the schema's text.
func (s Schema) String() string { return string(s.JSON()) }

// Equal reports whether s and o have the same text. It lets go-cmp
// compare definitions.
func (s Schema) Equal(o Schema) bool { return bytes.Equal(s.JSON(), o.JSON()) }

// MarshalJSON returns the schema's text, null for no schema.
func (s Schema) MarshalJSON() ([]byte, error) {
	if s.d == nil {
		return []byte("null"), nil
	}
	return s.d.JSON(), nil
}

// UnmarshalJSON reads a schema's text; null is no schema.
func (s *Schema) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*s = Schema{}
		return nil
	}
	v, err := ParseSchema(bytes.Clone(b)) // b is the decoder's
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// checker returns the schema as strata's own packages read it (its
// ordered value, its compiled form, each made once and shared by every
// copy of s); nil for no schema. Package call reaches it through
// schemacheck.DocOf.
func (s Schema) checker() *schemacheck.Doc { return s.d }

func init() { schemacheck.DocOf = func(s any) *schemacheck.Doc { return s.(Schema).d } }

// Map returns the schema as a Go value an agent library takes
// (map[string]any, as encoding/json decodes it: numbers as float64), a
// new one at each call, which the caller may change; nil for no schema
// or a schema that is not an object (true, false).
func (s Schema) Map() map[string]any {
	var m map[string]any
	if s.d == nil || json.Unmarshal(s.d.JSON(), &m) != nil {
		return nil
	}
	return m
}

// Properties returns the schema's properties, by name, each a schema as
// [Schema.Map] gives it; nil when it has none.
func (s Schema) Properties() map[string]any {
	p, _ := s.Map()["properties"].(map[string]any)
	return p
}

// Required returns the names of the schema's required properties, in the
// order it gives them; nil when it requires none.
func (s Schema) Required() []string {
	var r struct {
		Required []string `json:"required"`
	}
	if s.d == nil || json.Unmarshal(s.d.JSON(), &r) != nil {
		return nil
	}
	return r.Required
}
