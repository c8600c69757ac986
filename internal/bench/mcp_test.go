package bench

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/testbin"
)

// nodeServer returns the entry point of an npm MCP server of fixtures/mcp,
// skipping when Node or the package is missing.
func nodeServer(b *testing.B, pkg string) string {
	entry, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "mcp", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		b.Skip("no node; run npm ci --prefix fixtures/mcp")
	}
	if _, err := os.Stat(entry); err != nil {
		b.Skip(pkg + " is missing; run npm ci --prefix fixtures/mcp")
	}
	return entry
}

// BenchmarkMCP resolves the tools of the two npm MCP servers: each server
// alone (the baseline: its start and tools/list), both at once with nothing
// cached, and both from the cache, in process (discover, then
// resolve.Build). process-sdk-floor runs mcplist, a bare program over the
// official SDK's client that starts both, lists their tools and exits;
// process-strata-cold runs strata resolve of the same two servers with
// an empty cache, as a user does, and reports x-floor, its time over
// mcplist's in the same iterations (each iteration runs both, in turns
// first).
func BenchmarkMCP(b *testing.B) {
	everything := nodeServer(b, "server-everything")
	filesystem := nodeServer(b, "server-filesystem")
	// Each server may take a minute to start: on a loaded machine two Node
	// servers take longer than the default 10 s, which would end a run
	// rather than measure it.
	servers := map[string]string{
		"everything": "[mcp_servers.everything]\ncommand = \"node\"\nargs = [\"" + everything + "\"]\nexpose = \"all\"\nstartup_timeout_sec = 60\n",
		"filesystem": "[mcp_servers.filesystem]\ncommand = \"node\"\nargs = [\"" + filesystem + "\", \".\"]\nexpose = \"all\"\nstartup_timeout_sec = 60\n",
	}
	workspace := func(b *testing.B, src string) string {
		root := b.TempDir()
		write(b, filepath.Join(root, ".strata", "config.toml"), src)
		return root
	}
	toolCount := map[string]int{}
	for _, name := range []string{"everything", "filesystem"} {
		root := workspace(b, servers[name])
		cfg := loadConfig(b, root, benchEnviron)
		c, err := resolveWith(&discover.Resolver{Root: root, Environ: benchEnviron}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		toolCount[name] = len(c.Tools)
		b.Run("alone-"+name, func(b *testing.B) {
			resolveLoop(b, discover.Resolver{Root: root, Environ: benchEnviron}, cfg, len(c.Tools), 1)
		})
	}
	both := toolCount["everything"] + toolCount["filesystem"]
	root := workspace(b, servers["everything"]+servers["filesystem"])
	cfg := loadConfig(b, root, benchEnviron)
	b.Run("strata-cold", func(b *testing.B) {
		resolveLoop(b, discover.Resolver{Root: root, Environ: benchEnviron}, cfg, both, 2)
	})
	b.Run("strata-warm", func(b *testing.B) {
		r := discover.Resolver{Root: root, Environ: benchEnviron, Cache: &cache.Cache{Dir: b.TempDir()}}
		if _, err := resolveWith(&r, cfg); err != nil {
			b.Fatal(err)
		}
		resolveLoop(b, r, cfg, both, 0)
	})

	const mcplist = "github.com/strata-config/strata/internal/bench/mcplist"
	bins, err := testbin.BuildStatic(testbin.Strata, mcplist)
	if err != nil {
		b.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		b.Fatal(err)
	}
	// floor lists the tools of both servers, as a bare SDK program.
	floor := func(b *testing.B) time.Duration {
		cmd := exec.Command(bins[mcplist], node+" "+everything, node+" "+filesystem+" .")
		cmd.Dir, cmd.Env = root, benchEnviron
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(both) {
			b.Fatalf("mcplist: %v: %q, want %d tools", err, out, both)
		}
		return took
	}
	// strata resolves both servers with an empty cache.
	caches := b.TempDir()
	strata := func(b *testing.B) time.Duration {
		home, err := os.MkdirTemp(caches, "")
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bins[testbin.Strata], "resolve", "--root", root, "--trust")
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home}
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		var cat struct{ Tools []json.RawMessage }
		if err != nil || json.Unmarshal(out, &cat) != nil || len(cat.Tools) != both {
			var stderr []byte
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				stderr = ee.Stderr[:min(len(ee.Stderr), 2000)]
			}
			b.Fatalf("strata resolve: %v: %d tools, want %d\n%s", err, len(cat.Tools), both, stderr)
		}
		return took
	}
	b.Run("process-sdk-floor", func(b *testing.B) {
		for b.Loop() {
			floor(b)
		}
	})
	b.Run("process-strata-cold", func(b *testing.B) {
		var took, base time.Duration
		i := 0
		for b.Loop() {
			b.StopTimer()
			if i%2 == 0 {
				base += floor(b)
			}
			b.StartTimer()
			took += strata(b)
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
