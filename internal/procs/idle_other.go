//go:build !linux

package procs

// idleLooker returns nil: the system does not say how idle its
// processors are, as Fill reads it.
func idleLooker() looker { return nil }
