// Package mcptest starts the real npm MCP servers the tests talk to, and
// helps the tests talk to MCP servers (a bearer token, a result's text).
package mcptest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/procs"
)

// repoRoot is the repository's root directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Everything starts @modelcontextprotocol/server-everything in mode
// ("streamableHttp" or "sse") on a free port of 127.0.0.1, waits until it
// says it listens, and returns its base URL. Without Node or the package
// the test is skipped, unless REQUIRE_MCP_SERVERS is set, which makes it
// fail.
func Everything(t testing.TB, mode string) string {
	t.Helper()
	node, entry := EverythingEntry(t)
	for range 3 {
		port := freePort(t)
		url, busy := startEverything(t, node, entry, mode, port)
		if !busy {
			return url
		}
	}
	t.Fatal("no free port after three tries")
	return ""
}

// EverythingEntry returns node and the entry point of server-everything,
// or skips the test without them (fails it under REQUIRE_MCP_SERVERS).
// With -short it skips the test: a Node server takes a second or more to
// start, and the full suite (CI's) runs these tests.
func EverythingEntry(t testing.TB) (node, entry string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts server-everything under Node; runs without -short")
	}
	entry, err := filepath.Abs(filepath.Join(repoRoot(), "fixtures/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(entry); err != nil || nodeErr != nil {
		msg := "Node or server-everything is missing; run npm ci --prefix fixtures/mcp"
		if os.Getenv("REQUIRE_MCP_SERVERS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, entry
}

// InspectorEntry returns node and the entry point of the MCP Inspector's
// CLI (@modelcontextprotocol/inspector-cli, what the Inspector's --cli
// runs), or skips the test without them (fails it under
// REQUIRE_MCP_SERVERS); with -short it skips it.
func InspectorEntry(t testing.TB) (node, entry string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the MCP Inspector's CLI under Node; runs without -short")
	}
	entry, err := filepath.Abs(filepath.Join(repoRoot(), "fixtures/mcp/node_modules/@modelcontextprotocol/inspector-cli/build/index.js"))
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(entry); err != nil || nodeErr != nil {
		msg := "Node or the MCP Inspector's CLI is missing; run npm ci --prefix fixtures/mcp"
		if os.Getenv("REQUIRE_MCP_SERVERS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, entry
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// startEverything starts the server on port; busy reports that another
// program took the port first.
func startEverything(t testing.TB, node, entry, mode, port string) (url string, busy bool) {
	t.Helper()
	cmd, err := procs.Command(context.Background(), procs.Invocation{
		Program: node, Args: []string{entry, mode},
		Env: procs.Env(os.Environ(), map[string]string{"PORT": port}, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			procs.End(cmd, time.Second, time.Second)
		}
	}
	t.Cleanup(stop)
	// Wait for the line that says it listens, or for the end of its output.
	lines := bufio.NewScanner(stderr)
	var said []string
	for lines.Scan() {
		line := lines.Text()
		said = append(said, line)
		switch {
		case strings.Contains(line, "on port "+port):
			go io.Copy(io.Discard, stderr)
			return "http://127.0.0.1:" + port, false
		case strings.Contains(line, "EADDRINUSE") || strings.Contains(line, "already in use"):
			stop()
			return "", true
		}
	}
	stop()
	t.Fatalf("server-everything %s ended without listening:\n%s", mode, strings.Join(said, "\n"))
	return "", false
}
