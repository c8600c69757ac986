package load

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
)

// Foreign is a format other tools keep MCP servers in, which Load reads as
// a layer of MCP servers when App.MCPServers says where they go.
type Foreign string

// Foreign formats.
const (
	// ForeignClaude is Claude Desktop's (and Cursor's) JSON:
	// {"mcpServers": {"name": {"command", "args", "env"}}}. Recognised by its
	// mcpServers key.
	ForeignClaude Foreign = "claude"
	// ForeignVSCode is VS Code's .vscode/mcp.json: {"servers": {"name":
	// {"type": "stdio", "command", "args", "env", "cwd"}}}. Recognised by its
	// servers key; ${workspaceFolder} is the folder that holds .vscode.
	ForeignVSCode Foreign = "vscode"
	// ForeignCodex is Codex's config.toml, whose [mcp_servers.<name>] tables
	// are read and its other settings ignored. Never guessed: name it, as
	// --cfg codex:PATH or { path = "...", format = "codex" } in extends.
	ForeignCodex Foreign = "codex"
)

// foreignPrefix splits an explicit format off a --cfg argument:
// "codex:~/.codex/config.toml".
func foreignPrefix(arg string) (Foreign, string, bool) {
	for _, f := range []Foreign{ForeignClaude, ForeignVSCode, ForeignCodex} {
		if rest, ok := strings.CutPrefix(arg, string(f)+":"); ok {
			return f, rest, true
		}
	}
	return "", arg, false
}

// detectForeign tells a foreign file by its root keys.
func detectForeign(d *Document) Foreign {
	root := d.d.Root
	switch {
	case root.Get("mcpServers") != nil:
		return ForeignClaude
	case d.d.Format == doc.JSON && root.Get("servers") != nil:
		return ForeignVSCode
	}
	return ""
}

// serverKeys maps a foreign server's keys to ours; "" marks keys that are
// read but have no counterpart (they are checked and dropped).
var serverKeys = map[Foreign]map[string]string{
	ForeignClaude: {"command": "command", "args": "args", "env": "env", "cwd": "cwd", "type": "", "disabled": "", "autoApprove": "", "alwaysAllow": "", "timeout": ""},
	ForeignVSCode: {"command": "command", "args": "args", "env": "env", "cwd": "cwd", "type": "", "envFile": "", "dev": ""},
	ForeignCodex:  {"command": "command", "args": "args", "env": "env", "cwd": "cwd", "startup_timeout_sec": "startup_timeout_sec", "tool_timeout_sec": "tool_timeout_sec", "enabled": "", "env_vars": "", "startup_timeout_ms": ""},
}

var variable = regexp.MustCompile(`\$\{([^}]*)\}`)

// foreign rewrites the tree of a foreign document into a layer that holds
// its MCP servers at path at. Nodes keep their offsets, so problems still
// point into the file. A server strata cannot start (a remote one, or one
// that needs a value only the other tool knows) is left out with a
// warning.
func (d *Document) foreign(f Foreign, at partial.Path) (diag.Errors, error) {
	root := d.d.Root
	var servers *doc.Node
	switch f {
	case ForeignClaude:
		servers = root.Get("mcpServers")
	case ForeignVSCode:
		servers = root.Get("servers")
	case ForeignCodex:
		servers = root.Get("mcp_servers")
	}
	out := doc.NewTable()
	if servers == nil {
		d.d.Root = out
		return nil, nil
	}
	where := partial.Path{string(foreignKey(f))}
	if servers.Kind != doc.Table {
		return nil, d.errAt(servers, where, "expected a table of servers by name, found "+servers.Kind.String(), "")
	}
	mapped := doc.NewTable()
	var errs, warnings diag.Errors
	keys := serverKeys[f]
	known := make([]string, 0, len(keys))
	for k := range keys {
		known = append(known, k)
	}
	slices.Sort(known)
	for _, srv := range servers.Entries {
		p := where.Append(srv.Key)
		if srv.Kind != doc.Table {
			errs = append(errs, d.errAt(srv, p, "expected a server table, found "+srv.Kind.String(), ""))
			continue
		}
		if skip(srv, f) {
			continue
		}
		if u := srv.Get("url"); u != nil {
			warnings = append(warnings, d.errAtKey(u, p.Append("url"), "a remote server (url) is left out", "strata starts servers over stdio"))
			continue
		}
		if t := srv.Get("type"); t != nil && (t.Kind != doc.String || t.Str != "stdio") {
			warnings = append(warnings, d.errAt(t, p.Append("type"), fmt.Sprintf("a server of type %q is left out", t.Str), "strata starts servers over stdio"))
			continue
		}
		if f == ForeignVSCode {
			if w := d.expandVSCode(srv, p); w != nil {
				w.Msg += "; the server is left out"
				warnings = append(warnings, w)
				continue
			}
		}
		s := doc.NewTable()
		s.Inline = false
		s.KeyOff, s.Off = srv.KeyOff, srv.Off
		for _, e := range srv.Entries {
			ours, ok := keys[e.Key]
			if !ok {
				hint := ""
				if c := suggest.Closest(e.Key, known); c != "" {
					hint = "did you mean " + c + "?"
				}
				errs = append(errs, d.errAtKey(e, p.Append(e.Key), fmt.Sprintf("unknown key of a %s server", f), hint))
				continue
			}
			if ours == "" {
				continue
			}
			s.Set(ours, e)
		}
		mapped.Set(srv.Key, s)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	// Place the servers at the host's path.
	t := out
	for _, k := range at[:len(at)-1] {
		c := doc.NewTable()
		t.Set(k, c)
		t = c
	}
	mapped.Inline = false
	t.Set(at[len(at)-1], mapped)
	d.d.Root = out
	return warnings, nil
}

func foreignKey(f Foreign) string {
	switch f {
	case ForeignClaude:
		return "mcpServers"
	case ForeignVSCode:
		return "servers"
	}
	return "mcp_servers"
}

// skip reports whether a foreign server is turned off.
func skip(srv *doc.Node, f Foreign) bool {
	switch f {
	case ForeignClaude:
		d := srv.Get("disabled")
		return d != nil && d.Kind == doc.Bool && d.Bool
	case ForeignCodex:
		e := srv.Get("enabled")
		return e != nil && e.Kind == doc.Bool && !e.Bool
	}
	return false
}

// expandVSCode replaces ${workspaceFolder} in the strings of a VS Code
// value; other variables cannot be known and are errors.
func (d *Document) expandVSCode(n *doc.Node, p partial.Path) *diag.Error {
	folder := filepath.Dir(filepath.Dir(d.name))
	if abs, err := filepath.Abs(folder); err == nil {
		folder = abs
	}
	var bad *diag.Error
	var walk func(n *doc.Node, p partial.Path)
	walk = func(n *doc.Node, p partial.Path) {
		switch n.Kind {
		case doc.String:
			n.Str = variable.ReplaceAllStringFunc(n.Str, func(m string) string {
				name := variable.FindStringSubmatch(m)[1]
				if name == "workspaceFolder" {
					return folder
				}
				if bad == nil {
					bad = d.errAt(n, p, fmt.Sprintf("the variable %s cannot be resolved outside VS Code", m), "write the value out")
				}
				return m
			})
		case doc.Array, doc.Table:
			for i, e := range n.Entries {
				k := e.Key
				if n.Kind == doc.Array {
					k = fmt.Sprint(i)
				}
				walk(e, p.Append(k))
			}
		}
	}
	walk(n, p)
	return bad
}
