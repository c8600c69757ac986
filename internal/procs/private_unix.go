//go:build unix

package procs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckBase checks that base may hold the directories programs start in
// (see [PrivateDir]): it must be a directory itself, not a symbolic link
// (which another user may point anywhere), owned by the current user and
// writable by nobody else, in a directory that others may not write to. A
// directory another user made first, under a shared $TMPDIR say, fails,
// and so does any base in a shared /tmp: whoever may write there puts
// node_modules, .git or .npmrc above every directory made in it, where
// npx, git and their kin look. The error names it and the fix.
func CheckBase(base string) error {
	if err := checkParent(base); err != nil {
		return err
	}
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

// checkParent refuses a base whose parent directory anyone may write to
// (a shared /tmp, sticky or not: the sticky bit keeps others from removing
// what is there, not from adding beside it).
func checkParent(base string) error {
	parent := filepath.Dir(base)
	info, err := os.Stat(parent)
	if err != nil {
		return nil // made with the base, or the base's own check says why
	}
	if info.Mode().Perm()&0o002 != 0 {
		return fmt.Errorf("%s, where strata would start the programs of workspaces not trusted, is in %s, which anyone may write to: programs look for node_modules, .git and settings in the directories above where they start; set XDG_CACHE_HOME or HOME (or XDG_RUNTIME_DIR), or give the host a CacheDir, so that strata starts them in a directory of yours", base, parent)
	}
	return nil
}
