package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// TestSecretsEncode: a value from a variable is written as its
// reference wherever it stands, in a config and in a layer; the same
// value written in a file is written as it is.
func TestSecretsEncode(t *testing.T) {
	key := secret.From("K", "${env:K}")
	tests := []struct {
		name string
		v    any
		want string
	}{
		{
			name: "the same value written in a file is shown",
			v:    config.MCPServers{"s": {Command: secret.Plain("srv"), Args: secret.Plains("--key", "K"), Env: map[string]secret.String{"L": secret.Plain("K"), "E": {}}}},
			want: `[s]
command = "srv"
args = ["--key", "K"]

[s.env]
E = ""
L = "K"
`,
		},
		{
			name: "a list another layer prepended to",
			v:    config.Config{MCPServers: config.MCPServers{"s": {Args: []secret.String{secret.Plain("--x"), secret.Plain("--key"), key}, Env: map[string]secret.String{"T": key, "L": secret.Plain("K")}}}},
			want: `[mcp_servers.s]
args = ["--x", "--key", "<from ${env:K}>"]

[mcp_servers.s.env]
L = "K"
T = "<from ${env:K}>"
`,
		},
		{
			name: "a layer",
			v: &config.Partial{MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
				"s": {Args: partial.List[secret.String]{Items: []secret.String{key}}, URL: partial.Of(secret.From("https://k.example/mcp", "https://${env:HOST}/mcp"))},
			}}},
			want: `[mcp_servers.s]
args = { value = ["<from ${env:K}>"], strategy = "append" }
url = "<from https://${env:HOST}/mcp>"
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []partial.Format{partial.TOML, partial.JSON} {
				b, err := codec.Encode(tt.v, f)
				if err != nil {
					t.Fatal(err)
				}
				if f == partial.TOML {
					if diff := cmp.Diff(tt.want, string(b)); diff != "" {
						t.Errorf("(-want +got):\n%s", diff)
					}
				}
				if strings.Contains(string(b), "k.example") {
					t.Errorf("%s holds the URL's value:\n%s", f, b)
				}
			}
		})
	}
}

func TestSecretsText(t *testing.T) {
	key := secret.From("K", "${input:t}")
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"the value", key, `"<from ${input:t}>"`},
		{"its table", map[string]secret.String{"T": key, "U": secret.Plain("K")}, `{ T = "<from ${input:t}>", U = "K" }`},
		{"its server", config.MCPServer{Env: map[string]secret.String{"T": key}}, `{ env = { T = "<from ${input:t}>" } }`},
		{"a plain one", secret.Plain("K"), `"K"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := codec.Text(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSecretsDecode: a string node marked as a secret (doc.Doc.Secrets,
// which another client's file sets as it expands a variable) decodes
// into a secret.String that prints its reference, and is refused where
// the field would keep it as plain text.
func TestSecretsDecode(t *testing.T) {
	d, err := codec.Parse("l.toml", []byte(`[mcp_servers.s]
command = "srv"
args = ["--key", "K"]
[tools.t]
description = "K"
options.o = "K"
`), partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	tree := doc.TreeOf(d)
	srv := tree.Root.Get("mcp_servers").Get("s")
	tree.Secrets = map[*doc.Node]string{srv.Get("args").Entries[1]: "${env:K}"}
	var p config.Partial
	if err := d.Decode(&p); err != nil {
		t.Fatal(err)
	}
	want := []secret.String{secret.Plain("--key"), secret.From("K", "${env:K}")}
	if got := p.MCPServers.Get("s").Args.Tail(); !cmp.Equal(want, got) {
		t.Errorf("args: %v, want %v", got, want)
	}
	for _, at := range []string{"description", "options"} {
		n := tree.Root.Get("tools").Get("t").Get(at)
		if at == "options" {
			n = n.Get("o")
		}
		tree.Secrets = map[*doc.Node]string{n: "${env:K}"}
		var q config.Partial
		err := d.Decode(&q)
		if !errors.Is(err, diag.CodeRefused) || !strings.Contains(err.Error(), "the value of ${env:K} cannot be kept here") {
			t.Errorf("a secret in tools.t.%s: %v, want it refused", at, err)
		}
	}
}
