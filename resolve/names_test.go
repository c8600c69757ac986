package resolve_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/resolve"
)

// servers are tools of MCP servers by server name, for a Found.
func servers(tools map[string][]string) map[string]map[string]resolve.Discovered {
	out := map[string]map[string]resolve.Discovered{}
	for server, names := range tools {
		out[server] = map[string]resolve.Discovered{}
		for _, n := range names {
			out[server][n] = resolve.Discovered{Name: n, InputSchema: resolve.MustSchema(`{"type":"object"}`)}
		}
	}
	return out
}

// fsTools are the fourteen tools of the filesystem server.
var fsTools = []string{"create_directory", "directory_tree", "edit_file", "get_file_info", "list_allowed_directories", "list_directory", "list_directory_with_sizes", "move_file", "read_file", "read_media_file", "read_multiple_files", "read_text_file", "search_files", "write_file"}

// TestNameCollisions: a name belongs to one tool. Settings that name a
// tool several servers have are an error unless they say which; tools of
// one name that the config does not mention are each given under their
// server's name (an executable keeps its own), with one warning per set
// of owners; and a server that is down keeps its names, and changes
// nothing of what another server gives.
func TestNameCollisions(t *testing.T) {
	const twoServers = "[mcp_servers.a_evil]\ncommand = \"x\"\nexpose = \"all\"\n[mcp_servers.github]\ncommand = \"x\"\nexpose = \"all\"\n"
	const settings = "[tools.create_issue]\nrun = \"unattended\"\n"
	both := map[string][]string{"a_evil": {"create_issue", "evil_only"}, "github": {"create_issue", "list_issues"}}
	evilOnly := map[string][]string{"a_evil": {"create_issue", "evil_only"}}
	githubDown := map[string]bool{"mcp_servers.github": true}
	const sharedWarning = `renamed: mcp_servers.github: the MCP servers a_evil and github both have a tool named create_issue; neither gets the name: they are a_evil__create_issue and github__create_issue; ` +
		`to give the name to one: [tools.create_issue] source = "mcp.a_evil.create_issue"; or name every server's tools so: tool_names = "{server}__{tool}"; or leave it out of one server with expose or disabled_tools`
	tests := []nameCase{
		{
			name:    "settings for a name two servers have are an error",
			layer:   twoServers + settings,
			servers: both,
			tools:   []string{"evil_only=mcp.a_evil ask", "list_issues=mcp.github ask"},
			errs:    []string{`tools.create_issue: the MCP servers a_evil and github both have a tool named create_issue; say which one these settings are for: source = "mcp.a_evil.create_issue" or source = "mcp.github.create_issue"`},
		},
		{
			name:    "settings that say which: the other server's tool is given under its server's name",
			layer:   twoServers + settings + "source = \"mcp.github\"\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "create_issue=mcp.github unattended", "evil_only=mcp.a_evil ask", "list_issues=mcp.github ask"},
		},
		{
			name:    "settings for a name of a server that is down, known from the cache",
			layer:   twoServers + settings,
			servers: evilOnly, failed: githubDown, known: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools: []string{"evil_only=mcp.a_evil ask"},
			errs:  []string{`tools.create_issue: the MCP servers a_evil and github both have a tool named create_issue; say which one these settings are for: source = "mcp.a_evil.create_issue" or source = "mcp.github.create_issue"`},
		},
		{
			name:    "settings for the one tool of a name while a server with no list on record is down",
			layer:   twoServers + settings,
			servers: evilOnly, failed: githubDown,
			tools:    []string{"create_issue=mcp.a_evil unattended", "evil_only=mcp.a_evil ask"},
			warnings: []string{`skipped: tools.create_issue: applied to the tool create_issue of the MCP server a_evil, while the MCP server github, which did not answer and has never listed its tools, may have a tool of this name too; if these settings are for another server's tool, say which: source = "mcp.github.create_issue"`},
		},
		{
			name:    "settings for the tool of a server that is down",
			layer:   twoServers + "[tools.list_issues]\nrun = \"unattended\"\n",
			servers: evilOnly, failed: githubDown, known: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools:    []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "evil_only=mcp.a_evil ask"},
			warnings: []string{sharedWarning},
		},
		{
			name:    "the config names the tool of one server under a name of its own",
			layer:   twoServers + "[tools.gh_create_issue]\nsource = \"mcp.github.create_issue\"\n",
			servers: both,
			tools:   []string{"create_issue=mcp.a_evil ask", "evil_only=mcp.a_evil ask", "gh_create_issue=mcp.github.create_issue ask", "list_issues=mcp.github ask"},
		},
		{
			name:    "disabled_tools leaves one out",
			layer:   twoServers + "disabled_tools = [\"create_issue\"]\n",
			servers: both,
			tools:   []string{"create_issue=mcp.a_evil ask", "evil_only=mcp.a_evil ask", "list_issues=mcp.github ask"},
		},
		{
			name:     "a name two servers have goes to neither: each is given under its server's name",
			layer:    twoServers,
			servers:  both,
			tools:    []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "evil_only=mcp.a_evil ask", "github__create_issue=mcp.github.create_issue ask", "list_issues=mcp.github ask"},
			warnings: []string{sharedWarning},
		},
		{
			name:    "a name of a server that is down goes to no other",
			layer:   twoServers,
			servers: evilOnly, failed: githubDown, known: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools:    []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "evil_only=mcp.a_evil ask"},
			warnings: []string{sharedWarning},
		},
		{
			name:    "a server that is down with no list on record changes nothing of another's",
			layer:   twoServers,
			servers: evilOnly, failed: githubDown,
			tools: []string{"create_issue=mcp.a_evil ask", "evil_only=mcp.a_evil ask"},
		},
		{
			name:     "settings for a name the servers share, under the name given",
			layer:    twoServers + "[tools.github__create_issue]\nrun = \"unattended\"\n",
			servers:  both,
			tools:    []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "evil_only=mcp.a_evil ask", "github__create_issue=mcp.github.create_issue unattended", "list_issues=mcp.github ask"},
			warnings: []string{sharedWarning},
		},
		{
			name:    "a name shared turned off: none of its tools is given",
			layer:   twoServers + "[tools.create_issue]\nenable = false\n",
			servers: both,
			tools:   []string{"evil_only=mcp.a_evil ask", "list_issues=mcp.github ask"},
		},
		{
			name:    "a server's tool named as another's would be: the other is left out",
			layer:   twoServers,
			servers: map[string][]string{"a_evil": {"create_issue", "github__create_issue"}, "github": {"create_issue"}},
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "github__create_issue=mcp.a_evil ask"},
			warnings: []string{
				`renamed: mcp_servers.github: the MCP servers a_evil and github both have a tool named create_issue; neither gets the name: they are a_evil__create_issue and github__create_issue; ` +
					`to give the name to one: [tools.create_issue] source = "mcp.a_evil.create_issue"; or name every server's tools so: tool_names = "{server}__{tool}"; or leave it out of one server with expose or disabled_tools`,
				`skipped: mcp_servers.github: the tool create_issue is left out: its name create_issue is another's, and so is github__create_issue; give it a name of yours: [tools.<name>] source = "mcp.github.create_issue"`,
			},
		},
		{
			name:    "a name the config takes for a command of its own",
			layer:   twoServers + "[tools.create_issue]\ncommand = \"gh issue create\"\nparameters.title = { type = \"string\" }\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "create_issue=local ask", "evil_only=mcp.a_evil ask", "github__create_issue=mcp.github.create_issue ask", "list_issues=mcp.github ask"},
		},
		{
			name:    "the name given is the config's too",
			layer:   twoServers + "[tools.github__create_issue]\ncommand = \"gh issue create\"\nparameters.title = { type = \"string\" }\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "evil_only=mcp.a_evil ask", "github__create_issue=local ask", "list_issues=mcp.github ask"},
			warnings: []string{
				sharedWarning,
				`skipped: mcp_servers.github: the tool create_issue is left out: its name create_issue is another's, and so is github__create_issue; give it a name of yours: [tools.<name>] source = "mcp.github.create_issue"`,
			},
		},
		{
			name:    "two filesystem servers: one warning",
			layer:   "[mcp_servers.docs]\ncommand = \"x\"\nexpose = \"all\"\n[mcp_servers.src]\ncommand = \"x\"\nexpose = \"all\"\n",
			servers: map[string][]string{"docs": fsTools, "src": fsTools},
			tools:   qualifiedTools([]string{"docs", "src"}, fsTools),
			warnings: []string{`renamed: mcp_servers.src: the MCP servers docs and src both have 14 tools of the same names (create_directory, directory_tree, edit_file and 11 more); none of them gets those names: they are docs__<name> and src__<name>; ` +
				`to give the name to one: [tools.create_directory] source = "mcp.docs.create_directory"; or name every server's tools so: tool_names = "{server}__{tool}"; or leave them out of one server with expose or disabled_tools`},
		},
		{
			name:    "one warning per set of servers",
			layer:   "[mcp_servers.a]\ncommand = \"x\"\nexpose = \"all\"\n[mcp_servers.b]\ncommand = \"x\"\nexpose = \"all\"\n[mcp_servers.c]\ncommand = \"x\"\nexpose = \"all\"\n",
			servers: map[string][]string{"a": {"x", "y", "z"}, "b": {"x", "y"}, "c": {"x", "w"}},
			tools:   []string{"a__x=mcp.a.x ask", "a__y=mcp.a.y ask", "b__x=mcp.b.x ask", "b__y=mcp.b.y ask", "c__x=mcp.c.x ask", "w=mcp.c ask", "z=mcp.a ask"},
			warnings: []string{
				`renamed: mcp_servers.b: the MCP servers a and b both have a tool named y; neither gets the name: they are a__y and b__y; to give the name to one: [tools.y] source = "mcp.a.y"; or name every server's tools so: tool_names = "{server}__{tool}"; or leave it out of one server with expose or disabled_tools`,
				`renamed: mcp_servers.c: the MCP servers a, b and c all have a tool named x; none of them gets the name: they are a__x, b__x and c__x; to give the name to one: [tools.x] source = "mcp.a.x"; or name every server's tools so: tool_names = "{server}__{tool}"; or leave it out of all but one server with expose or disabled_tools`,
			},
		},
		{
			name:      "a described executable and a server tool of one name: the executable keeps it",
			layer:     "[mcp_servers.github]\ncommand = \"x\"\nexpose = \"all\"\n",
			servers:   map[string][]string{"github": {"create_issue", "list_issues"}},
			described: []string{"create_issue", "slugify"},
			tools:     []string{"create_issue=local ask", "github__create_issue=mcp.github.create_issue ask", "list_issues=mcp.github ask", "slugify=local ask"},
			warnings: []string{`renamed: mcp_servers.github: the discovery directories and the MCP server github both have a tool named create_issue; the executable keeps the name, and the server's is github__create_issue; ` +
				`to give the name to a server's tool: [tools.create_issue] source = "mcp.github.create_issue"; or leave it out of the server with expose or disabled_tools`},
		},
		{
			name:      "described executables and two servers",
			layer:     "[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.b]\ncommand = \"x\"\n",
			servers:   map[string][]string{"a": {"x", "y"}, "b": {"x", "y"}},
			described: []string{"x", "y"},
			tools:     []string{"a__x=mcp.a.x ask", "a__y=mcp.a.y ask", "b__x=mcp.b.x ask", "b__y=mcp.b.y ask", "x=local ask", "y=local ask"},
			warnings: []string{`renamed: mcp_servers.b: the discovery directories and the MCP servers a and b all have 2 tools of the same names (x and y); the executables keep the names, and the servers' are a__<name> and b__<name>; ` +
				`to give the name to a server's tool: [tools.x] source = "mcp.a.x"; or leave them out of the servers with expose or disabled_tools`},
		},
		{
			name:      "the config gives an executable's name to a server's tool",
			layer:     "[mcp_servers.github]\ncommand = \"x\"\n[tools.create_issue]\nsource = \"mcp.github\"\n",
			servers:   map[string][]string{"github": {"create_issue"}},
			described: []string{"create_issue"},
			tools:     []string{"create_issue=mcp.github ask"},
		},
		{
			name:      "a described executable while a server that may have its name is down",
			layer:     "[mcp_servers.github]\ncommand = \"x\"\nexpose = \"all\"\n",
			failed:    githubDown,
			described: []string{"slugify"},
			tools:     []string{"slugify=local ask"},
		},
		{
			name:      "settings for a described executable while a server that may have its name is down",
			layer:     "[mcp_servers.github]\ncommand = \"x\"\nexpose = \"all\"\n[tools.slugify]\nrun = \"unattended\"\n",
			failed:    githubDown,
			described: []string{"slugify"},
			tools:     []string{"slugify=local unattended"},
		},
		{
			name:      "settings for a name a described executable and a server have",
			layer:     "[mcp_servers.github]\ncommand = \"x\"\nexpose = \"all\"\n" + settings,
			servers:   map[string][]string{"github": {"create_issue", "list_issues"}},
			described: []string{"create_issue"},
			tools:     []string{"list_issues=mcp.github ask"},
			errs:      []string{`tools.create_issue: the discovery directories and the MCP server github both have a tool named create_issue; say which one these settings are for: source = "local.create_issue" or source = "mcp.github.create_issue"`},
		},
		{
			name:    "settings for no tool while a server with no list on record is down",
			layer:   twoServers + "[tools.nothing]\nrun = \"unattended\"\n",
			servers: evilOnly, failed: githubDown,
			tools: []string{"create_issue=mcp.a_evil ask", "evil_only=mcp.a_evil ask"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

// qualifiedTools are the lines of the tools of each server given under
// the server's name, as servers that share all their names have them.
func qualifiedTools(servers, tools []string) []string {
	var out []string
	for _, s := range servers {
		for _, n := range tools {
			out = append(out, fmt.Sprintf("%s__%s=mcp.%s.%s ask", s, n, s, n))
		}
	}
	return out
}

// nameCase is a case of the name rules: a layer, what the servers listed,
// the described executables, and the servers that failed (with what they
// listed last); and the tools (name=source run), errors and warnings of
// the catalog they build.
type nameCase struct {
	name      string
	layer     string
	servers   map[string][]string
	described []string
	failed    map[string]bool
	known     map[string][]string
	tools     []string
	errs      []string
	warnings  []string
}

func (tt nameCase) check(t *testing.T) {
	cfg, err := layerConfig(tt.layer)
	if err != nil {
		t.Fatal(err)
	}
	f := resolve.Found{Servers: servers(tt.servers), Described: map[string]resolve.Described{}, Failed: tt.failed, Known: tt.known}
	for _, n := range tt.described {
		f.Described[n] = resolve.Described{Path: "/t/" + n, Discovered: resolve.Discovered{Name: n, InputSchema: resolve.MustSchema(`{"type":"object"}`)}}
	}
	c, err := resolve.Build(cfg, f)
	if diff := cmp.Diff(tt.errs, errLines(err)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	var tools []string
	for _, d := range c.Tools {
		tools = append(tools, fmt.Sprintf("%s=%s %s", d.Name, d.Source, d.Run))
	}
	if diff := cmp.Diff(tt.tools, tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(tt.warnings, errLines(c.Warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestNameSchemes: under a scheme the tools of each server are named by
// it, and tools of different servers never share a name; config keys
// name tools as the catalog does, and settings that name a tool as its
// server does are an error that says under which name to write them.
func TestNameSchemes(t *testing.T) {
	const twoServers = "[mcp_servers.a_evil]\ncommand = \"x\"\n[mcp_servers.github]\ncommand = \"x\"\n"
	const scheme = "tool_names = \"{server}__{tool}\"\n"
	both := map[string][]string{"a_evil": {"create_issue", "evil_only"}, "github": {"create_issue", "list_issues"}}
	all := []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask", "github__create_issue=mcp.github.create_issue ask", "github__list_issues=mcp.github.list_issues ask"}
	githubDown := map[string]bool{"mcp_servers.github": true}
	tests := []nameCase{
		{
			name:    "every server's tools under their server's name",
			layer:   scheme + twoServers,
			servers: both,
			tools:   all,
		},
		{
			name:    "Claude Code's scheme",
			layer:   "tool_names = \"mcp__{server}__{tool}\"\n" + twoServers,
			servers: both,
			tools:   []string{"mcp__a_evil__create_issue=mcp.a_evil.create_issue ask", "mcp__a_evil__evil_only=mcp.a_evil.evil_only ask", "mcp__github__create_issue=mcp.github.create_issue ask", "mcp__github__list_issues=mcp.github.list_issues ask"},
		},
		{
			name:    "one server's scheme",
			layer:   twoServers + "tool_names = \"gh_{tool}\"\n",
			servers: both,
			tools:   []string{"create_issue=mcp.a_evil ask", "evil_only=mcp.a_evil ask", "gh_create_issue=mcp.github.create_issue ask", "gh_list_issues=mcp.github.list_issues ask"},
		},
		{
			name:    "a server keeps its own names under the config's scheme",
			layer:   scheme + twoServers + "tool_names = \"{tool}\"\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask", "create_issue=mcp.github ask", "list_issues=mcp.github ask"},
		},
		{
			name:    "a scheme without the server's name: the servers' tools still share names",
			layer:   "tool_names = \"x_{tool}\"\n" + twoServers,
			servers: both,
			tools:   []string{"a_evil__x_create_issue=mcp.a_evil.create_issue ask", "github__x_create_issue=mcp.github.create_issue ask", "x_evil_only=mcp.a_evil.evil_only ask", "x_list_issues=mcp.github.list_issues ask"},
			warnings: []string{`renamed: mcp_servers.github: the MCP servers a_evil and github both have a tool named x_create_issue; neither gets the name: they are a_evil__x_create_issue and github__x_create_issue; ` +
				`to give the name to one: [tools.x_create_issue] source = "mcp.a_evil.create_issue"; or name every server's tools so: tool_names = "{server}__{tool}"; or leave it out of one server with expose or disabled_tools`},
		},
		{
			name:    "settings under the name the scheme gives",
			layer:   scheme + twoServers + "[tools.github__create_issue]\nrun = \"unattended\"\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask", "github__create_issue=mcp.github.create_issue unattended", "github__list_issues=mcp.github.list_issues ask"},
		},
		{
			name:    "settings under the server's own name: an error, and the tool is left out",
			layer:   scheme + twoServers + "[tools.list_issues]\nrun = \"unattended\"\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask", "github__create_issue=mcp.github.create_issue ask"},
			errs: []string{`tools.list_issues: no tool is named list_issues under tool_names: the MCP server github's is github__list_issues; it is left out until these settings say which tool they are for; ` +
				`write them under [tools.github__list_issues]; or keep the name list_issues for one: source = "mcp.github.list_issues"`},
		},
		{
			name:    "a tool turned off under the server's own name: an error, and the tool is left out",
			layer:   scheme + twoServers + "[tools.list_issues]\nenable = false\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask", "github__create_issue=mcp.github.create_issue ask"},
			errs: []string{`tools.list_issues: no tool is named list_issues under tool_names: the MCP server github's is github__list_issues; it is left out until these settings say which tool they are for; ` +
				`write them under [tools.github__list_issues]; or keep the name list_issues for one: source = "mcp.github.list_issues"`},
		},
		{
			name:    "settings under the own name of two servers' tools",
			layer:   scheme + twoServers + "[tools.create_issue]\nrun = \"unattended\"\n",
			servers: both,
			tools:   []string{"a_evil__evil_only=mcp.a_evil.evil_only ask", "github__list_issues=mcp.github.list_issues ask"},
			errs: []string{`tools.create_issue: no tool is named create_issue under tool_names: those of the MCP servers a_evil and github are a_evil__create_issue and github__create_issue; they are left out until these settings say which tool they are for; ` +
				`write them under [tools.a_evil__create_issue] or [tools.github__create_issue]; or keep the name create_issue for one: source = "mcp.a_evil.create_issue"`},
		},
		{
			name:    "settings under a name another tool has are that tool's",
			layer:   twoServers + "tool_names = \"{server}__{tool}\"\n[tools.create_issue]\nrun = \"unattended\"\n",
			servers: both,
			tools:   []string{"create_issue=mcp.a_evil unattended", "evil_only=mcp.a_evil ask", "github__create_issue=mcp.github.create_issue ask", "github__list_issues=mcp.github.list_issues ask"},
		},
		{
			name:    "a source keeps the server's own name",
			layer:   scheme + twoServers + "[tools.create_issue]\nsource = \"mcp.github\"\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask", "create_issue=mcp.github ask", "github__list_issues=mcp.github.list_issues ask"},
		},
		{
			name:    "a source under the name the scheme gives",
			layer:   scheme + twoServers + "[tools.github__create_issue]\nsource = \"mcp.github\"\nrun = \"unattended\"\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask", "github__create_issue=mcp.github.create_issue unattended", "github__list_issues=mcp.github.list_issues ask"},
		},
		{
			name:    "a name of the config's own",
			layer:   scheme + twoServers + "[tools.issue]\nsource = \"mcp.github.create_issue\"\n",
			servers: both,
			tools:   []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask", "github__list_issues=mcp.github.list_issues ask", "issue=mcp.github.create_issue ask"},
		},
		{
			name:    "a source that names a tool the server does not have",
			layer:   scheme + twoServers + "[tools.github__create_isue]\nsource = \"mcp.github\"\n",
			servers: both,
			tools:   all,
			errs:    []string{`tools.github__create_isue.source: the MCP server github has no tool named create_isue; did you mean create_issue?`},
		},
		{
			name:     "a typo of a name the scheme gives",
			layer:    scheme + twoServers + "[tools.github__create_isue]\nrun = \"unattended\"\n",
			servers:  both,
			tools:    all,
			warnings: []string{`skipped: tools.github__create_isue: no tool of this name is defined or discovered; its settings apply to nothing; did you mean github__create_issue?`},
		},
		{
			name:    "expose lists the server's own names",
			layer:   scheme + "[mcp_servers.github]\ncommand = \"x\"\nexpose = [\"create_issue\"]\n",
			servers: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools:   []string{"github__create_issue=mcp.github.create_issue ask"},
		},
		{
			name:    "disabled_tools lists the server's own names",
			layer:   scheme + "[mcp_servers.github]\ncommand = \"x\"\ndisabled_tools = [\"create_issue\"]\n",
			servers: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools:   []string{"github__list_issues=mcp.github.list_issues ask"},
		},
		{
			name:    "a name too long under the scheme",
			layer:   scheme + "[mcp_servers." + strings.Repeat("s", 100) + "]\ncommand = \"x\"\n",
			servers: map[string][]string{strings.Repeat("s", 100): {"short", strings.Repeat("t", 30)}},
			tools:   []string{strings.Repeat("s", 100) + "__short=mcp." + strings.Repeat("s", 100) + ".short ask"},
			warnings: []string{`skipped: mcp_servers.` + strings.Repeat("s", 100) + `: the tool ` + strings.Repeat("t", 30) + ` is left out: its name ` + strings.Repeat("s", 100) + "__" + strings.Repeat("t", 30) + ` is longer than 128 characters; ` +
				`give it a name of yours: [tools.<name>] source = "mcp.` + strings.Repeat("s", 100) + "." + strings.Repeat("t", 30) + `"`},
		},
		{
			name:    "a server that is down keeps its names",
			layer:   scheme + twoServers + "[tools.github__list_issues]\nrun = \"unattended\"\n",
			servers: map[string][]string{"a_evil": {"create_issue", "evil_only"}}, failed: githubDown, known: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools: []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask"},
		},
		{
			name:    "settings for a tool of a server that is down with no list on record",
			layer:   scheme + twoServers + "[tools.github__list_issues]\nrun = \"unattended\"\n",
			servers: map[string][]string{"a_evil": {"create_issue", "evil_only"}}, failed: githubDown,
			tools: []string{"a_evil__create_issue=mcp.a_evil.create_issue ask", "a_evil__evil_only=mcp.a_evil.evil_only ask"},
		},
		{
			name:    "settings for another server's tool while a server with no list on record is down",
			layer:   scheme + twoServers + "[tools.a_evil__create_issue]\nrun = \"unattended\"\n",
			servers: map[string][]string{"a_evil": {"create_issue", "evil_only"}}, failed: githubDown,
			tools: []string{"a_evil__create_issue=mcp.a_evil.create_issue unattended", "a_evil__evil_only=mcp.a_evil.evil_only ask"},
		},
		{
			name:      "an executable keeps its name beside the servers' schemes",
			layer:     scheme + twoServers,
			servers:   both,
			described: []string{"create_issue"},
			tools:     append([]string{all[0], all[1], "create_issue=local ask"}, all[2:]...),
		},
		{
			name:      "settings under an executable's name are the executable's",
			layer:     scheme + twoServers + "[tools.create_issue]\nrun = \"unattended\"\n",
			servers:   both,
			described: []string{"create_issue"},
			tools:     append([]string{all[0], all[1], "create_issue=local unattended"}, all[2:]...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}
