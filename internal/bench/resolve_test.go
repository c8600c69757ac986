package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/testbin"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// describeScript is a --describe shell tool; %s is what it does first
// when asked to describe itself.
const describeScript = `#!/bin/sh
if [ "$1" = --describe ]; then
  %s
  cat <<'END'
{"name":"tool_%04d","description":"Counts things in a file. Reads it once.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"The file."},"limit":{"type":"integer","default":10}},"required":["path"]}}
END
  exit 0
fi
echo '{"ok":true}'
`

// describeTools writes n --describe shell tools into a workspace and
// returns its root; each runs first (a shell command, such as a sleep)
// when asked to describe itself.
func describeTools(b *testing.B, n int, first string) string {
	if first == "" {
		first = ":"
	}
	root := b.TempDir()
	for i := range n {
		name := filepath.Join(root, "tools", fmt.Sprintf("tool_%04d", i))
		write(b, name, fmt.Sprintf(describeScript, first, i))
		if err := os.Chmod(name, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	write(b, filepath.Join(root, ".strata", "config.toml"), "[discover]\ndirs = [\"../tools\"]\n")
	return root
}

func write(b *testing.B, path, data string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		b.Fatal(err)
	}
}

// loadConfig loads the workspace at root with only its own files.
func loadConfig(b *testing.B, root string, environ []string) config.Config {
	b.Helper()
	app := load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Dir: root, Environ: environ, Trust: trust.List{Workspaces: []string{root}}}
	res, err := app.Load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return res.Config
}

var benchEnviron = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "STRATA_CONFIG_HOME=/nonexistent"}

// resolveWith discovers the tools of cfg with r and builds their catalog,
// as the root's Workspace does.
func resolveWith(r *discover.Resolver, cfg config.Config) (*resolve.Catalog, error) {
	f, err := r.Discover(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return resolve.Build(cfg, f)
}

// resolveLoop resolves cfg b.N times, checking the number of tools and of
// programs started, and reports the programs started per resolution.
func resolveLoop(b *testing.B, r discover.Resolver, cfg config.Config, tools, started int) {
	b.Helper()
	total := 0
	for b.Loop() {
		c, err := resolveWith(&r, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Tools) != tools || c.Started != started {
			b.Fatalf("%d tools, %d programs started; want %d, %d", len(c.Tools), c.Started, tools, started)
		}
		total += c.Started
	}
	b.ReportMetric(float64(total)/float64(b.N), "procs/op")
}

// BenchmarkDescribe discovers 200 --describe shell tools: a sequential loop
// that runs each in turn, the same loop with a worker per CPU (the floor:
// what a bare Go program that runs them with os/exec takes), strata's
// parallel discovery with nothing cached (without a cache, and with an
// empty one), with every answer cached and asked again (--refresh), and
// strata answering from its cache; then the same as whole processes (see
// describeProcesses).
func BenchmarkDescribe(b *testing.B) {
	benchDescribe(b, 200, "", false)
}

// BenchmarkDescribeWaiting is BenchmarkDescribe with 100 tools that each
// wait 20 ms before they answer, as a tool does that starts a slow
// interpreter or asks a server: there parallel discovery has waits to
// overlap even on a machine that starts processes one at a time. Its
// cold runs are measured against the sequential loop (x-sequential).
func BenchmarkDescribeWaiting(b *testing.B) {
	benchDescribe(b, 100, "sleep 0.02", true)
}

// benchDescribe runs n tools that run first when asked to describe
// themselves. The floor of strata's cold runs is the parallel loop, or the
// sequential one with sequential set.
func benchDescribe(b *testing.B, n int, first string, sequential bool) {
	root := describeTools(b, n, first)
	cfg := loadConfig(b, root, benchEnviron)
	// describeAll runs --describe of every tool with the given number of
	// workers, the way a plain loop over os/exec does.
	describeAll := func(b *testing.B, workers int) {
		entries, err := os.ReadDir(filepath.Join(root, "tools"))
		if err != nil {
			b.Fatal(err)
		}
		names := make([]string, len(entries))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < len(entries); i = int(next.Add(1)) - 1 {
					cmd := exec.Command(filepath.Join(root, "tools", entries[i].Name()), "--describe")
					cmd.Dir = root
					cmd.Env = benchEnviron
					out, err := cmd.Output()
					if err != nil {
						b.Error(err)
						return
					}
					var d struct {
						Name       string          `json:"name"`
						Parameters json.RawMessage `json:"parameters"`
					}
					if err := json.Unmarshal(out, &d); err != nil {
						b.Error(err)
						return
					}
					names[i] = d.Name
				}
			})
		}
		wg.Wait()
		sort.Strings(names)
		if names[0] == "" || len(names) != n {
			b.Fatalf("%d tools, the first %q", len(names), names[0])
		}
	}
	// The baseline: each --describe in turn.
	b.Run("sequential-loop", func(b *testing.B) {
		for b.Loop() {
			describeAll(b, 1)
		}
	})
	// What the machine gives to parallel processes: the same loop with a
	// worker per CPU, and nothing else of strata's.
	b.Run("parallel-loop", func(b *testing.B) {
		for b.Loop() {
			describeAll(b, runtime.NumCPU())
		}
	})
	// strata with nothing cached: without a cache, and with an empty one
	// (as the command line's first run: keys computed, answers stored);
	// and with --refresh, every answer cached and asked again.
	// Each iteration also runs the floor (the parallel loop, or the
	// sequential one), untimed: x-floor (x-sequential) is strata's time
	// over the floor's in the same iterations, so that load on the machine
	// moves both alike.
	workers, metric := runtime.NumCPU(), "x-floor"
	if sequential {
		workers, metric = 1, "x-sequential"
	}
	for _, c := range []struct {
		name            string
		cached, refresh bool
	}{{"strata-cold", false, false}, {"strata-cold-cached", true, false}, {"strata-refresh", true, true}} {
		cached := c.cached
		b.Run(c.name, func(b *testing.B) {
			r := discover.Resolver{Root: root, Environ: benchEnviron, Refresh: c.refresh}
			caches := b.TempDir()
			if c.refresh {
				// Every answer is in the cache, and is asked again.
				r.Cache = &cache.Cache{Dir: caches}
				if _, err := resolveWith(&r, cfg); err != nil {
					b.Fatal(err)
				}
				cached = false
			}
			var took, floor time.Duration
			runFloor := func() {
				b.StopTimer()
				start := time.Now()
				describeAll(b, workers)
				floor += time.Since(start)
				b.StartTimer()
			}
			i := 0
			for b.Loop() {
				if cached {
					b.StopTimer()
					dir, err := os.MkdirTemp(caches, "")
					if err != nil {
						b.Fatal(err)
					}
					r.Cache = &cache.Cache{Dir: dir}
					b.StartTimer()
				}
				// The floor runs before strata in one iteration, after it
				// in the next, so that neither always finds the other's
				// leftovers (page cache, exiting processes).
				if i%2 == 0 {
					runFloor()
				}
				start := time.Now()
				c, err := resolveWith(&r, cfg)
				took += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if len(c.Tools) != n || c.Started != n {
					b.Fatalf("%d tools, %d programs started; want %d, %d", len(c.Tools), c.Started, n, n)
				}
				if i%2 == 1 {
					runFloor()
				}
				i++
			}
			b.ReportMetric(float64(took)/float64(floor), metric)
		})
	}
	b.Run("strata-warm", func(b *testing.B) {
		store := &cache.Cache{Dir: b.TempDir()}
		r := discover.Resolver{Root: root, Environ: benchEnviron, Cache: store}
		if _, err := resolveWith(&r, cfg); err != nil {
			b.Fatal(err)
		}
		resolveLoop(b, r, cfg, n, 0)
	})
	if !sequential {
		describeProcesses(b, root, n)
	}
}

// describeProcesses measures discovery as whole processes, as a user
// meets it: process-floor runs describeall, a bare Go program that runs
// every tool of the directory with --describe, a worker per CPU;
// process-strata-cold runs strata resolve of the workspace with an empty
// cache, process-strata-refresh with every answer cached and --refresh.
// Each reports x-floor, its time over describeall's in the same
// iterations (each iteration runs both, in turns first).
func describeProcesses(b *testing.B, root string, n int) {
	const describeall = "github.com/strata-config/strata/internal/bench/describeall"
	bins, err := testbin.BuildStatic(testbin.Strata, describeall)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, cmd *exec.Cmd, check func([]byte) bool) time.Duration {
		cmd.Dir = root
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		if err != nil || !check(out) {
			var stderr []byte
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				stderr = ee.Stderr[:min(len(ee.Stderr), 2000)]
			}
			b.Fatalf("%v: %v: %.200q\n%s", cmd.Args, err, out, stderr)
		}
		return took
	}
	floor := func(b *testing.B) time.Duration {
		cmd := exec.Command(bins[describeall], filepath.Join(root, "tools"))
		cmd.Env = benchEnviron
		return run(b, cmd, func(out []byte) bool { return strings.TrimSpace(string(out)) == strconv.Itoa(n) })
	}
	strata := func(b *testing.B, home string, args ...string) time.Duration {
		cmd := exec.Command(bins[testbin.Strata], append([]string{"resolve", "--root", root, "--trust"}, args...)...)
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home}
		return run(b, cmd, func(out []byte) bool {
			var cat struct{ Tools []json.RawMessage }
			return json.Unmarshal(out, &cat) == nil && len(cat.Tools) == n
		})
	}
	b.Run("process-floor", func(b *testing.B) {
		for b.Loop() {
			floor(b)
		}
	})
	homes := b.TempDir()
	for _, c := range []struct {
		name    string
		refresh bool
	}{{"process-strata-cold", false}, {"process-strata-refresh", true}} {
		b.Run(c.name, func(b *testing.B) {
			home, err := os.MkdirTemp(homes, "")
			if err != nil {
				b.Fatal(err)
			}
			var args []string
			if c.refresh {
				args = []string{"--refresh"}
				strata(b, home) // every answer cached
			}
			var took, base time.Duration
			i := 0
			for b.Loop() {
				b.StopTimer()
				if !c.refresh {
					// An empty cache.
					if home, err = os.MkdirTemp(homes, ""); err != nil {
						b.Fatal(err)
					}
				}
				if i%2 == 0 {
					base += floor(b)
				}
				b.StartTimer()
				took += strata(b, home, args...)
				b.StopTimer()
				if i%2 == 1 {
					base += floor(b)
				}
				b.StartTimer()
				i++
			}
			b.ReportMetric(float64(took)/float64(base), "x-floor")
		})
	}
}
