package strata_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/trust"
)

// TestOpenUntrustedBrokenWorkspace: a host opens a workspace nobody
// trusted whose .strata/config.toml is a directory, or whose .strata or
// .strata.toml is a link loop: a warning, then the user's layers as usual
// and their tools resolve. Opened trusted, the broken file is an error.
func TestOpenUntrustedBrokenWorkspace(t *testing.T) {
	user := "[mcp_servers.fake]\ncommand = \"MCPFAKE\"\nargs = [\"-echo\"]\nexpose = \"all\"\n"
	tests := []struct {
		name   string
		broken func(repo string) error
		want   string // what the warning and the error name
	}{
		{"config.toml is a directory", func(repo string) error { return os.Mkdir(filepath.Join(repo, ".strata", "config.toml"), 0o755) }, "/repo/.strata/config.toml"},
		{".strata is a link loop", func(repo string) error {
			if err := os.Remove(filepath.Join(repo, ".strata")); err != nil {
				return err
			}
			return os.Symlink(".strata", filepath.Join(repo, ".strata"))
		}, "/repo/.strata"},
		{".strata.toml is a link loop", func(repo string) error { return os.Symlink(".strata.toml", filepath.Join(repo, ".strata.toml")) }, "/repo/.strata.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t, map[string]string{"home/strata/config.toml": user})
			if err := tt.broken(s.repo); err != nil {
				t.Fatal(err)
			}
			w := s.open(t)
			if ws := w.Warnings(); len(ws) != 1 || !strings.Contains(ws[0].Error(), tt.want) {
				t.Errorf("warnings %v, want one that names %s", ws, tt.want)
			}
			cat, err := w.Resolve(context.Background())
			if _, ok := cat.Tool("echo"); err != nil || !ok {
				t.Errorf("the user's tools: %v, %v", cat.Tools, err)
			}
			_, err = strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(s.repo), strata.Environ(s.environ),
				strata.TrustStore(s.store), strata.TrustWorkspace())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("trusted: %v, want an error that names %s", err, tt.want)
			}
		})
	}
}

// TestHostWorkspaceFolder: the user's own Cursor file, reached through an
// extends of the user's layer, gives its server an envFile relative to
// the workspace folder: until the workspace is trusted the server is left
// out with a warning and does not start, so the repository's .env never
// reaches it; trusted, it starts as the file says.
func TestHostWorkspaceFolder(t *testing.T) {
	s := newSetup(t, map[string]string{
		"bin/spy":                 spy,
		"home/strata/config.toml": `extends = ["../.cursor/mcp.json"]`,
		"home/.cursor/mcp.json":   `{"mcpServers": {"fake": {"command": "DIR/bin/spy", "args": ["-echo"], "envFile": ".env"}}}`,
		"repo/.env":               "LD_PRELOAD=DIR/repo/evil.so\n",
	})
	w := s.open(t)
	ws := w.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0].Error(), "mcpServers.fake.envFile: the server fake is left out: its envFile "+s.repo+"/.env is in the workspace "+s.repo+", which is not trusted") {
		t.Errorf("warnings: %v", ws)
	}
	cat, err := w.Resolve(context.Background())
	if err != nil || len(cat.Tools) != 0 {
		t.Errorf("resolve: %v, %v", cat.Tools, err)
	}
	if log := readFile(t, filepath.Join(s.dir, "spy.log")); log != "" {
		t.Fatalf("the server started: %s", log)
	}
	if err := s.store.Update(func(l *trust.List) error { l.AddWorkspace(s.repo); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.open(t).Resolve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if log := readFile(t, filepath.Join(s.dir, "spy.log")); !strings.Contains(log, "preload="+s.repo+"/evil.so") {
		t.Errorf("trusted, the server did not start with its envFile: %s", log)
	}
}
