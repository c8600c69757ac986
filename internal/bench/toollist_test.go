package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-config/strata/internal/testbin"
)

// BenchmarkToolListProcess runs strata resolve, the built binary, against
// an MCP server (mcpfake) whose tool list is huge, under GNU time, and
// reports the largest resident set of its runs (maxRSS-MB): 10^5 tools on
// one page of 15 MB, and four pages of 15 MB (a hundred tools of 150 kB
// each), which the budget of a server's tool list cuts (see codec.Limits),
// and 150 pages of ten small tools, which it keeps whole. --refresh lists
// them each time.
func BenchmarkToolListProcess(b *testing.B) {
	bins, err := testbin.Build(testbin.Strata, testbin.MCPFake)
	if err != nil {
		b.Fatal(err)
	}
	schema := func(n int) string {
		pad := n - len(`{"type":"object","properties":{"a":{"description":""}}}`)
		p := filepath.Join(b.TempDir(), "schema.json")
		write(b, p, `{"type":"object","properties":{"a":{"description":"`+strings.Repeat("x", pad)+`"}}}`)
		return p
	}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"1e5-tools-one-15MB-page", []string{"-tools", "100000", "-schema", schema(80)}},
		{"15MB-pages", []string{"-tools", "400", "-page-size", "100", "-schema", schema(150_000)}},
		{"150-small-pages", []string{"-tools", "1500", "-page-size", "10"}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			root, home := b.TempDir(), b.TempDir()
			quoted := make([]string, len(tt.args))
			for i, a := range tt.args {
				quoted[i] = strconv.Quote(a)
			}
			write(b, filepath.Join(root, ".strata", "config.toml"), fmt.Sprintf("[mcp_servers.big]\ncommand = %q\nargs = [%s]\nexpose = \"all\"\nstartup_timeout_sec = 600\ntool_timeout_sec = 600\n", bins[testbin.MCPFake], strings.Join(quoted, ", ")))
			environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
			b.ReportMetric(maxRSS(b, bins[testbin.Strata], []string{"resolve", "--trust", "--refresh", "--root", root}, environ, succeeds, 1000), "maxRSS-MB")
		})
	}
}
