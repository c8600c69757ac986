package discover_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
)

// nodeServer returns the entry point of an npm MCP server of fixtures/mcp.
// Without Node or the packages the test is skipped, unless
// REQUIRE_MCP_SERVERS is set (as CI sets it), which makes it fail.
func nodeServer(t *testing.T, pkg string) string {
	t.Helper()
	entry := filepath.Join(fixtures, "mcp", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	_, nodeErr := exec.LookPath("node")
	_, pkgErr := os.Stat(entry)
	if nodeErr != nil || pkgErr != nil {
		msg := "Node or " + pkg + " is missing; run npm ci --prefix fixtures/mcp"
		if os.Getenv("REQUIRE_MCP_SERVERS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return entry
}

// logged runs a server through sh, logging each start to log.
func logged(log, entry string, args ...string) string {
	quoted := []string{"exec", "node", "'" + entry + "'"}
	for _, a := range args {
		quoted = append(quoted, "'"+a+"'")
	}
	return `command = "sh"` + "\n" + `args = ["-c", "echo start >> ` + log + `; ` + strings.Join(quoted, " ") + `"]`
}

func TestRealMCPServers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the npm servers; -short has the mcpfake tests")
	}
	everything := nodeServer(t, "server-everything")
	filesystem := nodeServer(t, "server-filesystem")
	root := t.TempDir()
	log := filepath.Join(t.TempDir(), "starts")
	src := `
[mcp_servers.everything]
` + logged(log, everything) + `
expose = "all"

[mcp_servers.fs]
` + logged(log, filesystem, root) + `

[tools.read_file]
source = "mcp.fs.read_text_file"

[tools.read_file.parameters.head]
description = "{{description}}; at most that many lines."
`
	store := &cache.Cache{Dir: t.TempDir()}
	c, err := resolveIn(t, discover.Resolver{Root: root, Cache: store}, src)
	if err != nil {
		t.Fatal(err)
	}
	starts := func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "start\n")
	}
	if starts() != 2 {
		t.Fatalf("%d server starts, want 2", starts())
	}
	for _, name := range []string{"echo", "get-sum", "read_file"} {
		if _, ok := c.Tool(name); !ok {
			t.Errorf("no tool %s", name)
		}
	}
	// fs has no expose: all its tools join (the default), but the one the
	// config serves as read_file does not join under its own name too.
	if _, ok := c.Tool("list_directory"); !ok {
		t.Error("the filesystem server, with no expose, does not give its tools")
	}
	if _, ok := c.Tool("read_text_file"); ok {
		t.Error("read_text_file, which the config serves as read_file, joined under its own name too")
	}
	read, _ := c.Tool("read_file")
	if s := read.InputSchema.String(); !strings.HasPrefix(s, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string"},"tail":{"description":"If provided, returns only the last N lines of the file","type":"number"}`) ||
		!strings.Contains(s, `"head":{"description":"If provided, returns only the first N lines of the file; at most that many lines.","type":"number"}`) {
		t.Errorf("the schema is not the server's, key for key, with the override:\n%s", s)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}

	warm, err := resolveIn(t, discover.Resolver{Root: root, Cache: store}, src)
	if err != nil {
		t.Fatal(err)
	}
	if starts() != 2 {
		t.Errorf("a warm resolve started %d servers", starts()-2)
	}
	if warm.Fingerprint != c.Fingerprint {
		t.Error("the cached catalog differs")
	}
	refreshed, err := resolveIn(t, discover.Resolver{Root: root, Cache: store, Refresh: true}, src)
	if err != nil {
		t.Fatal(err)
	}
	if starts() != 4 || refreshed.Fingerprint != c.Fingerprint || len(refreshed.Warnings) != 0 {
		t.Errorf("refresh: %d starts, same fingerprint %v, warnings %v", starts(), refreshed.Fingerprint == c.Fingerprint, refreshed.Warnings)
	}
}
