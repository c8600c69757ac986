//go:build !linux

package main

import "testing"

// watchOpens is Linux's alone (inotify): elsewhere it sees nothing.
func watchOpens(t *testing.T, paths ...string) (opened func() []string) {
	return func() []string { return nil }
}

// canWatchOpens reports whether this system tells opens (see watchOpens).
const canWatchOpens = false
