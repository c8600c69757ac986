package procs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A program of a workspace nobody trusted starts in a private place of its
// own (see [Invocation].Private): a new, empty directory that [PrivateDir] makes
// for it in a base directory, and removes once it has ended. Nothing one
// program leaves there reaches another, and nobody else can put anything
// there first: the base is the current user's alone, which [CheckBase]
// makes sure of before every use.

// privatePrefix starts the name of every directory [PrivateDir] makes, so
// that [SweepPrivate] removes nothing else.
const privatePrefix = "run-"

// StaleAfter is how old a directory of [PrivateDir] that no process holds
// any more must be before [SweepPrivate] removes it: its strata ended
// without removing it (killed, or the machine stopped). The lock, not the
// age, tells a live directory; the age only covers the moment between the
// directory's making and its locking.
const StaleAfter = time.Hour

// maxSweep bounds the directories one [SweepPrivate] looks at.
const maxSweep = 256

// PrivateDir makes a new, empty directory in base for one program to start
// in, private to the current user (mode 0700, a name nobody had), and
// returns it with release, which removes it with whatever the program left
// there. base is made first when it is missing (mode 0700, its missing
// parents too), and checked with [CheckBase] whether made or found.
//
// Until release, the directory is held (on Unix, by a lock on it), so that
// [SweepPrivate] in another process leaves it alone. Where the file system
// cannot lock, it is not held, and no sweep can lock it either: it is left
// alone all the same.
func PrivateDir(base string) (dir string, release func(), err error) {
	if !filepath.IsAbs(base) {
		return "", nil, fmt.Errorf("%s, where strata starts the programs of workspaces not trusted, is not an absolute path", base)
	}
	if err := checkParent(base); err != nil {
		return "", nil, err
	}
	if _, err := os.Lstat(base); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(base, 0o700); err != nil {
			return "", nil, fmt.Errorf("cannot make %s, where strata starts the programs of workspaces not trusted: %w", base, pathErr(err))
		}
	}
	if err := CheckBase(base); err != nil {
		return "", nil, err
	}
	dir, err = os.MkdirTemp(base, privatePrefix)
	if err != nil {
		return "", nil, fmt.Errorf("cannot make a directory to start in, in %s: %w", base, pathErr(err))
	}
	unlock := hold(dir)
	return dir, func() {
		// Removed while held, so that no sweep races the removal; a
		// directory that cannot be removed whole (a process that left
		// the program's group still writes there) is swept later.
		_ = os.RemoveAll(dir)
		unlock()
	}, nil
}

// SweepPrivate removes the directories [PrivateDir] made in base that no
// process holds any more and that are older than [StaleAfter]: those a
// strata that ended without removing them left. It looks at no more than
// a bounded number of entries, removes nothing else (no other names, no
// links, nothing in a base that fails [CheckBase]), and returns how many it
// removed. On Windows it removes nothing: there no lock tells a live
// directory, and a crash leaves what the per-user temporary or cache
// directory keeps.
func SweepPrivate(base string) int {
	if CheckBase(base) != nil {
		return 0
	}
	f, err := os.Open(base)
	if err != nil {
		return 0
	}
	entries, _ := f.ReadDir(maxSweep)
	f.Close()
	removed := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), privatePrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < StaleAfter {
			continue
		}
		if sweep(filepath.Join(base, e.Name())) {
			removed++
		}
	}
	return removed
}

// baseError is a base directory that must not be used: what is wrong
// with it, and the fix.
func baseError(base, problem string) error {
	return fmt.Errorf("%s, where strata starts the programs of workspaces not trusted, %s; remove it (strata makes it again, private to you)", base, problem)
}

// pathErr drops the path of a *fs.PathError, which the message names.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
