//go:build unix

package main

import (
	"os"
	"syscall"
)

// canReplace: the system runs a program in a process's place.
const canReplace = true

// replace runs the program at path in this process's place, with args;
// it returns only when it cannot.
func replace(path string, args []string) error {
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}

// passSignals leaves signals to the child spawn runs: strata, waiting for
// it, ends as the child does. (On unix a child is only spawned for a test's
// own files; the process is replaced otherwise.)
func passSignals() func() { return func() {} }
