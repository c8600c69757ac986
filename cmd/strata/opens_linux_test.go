package main

import (
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchOpens watches the files at paths (what a link names, when one is a
// link) for being opened or read, with inotify: the kernel records each
// open(2) as it happens, so that what strata did is known once it has
// ended, without waiting. opened returns the paths opened or read since,
// each once; a look (stat, lstat, readlink) is not an open.
func watchOpens(t *testing.T, paths ...string) (opened func() []string) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	byWatch := map[int32]string{}
	for _, p := range paths {
		wd, err := unix.InotifyAddWatch(fd, p, unix.IN_OPEN|unix.IN_ACCESS)
		if err != nil {
			t.Fatalf("inotify watch %s: %v", p, err)
		}
		byWatch[int32(wd)] = p
	}
	return func() []string {
		t.Helper()
		seen := map[string]bool{}
		var out []string
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if errors.Is(err, unix.EAGAIN) {
				return out
			}
			if err != nil {
				t.Fatalf("inotify read: %v", err)
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				if p := byWatch[ev.Wd]; p != "" && !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

// canWatchOpens reports whether this system tells opens (see watchOpens).
const canWatchOpens = true
