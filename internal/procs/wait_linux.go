package procs

import (
	"syscall"
	"unsafe"
)

// pPID is waitid's idtype for waiting on one process (P_PID).
const pPID = 1

// waitExit blocks until the child pid has exited, without reaping it: the
// child stays a zombie, so its pid and process group id cannot be reused
// until exec.Cmd.Wait reaps it.
func waitExit(pid int) error {
	var info [128]byte // siginfo_t, which is 128 bytes on every Linux
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		default:
			return errno
		}
	}
}
