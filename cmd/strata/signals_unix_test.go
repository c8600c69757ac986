//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSignalsStopPrograms: SIGINT and SIGTERM end a strata that waits on
// a program it started (a --describe that hangs for resolve, a run that
// hangs for call) by stopping the program, then strata itself, with an exit
// status: no program outlives strata. The programs run in process groups
// of their own, where a Ctrl-C on the terminal does not reach them.
func TestSignalsStopPrograms(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: starts strata and a hanging program for each case")
	}
	for _, tt := range []struct {
		name string
		args []string
		hang string // what the tool does that hangs: "describe" or "run"
	}{
		{name: "resolve, describe hangs", args: []string{"resolve"}, hang: "describe"},
		{name: "call, run hangs", args: []string{"call", "--yes", "sleepy"}, hang: "run"},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(tt.name+", "+sig.String(), func(t *testing.T) {
				root, environ := describeWorkspace(t, "config.toml", "[discover]\ndirs = [\"../tools\"]\n")
				pids := filepath.Join(t.TempDir(), "pids")
				if err := syscall.Mkfifo(pids, 0o600); err != nil {
					t.Fatal(err)
				}
				describe := `echo '{"name":"sleepy","description":"Sleep.","parameters":{"type":"object"}}'; exit 0`
				if tt.hang == "describe" {
					describe = "echo $$ >" + pids + "; exec sleep 1000"
				}
				tool := "#!/bin/sh\nif [ \"$1\" = --describe ]; then " + describe + "; fi\necho $$ >" + pids + "; exec sleep 1000\n"
				if err := os.WriteFile(filepath.Join(root, "tools", "sleepy"), []byte(tool), 0o755); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(strataBin, append(tt.args, "--root", root, "--trust")...)
				cmd.Env = environ
				var stderr strings.Builder
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				// The program has started once it writes its pid.
				f, err := os.Open(pids)
				if err != nil {
					t.Fatal(err)
				}
				line, err := bufio.NewReader(f).ReadString('\n')
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				var pid int
				if _, err := fmt.Sscan(line, &pid); err != nil {
					t.Fatalf("pid %q: %v", line, err)
				}
				defer syscall.Kill(pid, syscall.SIGKILL)
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				err = cmd.Wait()
				if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
					t.Errorf("strata %s: killed by %v, want it to stop its program and exit; stderr %q", tt.args[0], ws.Signal(), stderr.String())
				} else if err == nil {
					t.Errorf("strata %s: exit 0 after %v, want a failure", tt.args[0], sig)
				}
				if err := syscall.Kill(pid, 0); err == nil {
					t.Errorf("the program strata started (pid %d) outlives it", pid)
				}
			})
		}
	}
}
