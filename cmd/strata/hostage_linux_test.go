//go:build linux

package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestProgressOnTerminal: on a terminal, strata says what discovery waits
// for once it has waited about a second (issue 24: nothing showed
// progress): the program and its timeout. Without a terminal it says
// nothing of it.
func TestProgressOnTerminal(t *testing.T) {
	t.Parallel()
	const want = "strata: waiting for tools/slow to describe itself (timeout 1m0s)"
	t.Run("terminal", func(t *testing.T) {
		root, environ := describeWorkspace(t, "config.toml", "[discover]\ndirs = [\"../tools\"]\ntimeout_sec = 60\n")
		hangs(t, filepath.Join(root, "tools", "slow"), filepath.Join(t.TempDir(), "started"))
		master, tty := openPTY(t)
		cmd := exec.Command(strataBin, "resolve", "--trust")
		cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = root, environ, nil, nil, tty
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		tty.Close() // strata holds the terminal; the test reads its other end
		// Read the terminal until strata says what it waits for; if it
		// never does, the timeout ends strata, and the terminal.
		lines := bufio.NewScanner(master)
		var seen []string
		found := false
		for !found && lines.Scan() {
			line := strings.TrimRight(lines.Text(), "\r")
			seen = append(seen, line)
			found = line == want
		}
		if !found {
			t.Fatalf("the terminal showed\n%s\nwant the line %q", strings.Join(seen, "\n"), want)
		}
		// What it waits for is seen: stop it.
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
	})
	t.Run("no terminal", func(t *testing.T) {
		root, environ := describeWorkspace(t, "config.toml", "[discover]\ndirs = [\"../tools\"]\n[tools.slow]\ndiscover_timeout_sec = 2\n")
		mark := filepath.Join(t.TempDir(), "started")
		hangs(t, filepath.Join(root, "tools", "slow"), mark)
		_, stderr, code := strataIn(t, root, environ, "resolve", "--trust")
		if code != 0 {
			t.Fatalf("strata resolve: exit %d\n%s", code, stderr)
		}
		if starts(t, mark) != 1 {
			t.Fatalf("tools/slow did not start: nothing was waited for")
		}
		if strings.Contains(stderr, "waiting for") {
			t.Errorf("stderr, not a terminal:\n%s\nwant no progress", stderr)
		}
	})
}
