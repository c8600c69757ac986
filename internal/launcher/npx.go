package launcher

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/strata-config/strata/internal/readfile"
)

// Npx is what npx's arguments ask for (npm 7 and later: `npx [options]
// <command> [args]`, `npm exec`).
type Npx struct {
	// Packages are the package specs: -p's, or the command.
	Packages []string
	// FlagPackages are the specs -p (--package) gave.
	FlagPackages []string
	// Command is the program to run: the first argument after the
	// options.
	Command string
	// Cache is --cache, when given.
	Cache string
}

// npxValueFlags are the options of npx and npm that take the next
// argument as their value.
var npxValueFlags = map[string]bool{
	"--registry": true, "--prefix": true, "--userconfig": true, "--globalconfig": true,
	"-w": true, "--workspace": true, "--loglevel": true, "--node-options": true, "--script-shell": true,
}

// ParseNpx reads npx's options and its command; false means arguments it
// cannot follow (a -c command, a missing value, no package).
func ParseNpx(args []string) (Npx, bool) {
	var inv Npx
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
			inv.FlagPackages = append(inv.FlagPackages, v)
		case strings.HasPrefix(a, "--package="):
			inv.FlagPackages = append(inv.FlagPackages, strings.TrimPrefix(a, "--package="))
			i++
		case a == "-c" || a == "--call" || strings.HasPrefix(a, "--call="):
			return inv, false
		case a == "--cache":
			v, ok := value()
			if !ok {
				return inv, false
			}
			inv.Cache = v
		case strings.HasPrefix(a, "--cache="):
			inv.Cache = strings.TrimPrefix(a, "--cache=")
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
		inv.Command = args[i]
	}
	inv.Packages = inv.FlagPackages
	if len(inv.Packages) == 0 && inv.Command != "" {
		inv.Packages = []string{inv.Command}
	}
	return inv, len(inv.Packages) > 0
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

// NpmName returns the package name of a registry spec (name,
// name@version, @scope/name@range, name@tag); false for other specs
// (git, tarballs, directories, aliases).
func NpmName(spec string) (string, bool) {
	name, version := spec, ""
	if at := strings.LastIndex(spec, "@"); at > 0 {
		name, version = spec[:at], spec[at+1:]
	}
	if !npmNamePattern().MatchString(name) || len(name) > 214 || strings.ContainsAny(version, ":/\\") {
		return "", false
	}
	return name, true
}

// NpmCache returns npm's cache directory as environ sets it:
// $npm_config_cache, else ~/.npm (%LocalAppData%/npm-cache on Windows);
// "" when neither says.
func NpmCache(environ []string) string {
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

// NpxDir returns the directory of npx's cache that holds the packages of
// inv, run with the environment environ; "" when npm's cache is not
// known.
func NpxDir(inv Npx, environ []string) string {
	cacheDir := inv.Cache
	if cacheDir == "" {
		cacheDir = NpmCache(environ)
	}
	if cacheDir == "" {
		return ""
	}
	return filepath.Join(cacheDir, "_npx", NpxHash(inv.Packages))
}

// LocalPrefix returns npm's local prefix for dir: the nearest directory,
// dir or one above it, with a package.json or a node_modules; "" when
// there is none.
func LocalPrefix(dir string) string {
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

// LocalBin returns node_modules/.bin/<command> of dir or the nearest
// directory above it that has one, and the node_modules it is in; ""
// when there is none.
func LocalBin(command, dir string) (bin, nodeModules string) {
	if dir == "" || command == "." || command == ".." || strings.ContainsAny(command, `/\`) {
		return "", ""
	}
	for d := filepath.Clean(dir); ; {
		bin := filepath.Join(d, "node_modules", ".bin", command)
		if _, err := os.Lstat(bin); err == nil {
			return bin, filepath.Join(d, "node_modules")
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// npxLaunch is the launch of npx with args: installed when npx finds the
// command in a node_modules/.bin of dir or above, or every package in
// the local project or in its cache (by their package.json).
func npxLaunch(launcher string, args []string, dir string, environ []string) Launch {
	l := Launch{Launcher: launcher}
	inv, ok := ParseNpx(args)
	if !ok {
		return l
	}
	l.Package = inv.Packages[0]
	l.Dir = NpxDir(inv, environ)
	if inv.Command != "" && len(inv.FlagPackages) == 0 {
		if bin, _ := LocalBin(inv.Command, dir); bin != "" {
			l.Installed = Yes
			return l
		}
	}
	prefix := LocalPrefix(dir)
	l.Installed = Yes
	for _, spec := range inv.Packages {
		name, ok := NpmName(spec)
		if !ok {
			l.Installed = Unknown
			return l
		}
		if name != spec {
			// A version, a range or a tag: npx checks what it has
			// against the registry, which is not asked here.
			l.Package = name
		}
		local := prefix != "" && isFile(filepath.Join(prefix, "node_modules", name, "package.json"))
		cached := l.Dir != "" && isFile(filepath.Join(l.Dir, "node_modules", name, "package.json"))
		if !local && !cached {
			l.Installed = No
		}
	}
	return l
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// installFresh is how recently npx's install must have touched its lock
// (or its node_modules) to count as under way: npm touches the lock
// every second while it holds it, and takes it as stale after a minute.
const installFresh = 5 * time.Second

// Installing reports whether npx is installing into l.Dir now: its
// lock (concurrency.lock, which npm 11 holds while it installs, touching
// it every second) was touched within the last 5 seconds, or, with no
// lock (older npm), its node_modules changed within them while npm has
// not yet written the list of what it installed
// (node_modules/.package-lock.json). Always false for launchers other
// than npx.
func (l Launch) Installing(now time.Time) bool {
	if l.Dir == "" {
		return false
	}
	if info, err := os.Stat(filepath.Join(l.Dir, "concurrency.lock")); err == nil {
		return now.Sub(info.ModTime()) < installFresh
	}
	nm := filepath.Join(l.Dir, "node_modules")
	if _, err := os.Lstat(filepath.Join(nm, ".package-lock.json")); err == nil {
		return false
	}
	info, err := os.Stat(nm)
	if err != nil {
		return false
	}
	if now.Sub(info.ModTime()) < installFresh {
		return true
	}
	entries, err := os.ReadDir(nm)
	if err != nil {
		return false
	}
	for _, e := range entries[:min(len(entries), maxScan)] {
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) < installFresh {
			return true
		}
	}
	return false
}

// maxScan bounds the packages a look at npx's copy reads: a package
// with its dependencies is a few hundred (server-filesystem's 102).
const maxScan = 10000

// Broken says what is wrong with npx's copy of the package of l, in
// l.Dir, when an install that was stopped left it unusable, or "" when
// nothing is known to be: a lock that nobody holds (npx waits a minute
// for it at each start until it is stale), a package unpacked without
// its package.json or a dependency missing (npm unpacks each package
// into its place, package.json among its files in any order, and a kill
// midway leaves what it had unpacked; npx then takes the package as
// installed and runs it, which fails with "Cannot find package"), or
// what the server wrote to stderr (said: its last lines) saying that it
// cannot find a file in l.Dir, which finds a package half unpacked with
// its package.json. It looks at every package directory under l.Dir and
// reads the package.json files from the package down its dependencies
// as node finds them (optional dependencies are not required), at most
// 10,000 of each. The caller says what to delete: l.Dir.
func (l Launch) Broken(ctx context.Context, now time.Time, said []string) string {
	if l.Dir == "" {
		return ""
	}
	if info, err := os.Stat(filepath.Join(l.Dir, "concurrency.lock")); err == nil && now.Sub(info.ModTime()) >= installFresh {
		return "an install that was stopped left its lock, " + filepath.Join(l.Dir, "concurrency.lock") + ", which npx waits a minute for at each start"
	}
	name, ok := NpmName(l.Package)
	if !ok {
		return ""
	}
	nm := filepath.Join(l.Dir, "node_modules")
	top := filepath.Join(nm, filepath.FromSlash(name))
	if _, err := os.Stat(top); errors.Is(err, fs.ErrNotExist) {
		return "" // not installed there: npx installs it
	}
	missing := unpacked(nm)
	for _, m := range missingDeps(ctx, nm, top, name) {
		if !slices.Contains(missing, m) {
			missing = append(missing, m)
		}
	}
	for _, line := range said {
		if len(missing) == 0 && strings.Contains(line, "Cannot find") && strings.Contains(line, l.Dir+string(filepath.Separator)) {
			missing = append(missing, "the server cannot find a file of it")
		}
	}
	if len(missing) == 0 {
		return ""
	}
	shown := missing[:min(len(missing), 3)]
	what := strings.Join(shown, ", ")
	if len(missing) > len(shown) {
		what += fmt.Sprintf(" and %d more", len(missing)-len(shown))
	}
	return "npx's copy of " + name + " is incomplete (" + what + "): an install that was stopped midway left it, and npx runs it as it is"
}

// unpacked returns the packages under the node_modules nm, nested ones
// included, whose directory has no package.json ("zod has no
// package.json"), in the order of their names; at most 10,000 package
// directories are looked at.
func unpacked(nm string) []string {
	var missing []string
	dirs := []string{nm}
	seen := 0
	for len(dirs) > 0 && seen < maxScan {
		d := dirs[0]
		dirs = dirs[1:]
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			pkgs := []string{filepath.Join(d, e.Name())}
			if strings.HasPrefix(e.Name(), "@") {
				scoped, _ := os.ReadDir(pkgs[0])
				pkgs = pkgs[:0]
				for _, s := range scoped {
					if s.IsDir() {
						pkgs = append(pkgs, filepath.Join(d, e.Name(), s.Name()))
					}
				}
			}
			for _, p := range pkgs {
				seen++
				if !isFile(filepath.Join(p, "package.json")) {
					rel, _ := filepath.Rel(d, p)
					missing = append(missing, filepath.ToSlash(rel)+" has no package.json")
				}
				dirs = append(dirs, filepath.Join(p, "node_modules"))
			}
		}
	}
	return missing
}

// missingDeps walks the dependencies of the package in dir, named name,
// under the node_modules nm, and returns what is missing: "zod is
// missing", "ajv has no package.json".
func missingDeps(ctx context.Context, nm, dir, name string) []string {
	type pkg struct{ dir, name string }
	seen := map[string]bool{dir: true}
	queue := []pkg{{dir, name}}
	var missing []string
	for len(queue) > 0 && len(seen) <= maxScan && ctx.Err() == nil {
		p := queue[0]
		queue = queue[1:]
		b, err := readfile.Regular(ctx, filepath.Join(p.dir, "package.json"), 1<<20, "a package.json")
		if err != nil {
			missing = append(missing, p.name+" has no package.json")
			continue
		}
		var m struct {
			Dependencies map[string]string `json:"dependencies"`
			Optional     map[string]string `json:"optionalDependencies"`
		}
		if json.Unmarshal(b, &m) != nil {
			missing = append(missing, p.name+"'s package.json does not parse")
			continue
		}
		for _, dep := range slices.Sorted(maps.Keys(m.Dependencies)) {
			if _, optional := m.Optional[dep]; optional {
				continue
			}
			found := resolveDep(nm, p.dir, dep)
			if found == "" {
				missing = append(missing, dep+" is missing")
				continue
			}
			if !seen[found] {
				seen[found] = true
				queue = append(queue, pkg{found, dep})
			}
		}
	}
	return missing
}

// resolveDep finds the package dep as node does from the package in
// dir: in dir/node_modules, then in the node_modules of each directory
// above, up to npx's directory, the parent of nm; "" when it is in none.
// (Node skips the directories named node_modules on its way up; looking
// in them too finds nothing more, since none holds a node_modules.)
func resolveDep(nm, dir, dep string) string {
	root := filepath.Dir(nm)
	for d := dir; strings.HasPrefix(d, root); d = filepath.Dir(d) {
		c := filepath.Join(d, "node_modules", filepath.FromSlash(dep))
		if info, err := os.Stat(c); err == nil && info.IsDir() {
			return c
		}
		if d == root {
			break
		}
	}
	return ""
}
