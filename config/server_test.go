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

func ptr[T any](v T) *T { return &v }

// TestServerFromFile reads servers as a user writes them, in the file
// format of the README, and checks what they resolve to.
func TestServerFromFile(t *testing.T) {
	const file = `
[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
env = { LOG = "1" }
env_vars = ["GITHUB_TOKEN"]
optional = false
startup_timeout_sec = 60
tool_timeout_sec = 60
expose = "all"
enabled_tools = ["read_file", "list_directory"]
disabled_tools = ["list_directory"]
enabled = true

[mcp_servers.remote]
url = "https://example.com/mcp"
headers = { "X-Team" = "a" }
bearer_token_env_var = "EXAMPLE_TOKEN"

[mcp_servers.off]
url = "https://example.com/off"
enabled = false
enabled_tools = []

[mcp_servers.lan]
url = "http://10.1.2.3:8080/mcp"
allow_http = true

[mcp_servers.here]
url = "http://localhost:3000/mcp"

[mcp_servers.quiet]
command = "quiet-server"
expose = "none"
`
	var p config.Partial
	if err := codec.Decode("servers.toml", []byte(file), partial.TOML, &p); err != nil {
		t.Fatal(err)
	}
	c, err := config.Finalize(&p)
	if err != nil {
		t.Fatal(err)
	}
	want := config.MCPServers{
		"fs": {
			Command: secret.Plain("npx"), Args: secret.Plains("-y", "@modelcontextprotocol/server-filesystem", "."),
			Env: map[string]secret.String{"LOG": secret.Plain("1")}, EnvVars: []string{"GITHUB_TOKEN"},
			Enabled: ptr(true), StartupTimeoutSec: 60, ToolTimeoutSec: 60,
			EnabledTools: config.ToolNames{"read_file", "list_directory"}, DisabledTools: config.ToolNames{"list_directory"},
		},
		"remote": {
			URL: secret.Plain("https://example.com/mcp"), Headers: map[string]secret.String{"X-Team": secret.Plain("a")}, BearerTokenEnvVar: "EXAMPLE_TOKEN",
			ToolTimeoutSec: 60,
		},
		"off":   {URL: secret.Plain("https://example.com/off"), Enabled: ptr(false), EnabledTools: config.ToolNames{}, ToolTimeoutSec: 60},
		"lan":   {URL: secret.Plain("http://10.1.2.3:8080/mcp"), AllowHTTP: true, ToolTimeoutSec: 60},
		"here":  {URL: secret.Plain("http://localhost:3000/mcp"), ToolTimeoutSec: 60},
		"quiet": {Command: secret.Plain("quiet-server"), ToolTimeoutSec: 60, Expose: config.Expose{None: true}},
	}
	if diff := cmp.Diff(want, c.MCPServers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	fs, remote, off := c.MCPServers["fs"], c.MCPServers["remote"], c.MCPServers["off"]
	for _, tc := range []struct {
		what      string
		got, want bool
	}{
		{"fs enabled", fs.IsEnabled(), true},
		{"remote enabled (no setting)", remote.IsEnabled(), true},
		{"off enabled", off.IsEnabled(), false},
		{"fs remote", fs.IsRemote(), false},
		{"remote remote", remote.IsRemote(), true},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	// The layer written back reads back the same, [] included.
	back := config.ToPartial(c)
	c2, err := config.Finalize(back)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, c2); diff != "" {
		t.Errorf("ToPartial round trip (-want +got):\n%s", diff)
	}
}

func TestServerFromFileErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string
	}{
		{
			name: "neither command nor url, positioned at the server",
			file: "[mcp_servers.x]\nargs = [\"a\"]\n",
			want: []string{`servers.toml:1:14: mcp_servers.x: an MCP server needs a command (a program started over stdio) or a url (a remote server); write command = "npx" and its args, or url = "https://example.com/mcp"`},
		},
		{
			name: "both, at the url",
			file: "[mcp_servers.x]\ncommand = \"npx\"\nurl = \"https://example.com/mcp\"\n",
			want: []string{"servers.toml:3:1: mcp_servers.x.url: an MCP server has a command or a url, not both; remove url to start the command, or command to connect to the url"},
		},
		{
			name: "plain http to another machine, without allow_http, at the url",
			file: "[mcp_servers.x]\nurl = \"http://10.1.2.3/mcp\"\nbearer_token_env_var = \"TOKEN\"\n",
			want: []string{`servers.toml:2:1: mcp_servers.x.url: plain http to 10.1.2.3, which is not this machine, sends the token, the headers and every message in clear; use https://, or set allow_http = true under [mcp_servers.x] if the network is yours`},
		},
		{
			name: "plain http to a host name with a port",
			file: "[mcp_servers.x]\nurl = \"http://mcp.corp.example:8080/mcp\"\n",
			want: []string{`servers.toml:2:1: mcp_servers.x.url: plain http to mcp.corp.example:8080, which is not this machine, sends the token, the headers and every message in clear; use https://, or set allow_http = true under [mcp_servers.x] if the network is yours`},
		},
		{
			name: "allow_http on a server strata starts",
			file: "[mcp_servers.x]\ncommand = \"npx\"\nallow_http = true\n",
			want: []string{"servers.toml:3:1: mcp_servers.x.allow_http: allow_http is for a remote server (url); this one is started with a command; remove allow_http"},
		},
		{
			name: "Codex's millisecond timeout is not strata's key",
			file: "[mcp_servers.x]\ncommand = \"npx\"\nstartup_timeout_ms = 500\n",
			want: []string{"servers.toml:3:1: mcp_servers.x.startup_timeout_ms: unknown key; did you mean startup_timeout_sec?"},
		},
		{
			name: "enabled_tools is a list of names",
			file: "[mcp_servers.x]\ncommand = \"npx\"\nenabled_tools = 3\n",
			want: []string{`servers.toml:3:17: mcp_servers.x.enabled_tools: expected a list of tool names, found number 3`},
		},
		{
			name: "a namespace that is not a URI scheme",
			file: "[mcp_servers.x]\ncommand = \"npx\"\nnamespace = \"my docs\"\n",
			want: []string{`servers.toml:3:1: mcp_servers.x.namespace: "my docs" is not a namespace: it goes before the server's URIs as a scheme of its own; write letters, digits and - starting with a letter, such as namespace = "docs"`},
		},
		{
			name: "a prompt renamed to nothing",
			file: "[mcp_servers.x]\ncommand = \"npx\"\nprompt_names = { simple = \"\" }\n",
			want: []string{`servers.toml:3:18: mcp_servers.x.prompt_names.simple: the name served is empty; write the name to serve the prompt as, or leave it out with disabled_prompts`},
		},
		{
			name: "a misspelt prompt key",
			file: "[mcp_servers.x]\ncommand = \"npx\"\ndisable_prompts = [\"a\"]\n",
			want: []string{"servers.toml:3:1: mcp_servers.x.disable_prompts: unknown key; did you mean disabled_prompts?"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p config.Partial
			err := codec.Decode("servers.toml", []byte(tt.file), partial.TOML, &p)
			if err == nil {
				d, _ := codec.Parse("servers.toml", []byte(tt.file), partial.TOML)
				_, err = config.Finalize(&p)
				err = codec.LocateErrors(err, d)
			}
			var got []string
			for _, e := range diag.All(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
