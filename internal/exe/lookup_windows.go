package exe

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// hasDir reports whether program names a path rather than a name to look
// up in PATH.
func hasDir(program string) bool {
	return strings.ContainsAny(program, `/\`) || filepath.VolumeName(program) != ""
}

// defaultPathext is the PATHEXT of an environment without one.
const defaultPathext = ".COM;.EXE;.BAT;.CMD"

// pathext returns the extensions of the PATHEXT of env, in lower case.
func pathext(env []string) []string {
	v := Getenv(env, "PATHEXT")
	if v == "" {
		v = defaultPathext
	}
	var exts []string
	for _, e := range strings.Split(strings.ToLower(v), ";") {
		if strings.HasPrefix(e, ".") && len(e) > 1 {
			exts = append(exts, e)
		}
	}
	return exts
}

// candidates returns the files that can run for path, a program looked up
// in a directory of PATH: path itself, then path with each extension of
// the PATHEXT of env.
func candidates(path string, env []string) []string {
	out := []string{path}
	for _, e := range pathext(env) {
		out = append(out, path+e)
	}
	return out
}

// notExecutable is the detail of the error for a file that is not
// executable.
const notExecutable = "not executable (its extension is not one of PATHEXT)"

// executable reports whether the file path may be run: Windows has no
// execute bit, a file runs by its extension, one of PATHEXT.
func executable(path string, _ fs.FileInfo, env []string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range pathext(env) {
		if ext == e {
			return true
		}
	}
	return false
}

// sameVar reports whether a and b name the same environment variable:
// Windows ignores case.
func sameVar(a, b string) bool { return strings.EqualFold(a, b) }
