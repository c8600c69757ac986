// Package exe says what a launch would run, without running it: the
// executable a bare name finds in a PATH ([LookPath]), whether a file may
// run ([Executable]), the script an interpreter runs ([Script]), and the
// SHA-256 of a file's content ([Sum]). Package procs starts programs with
// it, and package trust pins them with it; it starts nothing itself, so
// that the config core (trust among it) links no process runner.
package exe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-config/strata/internal/readfile"
)

// LookPath returns the executable that procs starts for program with the
// environment env: a program with a slash as it is, a bare name found in
// the absolute directories of env's PATH, or the name itself when it is
// not found there.
func LookPath(program string, env []string) string {
	if strings.Contains(program, "/") {
		return program
	}
	if p, err := Find(program, env); err == nil {
		return p
	}
	return program
}

// Find finds the executable file name in the absolute directories of the
// PATH of env, the last PATH in env counting (relative directories are
// skipped: they would depend on where the program starts). The error wraps
// [fs.ErrNotExist] when there is none.
func Find(name string, env []string) (string, error) {
	path := Getenv(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		for _, p := range candidates(filepath.Join(dir, name), env) {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && executable(p, fi, env) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s: not found in PATH: %w", name, fs.ErrNotExist)
}

// HasDir reports whether program names a path rather than a name to look
// up in PATH.
func HasDir(program string) bool { return hasDir(program) }

// NotExecutable is what a file that [Executable] refuses is, for messages.
const NotExecutable = notExecutable

// Executable reports whether the file path, of info fi, may be run with
// the environment env: an execute bit set on Unix, an extension of
// PATHEXT on Windows.
func Executable(path string, fi fs.FileInfo, env []string) bool { return executable(path, fi, env) }

// Getenv returns the value of the variable name in env, the last one
// counting (ignoring case on Windows); "" when there is none.
func Getenv(env []string, name string) string {
	value := ""
	for _, kv := range env {
		if n, v, ok := strings.Cut(kv, "="); ok && sameVar(n, name) {
			value = v
		}
	}
	return value
}

// MaxSum is the largest file [Sum] reads; a bigger one is refused.
const MaxSum = 1 << 30

// Sum returns "sha256:<hex>", the SHA-256 of the content of the regular
// file at path (a symbolic link to one is followed), of at most [MaxSum]
// bytes. Anything else is refused before a byte is read: a named pipe is
// not waited on, a device not read (see [readfile.Open]).
func Sum(path string) (string, error) {
	f, info, err := readfile.Open(path, "a program or a script to hash")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if info.Size() > MaxSum {
		return "", fmt.Errorf("%s is over %d bytes", path, MaxSum)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxSum+1))
	if err != nil {
		return "", err
	}
	if n > MaxSum {
		return "", fmt.Errorf("%s is over %d bytes", path, MaxSum)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
