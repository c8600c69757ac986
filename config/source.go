package config

import (
	"fmt"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// SourceKind is where a tool comes from.
type SourceKind string

// Source kinds.
const (
	SourceBuiltin SourceKind = "builtin" // built into the host application
	SourceLocal   SourceKind = "local"   // a local command
	SourceMCP     SourceKind = "mcp"     // an MCP server
)

// Source is where a tool comes from, written as one of
//
//	builtin
//	local                    a local command (the tool's own name)
//	local.<tool>             a tool of a multi-tool binary, by its name there
//	mcp.<server>             a tool of an MCP server, by the same name
//	mcp.<server>.<tool>      a tool of an MCP server, renamed
//
// A server or tool name that holds dots or other characters is quoted as a
// TOML key: mcp.'my.server'.read_file.
//
// In a file it is that string, never a table: its fields have no keys.
type Source struct {
	Kind   SourceKind `toml:"-"`
	Server string     `toml:"-"` // for mcp
	Tool   string     `toml:"-"` // the upstream name, when it differs from the config key
}

// IsZero reports whether no source is set.
func (s Source) IsZero() bool { return s == Source{} }

// String writes the source in its text form.
func (s Source) String() string {
	p := partial.Path{string(s.Kind)}
	if s.Kind == SourceMCP {
		p = append(p, s.Server)
	}
	if s.Tool != "" {
		p = append(p, s.Tool)
	}
	if s.Kind == "" {
		return ""
	}
	return p.String()
}

// Name returns the tool's upstream name: Tool when set, else name.
func (s Source) Name(name string) string {
	if s.Tool != "" {
		return s.Tool
	}
	return name
}

// ParseSource reads a source in its text form.
func ParseSource(text string) (Source, error) {
	if rest, ok := strings.CutPrefix(text, "mcp."); ok && (rest == "" || strings.HasPrefix(rest, ".")) {
		return Source{}, noServer(text)
	}
	p, err := partial.ParsePath(text)
	if err != nil {
		if strings.HasSuffix(text, ".") {
			return Source{}, &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid source %q: a name is missing after the last dot", text), Hint: "write builtin, local, local.<tool>, mcp.<server> or mcp.<server>.<tool>"}
		}
		return Source{}, fmt.Errorf("invalid source %q: write builtin, local, local.<tool>, mcp.<server> or mcp.<server>.<tool>", text)
	}
	kinds := []string{"builtin", "local", "mcp"}
	switch SourceKind(p[0]) {
	case SourceBuiltin:
		if len(p) > 1 {
			return Source{}, &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid source %q: builtin takes no name", text), Hint: `write source = "builtin"`}
		}
		return Source{Kind: SourceBuiltin}, nil
	case SourceLocal:
		switch len(p) {
		case 1:
			return Source{Kind: SourceLocal}, nil
		case 2:
			if p[1] == "" {
				break
			}
			return Source{Kind: SourceLocal, Tool: p[1]}, nil
		}
		return Source{}, &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid source %q: expected local or local.<tool>", text), Hint: "quote a tool name that holds dots: local.'my.tool'"}
	case SourceMCP:
		switch len(p) {
		case 1:
			return Source{}, &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid source %q: an mcp source needs a server", text), Hint: "write mcp.<server> or mcp.<server>.<tool>"}
		case 2, 3:
			s := Source{Kind: SourceMCP, Server: p[1]}
			if len(p) == 3 {
				s.Tool = p[2]
			}
			if s.Server == "" {
				return Source{}, noServer(text)
			}
			if len(p) == 3 && s.Tool == "" {
				break
			}
			return s, nil
		}
		return Source{}, &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid source %q: expected mcp.<server> or mcp.<server>.<tool>", text), Hint: "quote a name that holds dots: mcp.'my.server'.tool"}
	}
	return Source{}, &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid source %q: unknown kind %q; expected builtin, local or mcp", text, p[0]), Hint: didYouMean(p[0], kinds)}
}

// noServer is the problem of an mcp source without a server name, such
// as mcp..read_file (JP's older form).
func noServer(text string) error {
	return &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid source %q: the MCP server name is missing", text), Hint: "an mcp source names its server: write mcp.<server> or mcp.<server>.<tool>"}
}

// UnmarshalText reads a source.
func (s *Source) UnmarshalText(b []byte) error {
	v, err := ParseSource(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalText writes a source.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
