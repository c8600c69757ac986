package resolve_test

import (
	"fmt"
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
// one name that the config does not mention go to none of them, with one
// warning per set of servers; and a server that is down keeps its names.
func TestNameCollisions(t *testing.T) {
	const twoServers = "[mcp_servers.a_evil]\ncommand = \"x\"\nexpose = \"all\"\n[mcp_servers.github]\ncommand = \"x\"\nexpose = \"all\"\n"
	const settings = "[tools.create_issue]\nrun = \"unattended\"\n"
	both := map[string][]string{"a_evil": {"create_issue", "evil_only"}, "github": {"create_issue", "list_issues"}}
	evilOnly := map[string][]string{"a_evil": {"create_issue", "evil_only"}}
	githubDown := map[string]bool{"mcp_servers.github": true}
	tests := []struct {
		name      string
		layer     string
		servers   map[string][]string
		described []string
		failed    map[string]bool
		known     map[string][]string
		tools     []string // name=source run
		errs      []string
		warnings  []string
	}{
		{
			name:    "settings for a name two servers have are an error",
			layer:   twoServers + settings,
			servers: both,
			tools:   []string{"evil_only=mcp.a_evil ask", "list_issues=mcp.github ask"},
			errs:    []string{`tools.create_issue: the MCP servers a_evil and github both have a tool named create_issue; say which one these settings are for: source = "mcp.a_evil.create_issue" or source = "mcp.github.create_issue"`},
		},
		{
			name:    "settings that say which",
			layer:   twoServers + settings + "source = \"mcp.github\"\n",
			servers: both,
			tools:   []string{"create_issue=mcp.github unattended", "evil_only=mcp.a_evil ask", "list_issues=mcp.github ask"},
		},
		{
			name:    "settings for a name of a server that is down, known from the cache",
			layer:   twoServers + settings,
			servers: evilOnly, failed: githubDown, known: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools: []string{"evil_only=mcp.a_evil ask"},
			errs:  []string{`tools.create_issue: the MCP servers a_evil and github both have a tool named create_issue; say which one these settings are for: source = "mcp.a_evil.create_issue" or source = "mcp.github.create_issue"`},
		},
		{
			name:    "settings for a name a server that is down may have",
			layer:   twoServers + settings,
			servers: evilOnly, failed: githubDown,
			tools:    []string{"evil_only=mcp.a_evil ask"},
			warnings: []string{`skipped: tools.create_issue: left out: the MCP server github did not answer, and may have a tool of this name too; say which tool these settings are for: source = "mcp.a_evil.create_issue"`},
		},
		{
			name:    "settings for the tool of a server that is down",
			layer:   twoServers + "[tools.list_issues]\nrun = \"unattended\"\n",
			servers: evilOnly, failed: githubDown, known: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools: []string{"evil_only=mcp.a_evil ask"},
			warnings: []string{`skipped: mcp_servers.github: the MCP servers a_evil and github both have a tool named create_issue; neither is used under that name; ` +
				`to use one, give it a name of yours: [tools.<name>] source = "mcp.a_evil.create_issue"; or leave it out of one server with expose or disabled_tools`},
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
			name:    "a name two servers have goes to neither",
			layer:   twoServers,
			servers: both,
			tools:   []string{"evil_only=mcp.a_evil ask", "list_issues=mcp.github ask"},
			warnings: []string{`skipped: mcp_servers.github: the MCP servers a_evil and github both have a tool named create_issue; neither is used under that name; ` +
				`to use one, give it a name of yours: [tools.<name>] source = "mcp.a_evil.create_issue"; or leave it out of one server with expose or disabled_tools`},
		},
		{
			name:    "a name of a server that is down goes to no other",
			layer:   twoServers,
			servers: evilOnly, failed: githubDown, known: map[string][]string{"github": {"create_issue", "list_issues"}},
			tools: []string{"evil_only=mcp.a_evil ask"},
			warnings: []string{`skipped: mcp_servers.github: the MCP servers a_evil and github both have a tool named create_issue; neither is used under that name; ` +
				`to use one, give it a name of yours: [tools.<name>] source = "mcp.a_evil.create_issue"; or leave it out of one server with expose or disabled_tools`},
		},
		{
			name:    "two filesystem servers: one warning",
			layer:   "[mcp_servers.docs]\ncommand = \"x\"\nexpose = \"all\"\n[mcp_servers.src]\ncommand = \"x\"\nexpose = \"all\"\n",
			servers: map[string][]string{"docs": fsTools, "src": fsTools},
			warnings: []string{`skipped: mcp_servers.src: the MCP servers docs and src both have 14 tools of the same names (create_directory, directory_tree, edit_file and 11 more); none of them is used under those names; ` +
				`to use one, give it a name of yours: [tools.<name>] source = "mcp.docs.create_directory"; or leave them out of one server with expose or disabled_tools`},
		},
		{
			name:    "one warning per set of servers",
			layer:   "[mcp_servers.a]\ncommand = \"x\"\nexpose = \"all\"\n[mcp_servers.b]\ncommand = \"x\"\nexpose = \"all\"\n[mcp_servers.c]\ncommand = \"x\"\nexpose = \"all\"\n",
			servers: map[string][]string{"a": {"x", "y", "z"}, "b": {"x", "y"}, "c": {"x", "w"}},
			tools:   []string{"w=mcp.c ask", "z=mcp.a ask"},
			warnings: []string{
				`skipped: mcp_servers.b: the MCP servers a and b both have a tool named y; neither is used under that name; to use one, give it a name of yours: [tools.<name>] source = "mcp.a.y"; or leave it out of one server with expose or disabled_tools`,
				`skipped: mcp_servers.c: the MCP servers a, b and c all have a tool named x; none of them is used under that name; to use one, give it a name of yours: [tools.<name>] source = "mcp.a.x"; or leave it out of all but one server with expose or disabled_tools`,
			},
		},
		{
			name:      "a described executable and a server tool of one name",
			layer:     "[mcp_servers.github]\ncommand = \"x\"\nexpose = \"all\"\n",
			servers:   map[string][]string{"github": {"create_issue", "list_issues"}},
			described: []string{"create_issue", "slugify"},
			tools:     []string{"list_issues=mcp.github ask", "slugify=local ask"},
			warnings: []string{`skipped: mcp_servers.github: the discovery directories and the MCP server github both have a tool named create_issue; neither is used under that name; ` +
				`to use one, give it a name of yours: [tools.<name>] source = "local.create_issue"; or leave it out of the server with expose or disabled_tools`},
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
			warnings:  []string{`skipped: tools.slugify: left out: the MCP server github did not answer, and may have a tool of this name too; say which tool these settings are for: source = "local.slugify"`},
		},
		{
			name:      "settings for a name a described executable and a server have",
			layer:     "[mcp_servers.github]\ncommand = \"x\"\nexpose = \"all\"\n" + settings,
			servers:   map[string][]string{"github": {"create_issue", "list_issues"}},
			described: []string{"create_issue"},
			tools:     []string{"list_issues=mcp.github ask"},
			errs:      []string{`tools.create_issue: the discovery directories and the MCP server github both have a tool named create_issue; say which one these settings are for: source = "local.create_issue" or source = "mcp.github.create_issue"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
		})
	}
}
