package procs

import (
	"maps"
	"slices"
	"strings"
)

// MinimalEnv returns the environment to give a program: from environ (in
// the form of [os.Environ]) only PATH, HOME, USER, LOGNAME, SHELL, LANG,
// LANGUAGE, LC_*, TZ, TMPDIR and TERM, then every variable of extra, which
// wins over environ. A variable that appears more than once in environ
// counts with its last value, as in [exec.Cmd].Env; entries of environ
// without "=" and names of extra that are empty or contain "=" are left
// out. The result is sorted by name.
func MinimalEnv(environ []string, extra map[string]string) []string {
	vars := make(map[string]string)
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && kept(name) {
			vars[name] = value
		}
	}
	for name, value := range extra {
		if name != "" && !strings.Contains(name, "=") {
			vars[name] = value
		}
	}
	env := make([]string, 0, len(vars))
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, name+"="+vars[name])
	}
	return env
}

// kept reports whether MinimalEnv keeps the variable name of the parent's
// environment.
func kept(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM":
		return true
	}
	return strings.HasPrefix(name, "LC_") && len(name) > len("LC_")
}

// Env returns the environment of a program strata starts: the base set of
// the host's variables (see [MinimalEnv]), the variables of the host that
// inherit names, and set, which wins.
func Env(host []string, set map[string]string, inherit []string) []string {
	extra := make(map[string]string, len(set)+len(inherit))
	if len(inherit) > 0 {
		for _, kv := range host {
			name, value, ok := strings.Cut(kv, "=")
			if ok && slices.Contains(inherit, name) {
				extra[name] = value
			}
		}
	}
	for k, v := range set {
		extra[k] = v
	}
	return MinimalEnv(host, extra)
}
