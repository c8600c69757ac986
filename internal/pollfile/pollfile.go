// Package pollfile reads the pipe a process is given as its stdin in Go's
// network poller rather than in read(2).
//
// A read of a blocking file waits in a system call, holding a thread and
// its P for as long as nothing comes (up to 10 ms before the runtime takes
// the P back), and keeps the runtime's sysmon waking every 20 µs or more
// meanwhile; with one P (see strata serve), the other goroutines wait for
// sysmon to take it back. A file in non-blocking mode is read in the
// poller: the goroutine parks, and the process is idle until data comes.
package pollfile

import "os"

// Polled reports whether reads of f wait in the poller: f is in
// non-blocking mode (Go reads such files in the poller where the system
// can poll them; a regular file never makes a read wait).
func Polled(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	nonblocking := false
	if rc.Control(func(fd uintptr) { nonblocking = isNonblock(fd) }) != nil {
		return false
	}
	return nonblocking
}
