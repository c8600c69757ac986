package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/testbin"
)

// BenchmarkStats runs strata resolve --stats over the 800 enabled of 1,000 tools the config
// describes (the first benchmark layer: nothing runs to discover them), as
// a whole process, in each export format; each iteration also runs
// strata resolve alone on the same workspace, untimed, and x-resolve is
// the ratio of the two times in the same iterations: what counting the
// tokens adds. With the counts of the last run in the cache (the
// definitions did not change), that is hashing each definition and
// reading the counts; -uncounted removes them before each run, so that
// the o200k_base vocabulary is built and every definition counted.
func BenchmarkStats(b *testing.B) {
	bins, err := testbin.Build(testbin.Strata)
	if err != nil {
		b.Fatal(err)
	}
	strata := bins[testbin.Strata]
	dir := b.TempDir()
	home, root := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	write(b, filepath.Join(root, ".strata", "config.toml"), string(Layer(toolCount, 1)))
	for _, d := range []string{home, filepath.Join(root, ".strata", "tools-1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	environ := []string{"PATH=/usr/bin:/bin", "HOME=" + home, "STRATA_CONFIG_HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	run := func(args ...string) time.Duration {
		// The layer's MCP servers are not there: off, so that nothing
		// runs and the catalog is the config's tools.
		args = append(args, "--cfg", "budget.openai.tools=2000", "--cfg", "mcp_servers.server_0.enabled=false",
			"--cfg", "mcp_servers.server_1.enabled=false", "--cfg", "mcp_servers.server_2.enabled=false")
		cmd := exec.Command(strata, append([]string{"resolve", "--trust", "--root", root}, args...)...)
		cmd.Env = environ
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		if err != nil || len(out) < 1000 {
			b.Fatalf("strata %v: %v (%d bytes)\n%.2000s", args, err, len(out), stderr.String())
		}
		return took
	}
	cacheDir := filepath.Join(dir, "cache")
	for _, f := range []string{"openai", "anthropic", "mcp", "strata"} {
		// Counted: the counts of the last run are in the cache (nothing
		// changed); uncounted: the cache holds none, every definition is
		// counted (the first run, or every definition changed).
		for _, counted := range []bool{true, false} {
			name := f
			if !counted {
				name += "-uncounted"
			}
			b.Run(name, func(b *testing.B) {
				run("--stats", "--export", f) // the counts, and the answers
				var stats, alone time.Duration
				for b.Loop() {
					if !counted {
						b.StopTimer()
						forgetCounts(b, cacheDir)
						b.StartTimer()
					}
					stats += run("--stats", "--export", f)
					b.StopTimer()
					alone += run("--export", f)
					b.StartTimer()
				}
				b.ReportMetric(float64(stats)/float64(alone), "x-resolve")
				b.ReportMetric(float64(alone.Nanoseconds())/float64(b.N)/1e6, "resolve-ms")
			})
		}
	}
}

// forgetCounts removes the token counts kept under the cache directory.
func forgetCounts(b *testing.B, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "schemas", "tokens-*.json"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no token counts under %s (%v)", dir, err)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			b.Fatal(err)
		}
	}
}
