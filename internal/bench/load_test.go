package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/trust"
)

// workspace writes a realistic set of sources: a user file of 200 tools, a
// workspace file of 1,000, and three directory files of 100 each.
func workspace(b *testing.B) (dir string, environ, cfg []string) {
	root := b.TempDir()
	write := func(path string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(filepath.Join(root, "home", "config.toml"), Layer(200, 1))
	write(filepath.Join(root, "w", ".strata", "config.toml"), Layer(1000, 2))
	write(filepath.Join(root, "w", ".strata.toml"), Layer(100, 3))
	write(filepath.Join(root, "w", "a", ".strata.toml"), Layer(100, 4))
	write(filepath.Join(root, "w", "a", "b", ".strata.toml"), Layer(100, 5))
	environ = []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home"), "HOME=/nonexistent", "PATH=/usr/bin"}
	for i := 0; i < 20; i++ {
		environ = append(environ, fmt.Sprintf("STRATA_TOOLS_TOOL_%04d_RUN=skip", i*7))
	}
	for i := 0; i < 5; i++ {
		cfg = append(cfg, fmt.Sprintf("tools.tool_%04d.summary=override %d", i*11, i))
	}
	return filepath.Join(root, "w", "a", "b"), environ, cfg
}

// BenchmarkLoadSources loads every source with provenance off and on.
func BenchmarkLoadSources(b *testing.B) {
	dir, environ, cfg := workspace(b)
	for _, provenance := range []bool{false, true} {
		b.Run(fmt.Sprintf("provenance=%v", provenance), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				app := load.App[config.Partial, config.Config]{
					Name: "strata", Defaults: config.Default(), Dir: dir, Environ: environ, Cfg: cfg, Provenance: provenance,
					Trust: trust.List{Workspaces: []string{filepath.Dir(filepath.Dir(dir))}},
				}
				if _, err := app.Load(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
