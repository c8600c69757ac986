//go:build unix

package procs

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestEnd ends programs that exit when their stdin closes, that exit only
// on SIGTERM, and that ignore both, each with a child left in its group.
func TestEnd(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		signal syscall.Signal // 0: a normal exit
	}{
		{name: "exits when stdin closes", body: `echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; cat >/dev/null`},
		{name: "exits on SIGTERM", body: `echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; exec sleep 1000 </dev/null`, signal: syscall.SIGTERM},
		{name: "ignores SIGTERM", body: `trap '' TERM; echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; while :; do sleep 1 </dev/null; done`, signal: syscall.SIGKILL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, script(tt.body))
			cmd, err := Command(t.Context(), baseSpec(dir))
			if err != nil {
				t.Fatal(err)
			}
			stdin, pids := startWithPids(t, cmd)
			stdin.Close()
			err = End(cmd, 50*time.Millisecond)
			var exitErr *exec.ExitError
			switch {
			case tt.signal == 0 && err != nil:
				t.Errorf("End = %v, want a normal exit", err)
			case tt.signal != 0 && (!errors.As(err, &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != tt.signal):
				t.Errorf("End = %v, want the program ended by %v", err, tt.signal)
			}
			checkGone(t, pids[0], pids[1:]...)
		})
	}
}
