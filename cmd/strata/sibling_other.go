//go:build !unix

package main

import (
	"errors"
	"os"
	"os/signal"
)

// canReplace: the system cannot run a program in a process's place; spawn
// runs it as a child.
const canReplace = false

func replace(string, []string) error { return errors.ErrUnsupported }

// passSignals ignores Ctrl-C in strata while the child spawn runs: the
// console sends it to both, and the child, which stops its own programs,
// decides when it ends; strata then ends with its status.
func passSignals() func() {
	signal.Ignore(os.Interrupt)
	return func() { signal.Reset(os.Interrupt) }
}
