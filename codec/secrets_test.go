package codec_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
)

func TestSecretsEncode(t *testing.T) {
	var sec codec.Secrets
	sec.Hide(partial.Path{"mcp_servers", "s", "args", "1"}, "K", "<from ${env:K}>")
	sec.Hide(partial.Path{"mcp_servers", "s", "env", "T"}, "K", "<from ${env:K}>")
	sec.Hide(partial.Path{"mcp_servers", "s", "env", "E"}, "", "<from ${env:EMPTY}>") // hides nothing
	tests := []struct {
		name string
		v    any
		want string
	}{
		{
			name: "a value elsewhere (here, not under mcp_servers) is not hidden",
			v:    config.MCPServers{"s": {Command: "srv", Args: []string{"--key", "K"}, Env: map[string]string{"T": "K", "L": "K", "E": ""}}},
			want: `[s]
command = "srv"
args = ["--key", "K"]

[s.env]
E = ""
L = "K"
T = "K"
`,
		},
		{
			name: "a list another layer prepended to",
			v:    config.Config{MCPServers: config.MCPServers{"s": {Args: []string{"--x", "--key", "K"}, Env: map[string]string{"T": "K", "L": "K", "E": ""}}}},
			want: `[mcp_servers.s]
args = ["--x", "--key", "<from ${env:K}>"]

[mcp_servers.s.env]
E = ""
L = "K"
T = "<from ${env:K}>"
`,
		},
		{
			name: "a layer",
			v: &config.Partial{MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
				"s": {Args: partial.List[string]{Tail: []string{"K"}}},
			}}},
			want: `[mcp_servers.s]
args = { value = ["<from ${env:K}>"], strategy = "append" }
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := sec.Encode(tt.v, partial.TOML)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSecretsText(t *testing.T) {
	var sec codec.Secrets
	sec.Hide(partial.Path{"mcp_servers", "s", "env", "T"}, "K", "<from ${input:t}>")
	tests := []struct {
		name string
		at   partial.Path
		v    any
		want string
	}{
		{"the value", partial.Path{"mcp_servers", "s", "env", "T"}, "K", `"<from ${input:t}>"`},
		{"its table", partial.Path{"mcp_servers", "s", "env"}, map[string]string{"T": "K", "U": "K"}, `{ T = "<from ${input:t}>", U = "K" }`},
		{"its server", partial.Path{"mcp_servers", "s"}, config.MCPServer{Env: map[string]string{"T": "K"}}, `{ env = { T = "<from ${input:t}>" } }`},
		{"another path", partial.Path{"mcp_servers", "s", "env", "U"}, "K", `"K"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sec.Text(tt.at, tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var none *codec.Secrets
	if got, _ := none.Text(partial.Path{"mcp_servers", "s", "env", "T"}, "K"); got != `"K"` {
		t.Errorf("nil Secrets: %s", got)
	}
}
