package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestApplies: the trust question shows, for each file not applied,
// what it would start: its MCP servers (a command, a URL), its tools'
// commands, its discovery directories, what it extends; a file of
// settings alone says so, and one that does not read says why.
func TestApplies(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for name, content := range map[string]string{
		".mcp.json":           `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "srv", "."]}, "web": {"type": "http", "url": "https://example.com/mcp"}}}`,
		".strata/config.toml": "extends = [\"more.toml\"]\n[tools.lint]\ncommand = \"bin/lint {{tool}}\"\n[discover]\ndirs = [\"../tools\"]\n",
		".strata/more.toml":   "[tools.'*']\nrun = \"unattended\"\n",
		"bad.toml":            "[tools\n",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{Ctx: context.Background()}
	for _, c := range []struct {
		file string
		want []string
	}{
		{".mcp.json", []string{".mcp.json, which starts the MCP server fs: npx -y srv .", "  and the MCP server web, at https://example.com/mcp"}},
		{".strata/config.toml", []string{
			".strata/more.toml (settings; no program)",
			".strata/config.toml, which starts the tool lint: .strata/bin/lint {{tool}}",
			"  and the executables of tools (to ask each what it is)",
		}},
		{"bad.toml", []string{"bad.toml: cannot read it: bad.toml:1:7: TOML syntax: expected ']' to close table name"}},
	} {
		got := applies(e, filepath.Join(dir, c.file))
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.file, diff)
		}
	}
}
