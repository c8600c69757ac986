package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
)

// BenchmarkResolveLock resolves a workspace of 1,000 --describe tools,
// every answer from the cache (no program runs), with a lock of the 1,000
// tools (each entry read, its hash recomputed, the catalog hashed and
// compared). Each iteration also resolves the same workspace with
// lock.policy = "off" (no lock read), untimed, and reports the ratio of
// the two (x-nolock), and the size of the lock file (lock-bytes).
func BenchmarkResolveLock(b *testing.B) {
	const n = 1000
	root := describeTools(b, n, "")
	home := b.TempDir()
	environ := append(benchEnviron[:len(benchEnviron):len(benchEnviron)], "STRATA_CONFIG_HOME="+home)
	cacheDir := filepath.Join(b.TempDir(), "cache")
	resolve := func(b *testing.B, locked bool) time.Duration {
		start := time.Now()
		opts := []strata.Option{strata.Dir(root), strata.Environ(environ), strata.TrustWorkspace(), strata.CacheDir(cacheDir)}
		if !locked {
			opts = append(opts, strata.Cfg("lock.policy=off"))
		}
		w, err := strata.Open[config.Partial](context.Background(), config.Default(), opts...)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		cat, err := w.Resolve(context.Background())
		if err != nil || len(cat.Tools) != n || cat.Started != 0 {
			b.Fatalf("%v; %d tools, %d programs started", err, len(cat.Tools), cat.Started)
		}
		if st, _ := w.Lock(context.Background()); (st.Path != "") != locked || len(st.Changes) != 0 {
			b.Fatalf("lock state %+v", st)
		}
		return time.Since(start)
	}
	// Warm the cache, then lock.
	w, err := strata.Open[config.Partial](context.Background(), config.Default(),
		strata.Dir(root), strata.Environ(environ), strata.TrustWorkspace(), strata.CacheDir(cacheDir))
	if err != nil {
		b.Fatal(err)
	}
	wrote, err := w.WriteLock(context.Background(), false)
	w.Close()
	if err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(wrote.Path)
	if err != nil {
		b.Fatal(err)
	}
	var locked, unlocked time.Duration
	for b.Loop() {
		locked += resolve(b, true)
		b.StopTimer()
		unlocked += resolve(b, false)
		b.StartTimer()
	}
	b.ReportMetric(float64(locked)/float64(unlocked), "x-nolock")
	b.ReportMetric(float64(info.Size()), "lock-bytes")
}
