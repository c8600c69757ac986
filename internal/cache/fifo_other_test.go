//go:build !unix

package cache

import "errors"

// mkfifo makes a named pipe at path, which this system does not do.
func mkfifo(string) error { return errors.ErrUnsupported }
