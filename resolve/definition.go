package resolve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
)

// JSON is a JSON value as a tool gives it, such as its schema: objects
// keep their key order and numbers their text, so that what strata does
// not change passes through as written. String and MarshalJSON give it
// back.
type JSON = jsonv.Value

// ParseJSON reads a JSON value, such as a builtin's schema for
// [Discovered].InputSchema.
func ParseJSON(b []byte) (*JSON, error) { return jsonv.Parse(b) }

// Definition is a resolved tool: what a model is told about it, and what
// the host needs to run it.
type Definition struct {
	Name         string              `json:"name"`
	Source       string              `json:"source"`
	Title        string              `json:"title,omitempty"`
	Summary      string              `json:"summary"`
	Description  string              `json:"description"`
	Examples     string              `json:"examples"`
	InputSchema  *JSON               `json:"inputSchema"`
	OutputSchema *JSON               `json:"outputSchema,omitempty"`
	Annotations  *JSON               `json:"annotations,omitempty"`
	Options      map[string]any      `json:"options"`
	Questions    map[string]Question `json:"questions"`
	Run          config.RunMode      `json:"run"`
	Result       config.ResultMode   `json:"result"`
	// Call says how the tool runs; it is not part of what a model sees.
	Call Call `json:"-"`
}

// Protocol is how a tool is called.
type Protocol string

// Protocols.
const (
	ProtocolJP       Protocol = "jp"       // a command rendered with the JP tool context
	ProtocolDescribe Protocol = "describe" // an executable given its arguments as one JSON argument
	ProtocolMCP      Protocol = "mcp"      // a tools/call to an MCP server
	ProtocolBuiltin  Protocol = "builtin"  // the host runs it
)

// Call is how a resolved tool runs.
type Call struct {
	Protocol Protocol
	// Command is the JP command template.
	Command config.Command
	// Path is the executable of a --describe tool.
	Path string
	// Server and Tool name an MCP server and the tool's name there; Tool is
	// also the upstream name of a local.<tool> source.
	Server, Tool string
	// Forced are parameters whose value the config fixes (a one-value
	// enum); calls are given them.
	Forced map[string]any
	// Root is the directory the tool runs in.
	Root string
}

// Catalog is the resolved tool definitions.
type Catalog struct {
	// Fingerprint identifies the catalog: the same tools with the same
	// definitions give the same fingerprint on any machine, and any change
	// of a name, a text or a schema changes it.
	Fingerprint string       `json:"fingerprint"`
	Tools       []Definition `json:"tools"`
	// Warnings are problems that left a tool out without failing: an
	// executable that cannot describe itself, a program held back by
	// trust.
	Warnings diag.Errors `json:"-"`
	// Started counts the programs this resolution started: discovery runs
	// and MCP servers. It is 0 when every answer came from the cache.
	Started int `json:"-"`
}

// newCatalog sorts the tools by name and computes the fingerprint.
func newCatalog(tools []Definition) *Catalog {
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	for i := range tools {
		if tools[i].Options == nil {
			tools[i].Options = map[string]any{}
		}
		if tools[i].Questions == nil {
			tools[i].Questions = map[string]Question{}
		}
	}
	c := &Catalog{Tools: tools}
	b, _ := json.Marshal(c.Tools) // maps marshal with sorted keys; schemas as they are
	sum := sha256.Sum256(b)
	c.Fingerprint = "sha256:" + hex.EncodeToString(sum[:])
	return c
}

// Tool returns the definition named name.
func (c *Catalog) Tool(name string) (Definition, bool) {
	i := sort.Search(len(c.Tools), func(i int) bool { return c.Tools[i].Name >= name })
	if i < len(c.Tools) && c.Tools[i].Name == name {
		return c.Tools[i], true
	}
	return Definition{}, false
}
