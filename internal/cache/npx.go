package cache

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/strata-config/strata/codec"
)

// AddPackage records, for a program run through npx (or npm exec), what
// npx would run, as far as that can be known without running npm, so that
// an upgraded package is asked again: the version in the package.json of
// each place npx looks for the package (see [NpxPackages]). It reports
// whether the packages recorded changed: a first run of npx installs the
// package, and the key after it is not the key before.
func (k *Key) AddPackage(program string, args []string, dir string, environ []string) bool {
	before := k.Packages
	k.Packages = NpxPackages(program, args, dir, environ)
	return !maps.Equal(before, k.Packages)
}

// NpxPackages returns what identifies the packages npx would run for the
// command line program args in dir, with the environment environ: by
// place, the version (or, for a file, its identity) of each candidate
// that is installed. nil means the program is not npx, or its arguments
// name no package strata can follow.
//
// npx (npm 7 and later) runs, for `npx [options] <command> [args]`:
//
//   - a program node_modules/.bin/<command> of the working directory or
//     one above it; recorded as "bin <path>": the identity of the file it
//     links to, and "bin <package.json>": the version of its package;
//   - else a package of the local project (the nearest directory up with
//     a package.json or a node_modules): "local <package.json>", the
//     version of <prefix>/node_modules/<name>;
//   - else the package installed in npx's cache, under a directory named
//     by a hash of the package specs: "npx <package.json>", the version of
//     <cache>/_npx/<hash>/node_modules/<name>. The cache is npm's: --cache,
//     else $npm_config_cache, else ~/.npm (%LocalAppData%/npm-cache on
//     Windows).
//
// With -p/--package, the packages are those and the command is a program
// of theirs. Every candidate installed is recorded, not only the one npx
// would pick (which needs npm's semver and, for a tag or a bare name in
// its cache, the registry): a change of any of them changes the key.
//
// What is not followed: a version npx would fetch from the registry that
// is not installed yet (npx checks the registry for a bare name or a
// range in its cache, and upgrades), a package found only deeper in the
// local tree or in a workspace root, global installs, .npmrc settings
// (cache, prefix), and specs that are not a registry name (git, tarballs,
// directories, aliases, -c commands).
func NpxPackages(program string, args []string, dir string, environ []string) map[string]string {
	base := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(filepath.Base(program)), ".exe"), ".cmd")
	switch {
	case base == "npx":
	case base == "npm" && len(args) > 0 && (args[0] == "exec" || args[0] == "x"):
		args = args[1:]
	default:
		return nil
	}
	inv, ok := parseNpx(args)
	if !ok {
		return nil
	}
	out := map[string]string{}
	if inv.command != "" && len(inv.flagPackages) == 0 {
		addBin(out, inv.command, dir)
	}
	cacheDir := inv.cache
	if cacheDir == "" {
		cacheDir = npmCache(environ)
	}
	var npxDir string
	if cacheDir != "" {
		npxDir = filepath.Join(cacheDir, "_npx", NpxHash(inv.packages))
	}
	prefix := localPrefix(dir)
	for _, spec := range inv.packages {
		name, ok := npmName(spec)
		if !ok {
			continue
		}
		if prefix != "" {
			addVersion(out, "local", filepath.Join(prefix, "node_modules", name, "package.json"))
		}
		if npxDir != "" {
			addVersion(out, "npx", filepath.Join(npxDir, "node_modules", name, "package.json"))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// npxInvocation is what npx's arguments ask for.
type npxInvocation struct {
	packages     []string // the package specs: -p's, or the command
	flagPackages []string // -p's
	command      string
	cache        string // --cache
}

// npxValueFlags are the options of npx and npm that take the next
// argument as their value.
var npxValueFlags = map[string]bool{
	"--registry": true, "--prefix": true, "--userconfig": true, "--globalconfig": true,
	"-w": true, "--workspace": true, "--loglevel": true, "--node-options": true, "--script-shell": true,
}

// parseNpx reads npx's options and its command; false means arguments it
// cannot follow (a -c command, a missing value).
func parseNpx(args []string) (npxInvocation, bool) {
	var inv npxInvocation
	i := 0
loop:
	for i < len(args) {
		a := args[i]
		value := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i += 2
			return args[i-1], true
		}
		switch {
		case a == "--":
			i++
			break loop
		case a == "-p" || a == "--package":
			v, ok := value()
			if !ok {
				return inv, false
			}
			inv.flagPackages = append(inv.flagPackages, v)
		case strings.HasPrefix(a, "--package="):
			inv.flagPackages = append(inv.flagPackages, strings.TrimPrefix(a, "--package="))
			i++
		case a == "-c" || a == "--call" || strings.HasPrefix(a, "--call="):
			return inv, false
		case a == "--cache":
			v, ok := value()
			if !ok {
				return inv, false
			}
			inv.cache = v
		case strings.HasPrefix(a, "--cache="):
			inv.cache = strings.TrimPrefix(a, "--cache=")
			i++
		case npxValueFlags[a]:
			if _, ok := value(); !ok {
				return inv, false
			}
		case strings.HasPrefix(a, "-") && a != "-":
			i++ // a flag: -y, --yes, --quiet, --prefer-offline, --x=y
		default:
			break loop
		}
	}
	if i < len(args) {
		inv.command = args[i]
	}
	inv.packages = inv.flagPackages
	if len(inv.packages) == 0 && inv.command != "" {
		inv.packages = []string{inv.command}
	}
	return inv, len(inv.packages) > 0
}

// NpxHash names the directory of npx's cache that holds the packages of
// specs: the first 16 hex digits of the SHA-512 of the specs, sorted,
// joined by newlines (libnpmexec). npm sorts with the English locale's
// collation; specs are sorted here by their bytes, which agree for one
// spec and for names of lowercase letters and digits.
func NpxHash(specs []string) string {
	s := append([]string(nil), specs...)
	sort.Strings(s)
	sum := sha512.Sum512([]byte(strings.Join(s, "\n")))
	return hex.EncodeToString(sum[:])[:16]
}

// npmNamePattern is a registry package name, scoped or not. It is
// compiled on first use, not at start-up.
var npmNamePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(@[A-Za-z0-9][A-Za-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*$`)
})

// npmName returns the package name of a registry spec (name,
// name@version, @scope/name@range, name@tag); false for other specs.
func npmName(spec string) (string, bool) {
	name, version := spec, ""
	if at := strings.LastIndex(spec, "@"); at > 0 {
		name, version = spec[:at], spec[at+1:]
	}
	if !npmNamePattern().MatchString(name) || len(name) > 214 || strings.ContainsAny(version, ":/\\") {
		return "", false
	}
	return name, true
}

// npmCache returns npm's cache directory as environ sets it.
func npmCache(environ []string) string {
	get := func(name string) string {
		v := ""
		for _, kv := range environ {
			if k, val, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, name) {
				v = val
			}
		}
		return v
	}
	if c := get("npm_config_cache"); c != "" {
		return c
	}
	if runtime.GOOS == "windows" {
		if l := get("LOCALAPPDATA"); l != "" {
			return filepath.Join(l, "npm-cache")
		}
		return ""
	}
	if h := get("HOME"); h != "" {
		return filepath.Join(h, ".npm")
	}
	return ""
}

// localPrefix returns npm's local prefix for dir: the nearest directory,
// dir or one above it, with a package.json or a node_modules; "" when
// there is none.
func localPrefix(dir string) string {
	if dir == "" {
		return ""
	}
	for d := filepath.Clean(dir); ; {
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			return d
		}
		if info, err := os.Stat(filepath.Join(d, "node_modules")); err == nil && info.IsDir() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// addBin records the program node_modules/.bin/<command> of dir or the
// nearest directory above it that has one: the identity of the file it
// links to, and the version of the package that holds that file.
func addBin(out map[string]string, command, dir string) {
	if dir == "" || command == "." || command == ".." || strings.ContainsAny(command, `/\`) {
		return
	}
	for d := filepath.Clean(dir); ; {
		bin := filepath.Join(d, "node_modules", ".bin", command)
		if _, err := os.Lstat(bin); err == nil {
			target, err := filepath.EvalSymlinks(bin)
			if err != nil {
				return
			}
			if id, info, err := identify(target); err == nil {
				out["bin "+bin] = fmt.Sprintf("%d:%d:%s%s", info.Size(), info.ModTime().UnixNano(), id.identity, id.sha256)
			}
			// The package that holds the program: the nearest package.json
			// above it, under the node_modules it was found in.
			top, err := filepath.EvalSymlinks(filepath.Join(d, "node_modules"))
			if err != nil {
				return
			}
			for p := filepath.Dir(target); strings.HasPrefix(p, top+string(filepath.Separator)); p = filepath.Dir(p) {
				if addVersion(out, "bin", filepath.Join(p, "package.json")) {
					break
				}
			}
			return
		}
		parent := filepath.Dir(d)
		if parent == d {
			return
		}
		d = parent
	}
}

// addVersion records the version of the package.json at path under
// "<place> <path>"; false when there is none.
func addVersion(out map[string]string, place, path string) bool {
	// Through the one bounded reader: a package.json may be anyone's (a
	// link to /dev/zero, a named pipe).
	b, err := codec.Limits{}.ReadFile(context.Background(), path)
	if err != nil {
		return false
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &pkg) != nil || pkg.Version == "" {
		return false
	}
	out[place+" "+path] = pkg.Version
	return true
}
