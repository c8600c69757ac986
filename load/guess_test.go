package load_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// modelHostPartial is a host that has a model of its own at the root, as
// nearly every LLM host does, and mounts the tools model at
// assistant.tools.
type modelHostPartial struct {
	Model     partial.Value[string] `toml:"model"`
	Assistant struct {
		Tools      config.ToolsPartial      `toml:"tools"`
		MCPServers config.MCPServersPartial `toml:"mcp_servers"`
	} `toml:"assistant"`
}

type modelHost struct {
	Model     string `toml:"model"`
	Assistant struct {
		Tools      config.Tools      `toml:"tools"`
		MCPServers config.MCPServers `toml:"mcp_servers"`
	} `toml:"assistant"`
}

// TestForeignGuessNeverHides: another client's format is guessed only from
// keys the host's type does not declare, and the guess never hides the
// file's real problems.
func TestForeignGuessNeverHides(t *testing.T) {
	tests := []struct {
		name string
		text string
		host bool // the host above, named myapp; else strata's own model
		want []string
	}{
		{
			name: "a host's own model is no guess",
			host: true,
			text: "model = \"gpt-5\"\n[assistant.tools.grep]\nrnu = \"ask\"\nresult = \"sometimes\"\n",
			want: []string{
				"config.toml:3:1: assistant.tools.grep.rnu: unknown key; did you mean run?",
				`config.toml:4:10: assistant.tools.grep.result: expected one of unattended, ask, edit, skip, found "sometimes"`,
			},
		},
		{
			name: "a host's own model, and its servers, are no guess",
			host: true,
			text: "model = \"gpt-5\"\n[assistant.mcp_servers.a]\ncommand = \"x\"\nstartup_timeout_sec = \"ten\"\n",
			want: []string{
				`config.toml:4:23: assistant.mcp_servers.a.startup_timeout_sec: expected a number, found string "ten"`,
			},
		},
		{
			name: "Codex's keys strata does not declare: the guess, and the real problems after it",
			text: "model = \"gpt-5\"\napproval_policy = \"never\"\n[tools.grep]\nrnu = \"ask\"\n",
			want: []string{
				`config.toml:1:1: this is Codex's config.toml, not a strata layer; read it as Codex's: --cfg codex:config.toml, or { path = "...", format = "codex" } in extends`,
				"config.toml:4:1: tools.grep.rnu: unknown key; did you mean run?",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			// The file lies in the working directory: trusted, for it to
			// be read at all.
			environ := []string{"STRATA_CONFIG_HOME=" + t.TempDir(), "MYAPP_CONFIG_HOME=" + t.TempDir()}
			var err error
			if tt.host {
				var defaults modelHost
				defaults.Assistant.Tools = config.Default().Tools
				a := load.App[modelHostPartial, modelHost]{Name: "myapp", Defaults: defaults, Dir: dir, Environ: environ, TrustWorkspace: true,
					Cfg: []string{"config.toml"}, MCPServers: partial.Path{"assistant", "mcp_servers"}}
				_, err = a.Load(context.Background())
			} else {
				a := load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Dir: dir, Environ: environ, TrustWorkspace: true,
					Cfg: []string{"config.toml"}, MCPServers: partial.Path{"mcp_servers"}}
				_, err = a.Load(context.Background())
			}
			var got []string
			for _, e := range diag.All(err) {
				got = append(got, strings.ReplaceAll(e.Error(), dir+string(filepath.Separator), ""))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
