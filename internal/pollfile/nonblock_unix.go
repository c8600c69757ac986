//go:build unix

package pollfile

import "golang.org/x/sys/unix"

// isNonblock reports whether the descriptor fd is in non-blocking mode.
func isNonblock(fd uintptr) bool {
	flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
	return err == nil && flags&unix.O_NONBLOCK != 0
}
