package procs

import (
	"os"

	"golang.org/x/sys/unix"
)

// waitExit blocks until the child pid has exited, without reaping it: the
// child stays a zombie, so its pid and process group id cannot be reused
// until exec.Cmd.Wait reaps it.
//
// It waits in the runtime's network poller, on a pidfd (which becomes
// readable when the process exits), where a kernel has them (Linux 5.10),
// and otherwise in waitid. Waiting in a system call holds a thread and its
// P for the whole run of the program, which keeps the runtime's sysmon
// waking every 20 µs to 10 ms meanwhile; parked in the poller, the process
// is idle while the program runs, and leaves the CPUs to it.
func waitExit(pid int) error {
	if polled, err := pollExit(pid); polled {
		return err
	}
	return waitExitBlocking(pid)
}

// waitExitBlocking waits as waitExit does, in waitid.
func waitExitBlocking(pid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}

// pollExit waits as waitExit does, in the network poller. polled is false
// when it could not wait that way (no pidfds, or none the poller takes):
// the child may not have exited then. Otherwise err is waitid's.
func pollExit(pid int) (polled bool, err error) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return false, err
	}
	// A descriptor in non-blocking mode is one the poller waits on.
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var waitErr error
	err = rc.Read(func(fd uintptr) bool {
		// WNOHANG: whether it has exited, without waiting; WNOWAIT: left
		// unreaped. Until it has, wait for the pidfd to be readable.
		for {
			var info unix.Siginfo
			waitErr = unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
			switch {
			case waitErr == unix.EINTR:
				continue
			case waitErr != nil:
				return true
			}
			return info.Signo != 0 // zero: not exited yet
		}
	})
	if err != nil {
		// The poller does not take it: the child is not known to have
		// exited, nor reaped.
		return false, err
	}
	return true, waitErr
}
