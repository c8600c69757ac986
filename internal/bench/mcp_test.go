package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
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
// cached, and both from the cache.
func BenchmarkMCP(b *testing.B) {
	everything := nodeServer(b, "server-everything")
	filesystem := nodeServer(b, "server-filesystem")
	servers := map[string]string{
		"everything": "[mcp_servers.everything]\ncommand = \"node\"\nargs = [\"" + everything + "\"]\nexpose = \"all\"\n",
		"filesystem": "[mcp_servers.filesystem]\ncommand = \"node\"\nargs = [\"" + filesystem + "\", \".\"]\nexpose = \"all\"\n",
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
}
