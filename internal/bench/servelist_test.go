package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/testbin"
)

// serveListTools is how many tools the server of BenchmarkServeList
// lists: the most strata serves of one server (codec.Limits.ServerTools).
const serveListTools = 10_000

// BenchmarkServeList starts strata serve in front of one MCP server
// (mcpfake) of 10,000 tools, each with a schema of a few parameters
// (about 3 MB of tools/list), as a process under GNU time, and has the Go
// SDK's client list its tools, every page, then end it: the time from the
// start to the whole list, and the largest resident set (maxRSS-MB). Each
// iteration also runs mcpproxy the same way, untimed: a bare program over
// the SDK that lists the server's tools and serves them with the SDK's
// server (x-floor, x-floor-maxRSS: strata over it in the same
// iterations). cold starts each run with an empty cache, as the first
// serve does; warm with the cache of the runs before.
func BenchmarkServeList(b *testing.B) {
	const proxy = "github.com/strata-config/strata/internal/bench/mcpproxy"
	if _, err := os.Stat(gnuTime); err != nil {
		b.Skipf("measuring memory needs GNU time: %v", err)
	}
	bins, err := testbin.Build(testbin.Strata, testbin.MCPFake, proxy)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	schema := filepath.Join(dir, "schema.json")
	write(b, schema, `{"type":"object","properties":{"path":{"type":"string","description":"The file to read, relative to the workspace."},"limit":{"type":"integer","minimum":1,"description":"At most this many lines."},"mode":{"type":"string","enum":["text","lines"]}},"required":["path"]}`)
	fake := []string{bins[testbin.MCPFake], "-tools", strconv.Itoa(serveListTools), "-page-size", "1000", "-schema", schema}
	root, home := filepath.Join(dir, "work"), filepath.Join(dir, "home")
	quoted := make([]string, len(fake)-1)
	for i, a := range fake[1:] {
		quoted[i] = strconv.Quote(a)
	}
	write(b, filepath.Join(root, ".strata", "config.toml"), fmt.Sprintf("[tools.'*']\nrun = \"unattended\"\n\n[mcp_servers.big]\ncommand = %q\nargs = [%s]\nstartup_timeout_sec = 600\ntool_timeout_sec = 600\n", fake[0], strings.Join(quoted, ", ")))
	if err := os.MkdirAll(home, 0o755); err != nil {
		b.Fatal(err)
	}
	cacheDir := filepath.Join(dir, "cache")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + cacheDir, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			var took, floor time.Duration
			var rss, floorRSS float64
			for b.Loop() {
				b.StopTimer()
				if !warm {
					if err := os.RemoveAll(cacheDir); err != nil {
						b.Fatal(err)
					}
				}
				d, r := listThrough(b, environ, append([]string{bins[proxy]}, fake...)...)
				floor += d
				floorRSS = max(floorRSS, r)
				b.StartTimer()
				d, r = listThrough(b, environ, bins[testbin.Strata], "serve", "--trust", "--root", root)
				took += d
				rss = max(rss, r)
			}
			b.ReportMetric(float64(took)/float64(floor), "x-floor")
			b.ReportMetric(rss, "maxRSS-MB")
			b.ReportMetric(floorRSS, "floor-maxRSS-MB")
			b.ReportMetric(rss/floorRSS, "x-floor-maxRSS")
		})
	}
}

// gnuTime measures a process's largest resident set.
const gnuTime = "/usr/bin/time"

// listThrough starts the MCP server program args under GNU time, lists
// its tools with the SDK's client, and ends it: the time to the whole list
// and the program's largest resident set, in MB.
func listThrough(b *testing.B, environ []string, args ...string) (time.Duration, float64) {
	rssFile := filepath.Join(b.TempDir(), "rss")
	cmd := exec.Command(gnuTime, append([]string{"-f", "%M", "-o", rssFile}, args...)...)
	cmd.Env = environ
	cmd.Stderr = os.Stderr
	ctx := context.Background()
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("%s: %v", args[0], err)
	}
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			b.Fatalf("%s: %v", args[0], err)
		}
		n++
	}
	took := time.Since(start)
	if err := cs.Close(); err != nil {
		b.Fatalf("%s: %v", args[0], err)
	}
	if n != serveListTools {
		b.Fatalf("%s: %d tools, want %d", args[0], n, serveListTools)
	}
	out, err := os.ReadFile(rssFile)
	if err != nil {
		b.Fatal(err)
	}
	kb, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		b.Fatalf("GNU time said %q", out)
	}
	return took, float64(kb) / 1024
}
