package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// jsonTypes are the JSON Schema type names.
var jsonTypes = []string{"string", "number", "integer", "boolean", "array", "object", "null"}

// Types is a parameter's JSON Schema type: one name, or a list of names.
// In a file it is a string or an array of strings.
type Types []string

// EnumValues lists the type names.
func (Types) EnumValues() []string { return slices.Clone(jsonTypes) }

// Has reports whether t includes type name.
func (t Types) Has(name string) bool { return slices.Contains(t, name) }

// UnmarshalValue reads one type name or a list of them.
func (t *Types) UnmarshalValue(v any) error {
	check := func(s string, path partial.Path) error {
		if !slices.Contains(jsonTypes, s) {
			return &diag.Error{Path: path, Msg: fmt.Sprintf("unknown type %q; expected one of %s", s, strings.Join(jsonTypes, ", ")), Hint: didYouMean(s, jsonTypes)}
		}
		return nil
	}
	switch v := v.(type) {
	case string:
		if err := check(v, nil); err != nil {
			return err
		}
		*t = Types{v}
		return nil
	case []any:
		if len(v) == 0 {
			return &diag.Error{Msg: "the type list is empty"}
		}
		out := make(Types, 0, len(v))
		for i, x := range v {
			s, err := asString(x, partial.Path{fmt.Sprint(i)}, "a type name")
			if err != nil {
				return err
			}
			if err := check(s, partial.Path{fmt.Sprint(i)}); err != nil {
				return err
			}
			if slices.Contains(out, s) {
				return &diag.Error{Path: partial.Path{fmt.Sprint(i)}, Msg: fmt.Sprintf("type %q is listed twice", s)}
			}
			out = append(out, s)
		}
		*t = out
		return nil
	}
	return fmt.Errorf("expected a type name or a list of them, found %s", describe(v))
}

// MarshalValue writes one name as a string and several as an array.
func (t Types) MarshalValue() (any, error) {
	if len(t) == 1 {
		return t[0], nil
	}
	out := make([]any, len(t))
	for i, s := range t {
		out[i] = s
	}
	return out, nil
}
