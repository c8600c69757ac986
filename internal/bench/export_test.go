package bench

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
)

// BenchmarkResolveExport resolves 1,000 --describe tools, every answer
// from the cache (no program runs), a quarter of them with their
// parameters overridden by the config (a narrowed enum, a default, a
// description), and writes the catalog in every dialect: what a schema
// costs from discovery to export. resolve is discovery and the build
// alone; resolve-export adds the four exports.
func BenchmarkResolveExport(b *testing.B) {
	const n = 1000
	root := describeTools(b, n, "")
	var cfgText strings.Builder
	// OpenAI takes at most 128 tools in one request.
	cfgText.WriteString("[discover]\ndirs = [\"../tools\"]\n\n[budget.openai]\ntools = 2000\n")
	for i := 0; i < n; i += 4 {
		fmt.Fprintf(&cfgText, "\n[tools.tool_%04d.parameters.limit]\nenum = [10, 20, 50]\ndefault = 20\ndescription = \"At most this many.\"\n", i)
	}
	write(b, filepath.Join(root, ".strata", "config.toml"), cfgText.String())
	cfg := loadConfig(b, root, benchEnviron)
	r := discover.Resolver{Root: root, Environ: benchEnviron, Cache: &cache.Cache{Dir: b.TempDir()}}
	if _, err := resolveWith(&r, cfg); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		dialects []export.Dialect
	}{
		{"resolve", nil},
		{"resolve-export", []export.Dialect{export.Strata, export.OpenAI, export.Anthropic, export.MCP}},
	} {
		b.Run(c.name, func(b *testing.B) {
			bytes := 0
			for b.Loop() {
				cat, err := resolveWith(&r, cfg)
				if err != nil {
					b.Fatal(err)
				}
				if len(cat.Tools) != n || cat.Started != 0 {
					b.Fatalf("%d tools, %d programs started; want %d, 0", len(cat.Tools), cat.Started, n)
				}
				for _, f := range c.dialects {
					w, err := export.Write(cat, f, cfg.Budget)
					if err != nil {
						b.Fatal(err)
					}
					bytes += len(w.JSON())
				}
			}
			if len(c.dialects) > 0 {
				b.ReportMetric(float64(bytes)/float64(b.N), "export-bytes/op")
			}
		})
	}
}
