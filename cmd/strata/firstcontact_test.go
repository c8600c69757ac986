package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// First contact (issue 24): what a new user meets who follows the README
// with nothing of their own (HOME an empty directory).

// filesystemServer is the entry point of the npm filesystem server that
// fixtures/mcp installs; it skips the test when Node or the package is
// missing (see requireNode).
func filesystemServer(t *testing.T) string {
	t.Helper()
	requireNode(t)
	return filepath.Join(repoRoot, "fixtures/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
}

// TestFirstServerGivesTools: the README tour's [mcp_servers.fs], as a
// user coming from Claude Code, Codex or Cursor writes it (no expose),
// gives the server's tools, with no warning.
func TestFirstServerGivesTools(t *testing.T) {
	entry := filesystemServer(t)
	root, environ := hostileWorkspace(t, `[mcp_servers.fs]
command = "node"
args = ["`+entry+`", "."]
`, map[string]string{"notes.txt": "hello\n"})
	stdout, stderr, code := strataIn(t, root, environ, "resolve", "--trust")
	golden(t, "first-server-tools", result{code: code, stdout: catalogLines(t, stdout), stderr: stderr})
	if !strings.Contains(stdout, `"name": "read_text_file"`) {
		t.Errorf("the filesystem server gave no read_text_file:\n%s", stdout)
	}
	if stderr != "" {
		t.Errorf("a warning the user did not cause:\n%s", stderr)
	}
}
