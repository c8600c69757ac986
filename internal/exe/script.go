package exe

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// interpreters matches programs that run what their arguments or input
// say. It is compiled on first use, not at start-up.
var interpreters = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(sh|bash|dash|zsh|ksh|mksh|fish|csh|tcsh|busybox|env|python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|bunx|npx|npm|pnpm|yarn|uv|uvx|pipx|ruby|perl|php|lua|luajit|java|osascript|pwsh|powershell|cmd|docker|podman)(\.exe)?$`)
})

// IsInterpreter reports whether program is a shell, an interpreter or a
// package runner: what it runs is what its arguments name.
func IsInterpreter(program string) bool {
	return interpreters().MatchString(filepath.Base(program))
}

// Script returns the script an interpreter runs: the first argument that
// names a regular file (relative to dir, or absolute), made absolute; ""
// for a program that is not an interpreter or names no file.
func Script(program string, args []string, dir string) string {
	if !IsInterpreter(program) {
		return ""
	}
	for _, a := range args {
		if a == "" || strings.HasPrefix(a, "-") || strings.ContainsAny(a, "\n\x00") {
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
