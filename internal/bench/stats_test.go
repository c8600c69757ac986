package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/testbin"
)

// BenchmarkStats runs strata resolve --stats over 1,000 tools the config
// describes (the first benchmark layer: nothing runs to discover them), as
// a whole process, in each export format; each iteration also runs
// strata resolve alone on the same workspace, untimed, and x-resolve is
// the ratio of the two times in the same iterations: what counting the
// tokens adds (the o200k_base vocabulary built on first use, then each
// definition counted).
func BenchmarkStats(b *testing.B) {
	bins, err := testbin.Build(testbin.Strata)
	if err != nil {
		b.Fatal(err)
	}
	strata := bins[testbin.Strata]
	dir := b.TempDir()
	home, root := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	write(b, filepath.Join(root, ".strata", "config.toml"), string(Layer(toolCount, 1)))
	if err := os.MkdirAll(home, 0o755); err != nil {
		b.Fatal(err)
	}
	environ := []string{"PATH=/usr/bin:/bin", "HOME=" + home, "STRATA_CONFIG_HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	run := func(args ...string) time.Duration {
		cmd := exec.Command(strata, append([]string{"resolve", "--trust", "--root", root}, args...)...)
		cmd.Env = environ
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		if err != nil || len(out) < 1000 {
			b.Fatalf("strata %v: %v (%d bytes)", args, err, len(out))
		}
		return took
	}
	for _, f := range []string{"openai", "anthropic", "mcp", "strata"} {
		b.Run(f, func(b *testing.B) {
			var stats, alone time.Duration
			for b.Loop() {
				stats += run("--stats", "--export", f, "--cfg", "budget.openai.tools=2000")
				b.StopTimer()
				alone += run("--export", f, "--cfg", "budget.openai.tools=2000")
				b.StartTimer()
			}
			b.ReportMetric(float64(stats)/float64(alone), "x-resolve")
			b.ReportMetric(float64(alone.Nanoseconds())/float64(b.N)/1e6, "resolve-ms")
		})
	}
}
