package resolve

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// A name belongs to one tool. The tools that join the catalog under names
// of their own, not the config's (a discovery directory's executables,
// the tools servers expose), are named by their server's scheme
// (config.NameScheme: "{server}__{tool}", or the server's own names), and
// may still share a name. Then none of them is dropped, and none takes
// the name from another because of the order of the servers' names:
//
//   - when the config does not mention the name, an executable keeps it,
//     and each server's tool is given the name with the server's before
//     it (github__create_issue), with one warning for each set of owners;
//   - when a config entry takes the name with a source or a command, it
//     is the entry's, and the servers' tools of that name are given
//     their server's name before it;
//   - settings without a source for a name several have are an error at
//     the entry, and none of those tools is given until they say which.
//
// Who has a name is decided on what the config and the cache know, not on
// who answered this time: a server that failed keeps the names it listed
// last (Found.Known), or those its expose list names, so its tools never
// become another server's, and another server's tools have the names
// they have while it is up. A failed server with no list on record has
// no names: it changes nothing of what other servers give.
//
// Config keys name tools as the catalog does. Settings without a source
// whose key is the server's name of a tool that a scheme renames
// ([tools.echo] for everything__echo), and that nothing else has, are an
// error, and that tool is left out until they say which tool they are for.

// joiner is a tool that joins the catalog under a name of its own: an
// executable of a discovery directory, or a tool a server exposes.
type joiner struct {
	server string // "" for an executable of a discovery directory
	tool   string // its name there
}

// owners are the joiners that have one name, an executable first, then
// by server.
type owners struct {
	local   bool     // an executable of a discovery directory
	servers []string // MCP servers that expose it, sorted
	tools   []string // each server's name for its tool, as servers
	down    []string // of the servers, those that failed
}

func (o *owners) add(j joiner, down bool) {
	if j.server == "" {
		o.local = true
		return
	}
	o.servers = append(o.servers, j.server)
	o.tools = append(o.tools, j.tool)
	if down {
		o.down = append(o.down, j.server)
	}
}

// joiners lists the owners, the executable (named name) first.
func (o owners) joiners(name string) []joiner {
	var out []joiner
	if o.local {
		out = append(out, joiner{tool: name})
	}
	for i, s := range o.servers {
		out = append(out, joiner{server: s, tool: o.tools[i]})
	}
	return out
}

// first returns the first server and its name for the tool.
func (o owners) first() (server, tool string) { return o.servers[0], o.tools[0] }

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

// sources lists the sources that name each owner's tool of the name
// name: `source = "mcp.a.x" or source = "mcp.b.x"`.
func (o owners) sources(name string) string {
	var list []string
	for _, j := range o.joiners(name) {
		list = append(list, fmt.Sprintf("source = %q", sourceOf(j.server, j.tool)))
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

// maxNameLength is the longest name, in characters, of strata's catalog
// (export.Strata's rule, which package export holds names to): a tool
// whose scheme makes its name longer is left out.
const maxNameLength = 128

// qualified is the name given to the tool of server whose name, name,
// another tool has too: the server's name and two underscores before it.
func qualified(server, name string) string { return config.ServerNames.Name(server, name) }

// index decides the name of each tool that joins the catalog on its own:
// the executables of the discovery directories that no entry takes under
// another name, and the tools each enabled server exposes, listed now or,
// for a server that failed, on record, each named by its server's scheme
// (see the rules above). It notes the servers that failed with nothing on
// record.
func (b *builder) index() {
	b.schemed, b.given, b.nameOf, b.bare = map[string]*owners{}, map[string]*owners{}, map[joiner]string{}, map[string][]joiner{}
	b.shared, b.sharedGiven = map[string]owners{}, map[string]bool{}
	down := map[joiner]bool{}
	join := func(name string, j joiner, isDown bool) {
		o := b.schemed[name]
		if o == nil {
			o = &owners{}
			b.schemed[name] = o
		}
		o.add(j, isDown)
		down[j] = isDown
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
	for _, name := range slices.Sorted(maps.Keys(b.f.Described)) {
		if !taken[name] {
			join(name, joiner{tool: name}, false)
		}
	}
	for _, server := range slices.Sorted(maps.Keys(b.c.MCPServers)) {
		srv := b.c.MCPServers[server]
		if !srv.IsEnabled() || srv.Expose.None {
			continue
		}
		var names []string
		isDown := false
		if tools, ok := b.f.Servers[server]; ok {
			names = slices.Sorted(maps.Keys(tools))
		} else if b.f.Failed[partial.Path{"mcp_servers", server}.String()] {
			isDown = true
			if known, ok := b.f.Known[server]; ok {
				names = known
			} else {
				names = srv.Expose.Tools
				if srv.Expose.All() {
					b.unsure = append(b.unsure, server)
				}
			}
		}
		scheme, renamed := b.c.ToolNamesOf(server), b.renamed(server)
		for _, n := range names {
			if !Exposes(srv, n) || renamed[n] && srv.Expose.All() {
				continue
			}
			j := joiner{server, n}
			if _, dup := down[j]; dup {
				continue
			}
			name := scheme.Name(server, n)
			join(name, j, isDown)
			if name != n {
				b.bare[n] = append(b.bare[n], j)
			}
		}
	}

	// Each name the joiners have under their schemes goes to one of them;
	// the others of a server are qualified.
	var quals []joiner // the joiners to qualify, with the names they had
	qualName := map[joiner]string{}
	for _, name := range slices.Sorted(maps.Keys(b.schemed)) {
		var o owners
		for _, j := range b.schemed[name].joiners(name) {
			if !b.heldBack(j, name) {
				o.add(j, down[j])
			}
		}
		js := o.joiners(name)
		entry, configured := b.c.Tools[name]
		configured = configured && name != config.EveryTool
		switch {
		case len(js) == 0:
		case configured && (!entry.Source.IsZero() || !entry.Command.IsZero()):
			// The entry takes the name, for the tool it names.
			about, ok := b.about(name, entry)
			for _, j := range js {
				switch {
				case ok && j == about:
					b.nameOf[j] = name
				case j.server != "":
					quals, qualName[j] = append(quals, j), name
				}
				// An executable whose name an entry takes for another
				// tool is the entry's choice: it needs a name of its own.
			}
		case configured && len(js) > 1:
			// Settings that do not say which: an error at the entry
			// (see definition); none of those tools is given.
		case len(js) == 1:
			b.nameOf[js[0]] = name
		default:
			for _, j := range js {
				if j.server == "" {
					b.nameOf[j] = name
					continue
				}
				quals, qualName[j] = append(quals, j), name
			}
			b.shared[name] = o
		}
	}
	for _, j := range quals {
		name := qualName[j]
		q := qualified(j.server, name)
		if _, other := b.schemed[q]; other || b.takes(q, j) {
			b.lose(j, fmt.Sprintf("its name %s is another's, and so is %s", name, q))
			continue
		}
		b.nameOf[j] = q
	}
	for _, j := range slices.SortedFunc(maps.Keys(b.nameOf), func(a, c joiner) int {
		return cmp.Or(strings.Compare(a.server, c.server), strings.Compare(a.tool, c.tool))
	}) {
		name := b.nameOf[j]
		if utf8.RuneCountInString(name) > maxNameLength {
			delete(b.nameOf, j)
			b.lose(j, fmt.Sprintf("its name %s is longer than %d characters", name, maxNameLength))
			continue
		}
		g := b.given[name]
		if g == nil {
			g = &owners{}
			b.given[name] = g
		}
		g.add(j, down[j])
	}
}

// about returns the joiner that the config entry name, with a source or a
// command, is about: the tool its source names under the name it has
// there; ok is false when it is about none (a local command, a builtin).
func (b *builder) about(name string, t config.Tool) (joiner, bool) {
	switch src := t.Source; {
	case src.Kind == config.SourceMCP:
		return joiner{src.Server, b.upstream(src.Server, name, src)}, true
	case src.Kind == config.SourceLocal && t.Command.IsZero():
		return joiner{tool: src.Name(name)}, true
	}
	return joiner{}, false
}

// takes reports whether a config entry takes name with a source or a
// command for another tool than j.
func (b *builder) takes(name string, j joiner) bool {
	t, ok := b.c.Tools[name]
	if !ok || name == config.EveryTool || t.Source.IsZero() && t.Command.IsZero() {
		return false
	}
	about, ok := b.about(name, t)
	return !ok || about != j
}

// heldBack reports whether the tool j of a server, named name by its
// scheme, is left out because settings without a source name it as its
// server does, which is no name of the catalog (see bareError).
func (b *builder) heldBack(j joiner, name string) bool {
	if j.server == "" || name == j.tool {
		return false
	}
	t, ok := b.c.Tools[j.tool]
	_, other := b.schemed[j.tool]
	return ok && j.tool != config.EveryTool && t.Source.IsZero() && t.Command.IsZero() && !other
}

// lose leaves the tool j of a server out, with a warning that says why.
func (b *builder) lose(j joiner, why string) {
	b.warnings = append(b.warnings, &diag.Error{Code: diag.CodeNameCollision, Severity: diag.SeverityWarning, Source: "skipped",
		Path: partial.Path{"mcp_servers", j.server},
		Msg:  fmt.Sprintf("the tool %s is left out: %s", j.tool, why),
		Hint: fmt.Sprintf("give it a name of yours: [%s] source = %q", b.key("tools.<name>"), sourceOf(j.server, j.tool))})
}

// upstream returns the name on server of the tool that the entry name,
// whose source src names server, is for: the tool src names; else the
// one whose name under the server's scheme is name; else the tool named
// name.
func (b *builder) upstream(server, name string, src config.Source) string {
	if src.Tool != "" {
		return src.Tool
	}
	if tool, ok := b.c.ToolNamesOf(server).Tool(server, name); ok {
		return tool
	}
	return name
}

// owners returns who has a tool named name in the catalog.
func (b *builder) owners(name string) owners {
	if o := b.given[name]; o != nil {
		return *o
	}
	return owners{}
}

// unsureOf returns the servers that failed with no list on record and
// may have a tool named name, under their scheme, qualified, or as the
// server's own name of a tool a scheme renames.
func (b *builder) unsureOf(name string) []string {
	var out []string
	for _, server := range b.unsure {
		srv, scheme := b.c.MCPServers[server], b.c.ToolNamesOf(server)
		tool, ok := scheme.Tool(server, name)
		switch {
		case ok && Exposes(srv, tool) && !b.renamed(server)[tool],
			strings.HasPrefix(name, qualified(server, "")),
			scheme != config.BareNames:
			out = append(out, server)
		}
	}
	return out
}

// mayName reports whether server, which failed with no list on record,
// would give a tool the name name under its scheme.
func (b *builder) mayName(server, name string) bool {
	tool, ok := b.c.ToolNamesOf(server).Tool(server, name)
	return ok && Exposes(b.c.MCPServers[server], tool) && !b.renamed(server)[tool]
}

// bareError is the problem of settings without a source at path, whose
// key name is no name of the catalog but the servers' own name of tools
// that their schemes rename; nil when it is not that.
func (b *builder) bareError(name string, path partial.Path) *diag.Error {
	js := b.bare[name]
	if len(js) == 0 || b.schemed[name] != nil {
		return nil
	}
	var names, keys []string
	for _, j := range js {
		n := b.c.ToolNamesOf(j.server).Name(j.server, j.tool)
		names = append(names, n)
		keys = append(keys, "["+b.key(partial.Path{"tools", n}.String())+"]")
	}
	msg := fmt.Sprintf("no tool is named %s under tool_names: the MCP server %s's is %s; it is left out until these settings say which tool they are for", name, js[0].server, names[0])
	if len(js) > 1 {
		var servers []string
		for _, j := range js {
			servers = append(servers, j.server)
		}
		msg = fmt.Sprintf("no tool is named %s under tool_names: those of the MCP servers %s are %s; they are left out until these settings say which tool they are for", name, andList(servers, "and"), andList(names, "and"))
	}
	return &diag.Error{Code: diag.CodeNotFound, Path: path, Msg: msg,
		Hint: fmt.Sprintf("write them under %s; or keep the name %s for one: source = %q", andList(keys, "or"), name, sourceOf(js[0].server, js[0].tool))}
}

// maxNamesShown is how many of the names a collision warning lists.
const maxNamesShown = 3

// warnShared warns once for each set of owners that share names the
// config does not mention, that were given under their servers' names.
func (b *builder) warnShared() {
	groups := map[string][]string{}
	for name := range b.sharedGiven {
		o := b.shared[name]
		groups[o.key()] = append(groups[o.key()], name)
	}
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		names := groups[key]
		slices.Sort(names)
		o := b.shared[names[0]]
		var what, them, given string
		qual := func(server string) string { return qualified(server, names[0]) }
		if len(names) == 1 {
			what, them = "a tool named "+names[0], "it"
		} else {
			shown := names
			if len(names) > maxNamesShown {
				shown = append(slices.Clone(names[:maxNamesShown]), fmt.Sprintf("%d more", len(names)-maxNamesShown))
			}
			what, them = fmt.Sprintf("%d tools of the same names (%s)", len(names), andList(shown, "and")), "them"
			qual = func(server string) string { return qualified(server, "<name>") }
		}
		var quals []string
		for _, s := range o.servers {
			quals = append(quals, qual(s))
		}
		theServers := "the servers' are"
		if len(o.servers) == 1 {
			theServers = "the server's is"
			if len(names) > 1 {
				theServers = "the server's are"
			}
		}
		switch {
		case o.local && len(names) == 1:
			given = "the executable keeps the name, and " + theServers + " " + andList(quals, "and")
		case o.local:
			given = "the executables keep the names, and " + theServers + " " + andList(quals, "and")
		case len(names) > 1:
			given = "none of them gets those names: they are " + andList(quals, "and")
		case o.count() == 2:
			given = "neither gets the name: they are " + andList(quals, "and")
		default:
			given = "none of them gets the name: they are " + andList(quals, "and")
		}
		entry := fmt.Sprintf("[%s] source = %q", b.key(partial.Path{"tools", names[0]}.String()), sourceOf(o.first()))
		var hint string
		switch {
		case o.local:
			hint = "to give the name to a server's tool: " + entry + "; or leave " + them + " out of the server"
			if len(o.servers) > 1 {
				hint += "s"
			}
		case o.count() > 2:
			hint = fmt.Sprintf("to give the name to one: %s; or name every server's tools so: %s = %q; or leave %s out of all but one server", entry, b.key("tool_names"), config.ServerNames, them)
		default:
			hint = fmt.Sprintf("to give the name to one: %s; or name every server's tools so: %s = %q; or leave %s out of one server", entry, b.key("tool_names"), config.ServerNames, them)
		}
		hint += " with expose or disabled_tools"
		b.warnings = append(b.warnings, &diag.Error{Code: diag.CodeNameCollision, Severity: diag.SeverityWarning, Source: "renamed",
			Path: partial.Path{"mcp_servers", o.servers[len(o.servers)-1]},
			Msg:  fmt.Sprintf("%s %s %s; %s", o.text(), o.verb(), what, given),
			Hint: hint,
		})
	}
}
