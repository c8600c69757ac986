package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/trust"
)

// strataIn runs the strata binary in dir with environ. A run that has
// not ended a quarter of a minute before go test's deadline (waitContext)
// is killed and fails the test with what strata wrote, rather than go
// test's panic; a program strata left holding its output does not keep
// the test waiting (WaitDelay).
func strataIn(t *testing.T, dir string, environ []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return strataInput(t, dir, environ, "", args...)
}

// strataInput is strataIn with stdin, when not "", as strata's stdin.
func strataInput(t *testing.T, dir string, environ []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx := waitContext(t)
	cmd := exec.CommandContext(ctx, strataBin, args...)
	cmd.Dir, cmd.Env = dir, environ
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	cmd.WaitDelay = 10 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("strata %s did not end before go test's deadline; stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out.String(), errb.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestTrustConcurrent: twenty strata trust at once, each for its own
// workspace, all take effect.
func TestTrustConcurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	const n = 20
	for i := range n {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("w%02d", i), ".strata"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		wg.Go(func() {
			if _, stderr, code := strataIn(t, dir, environ, "trust", "--root", fmt.Sprintf("w%02d", i)); code != 0 {
				errs[i] = stderr
			}
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("strata trust #%d: %s", i, e)
		}
	}
	l, err := (&trust.Store{Path: filepath.Join(home, "strata", trust.File)}).Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Workspaces) != n {
		t.Errorf("%d workspaces trusted, want %d: %v", len(l.Workspaces), n, l.Workspaces)
	}
}

// TestTrustApplies: an untrusted workspace's tools are not resolved and no
// message suggests pinning a program; once trusted they are.
func TestTrustApplies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	ws := filepath.Join(dir, "ws")
	for name, content := range map[string]string{
		".strata/config.toml": "[discover]\ndirs = [\"../tools\"]\n[mcp_servers.sh]\ncommand = \"sh\"\nargs = [\"-c\", \"touch " + dir + "/ran\"]\nexpose = \"all\"\n",
		"tools/hello":         "#!/bin/sh\necho '{\"name\":\"hello\",\"description\":\"Hi.\",\"parameters\":{\"type\":\"object\"}}'\n",
	} {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out, stderr, code := strataIn(t, ws, environ, "resolve")
	if code != 0 || strings.Contains(out, "hello") {
		t.Fatalf("untrusted: exit %d, %s%s", code, out, stderr)
	}
	if strings.Contains(stderr, "--pin") || strings.Contains(stderr, "--checksum") || !strings.Contains(stderr, "strata trust") {
		t.Errorf("the untrusted warning must suggest trusting the workspace, never pinning a program: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the untrusted workspace's server ran")
	}
	if out, stderr, code := strataIn(t, ws, environ, "trust"); code != 0 || !strings.HasPrefix(out, "trusted ") {
		t.Fatalf("strata trust: exit %d, %s%s", code, out, stderr)
	}
	// The server of the workspace runs (and fails: it is no MCP server).
	if out, stderr, _ := strataIn(t, ws, environ, "resolve", "--partial"); !strings.Contains(out, `"name": "hello"`) {
		t.Errorf("trusted: %s%s", out, stderr)
	}
}

// TestTrustPin: strata trust --pin records the launch; an interpreter's
// pin says what it covers.
func TestTrustPin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	if err := os.MkdirAll(filepath.Join(home, "strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "strata", "config.toml"), []byte("[mcp_servers.s]\ncommand = \"sh\"\nargs = [\"-c\", \"exit 0\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := strataIn(t, dir, environ, "trust", "--pin", "mcp_servers.s")
	if code != 0 || !strings.HasPrefix(out, "pinned mcp_servers.s: sha256:") || !strings.Contains(stderr, "an interpreter: the pin covers it, its arguments and the files they name") {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	l, err := (&trust.Store{Path: filepath.Join(home, "strata", trust.File)}).Read()
	if err != nil {
		t.Fatal(err)
	}
	// The arguments are held by their hashes.
	digest := func(s string) string { sum := sha256.Sum256([]byte(s)); return "sha256:" + hex.EncodeToString(sum[:]) }
	if p := l.Pins["mcp_servers.s"]; !strings.HasSuffix(p.Program, "/sh") || !slices.Equal(p.Args, []string{digest("-c"), digest("exit 0")}) {
		t.Errorf("pin: %+v", p)
	}
	if _, stderr, code := strataIn(t, dir, environ, "trust", "--pin", "discover.dirs"); code != 1 || !strings.Contains(stderr, "not something that launches a program; pin tools.<name> or mcp_servers.<name>") {
		t.Errorf("a key that launches nothing: exit %d, %s", code, stderr)
	}
}

// TestServeTrustReloads: strata serve in an untrusted workspace serves the
// user's tools only; once the workspace is trusted (strata trust, in
// another process), it resolves again and serves the workspace's too.
func TestServeTrustReloads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	ws := filepath.Join(dir, "ws")
	for name, content := range map[string]string{
		".strata/config.toml": "[discover]\ndirs = [\"../tools\"]\n",
		"tools/hello":         "#!/bin/sh\necho '{\"name\":\"hello\",\"description\":\"Hi.\",\"parameters\":{\"type\":\"object\"}}'\n",
	} {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := waitContext(t)
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cmd := exec.Command(strataBin, "serve")
	cmd.Dir, cmd.Env = ws, environ
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 0 {
		t.Fatalf("untrusted: %v, %d tools", err, len(tools.Tools))
	}
	if _, stderr, code := strataIn(t, ws, environ, "trust"); code != 0 {
		t.Fatalf("strata trust: %s", stderr)
	}
	for {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("no tools/list_changed after strata trust")
		}
		if tools, err = cs.ListTools(ctx, nil); err == nil && len(tools.Tools) == 1 && tools.Tools[0].Name == "hello" {
			return
		}
	}
}

// TestNamedUntrustedFails: a file named with --cfg that does not apply
// (it lies in a repository nobody trusted) fails the run, and is said as
// the error that fails it, never as a warning: with --partial and with
// strata config --check as well as without.
func TestNamedUntrustedFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".mcp.json"), []byte(`{"mcpServers":{"x":{"command":"/bin/echo"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "home"), "STRATA_CONFIG_HOME=" + filepath.Join(dir, "home", "strata"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	const said = "strata: .: layers not applied: untrusted, outside any workspace (.mcp.json)"
	for _, args := range [][]string{{"resolve"}, {"resolve", "--partial"}, {"config", "--check"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			_, stderr, code := strataIn(t, repo, environ, append(args, "--cfg", ".mcp.json")...)
			if code != 1 || !strings.Contains(stderr, said) || strings.Contains(stderr, "warning: .: layers not applied") {
				t.Errorf("exit %d, stderr:\n%s\nwant 1 and the error %q, not a warning", code, stderr, said)
			}
		})
	}
}
