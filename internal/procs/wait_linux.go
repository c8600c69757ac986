package procs

import "golang.org/x/sys/unix"

// waitExit blocks until the child pid has exited, without reaping it: the
// child stays a zombie, so its pid and process group id cannot be reused
// until exec.Cmd.Wait reaps it.
func waitExit(pid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}
