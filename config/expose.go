package config

import (
	"fmt"
	"slices"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// Expose says which tools of an MCP server join the catalog on their own,
// under their names on the server: all of them ("all"), those listed, or
// none (the default; tools then come in through source = "mcp.<server>").
//
// In a file it is a string or a list, never a table: its fields have no
// keys.
type Expose struct {
	All   bool     `toml:"-"`
	Tools []string `toml:"-"`
}

// IsZero reports whether the server exposes nothing on its own.
func (e Expose) IsZero() bool { return !e.All && len(e.Tools) == 0 }

// Has reports whether tool name is exposed.
func (e Expose) Has(name string) bool { return e.All || slices.Contains(e.Tools, name) }

// UnmarshalValue reads "all", "none" or a list of tool names.
func (e *Expose) UnmarshalValue(v any) error {
	switch v := v.(type) {
	case string:
		switch v {
		case "all":
			*e = Expose{All: true}
			return nil
		case "none":
			*e = Expose{}
			return nil
		}
		return &diag.Error{Msg: fmt.Sprintf("expected \"all\", \"none\" or a list of tool names, found %q", v), Hint: didYouMean(v, []string{"all", "none"})}
	case []any:
		out := Expose{}
		for i, x := range v {
			s, err := asString(x, partial.Path{fmt.Sprint(i)}, "a tool name")
			if err != nil {
				return err
			}
			if !slices.Contains(out.Tools, s) {
				out.Tools = append(out.Tools, s)
			}
		}
		*e = out
		return nil
	}
	return fmt.Errorf("expected \"all\", \"none\" or a list of tool names, found %s", describe(v))
}

// MarshalValue writes "all", "none" or the list.
func (e Expose) MarshalValue() (any, error) {
	switch {
	case e.All:
		return "all", nil
	case len(e.Tools) == 0:
		return "none", nil
	}
	out := make([]any, len(e.Tools))
	for i, t := range e.Tools {
		out[i] = t
	}
	return out, nil
}

// JSONSchema describes an expose setting in the JSON Schema of the config
// file.
func (Expose) JSONSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"enum": []any{"all", "none"}},
		map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}}
}
