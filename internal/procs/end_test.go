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
		// grace is End's. A program that exits by itself gets an hour,
		// which End must not wait for: it ends at the exit, however slow
		// (returns fails rather than hangs, should End wait). One that
		// SIGTERM ends gets long enough for the signal to land (a kill
		// takes none of the program's own time); one that ignores it, a
		// short one: only SIGKILL ends it.
		grace time.Duration
		// atOnce gives End no wait before SIGTERM (else it waits grace).
		atOnce bool
	}{
		{name: "exits when stdin closes", body: `echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; cat >/dev/null`, grace: time.Hour},
		{name: "exits on SIGTERM", body: `echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; exec sleep 1000 </dev/null`, signal: syscall.SIGTERM, grace: time.Second},
		// A wait of 0 sends SIGTERM at once to one that would not end
		// with its stdin: End returns at its end, not after the hour.
		{name: "asked at once", body: `echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; exec sleep 1000 </dev/null`, signal: syscall.SIGTERM, grace: time.Hour, atOnce: true},
		{name: "ignores SIGTERM", body: `trap '' TERM; echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; while :; do sleep 1 </dev/null; done`, signal: syscall.SIGKILL, grace: 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The script is written before the cases run at once: a
			// file being written when another case forks is held open
			// by the child for a moment, and running it then fails
			// ("text file busy").
			dir := t.TempDir()
			writeFiles(t, dir, script(tt.body))
			t.Parallel()
			cmd, err := Command(t.Context(), baseSpec(dir))
			if err != nil {
				t.Fatal(err)
			}
			stdin, pids := startWithPids(t, cmd)
			stdin.Close()
			wait := tt.grace
			if tt.atOnce {
				wait = 0
			}
			returns(t, "End", func() { err = End(cmd, wait, tt.grace) })
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
