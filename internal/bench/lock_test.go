package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
)

// BenchmarkResolveLock resolves a workspace of 1,000 --describe tools,
// every answer from the cache (no program runs), with no lock and with a
// lock of the 1,000 tools (each checked: read, its hashes recomputed, the
// catalog hashed and compared); it reports the size of the lock file
// (lock-bytes).
func BenchmarkResolveLock(b *testing.B) {
	const n = 1000
	root := describeTools(b, n, "")
	home := b.TempDir()
	environ := append(benchEnviron[:len(benchEnviron):len(benchEnviron)], "STRATA_CONFIG_HOME="+home)
	cacheDir := filepath.Join(b.TempDir(), "cache")
	open := func(b *testing.B) *strata.Workspace[config.Partial, config.Config] {
		w, err := strata.Open[config.Partial](context.Background(), config.Default(),
			strata.Dir(root), strata.Environ(environ), strata.TrustWorkspace(), strata.CacheDir(cacheDir))
		if err != nil {
			b.Fatal(err)
		}
		return w
	}
	// Warm the cache.
	w := open(b)
	if cat, err := w.Resolve(context.Background()); err != nil || len(cat.Tools) != n {
		b.Fatalf("warming: %v", err)
	}
	w.Close()
	lockPath := filepath.Join(root, ".strata", "strata.lock")
	for _, tc := range []struct {
		name string
		lock bool
	}{{"nolock", false}, {"lock", true}} {
		b.Run(tc.name, func(b *testing.B) {
			os.Remove(lockPath)
			var size int64
			if tc.lock {
				w := open(b)
				if _, err := w.WriteLock(context.Background(), false); err != nil {
					b.Fatal(err)
				}
				w.Close()
				info, err := os.Stat(lockPath)
				if err != nil {
					b.Fatal(err)
				}
				size = info.Size()
			}
			for b.Loop() {
				w := open(b)
				cat, err := w.Resolve(context.Background())
				if err != nil || len(cat.Tools) != n || cat.Started != 0 {
					b.Fatalf("%v; %d tools, %d programs started", err, len(cat.Tools), cat.Started)
				}
				if st, _ := w.Lock(context.Background()); (st.Path != "") != tc.lock || len(st.Changes) != 0 {
					b.Fatalf("lock state %+v", st)
				}
				w.Close()
			}
			b.ReportMetric(float64(size), "lock-bytes")
		})
	}
}
