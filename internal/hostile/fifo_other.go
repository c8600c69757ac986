//go:build !unix

package hostile

import "errors"

// mkfifo makes a named pipe at path; this system has none to make.
func mkfifo(string) error { return errors.ErrUnsupported }
