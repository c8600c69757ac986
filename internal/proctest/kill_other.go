//go:build !unix

package proctest

// KillGroup does nothing where there are no process groups.
func KillGroup(int) {}
