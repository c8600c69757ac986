package procs

import (
	"maps"
	"runtime"
	"slices"
	"strings"
)

// Env returns the environment of a program strata starts (a discovery, a
// tool call, an MCP server): from host (in the form of [os.Environ]) the
// base set listed below, then the variables inherit names (Codex's
// env_vars: a name the host does not set is left out), then every variable
// of set (a server's env), which wins over both. Nothing else of the host's
// is passed on, so that a program sees the same environment wherever
// strata runs and a secret reaches only the programs it is given to.
//
// The name "*" in inherit inherits every variable of host (as a program
// the host ran itself would, and as mcp-go and the Go SDK start servers)
// but PWD, OLDPWD and _, which describe the shell's directories and last
// command rather than the program's: the program starts elsewhere (a
// private directory, while the workspace is untrusted), and a PWD naming
// the workspace would lead it there.
//
// A variable that appears more than once in host counts with its last
// value, as in [exec.Cmd].Env; entries of host without "=" and names that
// are empty or contain "=" are left out. On Windows names are matched
// without regard to case, as the system does, and the host's spelling is
// kept. The result is sorted by name.
//
// The base set is what programs need to work as they do in the user's
// shell, and nothing that is a secret:
//
//   - who and where: PATH, HOME, USER, LOGNAME, SHELL (programs find other
//     programs, their own files in the home directory, and the shell to
//     run commands with);
//   - language and time: LANG, LANGUAGE, every LC_* and TZ (messages,
//     character encoding, dates);
//   - terminal: TERM, COLORTERM (what a program may print);
//   - temporary files: TMPDIR, TMP, TEMP;
//   - network: HTTP_PROXY, HTTPS_PROXY, NO_PROXY, ALL_PROXY and their
//     lower-case forms (behind a proxy nothing else reaches the network);
//   - certificates: SSL_CERT_FILE, SSL_CERT_DIR (OpenSSL, Go, Python's
//     ssl), NODE_EXTRA_CA_CERTS (Node), REQUESTS_CA_BUNDLE (Python
//     requests), CURL_CA_BUNDLE (curl): a private certificate authority
//     must reach every program that talks TLS, or none of them works.
//
// On Windows, also what programs need from the system to run at all:
// SYSTEMROOT, WINDIR, SYSTEMDRIVE (system DLLs and sockets), COMSPEC and
// PATHEXT (the command interpreter, and how PATH is searched), USERPROFILE,
// USERNAME, USERDOMAIN, HOMEDRIVE, HOMEPATH (the user), APPDATA,
// LOCALAPPDATA, PROGRAMDATA (where programs keep their data: npm and npx
// live in APPDATA), PROGRAMFILES, PROGRAMFILES(X86), PROGRAMW6432,
// COMMONPROGRAMFILES, COMMONPROGRAMFILES(X86), COMMONPROGRAMW6432
// (installed programs), NUMBER_OF_PROCESSORS, PROCESSOR_ARCHITECTURE and
// OS.
//
// Tokens, keys and anything else reach a program only through its env (a
// value) or env_vars (a name).
func Env(host []string, set map[string]string, inherit []string) []string {
	return env(host, set, inherit, runtime.GOOS == "windows")
}

func env(host []string, set map[string]string, inherit []string, windows bool) []string {
	fold := func(name string) string {
		if windows {
			return strings.ToUpper(name)
		}
		return name
	}
	// vars maps a folded name to the entry name=value, so that on Windows
	// "Path" and "PATH" are one variable.
	type entry struct{ name, value string }
	vars := make(map[string]entry)
	wanted := make(map[string]bool, len(inherit))
	all := false
	for _, n := range inherit {
		if n == "*" {
			all = true
		} else if validName(n) {
			wanted[fold(n)] = true
		}
	}
	for _, kv := range host {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !validName(name) {
			continue
		}
		if f := fold(name); wanted[f] || base(name, windows) || all && !shellOwn[f] {
			vars[f] = entry{name, value}
		}
	}
	for name, value := range set {
		if validName(name) {
			vars[fold(name)] = entry{name, value}
		}
	}
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, vars[k].name+"="+vars[k].value)
	}
	return out
}

func validName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}

// shellOwn are the variables "*" leaves out (see [Env]), folded.
var shellOwn = map[string]bool{"PWD": true, "OLDPWD": true, "_": true}

// baseEnv is the base set of every system; see [Env].
var baseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "TZ", // and every LC_*
	"TERM", "COLORTERM",
	"TMPDIR", "TMP", "TEMP",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
}

// windowsEnv is the base set of Windows on top of baseEnv; see [Env].
var windowsEnv = []string{
	"SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "COMSPEC", "PATHEXT",
	"USERPROFILE", "USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH",
	"APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
	"PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432",
	"COMMONPROGRAMFILES", "COMMONPROGRAMFILES(X86)", "COMMONPROGRAMW6432",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS",
}

var (
	baseNames    = setOf(baseEnv, false)
	windowsNames = setOf(append(slices.Clone(baseEnv), windowsEnv...), true)
)

func setOf(names []string, upper bool) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		if upper {
			n = strings.ToUpper(n)
		}
		m[n] = true
	}
	return m
}

// base reports whether the host variable name belongs to the base set.
func base(name string, windows bool) bool {
	if windows {
		up := strings.ToUpper(name)
		return windowsNames[up] || strings.HasPrefix(up, "LC_") && len(up) > len("LC_")
	}
	return baseNames[name] || strings.HasPrefix(name, "LC_") && len(name) > len("LC_")
}
