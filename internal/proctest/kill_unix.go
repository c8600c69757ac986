//go:build unix

package proctest

import "syscall"

// KillGroup sends SIGKILL to process group pgid, for a test that cleans up
// after itself; errors are ignored.
func KillGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
