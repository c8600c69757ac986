package strata_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestNpxServerUpgrade: a server run by a real npx (`npx -y pkg`, the
// package installed in the project's node_modules, so that npx needs no
// registry) is discovered again when the version npx would run changes,
// not before: a change npx's package.json does not show is not noticed
// until --refresh (CONTRIBUTING says what else is not).
func TestNpxServerUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and starts npm packages; runs without -short")
	}
	if _, err := exec.LookPath("npx"); err != nil {
		if os.Getenv("REQUIRE_MCP_SERVERS") != "" {
			t.Fatal("no npx")
		}
		t.Skip("no npx")
	}
	pkg := func(version string) string {
		return `{"name":"strata-fake-server","version":"` + version + `","bin":{"strata-fake-server":"bin/server.sh"}}`
	}
	s := newSetup(t, map[string]string{
		"project/node_modules/strata-fake-server/package.json":  pkg("1.0.0"),
		"project/node_modules/strata-fake-server/bin/server.sh": "#!/bin/sh\nexec MCPFAKE -tools \"$(cat DIR/count)\"\n",
		"count": "1",
		"home/strata/config.toml": `
[mcp_servers.fake]
command = "npx"
args = ["-y", "strata-fake-server"]
cwd = "DIR/project"
expose = "all"
`,
	})
	bin := filepath.Join(s.dir, "project/node_modules/.bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../strata-fake-server/bin/server.sh", filepath.Join(bin, "strata-fake-server")); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(s.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		name    string
		change  func()
		want    []string
		started int
	}{
		{"cold", func() {}, []string{"tool_000"}, 1},
		{"warm", func() {}, []string{"tool_000"}, 0},
		{"what the package does changed, not its version", func() { write("count", "2") }, []string{"tool_000"}, 0},
		{"upgraded", func() { write("project/node_modules/strata-fake-server/package.json", pkg("1.0.1")) }, []string{"tool_000", "tool_001"}, 1},
		{"warm again", func() {}, []string{"tool_000", "tool_001"}, 0},
	} {
		step.change()
		r := s.resolveOnce(t)
		names, started := r.names, r.started
		if !slices.Equal(names, step.want) || started != step.started {
			t.Errorf("%s: tools %v, %d started; want %v, %d started", step.name, names, started, step.want, step.started)
		}
	}
}
