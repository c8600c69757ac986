//go:build unix

package exe

import (
	"io/fs"
	"strings"
)

// hasDir reports whether program names a path rather than a name to look
// up in PATH.
func hasDir(program string) bool { return strings.Contains(program, "/") }

// candidates returns the files that can run for path, a program looked up
// in a directory of PATH: path itself.
func candidates(path string, _ []string) []string { return []string{path} }

// notExecutable is the detail of the error for a file that is not
// executable.
const notExecutable = "not executable (permission denied)"

// executable reports whether the file path, of info fi, may be run: an
// execute bit is set.
func executable(_ string, fi fs.FileInfo, _ []string) bool { return fi.Mode().Perm()&0o111 != 0 }

// sameVar reports whether a and b name the same environment variable.
func sameVar(a, b string) bool { return a == b }
