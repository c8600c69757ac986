package load_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// TestForeignSecrets: the values another client's file takes from the
// user's environment or an input are secrets (secret.String), shown as
// the reference they came from wherever the config is printed; values
// written in the file, and the editor's own path variables, are not.
func TestForeignSecrets(t *testing.T) {
	work := t.TempDir()
	files := map[string]string{
		".vscode/mcp.json": `{
	"inputs": [{"type": "promptString", "id": "pat", "description": "Token", "password": true},
	           {"type": "promptString", "id": "region", "description": "Region"}],
	"servers": {
		"gh": {"type": "stdio", "command": "gh-server",
		       "args": ["--region", "${input:region}", "--home", "${userHome}/x"],
		       "env": {"PAT": "${input:pat}", "TOKEN": "${env:TOKEN}", "LOG": "1", "MIXED": "Bearer ${env:TOKEN}"}},
		"web": {"type": "http", "url": "https://example.com/mcp?key=${env:KEY}", "headers": {"X-Key": "${env:KEY}", "X-Team": "a"}}
	}
}`,
		".mcp.json":        `{"mcpServers": {"cc": {"command": "cc-server", "args": ["${CC_KEY}", "--verbose"], "env": {"A": "${UNSET:-fallback}", "B": "plain"}}}}`,
		".cursor/mcp.json": `{"mcpServers": {"cur": {"command": "cur-server", "envFile": "` + filepath.Join(work, "cur.env") + `", "env": {"OWN": "x"}}}}`,
		"cur.env":          "FROM_FILE=file-secret\nOWN=ignored\n",
		"codex.toml":       "[mcp_servers.cx]\nurl = \"https://example.com/cx\"\nenv_http_headers = { \"X-Api-Key\" = \"API_KEY\" }\n",
		"desktop.json":     `{"mcpServers": {"desk": {"command": "desk-server", "env": {"LITERAL": "written-secret"}}}}`,
	}
	for name, content := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ask := &asker{answers: map[string]string{"pat": "pat-secret", "region": "eu-1"}}
	// The workspace is trusted: its cur.env is an envFile, which an
	// untrusted workspace's never is.
	res, err := loadClientTrusting(t, trustAll{}, work, []string{"HOME=/home/u", "TOKEN=tok-secret", "KEY=key-secret", "CC_KEY=cc-secret", "API_KEY=api-secret"}, ask.input,
		filepath.Join(work, ".vscode/mcp.json"), filepath.Join(work, ".mcp.json"), filepath.Join(work, ".cursor/mcp.json"), "codex:"+filepath.Join(work, "codex.toml"), "claude:"+filepath.Join(work, "desktop.json"))
	if err != nil {
		t.Fatal(err)
	}
	servers := res.Config.MCPServers
	tests := []struct {
		path  string
		got   secret.String
		value string
		shown string // "" when the value is shown as it is
	}{
		{"mcp_servers.gh.env.PAT", servers["gh"].Env["PAT"], "pat-secret", "<from ${input:pat}>"},
		{"mcp_servers.gh.env.TOKEN", servers["gh"].Env["TOKEN"], "tok-secret", "<from ${env:TOKEN}>"},
		{"mcp_servers.gh.env.MIXED", servers["gh"].Env["MIXED"], "Bearer tok-secret", "<from Bearer ${env:TOKEN}>"},
		{"mcp_servers.gh.args.1", servers["gh"].Args[1], "eu-1", "<from ${input:region}>"},
		{"mcp_servers.gh.args.3", servers["gh"].Args[3], "/home/u/x", ""},
		{"mcp_servers.gh.args.0", servers["gh"].Args[0], "--region", ""},
		{"mcp_servers.gh.env.LOG", servers["gh"].Env["LOG"], "1", ""},
		{"mcp_servers.web.url", servers["web"].URL, "https://example.com/mcp?key=key-secret", "<from https://example.com/mcp?key=${env:KEY}>"},
		{"mcp_servers.web.headers.X-Key", servers["web"].Headers["X-Key"], "key-secret", "<from ${env:KEY}>"},
		{"mcp_servers.web.headers.X-Team", servers["web"].Headers["X-Team"], "a", ""},
		{"mcp_servers.cc.args.0", servers["cc"].Args[0], "cc-secret", "<from ${CC_KEY}>"},
		{"mcp_servers.cc.env.A", servers["cc"].Env["A"], "fallback", "<from ${UNSET:-fallback}>"},
		{"mcp_servers.cc.env.B", servers["cc"].Env["B"], "plain", ""},
		{"mcp_servers.cur.env.FROM_FILE", servers["cur"].Env["FROM_FILE"], "file-secret", "<from FROM_FILE in " + filepath.Join(work, "cur.env") + ">"},
		{"mcp_servers.cur.env.OWN", servers["cur"].Env["OWN"], "x", ""},
		{"mcp_servers.cx.headers.X-Api-Key", servers["cx"].Headers["X-Api-Key"], "api-secret", "<from $API_KEY>"},
		{"mcp_servers.desk.env.LITERAL", servers["desk"].Env["LITERAL"], "written-secret", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			want := tt.shown
			if want == "" {
				want = tt.value
			}
			if tt.got.Reveal() != tt.value || tt.got.String() != want || tt.got.IsSecret() != (tt.shown != "") {
				t.Errorf("%s is %q, shown %q (a secret: %v); want %q, shown %q", tt.path, tt.got.Reveal(), tt.got.String(), tt.got.IsSecret(), tt.value, want)
			}
		})
	}
	// The config as printed, by the codec or by fmt, holds none of the
	// secrets.
	out, err := codec.Encode(res.Config, partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	printed := string(out) + fmt.Sprintf("%v %+v %#v %s %q", res.Config, res.Config, res.Config, servers["gh"].Args, servers["gh"].Env)
	for _, s := range []string{"pat-secret", "tok-secret", "key-secret", "cc-secret", "file-secret", "api-secret", "eu-1"} {
		if strings.Contains(printed, s) {
			t.Errorf("the config printed holds %s:\n%s", s, printed)
		}
	}
}
