package discover_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/launcher"
	"github.com/strata-config/strata/secret"
)

// TestServerStartup: a server whose startup_timeout_sec no layer set
// gets one by its launch: 10 s for a program, 60 s for a launcher that
// installs what it runs, 300 s when it will install first (npx: the
// package is not in its cache; uvx: strata never listed the server);
// one that a layer set is used as it is, an install or not.
func TestServerStartup(t *testing.T) {
	home := t.TempDir()
	installed := filepath.Join(home, ".npm/_npx", launcher.NpxHash([]string{"@x/installed"}), "node_modules/@x/installed/package.json")
	if err := os.MkdirAll(filepath.Dir(installed), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(installed, []byte(`{"version": "1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// uvx and docker need not be installed: a name not found in PATH is
	// its own launcher all the same.
	r := &discover.Resolver{
		Environ: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")},
		Cache:   &cache.Cache{Dir: t.TempDir()},
	}
	type want struct {
		Startup  time.Duration
		Launcher string
		Installs bool
	}
	for _, c := range []struct {
		name, command string
		args          []string
		timeout       float64
		want          want
	}{
		{"program", "node", []string{"server.js"}, 0, want{10 * time.Second, "", false}},
		{"npx, installed", "npx", []string{"-y", "@x/installed"}, 0, want{time.Minute, "npx", false}},
		{"npx, to install", "npx", []string{"-y", "@x/other"}, 0, want{5 * time.Minute, "npx", true}},
		{"uvx, never listed", "uvx", []string{"mcp-server-git"}, 0, want{5 * time.Minute, "uvx", true}},
		{"docker run --pull never", "docker", []string{"run", "--pull", "never", "-i", "img"}, 0, want{time.Minute, "docker run", false}},
		{"set", "npx", []string{"-y", "@x/other"}, 2, want{2 * time.Second, "npx", true}},
	} {
		srv := config.MCPServer{Command: secret.Plain(c.command), Args: secret.Plains(c.args...)}
		srv.SetDefaults()
		srv.StartupTimeoutSec = c.timeout
		name := c.name
		spec := r.Server(name, srv, t.TempDir(), t.TempDir())
		got := want{Startup: spec.Startup, Installs: spec.Installs}
		if spec.Launcher != nil {
			got.Launcher = spec.Launcher.Launcher
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
