package pollfile

import (
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Reopen returns a file of its own for reading f when f is a pipe in
// blocking mode (the stdin a client gives a server), in non-blocking mode,
// so that reads of it wait in the poller; nil when f is not such a pipe or
// cannot be opened again (no /proc).
//
// Opening /proc/self/fd/N opens the pipe anew, with a file description of
// its own: its mode is not the one of f's description, which the process
// that gave the pipe, or another, may share.
func Reopen(f *os.File) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd, blocking := -1, false
	if rc.Control(func(u uintptr) { fd, blocking = int(u), !isNonblock(u) }) != nil || !blocking {
		return nil
	}
	// O_NONBLOCK: opening a pipe for reading does not wait for a writer.
	p, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	return p
}
