// Package userdir says where an application keeps the user's own files:
// its config directory, which holds the user file and the trust list.
// Package load and package trust both find it here, the same way.
package userdir

import (
	"path/filepath"
	"strings"
)

// Config returns the config directory of an application called name: the
// <NAME>_CONFIG_HOME variable, else $XDG_CONFIG_HOME/<name>, else
// $HOME/.config/<name>, each read with getenv; "" when none is set.
func Config(name string, getenv func(string) string) string {
	return ConfigAt(name, "", getenv)
}

// ConfigAt is Config for an application that keeps the user's files in
// dir ("~/.myapp", ~ the home directory) rather than in the XDG place:
// the <NAME>_CONFIG_HOME variable, else dir, else as Config. A dir
// under ~ with no home directory set, or relative, is "".
func ConfigAt(name, dir string, getenv func(string) string) string {
	if d := getenv(HomeVar(name)); d != "" {
		return d
	}
	if dir != "" {
		if rest, ok := strings.CutPrefix(dir, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
			h := getenv("HOME")
			if h == "" {
				h = getenv("USERPROFILE")
			}
			if h == "" {
				return ""
			}
			dir = filepath.Join(h, rest)
		}
		if !filepath.IsAbs(dir) {
			return ""
		}
		return filepath.Clean(dir)
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, name)
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", name)
	}
	return ""
}

// HomeVar is the variable that names the config directory of an
// application called name: <NAME>_CONFIG_HOME.
func HomeVar(name string) string { return strings.ToUpper(name) + "_CONFIG_HOME" }

// Getenv returns a getenv over environ, NAME=VALUE entries, the last one
// counting.
func Getenv(environ []string) func(string) string {
	return func(name string) string {
		v := ""
		for _, kv := range environ {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
}
