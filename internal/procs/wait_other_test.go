//go:build unix && !linux

package procs

// platformWaits are the ways of waiting, besides waitExit, of the system.
var platformWaits []waitWay
