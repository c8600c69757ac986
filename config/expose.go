package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// Expose says which tools of an MCP server join the catalog on their own,
// under their names on the server: all of them ("all", the default, as in
// every client that configures MCP servers), those listed, or none (tools
// then come in only through source = "mcp.<server>"). enabled_tools and
// disabled_tools narrow it further (see the resolve package). The zero Expose
// is the default: all.
//
// In a file it is a string or a list, never a table: its fields have no
// keys.
type Expose struct {
	// None is expose = "none" (or []): no tool joins on its own.
	None bool `toml:"-"`
	// Tools, when not empty, are the only tools that join.
	Tools []string `toml:"-"`
}

// All reports whether every tool of the server joins the catalog on its
// own (expose = "all", the default).
func (e Expose) All() bool { return !e.None && len(e.Tools) == 0 }

// Has reports whether tool name is exposed.
func (e Expose) Has(name string) bool {
	return !e.None && (len(e.Tools) == 0 || slices.Contains(e.Tools, name))
}

// UnmarshalValue reads "all", "none" or a list of tool names; an empty
// list is "none".
func (e *Expose) UnmarshalValue(v any) error {
	switch v := v.(type) {
	case string:
		switch v {
		case "all":
			*e = Expose{}
			return nil
		case "none":
			*e = Expose{None: true}
			return nil
		}
		return &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("expected \"all\", \"none\" or a list of tool names, found %q", v), Hint: didYouMean(v, []string{"all", "none"})}
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
		out.None = len(out.Tools) == 0
		*e = out
		return nil
	}
	return fmt.Errorf("expected \"all\", \"none\" or a list of tool names, found %s", describe(v))
}

// MarshalValue writes "all", "none" or the list.
func (e Expose) MarshalValue() (any, error) {
	switch {
	case e.None:
		return "none", nil
	case len(e.Tools) == 0:
		return "all", nil
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

// ToolNames is a list of a server's tool names: Codex's enabled_tools and
// disabled_tools. Unlike a plain list, an empty list is kept as set: nil
// means no list, ToolNames{} means a list that names no tool.
type ToolNames []string

// UnmarshalValue reads a list of tool names, or names separated by commas
// (the text form of key=value overrides).
func (n *ToolNames) UnmarshalValue(v any) error {
	list, ok := v.([]any)
	if s, text := v.(string); text {
		// The text form, as key=value gives it: names separated by commas.
		list, ok = nil, true
		for _, name := range strings.Split(s, ",") {
			if name = strings.TrimSpace(name); name != "" {
				list = append(list, name)
			}
		}
	}
	if !ok {
		return fmt.Errorf("expected a list of tool names, found %s", describe(v))
	}
	out := ToolNames{}
	for i, x := range list {
		s, err := asString(x, partial.Path{fmt.Sprint(i)}, "a tool name")
		if err != nil {
			return err
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	*n = out
	return nil
}

// MarshalValue writes the list.
func (n ToolNames) MarshalValue() (any, error) {
	out := make([]any, len(n))
	for i, t := range n {
		out[i] = t
	}
	return out, nil
}

// JSONSchema describes a list of tool names in the JSON Schema of the
// config file.
func (ToolNames) JSONSchema() map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
}
