package cache

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/internal/launcher"
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
	inv, ok := launcher.ParseNpx(args)
	if !ok {
		return nil
	}
	out := map[string]string{}
	if inv.Command != "" && len(inv.FlagPackages) == 0 {
		addBin(out, inv.Command, dir)
	}
	npxDir := launcher.NpxDir(inv, environ)
	prefix := launcher.LocalPrefix(dir)
	for _, spec := range inv.Packages {
		name, ok := launcher.NpmName(spec)
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

// addBin records the program node_modules/.bin/<command> of dir or the
// nearest directory above it that has one: the identity of the file it
// links to, and the version of the package that holds that file.
func addBin(out map[string]string, command, dir string) {
	bin, nodeModules := launcher.LocalBin(command, dir)
	if bin == "" {
		return
	}
	target, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return
	}
	if id, info, err := identify(target); err == nil {
		out["bin "+bin] = fmt.Sprintf("%d:%d:%s%s", info.Size(), info.ModTime().UnixNano(), id.identity, id.sha256)
	}
	// The package that holds the program: the nearest package.json
	// above it, under the node_modules it was found in.
	top, err := filepath.EvalSymlinks(nodeModules)
	if err != nil {
		return
	}
	for p := filepath.Dir(target); strings.HasPrefix(p, top+string(filepath.Separator)); p = filepath.Dir(p) {
		if addVersion(out, "bin", filepath.Join(p, "package.json")) {
			break
		}
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
