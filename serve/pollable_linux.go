package serve

import (
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pollable returns a file of its own for reading f when f is a pipe (the
// stdin a client gives a server), in non-blocking mode, so that a read
// waits in the runtime's network poller; nil when f is not a pipe or
// cannot be opened again (no /proc), or already reads that way.
//
// A read of a blocking file waits in read(2), holding a thread and its P
// for as long as the client says nothing (up to 10 ms before the runtime
// takes the P back), and keeps the runtime's sysmon waking every 20 µs or
// more meanwhile; with the process idle while a tool runs, the CPUs are
// left to the tool. Opening /proc/self/fd/N opens the pipe anew, with a
// file description of its own: changing its mode changes nothing for the
// process that gave the pipe, nor for anyone else holding it.
func pollable(f *os.File) *os.File {
	fi, err := f.Stat()
	if err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd, blocking := -1, false
	if rc.Control(func(u uintptr) {
		fd = int(u)
		flags, err := unix.FcntlInt(u, unix.F_GETFL, 0)
		blocking = err == nil && flags&unix.O_NONBLOCK == 0
	}) != nil || !blocking {
		return nil
	}
	// O_NONBLOCK: opening a pipe for reading does not wait for a writer.
	p, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	return p
}
