//go:build unix

package hostile

import "syscall"

// Mkfifo makes a named pipe at path.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
