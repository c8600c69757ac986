//go:build !unix

package hostile

import "errors"

// Mkfifo makes a named pipe at path; this system has none to make.
func Mkfifo(string) error { return errors.ErrUnsupported }
