package resolve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
)

// Discovered is what a tool says about itself: the base of its definition.
// Schemas and annotations are JSON as the tool gave them, passed through
// byte for byte where the config changes nothing.
type Discovered struct {
	Name        string
	Title       string
	Summary     string // JP's schema action gives one; others leave it empty
	Description string
	InputSchema Schema
	// OutputSchema and Annotations pass through from MCP tools.
	OutputSchema Schema
	Annotations  json.RawMessage
	// Upstream is an MCP tool as its server listed it, every key of it.
	Upstream json.RawMessage
}

// Definition is a resolved tool: what a model is told about it, and what
// the host needs to run it.
type Definition struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Title  string `json:"title,omitempty"`
	// Summary is a short form of the description (JP's summary): the
	// config's, else the one the tool gives (JP's schema action), else
	// the description's first sentence. Hosts may list tools by it; it is
	// never added to the description.
	Summary string `json:"summary"`
	// Description is what a model is told about the tool, whole: the
	// config's description where it gives one ({{description}} standing
	// for the discovered text), else the discovered text as written (with
	// the config's summary, when it gives one, in place of the tool's
	// own summary or first sentence). Every export carries it alone.
	Description  string                     `json:"description"`
	Examples     string                     `json:"examples"`
	InputSchema  Schema                     `json:"inputSchema"`
	OutputSchema Schema                     `json:"outputSchema,omitzero"`
	Annotations  json.RawMessage            `json:"annotations,omitempty"`
	Options      map[string]any             `json:"options"`
	Questions    map[string]config.Question `json:"questions"`
	// Run and Result are the tool's run and result policies as the config
	// writes them (run = "ask", or rules): those that apply to the tool.
	Run    config.RunRules    `json:"run"`
	Result config.ResultRules `json:"result"`
	// Policy is Run and Result made ready to decide calls, with where
	// each rule was written; nil for a definition made by hand, which
	// asks before every call.
	Policy *Policies `json:"-"`
	// Load is "deferred" for a tool a model finds with a search before it
	// is given its definition, "" for one it is given with every request
	// (see [Catalog.Select]).
	Load config.LoadMode `json:"load,omitempty"`
	// Upstream is the MCP tool as its server listed it, every key of it
	// (_meta, icons, execution, annotations strata does not know), with
	// the description and input schema the config gives where it changes
	// them (the listed text itself where it changes neither): exports and
	// serve pass it on so, with the name of the definition. Nil for a tool
	// of no MCP server.
	Upstream json.RawMessage `json:"-"`
	// Exec says how the tool runs; it is not part of what a model sees.
	Exec Exec `json:"-"`
}

// ExecKind is how a tool runs.
type ExecKind string

// Exec kinds.
const (
	ExecJP       ExecKind = "jp"       // a command rendered with the JP tool context
	ExecDescribe ExecKind = "describe" // an executable given its arguments as one JSON argument
	ExecMCP      ExecKind = "mcp"      // a tools/call to an MCP server
	ExecBuiltin  ExecKind = "builtin"  // the host runs it
)

// Exec is how a resolved tool runs.
type Exec struct {
	Kind ExecKind
	// Command is the JP command template.
	Command config.Command
	// Path is the executable of a --describe tool.
	Path string
	// Server and Tool name an MCP server and the tool's name there; Tool is
	// also the upstream name of a local.<tool> or builtin source.
	Server, Tool string
	// Forced are parameters whose value the config fixes (a one-value
	// enum); calls are given them.
	Forced map[string]any
	// Dir is the directory the tool's program starts in; Root is the
	// workspace root the tool is told about (the JP context's root).
	Dir, Root string
	// Private makes Dir the base of a private place to start: each run
	// starts in a new, empty directory made there, removed once it has
	// ended. A pin names Dir.
	Private bool
	// Untrusted is the root of the workspace when nobody trusted it, else
	// "": a run whose program, directory, script or variables resolve into
	// it is refused (package call checks each run).
	Untrusted string
	// Key is the config key of what launches the tool's program, for its
	// pin: tools.<name> (a --describe tool's too) or mcp_servers.<server>.
	Key string
	// Env and EnvVars are the variables a local tool's program gets
	// besides the base set: set, and inherited from the host by name.
	Env     map[string]string
	EnvVars []string
	// AllowDash are the parameters (dotted paths into the arguments: rev,
	// opts.flag) whose values may start with "-" where a JP command
	// renders them as an argument of their own (allow_dash); see
	// [Exec.DashAllowed].
	AllowDash []string
}

// DashAllowed reports whether the value of the template reference ref
// (tool.arguments.rev) may start an argument with "-": its parameter, or
// a parameter it is inside, allows it.
func (e Exec) DashAllowed(ref string) bool {
	param, ok := strings.CutPrefix(ref, "tool.arguments.")
	if !ok {
		return false
	}
	for _, p := range e.AllowDash {
		if param == p || strings.HasPrefix(param, p+".") {
			return true
		}
	}
	return false
}

// Catalog is the resolved tool definitions.
type Catalog struct {
	// Fingerprint identifies the catalog: the same tools with the same
	// definitions give the same fingerprint on any machine, and any change
	// of a name, a text, a schema or any key a client receives of a tool
	// (_meta, icons, ...) changes it.
	Fingerprint string       `json:"fingerprint"`
	Tools       []Definition `json:"tools"`
	// Warnings are problems that left something out without failing: an
	// executable that cannot describe itself, an optional server that did
	// not start.
	Warnings diag.Errors `json:"-"`
	// Started counts the programs this resolution started: discovery runs
	// and MCP servers. It is 0 when every answer came from the cache.
	Started int `json:"-"`
}

// newCatalog sorts the tools by name and computes the fingerprint.
func newCatalog(tools []Definition) *Catalog {
	if tools == nil {
		tools = []Definition{}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	for i := range tools {
		if tools[i].Options == nil {
			tools[i].Options = map[string]any{}
		}
		if tools[i].Questions == nil {
			tools[i].Questions = map[string]config.Question{}
		}
	}
	return &Catalog{Tools: tools, Fingerprint: fingerprint(tools)}
}

// fingerprint is the fingerprint of a catalog of tools: the SHA-256 of
// the JSON array of each tool with its upstream JSON (a tool served as
// its server listed it is served with every key of it, _meta, icons, ...,
// so a change of any is another catalog). The array is hashed as it is
// written, a tool at a time, rather than held whole.
func fingerprint(tools []Definition) string {
	h := sha256.New()
	h.Write([]byte{'['})
	for i, d := range tools {
		if i > 0 {
			h.Write([]byte{','})
		}
		b, _ := json.Marshal(fingerprinted{d, d.Upstream}) // maps marshal with sorted keys; schemas as they are
		h.Write(b)
	}
	h.Write([]byte{']'})
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// fingerprinted is what the fingerprint of a catalog is the hash of, for
// each tool: its definition and the upstream JSON it is served as.
type fingerprinted struct {
	Definition
	Upstream json.RawMessage `json:"upstream,omitempty"`
}

// Tool returns the definition named name.
func (c *Catalog) Tool(name string) (Definition, bool) {
	i := sort.Search(len(c.Tools), func(i int) bool { return c.Tools[i].Name >= name })
	if i < len(c.Tools) && c.Tools[i].Name == name {
		return c.Tools[i], true
	}
	return Definition{}, false
}

// Filter returns a catalog of the tools of c that keep reports true for,
// with its own fingerprint; its Warnings and Started are c's.
func (c *Catalog) Filter(keep func(Definition) bool) *Catalog {
	var tools []Definition
	for _, d := range c.Tools {
		if keep(d) {
			tools = append(tools, d)
		}
	}
	out := newCatalog(tools)
	out.Warnings, out.Started = c.Warnings, c.Started
	return out
}
