package config

import (
	"fmt"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// NameScheme is how the tools of an MCP server are named in the catalog:
// a template in which {tool} stands for the tool's name on the server
// and {server} for the server's name in the config. "{server}__{tool}"
// is mcphost's, MetaMCP's and Goose's scheme; "mcp__{server}__{tool}" is
// Claude Code's and Codex's; "gh_{tool}" is a prefix of one's own. The
// rest of the template is letters, digits, '_', '-' and '.'.
//
// The zero NameScheme is [BareNames]: each tool has the name its server
// gives it. Under a scheme that holds {server}, tools of different
// servers cannot have one name.
type NameScheme string

// Name schemes.
const (
	// BareNames names each tool as its server does.
	BareNames NameScheme = "{tool}"
	// ServerNames puts the server's name and two underscores before each
	// tool's: the scheme of mcphost, MetaMCP and Goose, and how strata
	// names the tools of servers that share a name.
	ServerNames NameScheme = "{server}__{tool}"
	// ClaudeCodeNames is Claude Code's scheme (and Codex's):
	// mcp__<server>__<tool>.
	ClaudeCodeNames NameScheme = "mcp__{server}__{tool}"
)

// Placeholders of a [NameScheme].
const (
	toolPlaceholder   = "{tool}"
	serverPlaceholder = "{server}"
)

// Name returns the catalog name of the tool named tool on server.
func (s NameScheme) Name(server, tool string) string {
	if s == "" {
		return tool
	}
	before, after := s.around(server)
	return before + tool + after
}

// Tool returns the name on server of the tool whose catalog name is
// name: the inverse of [NameScheme.Name]. ok is false when no tool of
// server is named so.
func (s NameScheme) Tool(server, name string) (tool string, ok bool) {
	if s == "" {
		return name, name != ""
	}
	before, after := s.around(server)
	if len(name) <= len(before)+len(after) || !strings.HasPrefix(name, before) || !strings.HasSuffix(name, after) {
		return "", false
	}
	return name[len(before) : len(name)-len(after)], true
}

// around returns what the scheme puts before and after a tool's name on
// server. (The server's name goes in after the template is cut, so that
// a name that holds "{tool}" is taken as it is.)
func (s NameScheme) around(server string) (before, after string) {
	before, after, _ = strings.Cut(string(s), toolPlaceholder)
	return strings.Replace(before, serverPlaceholder, server, 1), strings.Replace(after, serverPlaceholder, server, 1)
}

// Check says what is wrong with s as a scheme; nil when nothing is. The
// empty scheme is not one: it is unset.
func (s NameScheme) Check() error {
	if e := s.check(); e != nil {
		return e
	}
	return nil
}

func (s NameScheme) check() *diag.Error {
	text := string(s)
	hint := `write a template of {tool} (the tool's name on its server) and {server} (the server's name), such as "{server}__{tool}"; "{tool}" keeps the servers' names`
	bad := func(msg string) *diag.Error {
		return &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid tool_names %q: %s", text, msg), Hint: hint}
	}
	if text == "" {
		return bad("it is empty")
	}
	if n := strings.Count(text, toolPlaceholder); n != 1 {
		if n == 0 {
			return bad("it has no {tool}")
		}
		return bad("{tool} is there more than once")
	}
	if strings.Count(text, serverPlaceholder) > 1 {
		return bad("{server} is there more than once")
	}
	rest := strings.ReplaceAll(strings.ReplaceAll(text, toolPlaceholder, ""), serverPlaceholder, "")
	for _, r := range rest {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-', r == '.':
		case r == '{' || r == '}':
			return bad("the only placeholders are {server} and {tool}")
		default:
			return bad(fmt.Sprintf("%q is not in a tool name: a name is letters, digits, '_', '-' and '.' (and OpenAI and Anthropic take no '.')", r))
		}
	}
	return nil
}

// UnmarshalText reads a scheme and checks it (see [NameScheme.Check]).
func (s *NameScheme) UnmarshalText(b []byte) error {
	v := NameScheme(b)
	if err := v.Check(); err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalText writes a scheme.
func (s NameScheme) MarshalText() ([]byte, error) { return []byte(s), nil }

// JSONSchema describes a scheme in the JSON Schema of the config file.
func (NameScheme) JSONSchema() map[string]any {
	return map[string]any{"type": "string", "pattern": `^[A-Za-z0-9_.{}-]*\{tool\}[A-Za-z0-9_.{}-]*$`,
		"examples": []any{string(ServerNames), string(ClaudeCodeNames), string(BareNames)}}
}

// ToolNamesOf returns the scheme the tools of server are named by: the
// server's tool_names, else the config's, else [BareNames].
func (c Config) ToolNamesOf(server string) NameScheme {
	switch {
	case c.MCPServers[server].ToolNames != "":
		return c.MCPServers[server].ToolNames
	case c.ToolNames != "":
		return c.ToolNames
	}
	return BareNames
}

// checkToolNames checks the scheme s set at path, for a config built
// otherwise than by reading a file (a host's own, in Go).
func checkToolNames(s NameScheme, path partial.Path) *diag.Error {
	if s == "" {
		return nil
	}
	e := s.check()
	if e != nil {
		e.Path = path
	}
	return e
}
