//go:build unix && !linux

package procs

import "errors"

// waitExit is not available here: Run then kills what is left of the
// process group after reaping the program, when the group's id could in
// principle have been reused already.
func waitExit(int) error { return errors.ErrUnsupported }
