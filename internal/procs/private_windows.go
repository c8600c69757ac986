package procs

import (
	"fmt"
	"io/fs"
	"os"
)

// CheckBase checks that base may hold the directories programs start in
// (see [PrivateDir]): it must be a directory itself, not a symbolic link
// or a junction (which may lead anywhere). Its owner is not checked: the
// per-user temporary and cache directories strata makes it in are the
// user's alone by their access control lists.
func CheckBase(base string) error {
	info, err := os.Lstat(base)
	if err != nil {
		return fmt.Errorf("%s, where strata starts the programs of workspaces not trusted: %w", base, pathErr(err))
	}
	switch {
	case info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return baseError(base, "is a link, which could lead anywhere")
	case !info.IsDir():
		return baseError(base, "is not a directory")
	}
	return nil
}

// hold holds nothing on Windows: a directory a process works in cannot be
// removed there, and nothing is swept (see [SweepPrivate]).
func hold(string) func() { return func() {} }

// sweep removes nothing on Windows: no lock tells a directory in use.
func sweep(string) bool { return false }

// checkParent: on Windows the temporary and cache directories are the
// user's own, by their access lists.
func checkParent(string) error { return nil }
