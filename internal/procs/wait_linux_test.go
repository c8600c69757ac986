package procs

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// platformWaits are the ways of waiting, besides waitExit, of the system:
// waitExit waits on a pidfd, and in waitid where there are none.
var platformWaits = []waitWay{{"waitid", waitExitBlocking}}

// TestWaitExitLeavesTheChildUnreaped checks each way of waiting of Linux
// on a child that exits while it waits and on one that has exited before:
// it returns once the child has exited, and the child is still there to
// reap.
func TestWaitExitLeavesTheChildUnreaped(t *testing.T) {
	t.Parallel()
	pidfd := func(pid int) error {
		polled, err := pollExit(pid)
		if !polled {
			t.Errorf("pollExit(%d) did not poll: %v", pid, err)
		}
		return err
	}
	ways := []waitWay{{"pidfd", pidfd}, {"waitid", waitExitBlocking}}
	starts := []struct {
		name   string
		script string
		before bool // wait for the exit before calling the way
	}{
		{name: "exits while waited for", script: "sleep 0.2"},
		{name: "exited before", script: "exit 3", before: true},
	}
	for _, w := range ways {
		for _, st := range starts {
			t.Run(w.name+"/"+st.name, func(t *testing.T) {
				t.Parallel()
				if w.name == "pidfd" {
					fd, err := unix.PidfdOpen(os.Getpid(), unix.PIDFD_NONBLOCK)
					if err != nil {
						t.Skipf("no pidfds here (%v): waitExit waits in waitid", err)
					}
					unix.Close(fd)
				}
				cmd := exec.Command("/bin/sh", "-c", st.script)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				pid := cmd.Process.Pid
				t.Cleanup(func() { _ = cmd.Wait() })
				if st.before {
					var info unix.Siginfo
					if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
						t.Fatal(err)
					}
				}
				var err error
				returns(t, w.name, func() { err = w.waitExit(pid) })
				if err != nil {
					t.Fatalf("%s(%d) = %v, want nil", w.name, pid, err)
				}
				var info unix.Siginfo
				if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil); err != nil || info.Signo == 0 {
					t.Errorf("after %s, waitid(WNOHANG) = %v, signal %d: want the child exited and not reaped", w.name, err, info.Signo)
				}
				_ = cmd.Wait()
				if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
					t.Errorf("Wait: state %v, want the child reaped now", cmd.ProcessState)
				}
			})
		}
	}
}
