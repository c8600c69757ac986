// Package export writes a resolved catalog as the tool definitions a
// vendor's API takes: strata's own JSON, OpenAI's functions, Anthropic's
// tools, or MCP's tools/list.
package export

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/termtext"
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

// nameRule is a dialect's rule for tool names: 1 to max ASCII letters,
// digits and the bytes of extra, or, with graphic, 1 to max characters
// that show as themselves (termtext.Graphic). (A check, not a regular
// expression: a bounded repetition compiles to that many copies, at
// every start.)
type nameRule struct {
	max     int
	extra   string
	graphic bool
	text    string
}

// allows reports whether name follows the rule.
func (r nameRule) allows(name string) bool {
	if r.graphic {
		n := utf8.RuneCountInString(name)
		return 1 <= n && n <= r.max && termtext.Graphic(name)
	}
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

// nameRules are the dialects' rules for tool names. OpenAI's and
// Anthropic's are their APIs' patterns (^[a-zA-Z0-9_-]{1,64}$). MCP's is
// the specification's (2025-11-25, "Tool names": 1 to 128 characters,
// ASCII letters, digits, '_', '-' and '.'), which the official Go SDK
// checks when a server adds a tool. strata's own takes any name that
// prints as itself, up to MCP's length: names with spaces, dots or
// letters beyond ASCII stay in its catalog, and only the dialects that
// refuse them leave them out.
var nameRules = map[Dialect]nameRule{
	Strata:    {max: 128, graphic: true, text: "a tool name is 1 to 128 characters that print as themselves: no control, formatting or bidirectional characters"},
	OpenAI:    {max: 64, extra: "_-", text: "an OpenAI function name is 1 to 64 letters, digits, '_' or '-'"},
	Anthropic: {max: 64, extra: "_-", text: "an Anthropic tool name is 1 to 64 letters, digits, '_' or '-'"},
	MCP:       {max: 128, extra: "_.-", text: "an MCP tool name is 1 to 128 letters, digits, '_', '-' or '.'"},
}

// Allows reports whether f takes name as a tool name.
func (f Dialect) Allows(name string) bool {
	if f == "" {
		f = Strata
	}
	r, ok := nameRules[f]
	return ok && r.allows(name)
}

// NameRule says which tool names f takes.
func (f Dialect) NameRule() string {
	if f == "" {
		f = Strata
	}
	return nameRules[f].text
}

// Refused returns the warning that d is left out of dialect f, whose
// rules its name does not follow, with the rule and the entry that
// renames it; nil when f takes the name.
func Refused(f Dialect, d resolve.Definition) *diag.Error {
	if f.Allows(d.Name) {
		return nil
	}
	if f == "" {
		f = Strata
	}
	return &diag.Error{Severity: diag.SeverityWarning, Source: "skipped", Path: partial.Path{"tools", d.Name},
		Msg:  fmt.Sprintf("%q is not a valid tool name for %s; the tool is left out of it", d.Name, f),
		Hint: nameRules[f].text + "; " + renameHint(d)}
}

// modelText is what a model is told about a tool: its description, whole
// (the summary is a short form of it, never added to it).
func modelText(d resolve.Definition) string { return d.Description }

// Marshal writes the catalog c in dialect f, as indented JSON. A tool whose
// name a vendor's dialect does not take is left out of it, and skipped
// says so (see [Refused]); the others are written. strata's own dialect
// writes the catalog whole: the names its tools and servers give were
// checked against its rule when they were found, and the config's own
// are the user's. The JSON escapes the characters a terminal acts on
// that JSON leaves raw (C1 controls, bidirectional formatting), so it
// prints safely and means the same to a parser.
func Marshal(c *resolve.Catalog, f Dialect) (out []byte, skipped diag.Errors, err error) {
	tools := c.Tools
	if f != Strata && f != "" {
		tools = nil
		for _, d := range c.Tools {
			if w := Refused(f, d); w != nil {
				skipped = append(skipped, w)
				continue
			}
			tools = append(tools, d)
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
		list := make([]tool, len(tools))
		for i, d := range tools {
			list[i] = tool{Type: "function", Function: function{Name: d.Name, Description: modelText(d), Parameters: d.InputSchema}}
		}
		v = list
	case Anthropic:
		type tool struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		list := make([]tool, len(tools))
		for i, d := range tools {
			list[i] = tool{Name: d.Name, Description: modelText(d), InputSchema: d.InputSchema}
		}
		v = list
	case MCP:
		list := make([]json.RawMessage, len(tools))
		for i, d := range tools {
			list[i] = MCPToolJSON(d)
		}
		v = struct {
			Tools []json.RawMessage `json:"tools"`
		}{list}
	default:
		return nil, nil, fmt.Errorf("unknown dialect %q; expected strata, openai, anthropic or mcp", f)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return termtext.JSON(append(b, '\n')), skipped, nil
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

// mcpTool is a tool as MCP's tools/list gives it.
type mcpTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// MCPToolJSON returns the tool d as MCP's tools/list gives it, as JSON: the
// upstream tool as its server listed it, every key kept, when the config
// changed nothing of it but its name; otherwise the tool strata resolved,
// its summary and description joined into the description.
func MCPToolJSON(d resolve.Definition) json.RawMessage {
	if len(d.Upstream) > 0 {
		if v, err := jsonv.Parse(d.Upstream); err == nil && v.Kind() == jsonv.Object {
			v.Set("name", jsonv.MustOf(d.Name))
			return json.RawMessage(v.JSON())
		}
	}
	b, _ := json.Marshal(mcpTool{Name: d.Name, Title: d.Title, Description: modelText(d), InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, Annotations: d.Annotations})
	return b
}
