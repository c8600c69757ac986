package resolve

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// A name belongs to one tool. The tools that join the catalog under their
// own names (a discovery directory's executables, the tools servers
// expose) may share one: then the name is nobody's until the config says
// whose it is, whatever the order of the servers' names. Settings that
// name such a tool without a source are an error; a tool the config does
// not mention is left out, with one warning for each set of servers that
// share names.
//
// Who has a name is decided on what the config and the cache know, not on
// who answered this time: a server that failed keeps the names it listed
// last (Found.Known), or those its expose list names. Only a failed server
// that exposes all its tools and has no list on record is unknown: it may
// have any name, so settings without a source that another server's tool
// would take are left out until it answers once.

// owners are who have a tool of one name under that name, on their own.
type owners struct {
	local   bool     // an executable of a discovery directory
	servers []string // MCP servers that expose it, sorted
	down    []string // of those, the servers that failed
}

func (o owners) count() int {
	n := len(o.servers)
	if o.local {
		n++
	}
	return n
}

// text names the owners: "the discovery directories and the MCP server
// github".
func (o owners) text() string {
	var parts []string
	if o.local {
		parts = append(parts, "the discovery directories")
	}
	if len(o.servers) > 0 {
		parts = append(parts, serversText(o.servers))
	}
	return strings.Join(parts, " and ")
}

// verb is "both have" for two owners, "all have" for more.
func (o owners) verb() string {
	if o.count() == 2 {
		return "both have"
	}
	return "all have"
}

// sourceOf returns the source that names the tool name of the owner
// server ("" for the discovery directories).
func sourceOf(server, name string) string {
	if server == "" {
		return config.Source{Kind: config.SourceLocal, Tool: name}.String()
	}
	return config.Source{Kind: config.SourceMCP, Server: server, Tool: name}.String()
}

// sources lists the sources that name each owner's tool name:
// `source = "mcp.a.x" or source = "mcp.b.x"`.
func (o owners) sources(name string) string {
	var list []string
	if o.local {
		list = append(list, fmt.Sprintf("source = %q", sourceOf("", name)))
	}
	for _, s := range o.servers {
		list = append(list, fmt.Sprintf("source = %q", sourceOf(s, name)))
	}
	return andList(list, "or")
}

// key identifies a set of owners.
func (o owners) key() string {
	return fmt.Sprint(o.local, o.servers)
}

// serversText names servers: "the MCP server a", "the MCP servers a and
// b".
func serversText(servers []string) string {
	if len(servers) == 1 {
		return "the MCP server " + servers[0]
	}
	return "the MCP servers " + andList(servers, "and")
}

// andList joins items: "a", "a and b", "a, b and c".
func andList(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// index finds who has each name: the executables of the discovery
// directories that no entry takes under another name, and the tools each
// enabled server exposes, listed now or, for a server that failed, on
// record; and the servers that failed with nothing on record.
func (b *builder) index() {
	b.owned = map[string]*owners{}
	get := func(name string) *owners {
		o := b.owned[name]
		if o == nil {
			o = &owners{}
			b.owned[name] = o
		}
		return o
	}
	taken := map[string]bool{} // described tools an entry takes under another name
	for name, t := range b.c.Tools {
		src := t.Source
		if name != config.EveryTool && src.Kind == config.SourceLocal && src.Tool != "" && src.Tool != name && t.Command.IsZero() {
			if e, _ := b.c.Tools.Effective(name); e.Enabled() {
				taken[src.Tool] = true
			}
		}
	}
	for name := range b.f.Described {
		if !taken[name] {
			get(name).local = true
		}
	}
	for _, server := range slices.Sorted(maps.Keys(b.c.MCPServers)) {
		srv := b.c.MCPServers[server]
		if !srv.IsEnabled() || srv.Expose.None {
			continue
		}
		var names []string
		down := false
		if tools, ok := b.f.Servers[server]; ok {
			names = slices.Collect(maps.Keys(tools))
		} else if b.f.Failed[partial.Path{"mcp_servers", server}.String()] {
			down = true
			if known, ok := b.f.Known[server]; ok {
				names = known
			} else {
				names = srv.Expose.Tools
				if srv.Expose.All() {
					b.unsure = append(b.unsure, server)
				}
			}
		}
		renamed := b.renamed(server)
		for _, n := range names {
			if !srv.Exposes(n) || renamed[n] && srv.Expose.All() {
				continue
			}
			o := get(n)
			if !slices.Contains(o.servers, server) {
				o.servers = append(o.servers, server)
				if down {
					o.down = append(o.down, server)
				}
			}
		}
	}
}

// owners returns who has a tool named name under that name.
func (b *builder) owners(name string) owners {
	if o := b.owned[name]; o != nil {
		return *o
	}
	return owners{}
}

// unsureOf returns the servers that failed with no list on record and
// would expose a tool named name.
func (b *builder) unsureOf(name string) []string {
	var out []string
	for _, server := range b.unsure {
		if b.c.MCPServers[server].Exposes(name) && !b.renamed(server)[name] {
			out = append(out, server)
		}
	}
	return out
}

// maxNamesShown is how many of the names a collision warning lists.
const maxNamesShown = 3

// warnCollisions warns once for each set of owners that share names the
// config does not mention: none of those tools is used under its name.
func (b *builder) warnCollisions() {
	groups := map[string][]string{}
	for name, o := range b.collided {
		groups[o.key()] = append(groups[o.key()], name)
	}
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		names := groups[key]
		slices.Sort(names)
		o := b.collided[names[0]]
		var what, none, them string
		if len(names) == 1 {
			what, none, them = "a tool named "+names[0], "that name", "it"
		} else {
			shown := names
			if len(names) > maxNamesShown {
				shown = append(slices.Clone(names[:maxNamesShown]), fmt.Sprintf("%d more", len(names)-maxNamesShown))
			}
			what, none, them = fmt.Sprintf("%d tools of the same names (%s)", len(names), andList(shown, "and")), "those names", "them"
		}
		neither, outOf := "neither is", "one server"
		switch {
		case o.count() > 2:
			neither, outOf = "none of them is", "all but one server"
		case len(names) > 1:
			neither = "none of them is"
		}
		if o.local && len(o.servers) == 1 {
			outOf = "the server"
		}
		first := ""
		if !o.local {
			first = o.servers[0]
		}
		b.warnings = append(b.warnings, &diag.Error{Code: diag.CodeNameCollision, Severity: diag.SeverityWarning, Source: "skipped",
			Path: partial.Path{"mcp_servers", o.servers[len(o.servers)-1]},
			Msg:  fmt.Sprintf("%s %s %s; %s used under %s", o.text(), o.verb(), what, neither, none),
			Hint: fmt.Sprintf("to use one, give it a name of yours: [%s] source = %q; or leave %s out of %s with expose or disabled_tools", b.key("tools.<name>"), sourceOf(first, names[0]), them, outOf),
		})
	}
}
