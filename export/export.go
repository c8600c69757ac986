// Package export writes a resolved catalog as the tool definitions a
// vendor's API takes: strata's own JSON, OpenAI's functions, Anthropic's
// tools, or MCP's tools/list.
package export

import (
	"crypto/sha256"
	"encoding/hex"
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
	return refused(f, nameRules[f], d)
}

func refused(f Dialect, rule nameRule, d resolve.Definition) *diag.Error {
	hint := rule.text + "; " + renameHint(d)
	if f != Strata {
		hint += fmt.Sprintf(", or let strata rename it: [budget.%s] rename = true", f)
	}
	return &diag.Error{Code: diag.CodeLeftOut, Severity: diag.SeverityWarning, Source: "skipped", Path: partial.Path{"tools", d.Name},
		Msg:  fmt.Sprintf("%q is not a valid tool name for %s; the tool is left out of it", d.Name, f),
		Hint: hint}
}

// modelText is what a model is told about a tool: its description, whole
// (the summary is a short form of it, never added to it).
func modelText(d resolve.Definition) string { return d.Description }

// Marshal writes the catalog c in dialect f, as indented JSON, with the
// providers' own limits (see [Write]). A tool whose name a vendor's
// dialect does not take is left out of it, and skipped says so (see
// [Refused]); the others are written. strata's own dialect writes the
// catalog whole: the names its tools and servers give were checked
// against its rule when they were found, and the config's own are the
// user's. The JSON escapes the characters a terminal acts on that JSON
// leaves raw (C1 controls, bidirectional formatting), so it prints safely
// and means the same to a parser.
func Marshal(c *resolve.Catalog, f Dialect) (out []byte, skipped diag.Errors, err error) {
	w, err := Write(c, f, config.Budget{})
	if err != nil {
		return nil, w.notes(), err
	}
	return w.JSON(), w.Notes, nil
}

func (w *Written) notes() diag.Errors {
	if w == nil {
		return nil
	}
	return w.Notes
}

// ToolEntry is one tool as a dialect writes it.
type ToolEntry struct {
	// Name is the name the tool is written under: its catalog name, or
	// the name a rename gave it.
	Name string
	// Source is where the tool comes from (the definition's source;
	// "strata" for the search tool).
	Source string
	// Server is the MCP server of the tool, "" for another.
	Server string
	// Deferred is true for a tool a model finds with the search tool
	// first: Anthropic's dialect writes it with defer_loading, the
	// others leave it out of what they write.
	Deferred bool
	// JSON is the tool's definition as the dialect writes it, compact.
	JSON json.RawMessage
}

// Written is a catalog as a dialect writes it.
type Written struct {
	Dialect Dialect
	// Fingerprint is the catalog's (strata's dialect writes it).
	Fingerprint string
	// Entries are the tools in the order they are written (by name),
	// deferred ones included, then the search tool when a tool is
	// deferred.
	Entries []ToolEntry
	// Notes are the warnings of writing: tools left out or renamed.
	Notes diag.Errors
}

// SearchTool is the name of the tool that finds deferred tools: what
// strata serve answers, and what the OpenAI and MCP exports list in
// place of the deferred tools.
const SearchTool = "search_tools"

// searchToolJSON is the search tool's definition, in MCP's shape.
const searchToolDescription = "Find tools that are not loaded yet, and load them. The query is words (ranked by how well they match tool names, summaries and parameter names) or, with regex = true, a regular expression over the same. Returns the definitions of the best matches, which become callable."

// searchToolSchema is the input schema of [SearchTool].
const searchToolSchema = `{"type":"object","properties":{"query":{"type":"string","description":"Words describing the tool wanted, or a regular expression when regex is true."},"regex":{"type":"boolean","description":"Read query as a regular expression (RE2 syntax)."},"limit":{"type":"integer","minimum":1,"maximum":20,"description":"The most tools to return (default 5)."}},"required":["query"]}`

// SearchDefinition is the definition of [SearchTool], as strata serve
// lists it.
func SearchDefinition() resolve.Definition {
	return resolve.Definition{Name: SearchTool, Source: "strata", Summary: "Find tools that are not loaded yet, and load them.", Description: searchToolDescription,
		InputSchema: resolve.MustSchema(searchToolSchema), Run: config.Always(config.RunUnattended), Result: config.Always(config.ResultUnattended)}
}

// AnthropicToolSearch is the server tool of Anthropic's tool search that
// the Anthropic export adds when a tool is deferred: the regular
// expression variant ("tool_search_tool_regex_20251119", in beta behind
// the header advanced-tool-use-2025-11-20).
const AnthropicToolSearch = `{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`

// Write writes the catalog c in dialect f within the limits of budget b
// (see [config.Budget.Limits]; a zero budget has the providers' own). A
// tool whose name f does not take is left out with a warning in Notes, or,
// where the budget says rename, written under a name f takes, the same on
// every run, with a warning that shows it. More tools than f's limit
// takes is an error that names the fixes.
//
// Deferred tools (load = "deferred") are in the Anthropic dialect with
// "defer_loading": true, beside Anthropic's tool search tool; the OpenAI
// and MCP dialects leave them out and list [SearchTool] instead, which
// strata serve answers. strata's own dialect writes every tool, with its
// load.
func Write(c *resolve.Catalog, f Dialect, b config.Budget) (*Written, error) {
	if f == "" {
		f = Strata
	}
	if _, ok := nameRules[f]; !ok {
		return nil, fmt.Errorf("unknown dialect %q; expected strata, openai, anthropic or mcp", f)
	}
	lim := limitsOf(b, f)
	w := &Written{Dialect: f, Fingerprint: c.Fingerprint}
	rule := nameRules[f]
	if lim.NameLength > 0 {
		rule.max = lim.NameLength
		rule.text = strings.Replace(rule.text, fmt.Sprint("1 to ", nameRules[f].max), fmt.Sprint("1 to ", lim.NameLength), 1)
	}
	names := map[string]string{} // written name -> catalog name
	deferred := 0
	for _, d := range c.Tools {
		name := d.Name
		if f != Strata && !rule.allows(name) {
			if !lim.Rename {
				w.Notes = append(w.Notes, refused(f, rule, d))
				continue
			}
			name = rename(name, rule)
			w.Notes = append(w.Notes, &diag.Error{Code: diag.CodeChanged, Severity: diag.SeverityWarning, Source: "renamed", Path: partial.Path{"tools", d.Name},
				Msg:  fmt.Sprintf("written for %s as %q: %s", f, name, rule.text),
				Hint: "a call of " + name + " is a call of " + d.Name + "; to choose the name yourself, " + renameHint(d)})
		}
		if other, ok := names[name]; ok {
			return w, &diag.Error{Code: diag.CodeNameCollision, Path: partial.Path{"tools", d.Name}, Msg: fmt.Sprintf("renamed for %s, it has the name of %s: %s", f, other, name), Hint: renameHint(d)}
		}
		names[name] = d.Name
		e := ToolEntry{Name: name, Source: d.Source, Deferred: d.Load == config.LoadDeferred}
		if d.Exec.Kind == resolve.ExecMCP {
			e.Server = d.Exec.Server
		}
		if e.Deferred {
			deferred++
		}
		d.Name = name
		e.JSON = entryJSON(f, d)
		w.Entries = append(w.Entries, e)
	}
	if deferred > 0 && f != Strata {
		if other, ok := names[SearchTool]; ok && f != Anthropic {
			return w, &diag.Error{Code: diag.CodeNameCollision, Path: partial.Path{"tools", other}, Msg: fmt.Sprintf("%s deferred, and this tool has the name of the tool that finds deferred tools, %s", diag.Counted(deferred, "tool"), SearchTool), Hint: "rename it: [tools.other_name] source = ..., or load every tool always"}
		}
		e := ToolEntry{Name: SearchTool, Source: "strata", JSON: entryJSON(f, SearchDefinition())}
		if f == Anthropic {
			e = ToolEntry{Name: "tool_search_tool_regex", Source: "anthropic", JSON: json.RawMessage(AnthropicToolSearch)}
		}
		w.Entries = append(w.Entries, e)
	}
	if n := w.loaded(); lim.Tools > 0 && n > lim.Tools {
		return w, &diag.Error{Code: diag.CodeLimit, Path: partial.Path{"budget", string(f), "tools"}, Msg: fmt.Sprintf("%s for %s, which takes at most %d in one request", diag.Counted(n, "tool"), f, lim.Tools),
			Hint: `choose a smaller tool set (--toolset NAME, [toolsets.NAME] tools = [...]), load some tools when a search finds them (load = "deferred"), or turn tools off (enable = false)`}
	}
	return w, nil
}

// loaded counts the tools a request carries: the entries written and not
// deferred (Anthropic's deferred tools are written, and do not count
// towards what a model holds).
func (w *Written) loaded() int {
	n := 0
	for _, e := range w.Entries {
		if !e.Deferred {
			n++
		}
	}
	return n
}

// JSON returns what w writes, as indented JSON (see [Marshal]).
func (w *Written) JSON() []byte {
	var v any
	list := make([]json.RawMessage, 0, len(w.Entries))
	for _, e := range w.Entries {
		if e.Deferred && w.Dialect != Anthropic && w.Dialect != Strata {
			continue
		}
		list = append(list, e.JSON)
	}
	switch w.Dialect {
	case Strata:
		v = struct {
			Fingerprint string            `json:"fingerprint"`
			Tools       []json.RawMessage `json:"tools"`
		}{w.Fingerprint, list}
	case MCP:
		v = struct {
			Tools []json.RawMessage `json:"tools"`
		}{list}
	default:
		v = list
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // every entry is JSON that json.Marshal wrote or checked
	}
	return termtext.JSON(append(b, '\n'))
}

// entryJSON writes one tool in dialect f, compact.
func entryJSON(f Dialect, d resolve.Definition) json.RawMessage {
	var v any
	switch f {
	case Strata:
		if d.Options == nil {
			d.Options = map[string]any{}
		}
		if d.Questions == nil {
			d.Questions = map[string]config.Question{}
		}
		v = d
	case OpenAI:
		type function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		v = struct {
			Type     string   `json:"type"`
			Function function `json:"function"`
		}{"function", function{Name: d.Name, Description: modelText(d), Parameters: d.InputSchema.JSON()}}
	case Anthropic:
		v = struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"input_schema"`
			DeferLoading bool            `json:"defer_loading,omitempty"`
		}{d.Name, modelText(d), d.InputSchema.JSON(), d.Load == config.LoadDeferred}
	case MCP:
		return MCPToolJSON(d)
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // schemas are JSON that was parsed
	}
	return b
}

// rename gives name a name rule takes, the same on every run: the
// characters the rule refuses become '_', and a name that changed, or is
// too long, is cut and ends with '_' and 8 hexadecimal digits of the
// SHA-256 of the name it had, so that two names never become one.
func rename(name string, rule nameRule) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(rule.extra, c) >= 0 {
			b.WriteByte(c)
		} else if c < utf8.RuneSelf || utf8.RuneStart(c) {
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:4])
	s := b.String()
	if len(s)+len(suffix) > rule.max {
		s = s[:max(rule.max-len(suffix), 0)]
	}
	return s + suffix
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

// MCPToolJSON returns the tool d as MCP's tools/list gives it, as JSON: a
// server's tool as its server listed it, every key kept, with what the
// config changes of it ([resolve.Definition].Upstream) and the name of d;
// any other tool as strata resolved it.
func MCPToolJSON(d resolve.Definition) json.RawMessage {
	if len(d.Upstream) > 0 {
		if name, ok := jsonv.StringMember(d.Upstream, "name"); ok && name == d.Name {
			// Under its server's name: the upstream JSON itself, shared
			// (a server's 10,000 tools, served, are not held twice).
			return d.Upstream
		}
		if v, err := jsonv.Parse(d.Upstream); err == nil && v.Kind() == jsonv.Object {
			v.Set("name", jsonv.MustOf(d.Name))
			return json.RawMessage(v.JSON())
		}
	}
	b, _ := json.Marshal(mcpTool{Name: d.Name, Title: d.Title, Description: modelText(d), InputSchema: d.InputSchema.JSON(), OutputSchema: d.OutputSchema.JSON(), Annotations: d.Annotations})
	return b
}

// limitsOf returns the limits of the export in dialect f (openai,
// anthropic, mcp) that the budget b sets, the providers' own where it
// sets none; none for another dialect.
func limitsOf(b config.Budget, f Dialect) config.ExportLimits {
	var l config.ExportLimits
	switch f {
	case OpenAI:
		l = b.OpenAI
		if l.Tools == 0 {
			l.Tools = DefaultOpenAITools
		}
	case Anthropic:
		l = b.Anthropic
	case MCP:
		l = b.MCP
	}
	return l
}

// DefaultOpenAITools is the most tools OpenAI's API takes in one request
// (its tools array: "A max of 128 functions are supported"); GitHub
// Copilot and VS Code hold to the same.
const DefaultOpenAITools = 128
