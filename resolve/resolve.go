// Package resolve turns a tool configuration and what its tools say about
// themselves into the tool definitions a model receives, the [Catalog],
// and runs nothing to do it.
//
// What tools say about themselves (JP's schema action, --describe
// executables, MCP servers' tools/list, the host's builtins) is gathered
// first, by running them (the root's Workspace does), into a [Found];
// [Build] then applies the user's configuration: the user's text replaces
// the discovered text ({{description}} standing for it), the discovered
// schema stays the base, kept losslessly, and an override may tighten it
// but never loosen it. Build runs nothing: the same config and the same
// Found give the same catalog, whose [Catalog.Fingerprint] identifies it.
package resolve

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
)

// Found is what discovery found for one config.
type Found struct {
	// Schemas are the JP schema answers, by configured tool name.
	Schemas map[string]Discovered
	// Described are the tools of the discovery directories, by name.
	Described map[string]Described
	// Servers are the tools of MCP servers, by server name, then by the
	// tool's name there.
	Servers map[string]map[string]Discovered
	// Builtins are the tools the host implements, by name, for
	// source = "builtin".
	Builtins map[string]Discovered
	// Failed are the config keys whose discovery failed and was reported
	// (tools.<name>, mcp_servers.<name>): their tools are left out without
	// a second report.
	Failed map[string]bool
	// Known are the names of the tools of MCP servers that failed, as the
	// server last listed them (from the cache), by server name. A name
	// stays its server's while the server is down: no other server's tool
	// takes it. A failed server missing here has no list on record.
	Known map[string][]string
	// Dir is where tools start; Root is the workspace root they are told
	// about. Both are absolute.
	Dir, Root string
	// Private makes Dir the base of the private places tools start in:
	// each run starts in a new, empty directory made there, removed once
	// it has ended.
	Private bool
	// Untrusted is the root of the workspace when nobody trusted it, else
	// "": what resolves into it never runs (see [Exec].Untrusted).
	Untrusted string
	// InheritEnv gives every local tool the host's whole environment, as
	// if its env_vars held "*".
	InheritEnv bool
	// Errors and Warnings are the problems discovery reported.
	Errors, Warnings diag.Errors
	// Started counts the programs discovery started.
	Started int
	// Origins say where each answer came from, for explaining a tool: by
	// the key of what answered (tools.<name>, mcp_servers.<name>) or, for
	// an executable of a discovery directory, its path.
	Origins map[string]Origin
}

// Origin is where one discovery's answer came from.
type Origin struct {
	// Program is what answered: the executable, or the server's command
	// line or URL.
	Program string
	// Cache is the cache entry the answer was read from; "" when the
	// program was asked now.
	Cache string
	// Written is when that entry was written.
	Written time.Time
}

// ErrAppliesToNothing is the cause of the warning for settings of a tool
// that nothing defines or discovers, and whose name is close to none
// that is: an override meant for tools that other workspaces have (a
// user file's [tools.slugify], say). Commands may leave such warnings out
// unless asked ([diag.Error].Err; errors.Is).
var ErrAppliesToNothing = errors.New("the settings of a tool that is not here")

// Described is a tool of a discovery directory.
type Described struct {
	Discovered
	// Path is the executable.
	Path string
}

// Build resolves the enabled tools of c with what discovery found. It
// returns the catalog of the tools that resolved even when others failed;
// the error then lists every configured tool that failed (with Found's
// errors), at key paths of c. Problems that leave a tool out without
// failing are in the catalog's Warnings (with Found's warnings).
func Build(c config.Config, f Found) (*Catalog, error) { return BuildAt(c, f, nil) }

// BuildAt is [Build] for a model mounted at mount in a host's config: the
// hints of its problems name the host's key paths
// ([assistant.tools.<name>]); their Path stays the model's, which the host
// places (see config.Config.ValidateAt).
func BuildAt(c config.Config, f Found, mount partial.Path) (*Catalog, error) {
	b := &builder{c: c, f: f, mount: mount, described: map[string]Described{}, said: map[string]bool{}, sharedPolicy: map[string]any{}}
	for name, d := range f.Described {
		b.described[name] = d
	}
	b.index()
	// Room for every tool that may join, and little more: a catalog of a
	// large server's tools is thousands of definitions, each some 500
	// bytes, and the catalog keeps the room.
	most := len(c.Tools) + len(b.described)
	for server, tools := range f.Servers {
		switch srv, ok := c.MCPServers[server]; {
		case !ok || !srv.IsEnabled() || srv.Expose.None:
		case srv.Expose.All():
			most += len(tools)
		default:
			most += min(len(tools), len(srv.Expose.Tools))
		}
	}
	tools := make([]Definition, 0, most)
	for _, name := range c.Tools.Names() {
		t, _ := c.Tools.Effective(name)
		if !t.Enabled() {
			if t.Tool.Source.IsZero() && t.Tool.Command.IsZero() && b.owners(name).count() == 0 {
				if e := b.bareError(name, partial.Path{"tools", name}); e != nil {
					b.fail(e) // even turned off: it may be meant to turn a tool off
				}
			}
			delete(b.described, name)
			continue
		}
		if d, ok := b.definition(name, t); ok {
			tools = append(tools, d)
		}
	}
	// Discovered executables that the config does not name.
	for _, name := range slices.Sorted(maps.Keys(b.described)) {
		dt := b.described[name]
		if _, named := c.Tools[name]; named {
			continue
		}
		t, _ := config.Tools{config.EveryTool: c.Tools[config.EveryTool], name: {}}.Effective(name)
		if !t.Enabled() {
			continue
		}
		if o := b.owners(name); !o.local {
			continue // the name is another's
		}
		if d, ok := b.definition(name, t); ok {
			d.Source = "local"
			d.Exec = Exec{Kind: ExecDescribe, Path: dt.Path, Dir: f.Dir, Private: f.Private, Root: f.Root, Untrusted: f.Untrusted, Key: partial.Path{"tools", name}.String(), EnvVars: inherit(nil, f.InheritEnv)}
			tools = append(tools, d)
		}
	}
	tools = b.exposed(tools)
	b.warnShared()
	cat := newCatalog(tools)
	cat.Warnings = append(append(diag.Errors(nil), f.Warnings...), b.warnings...)
	sort.SliceStable(cat.Warnings, func(i, j int) bool { return cat.Warnings[i].Error() < cat.Warnings[j].Error() })
	cat.Started = f.Started
	errs := append(append(diag.Errors(nil), f.Errors...), b.errs...)
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Key() < errs[j].Key() })
		return cat, errs
	}
	return cat, nil
}

// builder builds one catalog.
type builder struct {
	c         config.Config
	mount     partial.Path // where the host mounts the model, for hints
	f         Found
	described map[string]Described // the discovered executables not yet used
	errs      diag.Errors
	warnings  diag.Errors
	// The names of the tools that join on their own (see index):
	// schemed are the joiners by their names under their servers'
	// schemes; given by the names they are given, nameOf each one's
	// (none when it is not given); bare the tools a scheme renames, by
	// their servers' names for them. unsure are the servers that failed,
	// expose all their tools and have no list on record.
	schemed, given map[string]*owners
	nameOf         map[joiner]string
	bare           map[string][]joiner
	unsure         []string
	// shared are the names under their schemes that the config does not
	// mention and that several have, with who has them; sharedGiven, those
	// of them under which a server's tool was given qualified (see
	// warnShared).
	shared      map[string]owners
	sharedGiven map[string]bool
	// said are the warnings given, which every tool of a '*' entry meets.
	said map[string]bool
	// sharedPolicy are the policies of the '*' entry that are the same
	// for every tool, by key path.
	sharedPolicy map[string]any
}

func (b *builder) fail(e *diag.Error) { b.errs = append(b.errs, e) }

// inherit returns names, the variables a tool's config has it inherit
// from the host, with "*" (all of them) when all is set.
func inherit(names []string, all bool) []string {
	if !all || slices.Contains(names, "*") {
		return names
	}
	return append(slices.Clip(names), "*")
}

// definition builds the definition of a configured tool, or reports why it
// cannot.
func (b *builder) definition(name string, t config.EffectiveTool) (Definition, bool) {
	path := partial.Path{"tools", name}
	own := t.Tool // what overrides the discovered text and schema
	d := Definition{Name: name, Examples: own.Examples, Options: own.Options, Questions: own.Questions}
	exec := Exec{Dir: b.f.Dir, Private: b.f.Private, Root: b.f.Root, Untrusted: b.f.Untrusted, Key: path.String(), Env: t.Tool.Env, EnvVars: inherit(t.Tool.EnvVars, b.f.InheritEnv)}
	var base Discovered
	params := own.Parameters
	src := own.Source
	if _, configured := b.c.Tools[name]; configured && src.Kind == "" && own.Command.IsZero() {
		// Settings for a tool that a server exposes or a discovery
		// directory has, on its own: no need to repeat its source, when
		// only one has it. A server that failed with nothing on record
		// changes nothing of that (see index).
		if o := b.schemed[name]; o != nil && o.count() > 1 {
			b.fail(&diag.Error{Code: diag.CodeNameCollision, Path: path, Msg: fmt.Sprintf("%s %s a tool named %s", o.text(), o.verb(), name), Hint: "say which one these settings are for: " + o.sources(name)})
			return Definition{}, false
		}
		o := b.owners(name)
		switch {
		case o.count() == 1 && len(o.down) == 1:
			return Definition{}, false // its server failed: reported
		case o.count() == 1 && !o.local:
			server, tool := o.first()
			src = config.Source{Kind: config.SourceMCP, Server: server}
			if u := slices.DeleteFunc(b.unsureOf(name), func(s string) bool { return s == server || !b.mayName(s, name) }); len(u) > 0 {
				// Never silent: the settings go to the one tool that has
				// the name now, and a server that never listed its tools
				// may have one of this name too.
				b.warnings = append(b.warnings, &diag.Error{Code: diag.CodeNameCollision, Severity: diag.SeverityWarning, Source: "skipped", Path: path,
					Msg:  fmt.Sprintf("applied to the tool %s of the MCP server %s, while %s, which did not answer and has never listed its tools, may have a tool of this name too", tool, server, serversText(u)),
					Hint: "if these settings are for another server's tool, say which: " + fmt.Sprintf("source = %q", sourceOf(u[0], name))})
			}
			if tool != name {
				src.Tool = tool
			}
		case o.count() == 0:
			if e := b.bareError(name, path); e != nil {
				b.fail(e)
				return Definition{}, false
			}
			if len(b.unsureOf(name)) > 0 {
				return Definition{}, false // perhaps a tool of a server that failed: reported
			}
		}
	}
	if src.Kind == config.SourceLocal && src.Tool != "" && own.Command.IsZero() {
		// local.<tool> without a command: a tool of a discovery directory,
		// under another name.
		src = config.Source{Tool: src.Tool}
	}
	switch {
	case src.Kind == config.SourceBuiltin:
		bt, ok := b.f.Builtins[src.Name(name)]
		if !ok {
			b.fail(&diag.Error{Code: diag.CodeNotFound, Path: path.Append("source"), Msg: "the host has no builtin tool named " + src.Name(name)})
			return Definition{}, false
		}
		base, d.Source = bt, "builtin"
		exec.Kind, exec.Tool = ExecBuiltin, src.Name(name)
	case src.Kind == config.SourceMCP:
		if b.f.Failed[partial.Path{"mcp_servers", src.Server}.String()] {
			return Definition{}, false // reported by discovery
		}
		srv := b.c.MCPServers[src.Server]
		if !srv.IsEnabled() {
			b.warnings = append(b.warnings, &diag.Error{Code: diag.CodeLeftOut, Severity: diag.SeverityWarning, Source: "skipped", Path: path.Append("source"), Msg: fmt.Sprintf("the MCP server %s is not enabled; the tool is left out", src.Server)})
			return Definition{}, false
		}
		tools, ok := b.f.Servers[src.Server]
		if !ok {
			return Definition{}, false // the server was not listed: reported
		}
		upstream := b.upstream(src.Server, name, src)
		mt, ok := tools[upstream]
		if ok && !Allows(srv, upstream) {
			b.fail(&diag.Error{Code: diag.CodeLeftOut, Path: path.Append("source"), Msg: fmt.Sprintf("the MCP server %s's enabled_tools or disabled_tools leave out %s", src.Server, upstream), Hint: "allow it there, or name another tool"})
			return Definition{}, false
		}
		if !ok {
			b.fail(&diag.Error{Code: diag.CodeNotFound, Path: path.Append("source"), Msg: fmt.Sprintf("the MCP server %s has no tool named %s", src.Server, upstream), Hint: closestHint(upstream, slices.Sorted(maps.Keys(tools)))})
			return Definition{}, false
		}
		d.Source = config.Source{Kind: config.SourceMCP, Server: src.Server}.String()
		if upstream != name {
			d.Source = sourceOf(src.Server, upstream)
		}
		base = mt
		exec.Kind, exec.Server, exec.Tool, exec.Key = ExecMCP, src.Server, upstream, partial.Path{"mcp_servers", src.Server}.String()
	case src.Kind == config.SourceLocal || src.Kind == "" && !own.Command.IsZero():
		if b.f.Failed[path.String()] {
			return Definition{}, false
		}
		if own.DefinesSchema() {
			// The config defines the tool: it is the schema and the text.
			schema := fromConfig(own.Parameters)
			o := overrides{path: path}
			o.paramBounds(schema, own.Parameters, path.Append("parameters"))
			if len(o.errs) > 0 {
				b.errs = append(b.errs, o.errs...)
				return Definition{}, false
			}
			base = Discovered{Name: name, Summary: own.Summary, Description: own.Description, InputSchema: schemaOf(schema)}
			params, own = nil, config.Tool{}
		} else {
			s, ok := b.f.Schemas[name]
			if !ok {
				return Definition{}, false // reported by discovery
			}
			base = s
		}
		d.Source = t.Tool.Source.String()
		if d.Source == "" {
			d.Source = "local"
		}
		exec.Kind, exec.Command, exec.Tool = ExecJP, t.Tool.Command, t.Tool.Source.Name(name)
		exec.AllowDash = allowDash(t.Tool.Parameters, "")
	default:
		if b.f.Failed[path.String()] {
			return Definition{}, false // a pinned executable that changed: reported by discovery
		}
		upstream := src.Name(name)
		dt, ok := b.described[upstream]
		if !ok {
			if src.Tool != "" {
				b.fail(&diag.Error{Code: diag.CodeNotFound, Path: path.Append("source"), Msg: "no tool of the discovery directories is named " + upstream, Hint: closestHint(upstream, slices.Sorted(maps.Keys(b.f.Described)))})
			} else if src.Kind == "" {
				// Settings for a tool that nothing here defines: an override
				// meant for tools some workspaces have.
				// A close name is a typo's, said always; none, settings for
				// tools other places have (ErrAppliesToNothing).
				hint, cause := "give it a source and a command, or put an executable that answers --describe in a "+b.key("discover.dirs")+" directory", ErrAppliesToNothing
				if c := suggest.Closest(name, b.names()); c != "" {
					hint, cause = "did you mean "+c+"?", nil
				}
				b.warnings = append(b.warnings, &diag.Error{Code: diag.CodeNotFound, Severity: diag.SeverityWarning, Source: "skipped", Path: path, Msg: "no tool of this name is defined or discovered; its settings apply to nothing", Hint: hint, Err: cause})
			} else {
				b.fail(&diag.Error{Code: diag.CodeInvalid, Path: path.Append("command"), Msg: "a local tool needs a command", Hint: `write command = "my-tool {{tool}} {{context}}"`})
			}
			return Definition{}, false
		}
		delete(b.described, upstream)
		exec.Tool = upstream
		base, d.Source = dt.Discovered, "local"
		if src.Tool != "" {
			d.Source = config.Source{Kind: config.SourceLocal, Tool: src.Tool}.String()
		}
		exec.Kind, exec.Path = ExecDescribe, dt.Path
	}
	d.Title = base.Title
	d.Summary, d.Description = describe(base.Summary, base.Description, own.Summary, own.Description)
	if own.Summary == "" && own.Description == "" && len(params) == 0 {
		d.Upstream = base.Upstream
	}
	d.OutputSchema, d.Annotations = base.OutputSchema, base.Annotations
	d.InputSchema = base.InputSchema
	if d.InputSchema.IsZero() {
		d.InputSchema = MustSchema(`{"type":"object","properties":{}}`)
	}
	if len(params) > 0 {
		// The overrides change a copy of their own, read from the text:
		// the discovered schema's value is shared by every copy of it.
		schema, err := jsonv.Parse(d.InputSchema.JSON())
		if err != nil {
			b.fail(&diag.Error{Code: diag.CodeDiscovery, Path: path, Msg: "the discovered input schema is not JSON: " + err.Error(), Err: err})
			return Definition{}, false
		}
		if schema.Get("properties") == nil {
			schema.Set("properties", jsonv.NewObject())
		}
		o := overrides{path: path}
		o.params(&validator{root: schema}, schema, "", params, path.Append("parameters"), true)
		if len(o.errs) > 0 {
			b.errs = append(b.errs, o.errs...)
			return Definition{}, false
		}
		exec.Forced = o.forced
		d.InputSchema = schemaOf(schema)
	}
	pol, ok := b.policyOf(t, d.InputSchema, t.Tool.Parameters)
	if !ok {
		return Definition{}, false
	}
	d.Policy, d.Run, d.Result = pol, pol.Run.Config(), pol.Result.Config()
	d.Exec = exec
	if len(d.Upstream) == 0 && len(base.Upstream) > 0 {
		d.Upstream = changedUpstream(base.Upstream, d)
	}
	return d, true
}

// changedUpstream returns the MCP tool listed, as its server listed it,
// with the description and input schema d gives in place of its own:
// what the config changes of the tool, every other key kept (_meta,
// icons, execution, keys strata does not know). It is nil where the
// listed text is not an object (discovery gives none such).
func changedUpstream(listed json.RawMessage, d Definition) json.RawMessage {
	v, err := jsonv.Parse(listed)
	if err != nil || v.Kind() != jsonv.Object {
		return nil
	}
	if d.Description != "" {
		v.Set("description", jsonv.MustOf(d.Description))
	} else {
		v.Delete("description")
	}
	schema, err := jsonv.Parse(d.InputSchema.JSON())
	if err != nil {
		return nil
	}
	v.Set("inputSchema", schema)
	return json.RawMessage(v.JSON())
}

// exposed appends to out the definitions of the tools servers expose on
// their own that the config does not name.
func (b *builder) exposed(out []Definition) []Definition {
	for _, server := range slices.Sorted(maps.Keys(b.f.Servers)) {
		tools := b.f.Servers[server]
		srv, configured := b.c.MCPServers[server]
		expose := srv.Expose
		if !configured || !srv.IsEnabled() || expose.None {
			continue // tools of a server the config does not have (or use) join nothing
		}
		names := slices.Sorted(maps.Keys(tools))
		for _, want := range expose.Tools {
			if _, ok := tools[want]; !ok {
				b.fail(&diag.Error{Code: diag.CodeNotFound, Path: partial.Path{"mcp_servers", server, "expose"}, Msg: fmt.Sprintf("the server has no tool named %s", want), Hint: closestHint(want, names)})
			} else if !Allows(srv, want) {
				b.fail(&diag.Error{Code: diag.CodeLeftOut, Path: partial.Path{"mcp_servers", server, "expose"}, Msg: fmt.Sprintf("%s is left out by enabled_tools or disabled_tools", want), Hint: "allow it there, or do not expose it"})
			}
		}
		scheme, renamed := b.c.ToolNamesOf(server), b.renamed(server)
		for _, n := range names {
			if !Exposes(srv, n) {
				continue
			}
			if renamed[n] && expose.All() {
				continue // the config serves it under another name; a list that names it still exposes it
			}
			name, ok := b.nameOf[joiner{server, n}]
			if !ok {
				continue // it has no name: said where it was decided (see index)
			}
			if _, named := b.c.Tools[name]; named {
				continue // the config's own entry decides
			}
			src := config.Source{Kind: config.SourceMCP, Server: server}
			if n != name {
				src.Tool = n
			}
			t, _ := config.Tools{config.EveryTool: b.c.Tools[config.EveryTool], name: {Source: src}}.Effective(name)
			if !t.Enabled() {
				continue
			}
			if d, ok := b.definition(name, t); ok {
				if was := scheme.Name(server, n); was != name {
					if _, shared := b.shared[was]; shared {
						b.sharedGiven[was] = true
					}
				}
				out = append(out, d)
			}
		}
	}
	return out
}

// renamed returns the tools of server that config entries take under
// other names than the server's scheme gives them
// (source = "mcp.<server>.<tool>").
func (b *builder) renamed(server string) map[string]bool {
	out := map[string]bool{}
	scheme := b.c.ToolNamesOf(server)
	for name, t := range b.c.Tools {
		if t.Source.Kind != config.SourceMCP || t.Source.Server != server {
			continue
		}
		if tool := b.upstream(server, name, t.Source); scheme.Name(server, tool) != name {
			out[tool] = true
		}
	}
	return out
}

// names are the names of the tools that exist: configured with a source or
// a command, or discovered.
func (b *builder) names() []string {
	var out []string
	for name, t := range b.c.Tools {
		if name != config.EveryTool && (!t.Source.IsZero() || !t.Command.IsZero()) {
			out = append(out, name)
		}
	}
	for name := range b.f.Described {
		out = append(out, name)
	}
	for server, tools := range b.f.Servers {
		scheme := b.c.ToolNamesOf(server)
		for name := range tools {
			out = append(out, scheme.Name(server, name))
		}
	}
	for name := range b.given {
		out = append(out, name) // qualified too
	}
	sort.Strings(out)
	out = slices.Compact(out)
	return out
}

func closestHint(name string, names []string) string {
	if c := suggest.Closest(name, names); c != "" {
		return "did you mean " + c + "?"
	}
	if len(names) == 0 {
		return "it has no tools"
	}
	return "it has " + strings.Join(names, ", ")
}

// allowDash lists the parameters (dotted paths, under prefix) whose
// config sets allow_dash, sorted.
func allowDash(params map[string]config.Parameter, prefix string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(params)) {
		p := params[name]
		if p.AllowDash {
			out = append(out, prefix+name)
		}
		out = append(out, allowDash(p.Properties, prefix+name+".")...)
	}
	return out
}

// key returns key path k of the model (written as TOML) at the host's key
// path, for hints.
func (b *builder) key(k string) string {
	if len(b.mount) == 0 {
		return k
	}
	return b.mount.String() + "." + k
}

// Allows reports whether the tool name of the server srv may be used at
// all: it is in enabled_tools when that list is set, and not in
// disabled_tools (Codex's rule: the allow list first, then the deny
// list). A tool that is not allowed is as if the server did not have it:
// it is neither exposed nor reachable through source =
// "mcp.<server>.<tool>".
func Allows(srv config.MCPServer, name string) bool {
	if srv.EnabledTools != nil && !slices.Contains(srv.EnabledTools, name) {
		return false
	}
	return !slices.Contains(srv.DisabledTools, name)
}

// Exposes reports whether the tool name of the server srv joins the
// catalog on its own: expose names it (or is "all") and enabled_tools and
// disabled_tools allow it.
func Exposes(srv config.MCPServer, name string) bool {
	return srv.Expose.Has(name) && Allows(srv, name)
}
