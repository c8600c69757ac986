package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// jsonTypes are the type names a parameter takes: JSON Schema's, and
// JP's path (RFD D25).
var jsonTypes = []string{"string", "number", "integer", "boolean", "array", "object", "null", "path"}

// Types is a parameter's JSON Schema type: one name, or a list of names.
// In a file it is a string or an array of strings. Besides JSON Schema's
// names it takes JP's path (RFD D25): a string that names a file, which
// the model sees as "string" and policy rules match as a path (see
// [Types.Schema]).
type Types []string

// Schema returns the type names as JSON Schema writes them: path is
// string (once).
func (t Types) Schema() []string {
	out := make([]string, 0, len(t))
	for _, n := range t {
		if n == "path" {
			n = "string"
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// EnumValues lists the type names.
func (Types) EnumValues() []string { return slices.Clone(jsonTypes) }

// Has reports whether t includes type name.
func (t Types) Has(name string) bool { return slices.Contains(t, name) }

// UnmarshalValue reads one type name or a list of them.
func (t *Types) UnmarshalValue(v any) error {
	check := func(s string) *diag.Error {
		if !slices.Contains(jsonTypes, s) {
			return &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("unknown type %q; expected one of %s", s, strings.Join(jsonTypes, ", ")), Hint: didYouMean(s, jsonTypes)}
		}
		return nil
	}
	switch v := v.(type) {
	case string:
		if err := check(v); err != nil {
			return err
		}
		*t = Types{v}
		return nil
	case []any:
		if len(v) == 0 {
			return &diag.Error{Code: diag.CodeBadValue, Msg: "the type list is empty"}
		}
		out := make(Types, 0, len(v))
		for i, x := range v {
			// The path of an item is made only for its problem.
			at := func() partial.Path { return partial.Path{strconv.Itoa(i)} }
			s, ok := x.(string)
			if !ok {
				_, err := asString(x, at(), "a type name")
				return err
			}
			if err := check(s); err != nil {
				err.Path = at()
				return err
			}
			if slices.Contains(out, s) {
				return &diag.Error{Code: diag.CodeInvalid, Path: at(), Msg: fmt.Sprintf("type %q is listed twice", s)}
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
