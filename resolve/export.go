package resolve

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/partial"
)

// Format is a vendor's tool format.
type Format string

// Formats.
const (
	FormatStrata    Format = "strata"
	FormatOpenAI    Format = "openai"
	FormatAnthropic Format = "anthropic"
	FormatMCP       Format = "mcp"
)

// Formats lists the formats Export writes.
var Formats = []Format{FormatStrata, FormatOpenAI, FormatAnthropic, FormatMCP}

// nameRules are the vendors' rules for tool names.
var nameRules = map[Format]struct {
	re   *regexp.Regexp
	text string
}{
	FormatOpenAI:    {regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`), "an OpenAI function name is 1 to 64 letters, digits, '_' or '-'"},
	FormatAnthropic: {regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`), "an Anthropic tool name is 1 to 64 letters, digits, '_' or '-'"},
	FormatMCP:       {regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,128}$`), "an MCP tool name is 1 to 128 letters, digits, '_', '-' or '.'"},
}

// modelText is what a model is told about a tool: its summary, then its
// description after a blank line when it has one (and does not begin with
// the summary already).
func modelText(d Definition) string {
	switch {
	case d.Summary == "":
		return d.Description
	case d.Description == "":
		return d.Summary
	case strings.HasPrefix(d.Description, d.Summary):
		return d.Description
	}
	return d.Summary + "\n\n" + d.Description
}

// Export writes the catalog in a vendor's format, as indented JSON. Every
// tool name must follow the vendor's rules; those that do not are all
// reported.
func (c *Catalog) Export(f Format) ([]byte, error) {
	if rule, ok := nameRules[f]; ok {
		var errs diag.Errors
		for _, d := range c.Tools {
			if !rule.re.MatchString(d.Name) {
				errs = append(errs, &diag.Error{Path: partial.Path{"tools", d.Name}, Msg: fmt.Sprintf("%q is not a valid tool name for %s", d.Name, f), Hint: rule.text + "; rename it in the config (source = \"" + d.Source + "\" keeps the tool)"})
			}
		}
		if len(errs) > 0 {
			return nil, errs
		}
	}
	var v any
	switch f {
	case FormatStrata, "":
		v = c
	case FormatOpenAI:
		type function struct {
			Name        string       `json:"name"`
			Description string       `json:"description"`
			Parameters  *jsonv.Value `json:"parameters"`
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
	case FormatAnthropic:
		type tool struct {
			Name        string       `json:"name"`
			Description string       `json:"description"`
			InputSchema *jsonv.Value `json:"input_schema"`
		}
		out := make([]tool, len(c.Tools))
		for i, d := range c.Tools {
			out[i] = tool{Name: d.Name, Description: modelText(d), InputSchema: d.InputSchema}
		}
		v = out
	case FormatMCP:
		out := make([]MCPTool, len(c.Tools))
		for i, d := range c.Tools {
			out[i] = d.MCP()
		}
		v = struct {
			Tools []MCPTool `json:"tools"`
		}{out}
	default:
		return nil, fmt.Errorf("unknown format %q; expected strata, openai, anthropic or mcp", f)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// MCPTool is a tool as MCP's tools/list gives it.
type MCPTool struct {
	Name         string `json:"name"`
	Title        string `json:"title,omitempty"`
	Description  string `json:"description,omitempty"`
	InputSchema  *JSON  `json:"inputSchema"`
	OutputSchema *JSON  `json:"outputSchema,omitempty"`
	Annotations  *JSON  `json:"annotations,omitempty"`
}

// MCP returns the tool as MCP's tools/list gives it.
func (d Definition) MCP() MCPTool {
	return MCPTool{Name: d.Name, Title: d.Title, Description: modelText(d), InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, Annotations: d.Annotations}
}
