package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// TestNameScheme: a scheme names a server's tool, and gives back the
// server's name for it from the catalog's.
func TestNameScheme(t *testing.T) {
	tests := []struct {
		name   string
		scheme config.NameScheme
		server string
		tool   string
		want   string
	}{
		{name: "unset is the server's own names", scheme: "", server: "gh", tool: "create_issue", want: "create_issue"},
		{name: "bare", scheme: config.BareNames, server: "gh", tool: "create_issue", want: "create_issue"},
		{name: "mcphost's", scheme: config.ServerNames, server: "gh", tool: "create_issue", want: "gh__create_issue"},
		{name: "Claude Code's", scheme: config.ClaudeCodeNames, server: "gh", tool: "create_issue", want: "mcp__gh__create_issue"},
		{name: "a prefix of one's own", scheme: "git-{tool}", server: "gh", tool: "log", want: "git-log"},
		{name: "after the tool", scheme: "{tool}.{server}", server: "gh", tool: "log", want: "log.gh"},
		{name: "no separator", scheme: "{server}{tool}", server: "gh", tool: "log", want: "ghlog"},
		{name: "placeholders in the names stay as they are", scheme: config.ServerNames, server: "{tool}", tool: "{server}", want: "{tool}__{server}"},
		{name: "a tool whose name holds the separator", scheme: config.ServerNames, server: "a", tool: "b__c", want: "a__b__c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.scheme.Name(tt.server, tt.tool)
			if got != tt.want {
				t.Errorf("Name(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
			}
			tool, ok := tt.scheme.Tool(tt.server, got)
			if !ok || tool != tt.tool {
				t.Errorf("Tool(%q, %q) = %q, %v, want %q", tt.server, got, tool, ok, tt.tool)
			}
		})
	}
}

// TestNameSchemeTool: a name that the scheme cannot give the server's
// tools is none of them.
func TestNameSchemeTool(t *testing.T) {
	tests := []struct {
		name   string
		scheme config.NameScheme
		server string
		in     string
		want   string
		ok     bool
	}{
		{name: "another server's", scheme: config.ServerNames, server: "gh", in: "gl__create_issue"},
		{name: "a bare name", scheme: config.ServerNames, server: "gh", in: "create_issue"},
		{name: "the prefix alone", scheme: config.ServerNames, server: "gh", in: "gh__"},
		{name: "the prefix and suffix overlap", scheme: "{server}_x_{tool}_x", server: "a", in: "a_x_x"},
		{name: "empty", scheme: "", server: "gh", in: ""},
		{name: "bare takes any name", scheme: config.BareNames, server: "gh", in: "gh__x", want: "gh__x", ok: true},
		{name: "a suffix", scheme: "{tool}.{server}", server: "gh", in: "log.gh", want: "log", ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.scheme.Tool(tt.server, tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Tool(%q, %q) = %q, %v, want %q, %v", tt.server, tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestToolNamesFromFile: tool_names is read from a file, for every server
// and for one; a scheme that is not one is an error at its place, with
// the fix.
func TestToolNamesFromFile(t *testing.T) {
	tests := []struct {
		name string
		file string
		want map[string]config.NameScheme // by server
		err  string
	}{
		{
			name: "unset",
			file: "[mcp_servers.a]\ncommand = \"x\"\n",
			want: map[string]config.NameScheme{"a": config.BareNames},
		},
		{
			name: "for every server, and one of its own",
			file: "tool_names = \"{server}__{tool}\"\n[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.b]\ncommand = \"x\"\ntool_names = \"{tool}\"\n[mcp_servers.c]\ncommand = \"x\"\ntool_names = \"mcp__{server}__{tool}\"\n",
			want: map[string]config.NameScheme{"a": config.ServerNames, "b": config.BareNames, "c": config.ClaudeCodeNames},
		},
		{
			name: "no {tool}",
			file: "tool_names = \"gh_\"\n",
			err:  `layer:1:14: tool_names: invalid tool_names "gh_": it has no {tool}; write a template of {tool} (the tool's name on its server) and {server} (the server's name), such as "{server}__{tool}"; "{tool}" keeps the servers' names`,
		},
		{
			name: "empty",
			file: "[mcp_servers.a]\ncommand = \"x\"\ntool_names = \"\"\n",
			err:  `layer:3:14: mcp_servers.a.tool_names: invalid tool_names "": it is empty; write a template of {tool} (the tool's name on its server) and {server} (the server's name), such as "{server}__{tool}"; "{tool}" keeps the servers' names`,
		},
		{
			name: "{tool} twice",
			file: "tool_names = \"{tool}{tool}\"\n",
			err:  `layer:1:14: tool_names: invalid tool_names "{tool}{tool}": {tool} is there more than once; write a template of {tool} (the tool's name on its server) and {server} (the server's name), such as "{server}__{tool}"; "{tool}" keeps the servers' names`,
		},
		{
			name: "{server} twice",
			file: "tool_names = \"{server}{server}{tool}\"\n",
			err:  `layer:1:14: tool_names: invalid tool_names "{server}{server}{tool}": {server} is there more than once; write a template of {tool} (the tool's name on its server) and {server} (the server's name), such as "{server}__{tool}"; "{tool}" keeps the servers' names`,
		},
		{
			name: "another placeholder",
			file: "tool_names = \"{name}_{tool}\"\n",
			err:  `layer:1:14: tool_names: invalid tool_names "{name}_{tool}": the only placeholders are {server} and {tool}; write a template of {tool} (the tool's name on its server) and {server} (the server's name), such as "{server}__{tool}"; "{tool}" keeps the servers' names`,
		},
		{
			name: "Docker's colon",
			file: "tool_names = \"{server}:{tool}\"\n",
			err:  `layer:1:14: tool_names: invalid tool_names "{server}:{tool}": ':' is not in a tool name: a name is letters, digits, '_', '-' and '.' (and OpenAI and Anthropic take no '.'); write a template of {tool} (the tool's name on its server) and {server} (the server's name), such as "{server}__{tool}"; "{tool}" keeps the servers' names`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p config.Partial
			err := codec.Decode("layer", []byte(tt.file), partial.TOML, &p)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v\nwant  %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c, err := config.Finalize(&p)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]config.NameScheme{}
			for server := range c.MCPServers {
				got[server] = c.ToolNamesOf(server)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("schemes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToolNamesValidate: a config a host builds in Go is checked as a
// file is.
func TestToolNamesValidate(t *testing.T) {
	c := config.Default()
	c.ToolNames = "{server}/{tool}"
	c.MCPServers = config.MCPServers{"a": {Command: secret.Plain("x"), StartupTimeoutSec: 1, ToolTimeoutSec: 1, ToolNames: "tool"}}
	var got []string
	for _, e := range diag.All(c.ValidateAt(partial.Path{"assistant"})) {
		got = append(got, partial.Path(e.Path).String()+": "+e.Msg)
	}
	want := []string{
		`assistant.mcp_servers.a.tool_names: invalid tool_names "tool": it has no {tool}`,
		`assistant.tool_names: invalid tool_names "{server}/{tool}": '/' is not in a tool name: a name is letters, digits, '_', '-' and '.' (and OpenAI and Anthropic take no '.')`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
