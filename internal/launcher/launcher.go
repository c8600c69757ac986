// Package launcher knows the programs that install what they run before
// they run it — npx (and npm exec), bunx, pnpm dlx, yarn dlx, uvx (and uv
// tool run), pipx run, docker run and podman run — from their command
// lines, without running them: which package a launch runs, whether it
// is installed yet, whether an install is under way, and whether one
// that was stopped left its copy broken, and what to delete.
//
// Only npx's cache is read (see [Npx]): it is the one whose layout is
// known (a directory per set of package specs, named by their hash),
// whose installs hold a lock, and whose interrupted install is known to
// leave a copy that never works again. For the others, whether the
// package is installed is not known.
package launcher

import (
	"path/filepath"
	"strings"
)

// Launch is a command line that runs a package through a launcher.
type Launch struct {
	// Launcher is the launcher as it is typed: "npx", "npm exec", "bunx",
	// "pnpm dlx", "yarn dlx", "uvx", "uv tool run", "pipx run", "docker
	// run", "podman run".
	Launcher string
	// Package is the package (or image) it runs, as the command line
	// names it; "" when its arguments do not say.
	Package string
	// Installed is whether the package is installed where the launcher
	// looks first: [Yes] or [No] for npx, [Unknown] for the others (and
	// for npx arguments strata cannot follow). A docker run with --pull
	// never is [Yes]: it pulls nothing.
	Installed Known
	// Dir is where npx installs the package: <cache>/_npx/<hash of the
	// specs>; "" for the other launchers.
	Dir string
}

// Known is a yes, a no, or that it is not known.
type Known uint8

const (
	Unknown Known = iota
	Yes
	No
)

// Of returns the launch of program (a path, or a name found in PATH)
// with args, started in dir with the environment environ; false when
// program is not a launcher that installs.
func Of(program string, args []string, dir string, environ []string) (Launch, bool) {
	base := strings.ToLower(filepath.Base(program))
	for _, ext := range []string{".exe", ".cmd", ".bat", ".ps1"} {
		base = strings.TrimSuffix(base, ext)
	}
	sub := func(name string) bool { return len(args) > 0 && args[0] == name }
	switch {
	case base == "npx":
		return npxLaunch("npx", args, dir, environ), true
	case base == "npm" && (sub("exec") || sub("x")):
		return npxLaunch("npm exec", args[1:], dir, environ), true
	case base == "bunx":
		return Launch{Launcher: "bunx", Package: firstOperand(args, bunValueFlags, "-p", "--package")}, true
	case base == "bun" && sub("x"):
		return Launch{Launcher: "bunx", Package: firstOperand(args[1:], bunValueFlags, "-p", "--package")}, true
	case base == "pnpm" && sub("dlx"), base == "pnpx":
		rest := args
		if base == "pnpm" {
			rest = args[1:]
		}
		return Launch{Launcher: "pnpm dlx", Package: firstOperand(rest, pnpmValueFlags, "--package")}, true
	case base == "yarn" && sub("dlx"):
		return Launch{Launcher: "yarn dlx", Package: firstOperand(args[1:], yarnValueFlags, "-p", "--package")}, true
	case base == "uvx":
		return Launch{Launcher: "uvx", Package: firstOperand(args, uvValueFlags, "--from")}, true
	case base == "uv" && len(args) > 1 && args[0] == "tool" && args[1] == "run":
		return Launch{Launcher: "uv tool run", Package: firstOperand(args[2:], uvValueFlags, "--from")}, true
	case base == "pipx" && sub("run"):
		return Launch{Launcher: "pipx run", Package: firstOperand(args[1:], pipxValueFlags, "--spec")}, true
	case (base == "docker" || base == "podman") && sub("run"):
		l := Launch{Launcher: base + " run", Package: firstOperand(args[1:], dockerValueFlags)}
		if flagValue(args[1:], dockerValueFlags, "--pull") == "never" {
			l.Installed = Yes
		}
		return l, true
	}
	return Launch{}, false
}

// WillInstall reports whether the launch installs its package before it
// runs it: npx when the package is not installed; another launcher when
// it is not known to be (known is whether strata has run this launch
// before: it then installed what it needed).
func (l Launch) WillInstall(known bool) bool {
	switch l.Installed {
	case Yes:
		return false
	case No:
		return true
	}
	return !known
}

// Value flags of each launcher: those that take the next argument as
// their value, so that the package is not mistaken for one.
var (
	bunValueFlags  = set("-p", "--package", "--cwd", "--config", "-c")
	pnpmValueFlags = set("--package", "-C", "--dir", "--reporter", "--allow-build")
	yarnValueFlags = set("-p", "--package")
	uvValueFlags   = set("--from", "--with", "-w", "--with-editable", "--with-requirements", "--python", "-p",
		"--index", "--default-index", "--index-url", "-i", "--extra-index-url", "--find-links", "-f",
		"--constraints", "-c", "--overrides", "--build-constraints", "-b", "--cache-dir", "--directory",
		"--project", "--config-file", "--env-file", "--color", "--index-strategy", "--keyring-provider",
		"--resolution", "--prerelease", "--exclude-newer", "--link-mode", "--refresh-package",
		"--reinstall-package", "--upgrade-package", "-P", "--config-setting", "-C", "--python-platform")
	pipxValueFlags   = set("--spec", "--python", "--index-url", "-i", "--pip-args", "--backend")
	dockerValueFlags = set("-a", "--attach", "--add-host", "--annotation", "--blkio-weight", "--cap-add", "--cap-drop",
		"--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-period", "--cpu-quota", "--cpu-shares", "-c",
		"--cpus", "--cpuset-cpus", "--cpuset-mems", "--device", "--device-cgroup-rule", "--dns", "--dns-option",
		"--dns-search", "--domainname", "--entrypoint", "-e", "--env", "--env-file", "--expose", "--gpus",
		"--group-add", "--health-cmd", "--health-interval", "--health-retries", "--health-start-period",
		"--health-timeout", "-h", "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "--label", "-l",
		"--label-file", "--link", "--log-driver", "--log-opt", "--mac-address", "-m", "--memory",
		"--memory-reservation", "--memory-swap", "--mount", "--name", "--network", "--net", "--network-alias",
		"--pid", "--pids-limit", "--platform", "-p", "--publish", "--pull", "--restart", "--runtime",
		"--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt", "--sysctl",
		"--tmpfs", "-u", "--user", "--ulimit", "--userns", "--uts", "-v", "--volume", "--volume-driver",
		"--volumes-from", "-w", "--workdir", "--detach-keys", "--oom-score-adj", "--memory-swappiness",
		"--kernel-memory", "--cpu-rt-period", "--cpu-rt-runtime", "--chown", "--arch", "--os", "--variant")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// firstOperand returns what names the package among args, a launcher's
// arguments after its subcommand: the value of an option of named
// ("--from pkg", "--from=pkg") given before the first operand, else the
// first argument that is not an option or an option's value (by
// values). "" when there is none.
func firstOperand(args []string, values map[string]bool, named ...string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, n := range named {
			switch {
			case a == n && i+1 < len(args):
				return args[i+1]
			case strings.HasPrefix(a, n+"="):
				return strings.TrimPrefix(a, n+"=")
			}
		}
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case strings.HasPrefix(a, "-") && a != "-":
			if values[a] {
				i++
			}
		default:
			return a
		}
	}
	return ""
}

// flagValue returns the value of the option name among the options of
// args before the first operand ("--pull never", "--pull=never"); ""
// when it is not given there.
func flagValue(args []string, values map[string]bool, name string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == name && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, name+"="):
			return strings.TrimPrefix(a, name+"=")
		case a == "--", !strings.HasPrefix(a, "-") || a == "-":
			return ""
		case values[a]:
			i++
		}
	}
	return ""
}
