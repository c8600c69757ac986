//go:build unix

package gateway

import "syscall"

// openFiles is how many files the process may open (RLIMIT_NOFILE's soft
// limit, which Go raises to the hard limit at start); 0 when unknown.
func openFiles() uint64 {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 0
	}
	return uint64(l.Cur) // RLIM_INFINITY is the largest value: no bound
}
