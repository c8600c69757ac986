//go:build !unix

package pollfile

// isNonblock reports false: Windows reads its files and pipes in the poller
// when they were opened for overlapped I/O, which nothing here tells.
func isNonblock(uintptr) bool { return false }
