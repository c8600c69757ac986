//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-config/strata/trust"
)

// strataOnTerminal runs strata in dir with a terminal as its stdin and
// stderr, as a user at a shell runs it, and answers each question that
// ends in "[y/N] " with the next of answers; stdout is apart, as a shell
// redirect makes it. It returns stdout and what the terminal showed
// (line ends as written, the answers echoed).
func strataOnTerminal(t *testing.T, dir string, environ []string, answers []string, args ...string) (stdout, terminal string, code int) {
	t.Helper()
	master, tty := openPTY(t)
	cmd := exec.Command(strataBin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stderr = dir, environ, tty, tty
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // strata's copy is its own: the terminal ends with it
	var shown bytes.Buffer
	var mu sync.Mutex
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		asked := 0
		for {
			n, err := master.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			if asked < len(answers) && strings.Count(shown.String(), "[y/N] ") > asked {
				io.WriteString(master, answers[asked]+"\n")
				asked++
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	err := cmd.Wait()
	<-read // the terminal reads EIO once strata, its last user, ended
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), strings.ReplaceAll(shown.String(), "\r\n", "\n"), code
}

// TestFirstRunTrustQuestion: the first command of a Claude Code user, on
// a terminal, asks once whether to trust the project, as Claude Code and
// VS Code ask before they start a project's servers: it shows the file
// and the server it would start. y records the directory, as strata
// trust --root does, and the servers start (the next run asks nothing);
// Enter is no, and gives the warning of a run without a terminal, as an
// error: the file named on the command line is not applied. Without a
// terminal, and with --trust, nothing is asked. The home directory is
// never offered.
func TestFirstRunTrustQuestion(t *testing.T) {
	t.Parallel()
	dir, home, _, environ := firstRun(t, `{"mcpServers": {"fs": {"command": "MCPFAKE", "args": ["-tools", "1", "-stderr", "\u001b[31mred"]}}}`)
	environ = append(environ, "XDG_CACHE_HOME="+filepath.Join(home, "cache"), "TERM=dumb")
	var out strings.Builder
	code := 0
	step := func(name string, terminal bool, answers []string, args ...string) {
		var stdout, shown string
		var rc int
		if terminal {
			stdout, shown, rc = strataOnTerminal(t, dir, environ, answers, args...)
		} else {
			stdout, shown, rc = strataIn(t, dir, environ, args...)
		}
		fmt.Fprintf(&out, "## %s: $ strata %s (exit %d)\n-- stdout --\n%s-- terminal --\n%s", name, strings.Join(args, " "), rc, catalogLines(t, stdout), shown)
		code = max(code, rc)
	}
	step("no terminal", false, nil, "resolve", "--cfg", ".mcp.json")
	step("a terminal, Enter", true, []string{""}, "resolve", "--cfg", ".mcp.json")
	step("a terminal, --trust", true, nil, "resolve", "--cfg", ".mcp.json", "--trust")
	step("a terminal, y", true, []string{"y"}, "resolve", "--cfg", ".mcp.json")
	step("a terminal, trusted now", true, nil, "resolve", "--cfg", ".mcp.json")
	got := firstRunOutput(out.String(), dir, home)
	golden(t, "first-run-trust-question", result{code: code, stdout: got})

	l, err := (&trust.Store{Path: filepath.Join(home, ".config/strata/trusted.toml")}).Read()
	if err != nil || len(l.Workspaces) != 1 || l.Workspaces[0] != dir || len(l.Recursive) != 0 {
		t.Errorf("the trust list: %+v, %v; want %s exactly", l, err, dir)
	}

	// The home directory: a .strata/ there is a workspace nobody trusted
	// (a .mcp.json there is the user's own), and is never offered.
	if err := os.MkdirAll(filepath.Join(home, ".strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".strata/config.toml"), []byte("[mcp_servers.fs]\ncommand = \""+mcpfake+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, shown, rc := strataOnTerminal(t, home, environ, []string{"y"}, "resolve")
	if rc != 0 || strings.Contains(shown, "[y/N]") || !strings.Contains(shown, "your home directory") {
		t.Errorf("in the home directory: exit %d, the terminal showed:\n%s", rc, shown)
	}
}
