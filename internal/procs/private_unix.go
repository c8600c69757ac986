//go:build unix

package procs

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// CheckBase checks that base may hold the directories programs start in
// (see [PrivateDir]): it must be a directory itself, not a symbolic link
// (which another user may point anywhere), owned by the current user and
// writable by nobody else. A directory another user made first, under a
// shared $TMPDIR say, fails; the error names it and the fix.
func CheckBase(base string) error {
	info, err := os.Lstat(base)
	if err != nil {
		return fmt.Errorf("%s, where strata starts the programs of workspaces not trusted: %w", base, pathErr(err))
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return baseError(base, "is a symbolic link, which could lead anywhere")
	case !info.IsDir():
		return baseError(base, "is not a directory")
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return baseError(base, fmt.Sprintf("is owned by uid %d, not by you (uid %d): its owner could put files there for your programs", st.Uid, os.Geteuid()))
	}
	switch perm := info.Mode().Perm(); {
	case perm&0o002 != 0:
		return baseError(base, fmt.Sprintf("is writable by others (mode %v): anyone could put files there for your programs", perm))
	case perm&0o020 != 0:
		return baseError(base, fmt.Sprintf("is writable by its group (mode %v): its group could put files there for your programs", perm))
	}
	return nil
}

// hold locks the directory dir, which this process just made, until
// unlock: a sweep in another process sees it is in use. The lock goes
// with this process (the descriptor is closed on exec, so no program
// inherits it), and so goes when a crash ends it. A directory that cannot
// be locked (a file system without locks) is not held.
func hold(dir string) (unlock func()) {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() } // closing the last descriptor unlocks
}

// sweep removes the directory dir of a base, unless a process holds it.
func sweep(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // in use, or not lockable: left alone
	}
	return os.RemoveAll(dir) == nil
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
