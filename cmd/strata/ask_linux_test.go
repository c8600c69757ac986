//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// strataTyped runs strata in dir with a terminal as its stdin, on which
// typed is typed ahead (the terminal keeps it until strata reads it).
func strataTyped(t *testing.T, dir string, environ []string, typed string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	master, tty := openPTY(t)
	if _, err := master.WriteString(typed); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(strataBin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, environ, tty
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestFirstAskCall: run = "ask", the default, asks before strata call runs
// the tool: on a terminal a y/N prompt that shows the tool and its
// arguments (Enter is no); without a terminal, the call is refused, and
// says how to run it (--yes, or run = "unattended"). An unattended tool
// runs without a question.
func TestFirstAskCall(t *testing.T) {
	t.Parallel()
	root, environ := hostileWorkspace(t, `[discover]
dirs = ["../tools"]
`, map[string]string{"tools/note": noteTool})
	if err := os.Chmod(filepath.Join(root, "tools/note"), 0o755); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(root, "note.txt")
	var out strings.Builder
	code := 0
	for _, c := range []struct {
		name     string
		terminal bool
		typed    string
		args     []string
		wrote    bool
	}{
		{"a terminal, y", true, "y\n", []string{"call", "--trust", "note", `{"text": "hello"}`}, true},
		{"a terminal, Enter", true, "\n", []string{"call", "--trust", "note", `{"text": "hello"}`}, false},
		{"a terminal, --yes", true, "", []string{"call", "--trust", "--yes", "note", `{"text": "hello"}`}, true},
		{"no terminal", false, "", []string{"call", "--trust", "note", `{"text": "hello"}`}, false},
		{"no terminal, --yes", false, "", []string{"call", "--trust", "--yes", "note", `{"text": "hello"}`}, true},
		{"no terminal, unattended", false, "", []string{"call", "--trust", "--cfg", "tools.note.run=unattended", "note", `{"text": "hello"}`}, true},
	} {
		os.Remove(note)
		var stdout, stderr string
		var rc int
		if c.terminal {
			stdout, stderr, rc = strataTyped(t, root, environ, c.typed, c.args...)
		} else {
			stdout, stderr, rc = strataIn(t, root, environ, c.args...)
		}
		_, err := os.Stat(note)
		if wrote := err == nil; wrote != c.wrote {
			t.Errorf("%s: the tool wrote its note: %v, want %v", c.name, wrote, c.wrote)
		}
		fmt.Fprintf(&out, "## %s: $ strata %s (exit %d)\n%s%s", c.name, strings.Join(c.args, " "), rc, stdout, stderr)
		if !strings.HasSuffix(stderr, "\n") && stderr != "" {
			out.WriteString("\n")
		}
		code = max(code, rc)
	}
	golden(t, "first-ask-call", result{code: code, stdout: out.String()})
}
