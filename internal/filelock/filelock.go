// Package filelock takes exclusive locks on files, across processes: the
// trust list and the file of sign-in tokens are read, changed and written
// under one.
package filelock
