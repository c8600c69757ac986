// Package export writes a resolved catalog as the tool definitions a
// vendor's API takes: strata's own JSON, OpenAI's functions, Anthropic's
// tools, or MCP's tools/list.
package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// Dialect is a vendor's way of writing tool definitions.
type Dialect string

// Dialects.
const (
	Strata    Dialect = "strata"
	OpenAI    Dialect = "openai"
	Anthropic Dialect = "anthropic"
	MCP       Dialect = "mcp"
)

// Dialects lists the dialects JSON writes.
func Dialects() []Dialect { return []Dialect{Strata, OpenAI, Anthropic, MCP} }

// nameRule is a vendor's rule for tool names: 1 to max ASCII letters,
// digits and the bytes of extra. (A check, not a regular expression: a
// bounded repetition compiles to that many copies, at every start.)
type nameRule struct {
	max   int
	extra string
	text  string
}

// allows reports whether name follows the rule.
func (r nameRule) allows(name string) bool {
	if name == "" || len(name) > r.max {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(r.extra, c) >= 0) {
			return false
		}
	}
	return true
}

// nameRules are the vendors' rules for tool names.
var nameRules = map[Dialect]nameRule{
	OpenAI:    {64, "_-", "an OpenAI function name is 1 to 64 letters, digits, '_' or '-'"},
	Anthropic: {64, "_-", "an Anthropic tool name is 1 to 64 letters, digits, '_' or '-'"},
	MCP:       {128, "_.-", "an MCP tool name is 1 to 128 letters, digits, '_', '-' or '.'"},
}

// modelText is what a model is told about a tool: its summary, then its
// description after a blank line when it has one (and does not begin with
// the summary already).
func modelText(d resolve.Definition) string {
	if d.Text != "" {
		return d.Text
	}
	return config.Join(d.Summary, d.Description)
}

// JSON writes the catalog c in dialect f, as indented JSON. Every tool
// name must follow the vendor's rules; those that do not are all reported.
func JSON(c *resolve.Catalog, f Dialect) ([]byte, error) {
	if rule, ok := nameRules[f]; ok {
		var errs diag.Errors
		for _, d := range c.Tools {
			if !rule.allows(d.Name) {
				errs = append(errs, &diag.Error{Path: partial.Path{"tools", d.Name}, Msg: fmt.Sprintf("%q is not a valid tool name for %s", d.Name, f), Hint: rule.text + "; " + renameHint(d)})
			}
		}
		if len(errs) > 0 {
			return nil, errs
		}
	}
	var v any
	switch f {
	case Strata, "":
		v = c
	case OpenAI:
		type function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		type tool struct {
			Type     string   `json:"type"`
			Function function `json:"function"`
		}
		out := make([]tool, len(c.Tools))
		for i, d := range c.Tools {
			out[i] = tool{Type: "function", Function: function{Name: d.Name, Description: modelText(d), Parameters: d.InputSchema}}
		}
		v = out
	case Anthropic:
		type tool struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		out := make([]tool, len(c.Tools))
		for i, d := range c.Tools {
			out[i] = tool{Name: d.Name, Description: modelText(d), InputSchema: d.InputSchema}
		}
		v = out
	case MCP:
		out := make([]json.RawMessage, len(c.Tools))
		for i, d := range c.Tools {
			out[i] = MCPToolJSON(d)
		}
		v = struct {
			Tools []json.RawMessage `json:"tools"`
		}{out}
	default:
		return nil, fmt.Errorf("unknown dialect %q; expected strata, openai, anthropic or mcp", f)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// renameHint says how to give d a name of its own: a config entry whose
// source names d's tool where it comes from.
func renameHint(d resolve.Definition) string {
	var src config.Source
	switch d.Exec.Kind {
	case resolve.ExecMCP:
		src = config.Source{Kind: config.SourceMCP, Server: d.Exec.Server, Tool: d.Exec.Tool}
	case resolve.ExecJP, resolve.ExecDescribe:
		src = config.Source{Kind: config.SourceLocal, Tool: d.Exec.Tool}
		if src.Tool == "" {
			src.Tool = d.Name
		}
	default:
		return "rename the host's builtin tool"
	}
	text := fmt.Sprintf(`rename it: [tools.new_name] source = %q`, src.String())
	if d.Exec.Kind == resolve.ExecJP {
		text += " with its command"
	}
	return text
}

// MCPTool is a tool as MCP's tools/list gives it.
type MCPTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// MCPToolJSON returns the tool d as MCP's tools/list gives it, as JSON: the
// upstream tool as its server listed it, every key kept, when the config
// changed nothing of it but its name; otherwise the tool strata resolved.
func MCPToolJSON(d resolve.Definition) json.RawMessage {
	if len(d.Upstream) > 0 {
		if v, err := jsonv.Parse(d.Upstream); err == nil && v.Kind() == jsonv.Object {
			v.Set("name", jsonv.MustOf(d.Name))
			return json.RawMessage(v.JSON())
		}
	}
	b, _ := json.Marshal(MCPToolOf(d))
	return b
}

// MCPToolOf returns the tool d as MCP's tools/list gives it, from what
// strata resolved (see MCPToolJSON for the upstream tool as it was).
func MCPToolOf(d resolve.Definition) MCPTool {
	return MCPTool{Name: d.Name, Title: d.Title, Description: modelText(d), InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, Annotations: d.Annotations}
}
