// Package load is the config half of a workspace: it finds a host's
// layers ([App]: defaults, the user's file, the workspace's files once
// trusted, directory files, extends, the environment, --cfg, flags and the
// host's own sources, [HostSource]), puts them in precedence order, and keeps for
// each where it came from, so that a resolved value is explained
// ([Result.Explain]) and every problem is positioned. Each layer is read
// by package [codec]; other clients' MCP files (Claude Desktop and Code,
// Cursor, VS Code, Codex) are translated into layers by internal/clients,
// which load calls per file.
package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/clients"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/internal/userdir"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/trust"
)

// App describes a host application's configuration sources. Load reads
// them in this order, lowest precedence first:
//
//  1. Defaults (the library's, then the host's, in one resolved value)
//  2. the user file: $XDG_CONFIG_HOME/<name>/config.toml, or config.toml
//     in the host's ConfigHome, or in the directory named by the
//     <NAME>_CONFIG_HOME variable instead
//  3. the workspace file: <root>/.<name>/config.toml, root being the
//     nearest ancestor of Dir that holds a .<name> directory
//  4. directory files: .<name>.toml in each directory from the root (or, out
//     of a workspace, from /) down to Dir; nearer wins
//  5. the environment: <NAME>_KEY_PATH variables (see assign.Env)
//  6. Cfg, left to right: a file path, a key=value override, or a JSON
//     object; "NONE" drops every layer below it but the defaults; then
//     Overrides, the host's own key=value flags, left to right
//  7. Flags
//
// Sources add layers the host reads from elsewhere (organisation defaults
// in a key-value store, a koanf tree) at the place each names: by default
// above the defaults and below the user file (see [HostSource]).
//
// A file may be TOML, JSON or YAML (config.toml, .json, .yaml, .yml; two of
// them in one place is an error), and may extend others (see [codec.ExtendsKey]).
//
// The workspace file and the directory files apply only where the user
// trusts their directory (see [Truster] for which directory decides): the
// trust list of TrustStore, Trust, or TrustWorkspace for this load; with
// none of them, none does. Files that are not applied are listed in the Result
// ([Probe].Untrusted) and reported once for each directory whose trust
// would apply them, as a warning; everything else loads as usual. A file
// of an untrusted workspace that cannot be read (a directory where a file
// should be, a link loop) is a warning too, never an error of the user's
// load. Until the workspace is trusted, a file that lies in it (outside a
// workspace, in Dir) is its content whichever way it is named: a Cfg
// file (another client's included), what an extends of the user's file
// reaches, a symbolic link from outside, a path with "..". It is looked
// at, never opened, and listed with the workspace's files in that one
// warning and in [Result].Untrusted; every file is read through the one
// place that decides this (see [Result.ReadFile]). A file named in the
// user's config directory is the user's. What resolves into the
// workspace is its content too, whichever layer wrote it: a server of
// another client's file (Claude Desktop and Code, Cursor, VS Code, Codex)
// whose ${workspaceFolder}, other variable or envFile resolves there is
// left out, disabled, with a warning, and its envFile is not read.
// Relative paths in a file are relative to the file (see [Rebaser]).
type App[P, R any] struct {
	// Name names the files (.<name>/, .<name>.toml) and the environment
	// variables (<NAME>_...).
	Name string
	// Defaults is the resolved config that layers apply to.
	Defaults R
	// Dir is the working directory; "" means the process's.
	Dir string
	// ConfigHome is the directory of the user's file (config.toml, .json
	// or .yaml) where the host keeps it: "~/.myapp", ~ being the home
	// directory of Environ, or an absolute path. "" is
	// $XDG_CONFIG_HOME/<name>, else ~/.config/<name>; the <NAME>_CONFIG_HOME
	// variable overrides either. The directory that holds it is never a
	// workspace for being its parent: ~/.myapp does not make the home
	// directory the workspace of every project below it.
	ConfigHome string
	// Environ is the environment, as NAME=VALUE entries; nil means the
	// process's. HOME and XDG_CONFIG_HOME are read from it too.
	Environ []string
	// Cfg are --cfg arguments, in order.
	Cfg []string
	// Overrides are key=value overrides from the host's own flags, in
	// order, after Cfg: only assignments (key=value, key:=json, key+=value,
	// key:+=json), never a file, a JSON object or NONE. Problems and
	// explanations name each by OverrideFlag and its number ("--set #2").
	Overrides []string
	// OverrideFlag is the host's flag that gives Overrides; "" is "--set".
	OverrideFlag string
	// Checked, when set, is the key path whose keys strata checks in files
	// (the host's mount of the tools model): an unknown key elsewhere is
	// left to the host (its own reader, koanf), not a problem; so are the
	// Overrides of keys outside it, and the variables outside
	// <ENVPREFIX>_<CHECKED>_ (MYAPP_ASSISTANT_ for assistant). nil checks
	// every key.
	Checked partial.Path
	// EnvPrefix names the configuration's variables, <ENVPREFIX>_KEY_PATH
	// ("MYAPP_CFG" for MYAPP_CFG_MODEL); a variable outside it, such as
	// MYAPP_API_KEY, is not read. "" is Name.
	EnvPrefix string
	// Flags is the layer of explicit command-line flags; nil for none.
	Flags *P
	// Provenance indexes, while loading, which layers mention each field,
	// for Result.Explain (which works without it, by search).
	Provenance bool
	// MCPServers is where the host keeps MCP servers (mcp_servers for
	// strata's own model). When set, files in the formats other tools keep
	// servers in are read as layers of servers: Claude Desktop's
	// claude_desktop_config.json, Claude Code's .mcp.json, Cursor's and VS
	// Code's mcp.json (told by name and place, or by their root keys), and
	// Codex's config.toml when named (--cfg codex:PATH, or format =
	// "codex" in extends; claude, claude-code, cursor and vscode name the
	// others). Each client's variables are expanded by that client's rules.
	MCPServers partial.Path
	// Limits bound what every source may hold; the zero Limits gives the
	// defaults.
	Limits codec.Limits
	// TrustStore is the user's trust list (see [trust.Store]), read by
	// Load: the directories it trusts apply their own files. nil is an
	// empty list.
	TrustStore *trust.Store
	// TrustWorkspace trusts the workspace root (outside a workspace, the
	// root of the repository Dir is in, else Dir) for this load only, exactly, as --trust does: not the repositories
	// nested in it.
	TrustWorkspace bool
	// Private are directories of the user's own besides the config
	// directory and the trust list's, whose files no file of a workspace
	// may name (an extends, an envFile): the sign-ins', a host's keys.
	Private []string
	// Trust decides, besides the trust list, which workspaces' own files
	// apply: a host that keeps trust elsewhere. nil trusts nothing more.
	Trust Truster
	// HostEnv are the host's own variables under the prefix of the
	// configuration's (see EnvPrefix), which the host reads itself and
	// strata leaves alone: whole names (MYAPP_MODEL) or prefixes ending
	// in * (MYAPP_PROVIDER_*), in any case. Every other variable under
	// the prefix is strata's, and one whose name reaches no key does what
	// UnknownEnv says, with a did-you-mean that names the host's own
	// variable when it is the closest.
	HostEnv []string
	// UnknownEnv is what a <NAME>_ variable whose name reaches no key
	// does: an error (the default), a warning, or nothing.
	UnknownEnv EnvPolicy
	// Known are the keys of maps that the host knows of besides those
	// the layers and the defaults set, by the key path of their map
	// ("tools", "assistant.tools"): the tools it implements or
	// discovered. Variables' names are read against them (see
	// assign.Known): MYAPP_TOOLS_WORD_COUNT_RUN reaches the tool
	// word_count, and a misspelt name is told the path it meant.
	Known map[string][]string
	// TrustHint tells the user how to trust the directory that would apply
	// files not applied, in the warning about them: "run strata trust
	// --root DIR". It is never asked about the home directory or the root
	// of the file system (see [Broad]): for those the warning says where
	// such settings belong instead. nil says to trust the directory.
	TrustHint func(Untrusted) string
	// Input asks the user for the value of a VS Code input (${input:id} in
	// an mcp.json), showing its description; a password input must not be
	// echoed. Its answer is used for this load only and never stored. nil
	// means there is no one to ask: such an input is an error that names
	// it.
	Input func(ctx context.Context, id, description string, password bool) (string, error)
	// Sources are layers the host reads from elsewhere, each at its place
	// in the order above.
	Sources []HostSource
}

// EnvPolicy is what a <NAME>_ variable whose name reaches no key does.
type EnvPolicy uint8

// Policies for unknown variables.
const (
	EnvError  EnvPolicy = iota // the load fails, naming the variable
	EnvWarn                    // a warning, and the variable is ignored
	EnvIgnore                  // the variable is ignored
)

// Truster decides whether the files of a workspace apply. It names exact
// roots; Load asks about these directories:
//
//   - the workspace file applies when the workspace root is trusted;
//   - a directory file inside a workspace applies when the workspace root
//     is trusted, and, when a repository is nested in the workspace
//     between the root and the file (a directory below the root that holds
//     its own .git, file or directory: a submodule, a vendored
//     repository), when that repository's directory is trusted too;
//   - a directory file outside any workspace, in a repository (see
//     [RepositoryRoot]), applies when the repository's root is trusted;
//   - any other directory file outside any workspace applies when its own
//     directory is trusted.
//
// An implementation that trusts a directory with everything below it
// ([trust.List]'s recursive entries) answers yes for each directory below.
type Truster interface {
	// Trusts reports whether dir is trusted: by itself, not because a
	// directory above it is (see above).
	Trusts(dir string) bool
}

// Untrusted describes files that were not applied because one directory
// is not trusted, for [App].TrustHint.
type Untrusted struct {
	// Dir is the directory whose trust would apply the files.
	Dir string
	// Files are the files not applied.
	Files []string
	// Workspace reports that Dir is the workspace root.
	Workspace bool
	// Nested reports that Dir is a repository nested in a trusted
	// workspace: the workspace's trust does not reach it.
	Nested bool
	// Outside reports that Dir is outside any workspace: trusting it
	// applies its own directory file and the files named in it (a --cfg
	// file, what an extends reaches), and no other directory's.
	Outside bool
	// Once reports that trusting the workspace for one load
	// (App.TrustWorkspace, --trust) applies the files: Dir is the
	// workspace root, or outside a workspace the root of the repository
	// the working directory is in, else the working directory.
	Once bool
}

// Broad says why dir is too broad to trust by itself, or "": it is the
// home directory (HOME in environ; nil is the process's environment), or
// the root of the file system. Trusting either would trust whatever lands
// there, and no hint of Load suggests it.
func Broad(dir string, environ []string) string {
	if environ == nil {
		environ = os.Environ()
	}
	return broad(dir, envMap(environ))
}

func broad(dir string, env map[string]string) string {
	dir = realDir(dir)
	if filepath.Dir(dir) == dir {
		return "the root of the file system"
	}
	for _, k := range []string{"HOME", "USERPROFILE"} {
		if h := env[k]; h != "" && filepath.IsAbs(h) && realDir(h) == dir {
			return "your home directory"
		}
	}
	return ""
}

// RefuseBroad is the problem of trusting dir by itself when [Broad]
// says it is too broad (a home directory, /), or nil: the same whether
// the trust is for good (strata trust) or for one run (--trust,
// App.TrustWorkspace). userFile is the user's own file, where the hint
// says settings of the user's own belong; name is the application's,
// whose .<name>/ directory marks a project.
func RefuseBroad(dir string, environ []string, userFile, name string) *diag.Error {
	why := Broad(dir, environ)
	if why == "" {
		return nil
	}
	return &diag.Error{Code: diag.CodeRefused, Source: dir, Msg: "not trusted: it is " + why + ", not a project: trusting it would apply whatever config files land there",
		Hint: "keep settings of your own in your user file (" + userFile + "), make a ." + name + "/ directory at a project's root and trust that"}
}

// realDir is dir absolute, clean, and with symbolic links resolved where it
// exists.
func realDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Clean(dir)
}

// nestedRepository reports whether dir holds a repository of its own: a
// .git entry of any kind (a submodule's is a file). A .git that cannot be
// looked at counts.
func nestedRepository(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return !errors.Is(err, fs.ErrNotExist)
}

// Kind is the kind of a layer's source.
type Kind string

// Kinds of sources, in precedence order.
const (
	KindDefault   Kind = "default"
	KindUser      Kind = "user"
	KindWorkspace Kind = "workspace"
	KindDirectory Kind = "directory"
	KindEnv       Kind = "env"
	KindCfg       Kind = "cfg"
	KindFlags     Kind = "flags"
)

// Layer is one layer that Load read.
type Layer[P any] struct {
	Kind Kind
	// Name says where the layer comes from: a file path, an environment
	// variable, "--cfg #2 (tools.x.run=ask)".
	Name string
	// Extends lists the files whose extends led to this file, outermost
	// first.
	Extends []string
	// Partial is what the layer says. It shares map entries with
	// [Result].Merged: it must not be changed (see there).
	Partial *P
	// Doc is the layer's document, for file layers.
	Doc *codec.Document
	// Client names the client whose MCP server file the layer was read
	// from (claude, claude-code, cursor, vscode, codex; mcpServers for a
	// file of mcpServers whose client its name does not tell); "" for a
	// layer in the host's own format.
	Client string
	// Dropped is set on layers that a later --cfg NONE dropped.
	Dropped bool
}

// Probe is one file Load looked for.
type Probe struct {
	Kind  Kind
	Path  string
	Found bool
	// Untrusted is set on a file found but not applied: its workspace is
	// not trusted.
	Untrusted bool
	// TrustDir is the directory whose trust decides whether a workspace or
	// directory file applies (see [Truster]): the workspace root, a
	// repository nested in the workspace, or outside any workspace the
	// root of the repository the file is in (see [RepositoryRoot]), else
	// the file's own directory.
	TrustDir string
}

// Result is what Load found: the config and where every part came from.
type Result[P, R any] struct {
	// Config is the layers' merge applied to the defaults. A list whose
	// items one layer alone gives shares them with that layer (see
	// [partial.Finalize]): change a list's items in a copy of it.
	Config R
	// Merged is the merge of the layers that apply. It is read, not
	// changed: an entry of a map (partial.Map: a tool, a server) that one
	// layer alone sets is that layer's own, not a copy, as a load of many
	// tools would otherwise hold each of them twice; what a later layer
	// changes in an entry is changed in a copy of it, so merging changes
	// no layer. Changing Merged would change a layer's Partial, or the
	// reverse: [merge.Layers](r.Merged) is a copy to change.
	Merged *P
	// Layers are all the layers read, lowest first; the defaults are not a
	// layer (see App.Defaults).
	Layers []Layer[P]
	// Probes are the files looked for, in order, found or not.
	Probes []Probe
	// Root is the workspace root, or "" outside a workspace.
	Root string
	// Dir is the directory loading started in, absolute.
	Dir string
	// Trusted reports whether the workspace root (outside a workspace,
	// the root of the repository Dir is in, else Dir) is trusted: its own files apply, and programs may start in it.
	Trusted bool
	// TrustList is the user's trust list, as Load read it from
	// App.TrustStore.
	TrustList trust.List
	// Environ is the environment the load read, as NAME=VALUE entries.
	Environ []string
	// Warnings are problems that left something out without failing the
	// load: files of an untrusted workspace not applied, a server in
	// another tool's file that strata cannot start.
	Warnings diag.Errors
	// Untrusted are the files found and not applied, one entry for each
	// directory whose trust would apply them, as the warnings about them
	// say: what a host shows, or asks about, before trusting.
	Untrusted []Untrusted
	defaults  R
	store     string // the path of the trust list, to watch
	index     *index // with App.Provenance: which layers mention each path
	gate      gate   // what decides, before a file is opened, whether it is the workspace's content
}

// Equal reports whether r and o hold the same load: the same config,
// layers, probes, directories, trust, environment, warnings and defaults
// (the provenance index, made from the layers, does not count). It lets go-cmp compare results.
func (r *Result[P, R]) Equal(o *Result[P, R]) bool {
	if r == nil || o == nil {
		return r == o
	}
	if len(r.Layers) != len(o.Layers) {
		return false
	}
	for i := range r.Layers {
		a, b := r.Layers[i], o.Layers[i]
		if !a.Doc.Equal(b.Doc) || a.Kind != b.Kind || a.Name != b.Name || a.Client != b.Client || a.Dropped != b.Dropped ||
			!slices.Equal(a.Extends, b.Extends) || !reflect.DeepEqual(a.Partial, b.Partial) {
			return false
		}
	}
	return reflect.DeepEqual(r.Config, o.Config) && reflect.DeepEqual(r.Merged, o.Merged) &&
		slices.Equal(r.Probes, o.Probes) && r.Root == o.Root && r.Dir == o.Dir && r.Trusted == o.Trusted &&
		reflect.DeepEqual(r.TrustList, o.TrustList) && slices.Equal(r.Environ, o.Environ) && r.store == o.store &&
		reflect.DeepEqual(r.defaults, o.defaults) && reflect.DeepEqual(r.Untrusted, o.Untrusted) &&
		slices.EqualFunc(r.Warnings, o.Warnings, func(a, b *diag.Error) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) })
}

// Watch returns the files whose change changes what loading again gives:
// the trust list and the config files read or looked for (one that does
// not exist yet counts when it appears), absolute and sorted. A host
// reloads when one of them changes.
func (r *Result[P, R]) Watch() []string {
	set := map[string]bool{}
	if r.store != "" {
		set[r.store] = true
	}
	for _, p := range r.Probes {
		set[p.Path] = true
	}
	for _, l := range r.Layers {
		if l.Doc != nil {
			set[l.Name] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		if abs, err := filepath.Abs(p); err == nil && filepath.IsAbs(p) {
			out = append(out, abs)
		}
	}
	slices.Sort(out)
	return out
}

// Load reads every source, merges the layers and finalizes the result. A
// problem in any source fails the load, once every source has been read:
// the problems of files, variables, --cfg and overrides are returned
// together, and no partial config as if it were complete. A source read
// after one that failed is read over the layers that did not fail, and
// its problems that the failed layer may have caused (see
// assign.ErrBelow) are left for the next load, once that layer is fixed.
func (a *App[P, R]) Load(ctx context.Context) (*Result[P, R], error) {
	if a.Name == "" {
		return nil, fmt.Errorf("load: App.Name is empty")
	}
	if _, err := shape.OfPartial(typeOf[P]()); err != nil {
		return nil, err
	}
	if err := a.checkSources(); err != nil {
		return nil, err
	}
	knownOpts, err := a.checkEnv()
	if err != nil {
		return nil, err
	}
	if h := a.ConfigHome; h != "" && h != "~" && !strings.HasPrefix(h, "~/") && !strings.HasPrefix(h, "~"+string(filepath.Separator)) && !filepath.IsAbs(h) {
		return nil, fmt.Errorf("load: App.ConfigHome %q is neither absolute nor under ~", h)
	}
	environ := a.Environ
	if environ == nil {
		environ = os.Environ()
	}
	env := envMap(environ)
	dir := a.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("load: the working directory: %w", err)
		}
		dir = wd
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	list, err := a.TrustStore.Read()
	if err != nil {
		return nil, err
	}
	res := &Result[P, R]{defaults: a.Defaults, Dir: dir, Environ: environ, TrustList: list}
	if a.TrustStore != nil {
		res.store = a.TrustStore.Path
	}
	lim := a.Limits.WithDefaults()
	r := reader[P, R]{app: a, res: res, env: env, dir: dir, lim: lim, errs: diag.Collector{Max: lim.Problems}}

	// The workspace is found first: what resolves into it is its content,
	// in the user's files too, until it is trusted. The user's own
	// directory marks none.
	userDir := a.userDir(env)
	root, broken := workspaceRoot(dir, "."+a.Name, userDir)
	res.Root = root
	// The one place that says what nobody trusted: the workspace, or
	// outside one the repository around dir (a clone without .strata/,
	// whichever of its directories strata runs in), else dir; below a
	// workspace at the home directory, which nobody trusts, what nobody
	// trusted is the repository or dir too.
	ws, region := roots(root, dir, homeOf(env))
	if a.TrustWorkspace && !r.trusts(ws) {
		// Trusting a home directory or / for one run is refused, as
		// trusting it for good is.
		if err := RefuseBroad(ws, environ, filepath.Join(userDir, "config.toml"), a.Name); err != nil {
			return nil, err
		}
		r.once = realDir(ws)
	}
	if res.Trusted = r.trusts(ws); !res.Trusted {
		r.ws = untrusted.New(region, homeOf(env))
	}
	res.gate = gate{ws: r.ws, dir: ws, max: lim.FileSize}
	if root != "" && !res.Trusted {
		res.gate.dot = untrusted.New(filepath.Join(root, "."+a.Name), "")
	}
	if own := a.userDir(env); own != "" {
		res.gate.own, _ = filepath.Abs(own)
	}
	res.gate.area = untrusted.New(region, homeOf(env))
	if root != "" {
		res.gate.areaDot = untrusted.New(filepath.Join(root, "."+a.Name), "")
	}
	res.gate.private = a.privateDirs(env)

	// Files: user, workspace, directories.
	r.sources(ctx, KindDefault, dir)
	if userDir != "" {
		r.probeFile(ctx, KindUser, filepath.Join(userDir, "config"), true)
	}
	r.sources(ctx, KindUser, dir)
	rootTrusted := root != "" && r.trusts(root)
	switch {
	case broken != nil && rootTrusted:
		r.add(broken)
	case broken != nil:
		// The untrusted workspace's files are never opened in a way that
		// can fail the user's load.
		broken.Severity = diag.SeverityWarning
		broken.Msg += "; the workspace is not trusted: none of its files apply"
		r.warn(broken)
	case root != "":
		r.probe(ctx, KindWorkspace, filepath.Join(root, "."+a.Name, "config"), root, rootTrusted)
	}
	r.sources(ctx, KindWorkspace, dir)
	trustDir := root // the nearest repository nested in the workspace, or its root
	for _, d := range directories(root, dir) {
		switch {
		case root == "" && ws != dir && isWithin(d, ws):
			// In a repository, outside a workspace: its root's trust
			// applies its files, as a workspace root's does.
			r.probe(ctx, KindDirectory, filepath.Join(d, "."+a.Name), ws, r.trusts(ws))
			continue
		case root == "":
			r.probe(ctx, KindDirectory, filepath.Join(d, "."+a.Name), d, r.trusts(d))
			continue
		case d != root && nestedRepository(d):
			trustDir = d
		}
		trusted := rootTrusted && (trustDir == root || r.trusts(trustDir))
		r.probe(ctx, KindDirectory, filepath.Join(d, "."+a.Name), trustDir, trusted)
	}
	r.sources(ctx, KindDirectory, dir)
	// The warning about the files not applied goes here, once --cfg has
	// named what else lies in the workspace.
	untrustedAt := len(res.Warnings)
	// Environment: each variable is a layer of its own. Every source is
	// read whatever failed before it, so that every problem is reported
	// at once; a problem of a later one that a layer left out may have
	// caused is not (see assign.ErrBelow).
	r.environment(environ, knownOpts)
	r.sources(ctx, KindEnv, dir)
	// --cfg, left to right, then the host's overrides.
	for i, arg := range a.Cfg {
		r.cfg(ctx, i+1, arg)
	}
	for i, arg := range a.Overrides {
		r.override(i+1, arg)
	}
	r.sources(ctx, KindCfg, dir)
	if r.errs.Len() > 0 {
		return nil, r.errs.Err()
	}
	r.untrusted(root, rootTrusted, untrustedAt)
	if a.Flags != nil {
		r.push(Layer[P]{Kind: KindFlags, Name: "flags", Partial: a.Flags})
	}
	res.Merged = r.below()
	if a.Provenance {
		res.buildIndex()
	}
	res.Config, err = partial.Finalize(res.Merged, a.Defaults)
	if err != nil {
		c := diag.Collector{Max: lim.Problems}
		c.Add(err)
		return nil, res.locate(c.Err())
	}
	return res, nil
}

// trusts reports whether dir is trusted: by the trust list, by the
// host's Trust, or, exactly, for this load (App.TrustWorkspace).
func (r *reader[P, R]) trusts(dir string) bool {
	switch {
	case r.res.TrustList.Trusts(dir), r.app.Trust != nil && r.app.Trust.Trusts(dir):
		return true
	}
	return r.once != "" && realDir(dir) == r.once
}

// probe looks for a workspace or directory file whose trust trustDir
// decides (see [Truster]).
func (r *reader[P, R]) probe(ctx context.Context, kind Kind, base, trustDir string, trusted bool) {
	n := len(r.res.Probes)
	r.probeFile(ctx, kind, base, trusted)
	for i := n; i < len(r.res.Probes); i++ {
		r.res.Probes[i].TrustDir = trustDir
	}
}

// untrusted reports the files that were found but not applied: once for
// each directory whose trust would apply them, at index at of the
// warnings.
func (r *reader[P, R]) untrusted(root string, rootTrusted bool, at int) {
	var groups []Untrusted
	dirOnly := map[string]bool{} // the group holds directory files alone
	for _, p := range r.res.Probes {
		if !p.Untrusted {
			continue
		}
		dir := p.TrustDir
		if !rootTrusted && root != "" {
			dir = root // the workspace first: nothing of it applies before
		}
		if i := slices.IndexFunc(groups, func(g Untrusted) bool { return g.Dir == dir }); i >= 0 {
			groups[i].Files = append(groups[i].Files, p.Path)
			dirOnly[dir] = dirOnly[dir] && p.Kind == KindDirectory
			continue
		}
		groups = append(groups, Untrusted{Dir: dir, Files: []string{p.Path}, Workspace: dir == root, Nested: root != "" && dir != root, Outside: root == "",
			Once: dir == r.res.gate.dir})
		dirOnly[dir] = p.Kind == KindDirectory
	}
	var warnings diag.Errors
	for _, g := range groups {
		var msg string
		switch {
		case g.Nested:
			msg = fmt.Sprintf("layers of a nested repository not applied: %s holds a repository of its own (.git), which the trust of the workspace %s does not reach (%s)", g.Dir, root, strings.Join(g.Files, ", "))
		case g.Outside && dirOnly[g.Dir]:
			msg = "directory layers not applied: untrusted, outside any workspace (" + strings.Join(g.Files, ", ") + ")"
		case g.Outside:
			msg = "layers not applied: untrusted, outside any workspace (" + strings.Join(g.Files, ", ") + ")"
		default:
			msg = "workspace layers not applied: untrusted (" + strings.Join(g.Files, ", ") + ")"
		}
		warnings = append(warnings, &diag.Error{Code: diag.CodeUntrusted, Severity: diag.SeverityWarning, Source: g.Dir, Msg: msg, Hint: r.trustHint(g)})
	}
	r.res.Untrusted = groups
	r.res.Warnings = slices.Insert(r.res.Warnings, at, warnings...)
}

// trustHint says how to apply the files of g: the host's hint, except for
// a directory too broad to trust, for which it says where such settings
// belong.
func (r *reader[P, R]) trustHint(g Untrusted) string {
	if why := broad(g.Dir, r.env); why != "" {
		user := "your user file"
		if d := r.app.userDir(r.env); d != "" {
			user += " (" + filepath.Join(d, "config.toml") + ")"
		}
		return fmt.Sprintf("%s is %s, which is not trusted as a workspace: put settings of your own in %s, and a project's in a .%s/ directory at the project's root", g.Dir, why, user, r.app.Name)
	}
	if r.app.TrustHint != nil {
		return r.app.TrustHint(g)
	}
	if g.Nested {
		return "trust " + g.Dir + " with everything below it to apply them"
	}
	return "trust " + g.Dir + " to apply them"
}

// privateDirs returns the user's own directories, absolute: the config
// directory, the trust list's and App.Private.
func (a *App[P, R]) privateDirs(env map[string]string) []string {
	dirs := slices.Clone(a.Private)
	if d := a.userDir(env); d != "" {
		dirs = append(dirs, d)
	}
	if a.TrustStore != nil && a.TrustStore.Path != "" {
		dirs = append(dirs, filepath.Dir(a.TrustStore.Path))
	}
	var out []string
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil && d != "" && !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out
}

// userDir returns the directory of the user file.
func (a *App[P, R]) userDir(env map[string]string) string {
	return userdir.ConfigAt(a.Name, a.ConfigHome, func(k string) string { return env[k] })
}

// UserDir returns the user's config directory: the <NAME>_CONFIG_HOME
// variable, else ConfigHome, else $XDG_CONFIG_HOME/<name>, else
// $HOME/.config/<name>, read from Environ (or the process's environment);
// "" when none is set.
func (a *App[P, R]) UserDir() string {
	environ := a.Environ
	if environ == nil {
		environ = os.Environ()
	}
	return a.userDir(envMap(environ))
}

// checkEnv checks HostEnv and Known, and returns the options that
// declare Known to assign.Env.
func (a *App[P, R]) checkEnv() ([]assign.Option, error) {
	head := strings.ToUpper(cmp.Or(a.EnvPrefix, a.Name)) + "_"
	for _, n := range a.HostEnv {
		if len(n) <= len(head) || !strings.EqualFold(n[:len(head)], head) {
			return nil, fmt.Errorf("load: App.HostEnv: %q is not under %s, the prefix of the configuration's variables: name the variable whole (%sMODEL), or a prefix ending in * (%sPROVIDER_*)", n, head, head, head)
		}
	}
	var opts []assign.Option
	for _, k := range slices.Sorted(maps.Keys(a.Known)) {
		path, err := partial.ParsePath(k)
		if err != nil {
			return nil, fmt.Errorf("load: App.Known: %w", err)
		}
		opts = append(opts, assign.Known(path, a.Known[k]...))
	}
	return opts, nil
}

// envAssignments returns the environment without the loader's own
// variables, which are not key paths.
func (a *App[P, R]) envAssignments(environ []string) []string {
	// Under Checked, only the variables of its keys are strata's:
	// MYAPP_ASSISTANT_... of assistant; MYAPP_MODEL is the host's.
	checked := ""
	if len(a.Checked) > 0 {
		checked = strings.ToUpper(cmp.Or(a.EnvPrefix, a.Name) + "_" + strings.Join(a.Checked, "_") + "_")
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.EqualFold(name, userdir.HomeVar(a.Name)) && strings.HasPrefix(strings.ToUpper(name), checked) {
			out = append(out, kv)
		}
	}
	return out
}

// homeOf returns the home directory of the environment env.
func homeOf(env map[string]string) string {
	if h := env["HOME"]; h != "" {
		return h
	}
	return env["USERPROFILE"]
}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// reader accumulates layers and problems during Load, and the merge of
// the layers that apply so far.
type reader[P, R any] struct {
	app  *App[P, R]
	res  *Result[P, R]
	lim  codec.Limits // the app's, with defaults
	errs diag.Collector
	// merged is the merge of the first mergedTo layers that apply, made
	// when an override or the result needs it (App.File needs none).
	merged   *P
	mergedTo int
	shared   shape.Shared      // what merged shares with the layers
	env      map[string]string // the environment
	dir      string            // the working directory
	by       string            // the file whose envFiles are read, absolute
	byKind   Kind              // the kind of its layer
	im       *clients.Env      // for clients' files, made on first use
	// ws is the workspace when it is not trusted: what resolves into it
	// is refused.
	ws untrusted.Workspace
	// once is the directory App.TrustWorkspace trusts, with symbolic
	// links resolved; "" for none.
	once string
	// asWritten keeps relative paths as the files write them (App.File:
	// layers to print, not to run).
	asWritten bool

	files      map[fileKey]*fileRead[P] // every file read, for extends
	readBytes  int64                    // the bytes of the files read, for Limits.Total
	readValues int                      // the values of the files read, for Limits.Values
	chainFiles int                      // files the current extends chain read
	chainFull  bool                     // the chain read as many as it may
}

// assignOptions are the limits of overrides and variables.
func (r *reader[P, R]) assignOptions() []assign.Option {
	return []assign.Option{assign.MaxDepth(r.lim.Depth), assign.MaxQuote(r.lim.Quote)}
}

// environment adds a layer for each of the host's variables: every
// <ENVPREFIX>_ variable but the host's own (App.HostEnv), read against the
// keys of the layers below, the defaults and the keys the host knows
// (App.Known).
func (r *reader[P, R]) environment(environ []string, known []assign.Option) {
	a := r.app
	prefix := cmp.Or(a.EnvPrefix, a.Name)
	vars := a.envAssignments(environ)
	opts := append(append(r.assignOptions(), known...), assign.Except(a.HostEnv...))
	base := r.below()
	if d := r.defaultsLayer(prefix, vars); d != nil {
		base = merge.Layers(d, base)
	}
	failed := r.errs.Len() > 0
	as, err := assign.Env(base, prefix, vars, opts...)
	var alone map[string]bool // the variables that fail over no layer at all
	if failed && err != nil {
		_, err0 := assign.Env(new(P), prefix, vars, opts...)
		alone = map[string]bool{}
		for _, e := range diag.All(err0) {
			alone[e.Source] = true
		}
	}
	for _, e := range diag.All(err) {
		switch {
		case failed && (!alone[e.Source] || errors.Is(e, assign.ErrBelow)):
			// A layer that failed may settle it.
		case !errors.Is(e, assign.ErrUnknownName) || a.UnknownEnv == EnvError:
			r.add(e)
		case a.UnknownEnv == EnvWarn:
			e.Severity = diag.SeverityWarning
			r.warn(e)
		}
	}
	for _, as := range as {
		r.assignment(KindEnv, strings.TrimPrefix(as.Source, "env "), as)
	}
}

// defaultsLayer returns the layer of the host's defaults (the tools they
// configure, by name), when a variable among vars is under prefix and
// the names are to be read; nil otherwise.
func (r *reader[P, R]) defaultsLayer(prefix string, vars []string) *P {
	head := strings.ToUpper(prefix) + "_"
	if !slices.ContainsFunc(vars, func(kv string) bool { return len(kv) > len(head) && strings.EqualFold(kv[:len(head)], head) }) {
		return nil
	}
	var zero R
	d, err := partial.From[P](r.app.Defaults, zero)
	if err != nil {
		return nil
	}
	return d
}

// push adds a layer.
func (r *reader[P, R]) push(l Layer[P]) {
	r.res.Layers = append(r.res.Layers, l)
}

func (r *reader[P, R]) warn(e *diag.Error) {
	r.res.Warnings = append(r.res.Warnings, e)
}

func (r *reader[P, R]) add(err error) {
	r.errs.Add(err)
}

// below returns the merge of the layers that apply so far. It shares the
// layers' map entries that one layer alone sets (see [Result].Merged),
// but those of the host's Flags, which are the host's.
func (r *reader[P, R]) below() *P {
	if r.merged == nil {
		r.merged, r.shared = new(P), shape.Shared{}
	}
	t, err := shape.OfPartial(typeOf[P]())
	if err != nil {
		panic(err) // Load checked P first
	}
	for _, l := range r.res.Layers[r.mergedTo:] {
		if !l.Dropped {
			r.shared.Merge(reflect.ValueOf(r.merged).Elem(), reflect.ValueOf(l.Partial).Elem(), t, l.Partial != r.app.Flags)
		}
	}
	r.mergedTo = len(r.res.Layers)
	return r.merged
}

// assignment adds the layer an override makes over the layers below it.
// Once a layer has failed, a problem that the layer may have caused (one
// of what the layers below do not hold, or one the override would not
// have over no layer at all) is not reported: the layer is fixed first.
func (r *reader[P, R]) assignment(kind Kind, name string, a assign.Assignment) {
	l, err := assign.Layer(r.below(), a, r.assignOptions()...)
	if err != nil {
		if r.errs.Len() > 0 {
			if _, alone := assign.Layer(new(P), a, r.assignOptions()...); alone == nil {
				return
			}
			for _, e := range diag.All(err) {
				if !errors.Is(e, assign.ErrBelow) {
					r.add(e)
				}
			}
			return
		}
		r.add(err)
		return
	}
	rebase(l, r.dir)
	r.push(Layer[P]{Kind: kind, Name: name, Partial: l})
}

// cfg reads one --cfg argument: NONE, a file, an override or JSON.
func (r *reader[P, R]) cfg(ctx context.Context, n int, arg string) {
	label := fmt.Sprintf("--cfg #%d", n)
	switch {
	case arg == "NONE":
		for i := range r.res.Layers {
			r.res.Layers[i].Dropped = true
		}
		r.merged, r.mergedTo, r.shared = new(P), len(r.res.Layers), shape.Shared{}
		return
	}
	if f, path, ok := clients.Prefix(arg); ok {
		r.file(ctx, KindCfg, path, nil, f)
		return
	}
	if isFileArg(arg) {
		r.file(ctx, KindCfg, arg, nil, "")
		return
	}
	a, err := assign.Parse(arg, r.assignOptions()...)
	if err != nil {
		if !strings.ContainsAny(arg, "=") {
			err = fmt.Errorf("%q is neither a layer file (.toml, .json, .yaml) nor an override (key=value, key:=json, key+=value, key:+=json)", limits.Cut(arg, r.lim.Quote))
		}
		r.add(&diag.Error{Code: diag.CodeSyntax, Source: label, Msg: err.Error()})
		return
	}
	a.Source = label
	r.assignment(KindCfg, label+" ("+limits.Cut(arg, r.lim.Quote)+")", a)
}

// override reads one of the host's overrides, the nth: an assignment.
func (r *reader[P, R]) override(n int, arg string) {
	flag := r.app.OverrideFlag
	if flag == "" {
		flag = "--set"
	}
	label := fmt.Sprintf("%s #%d", flag, n)
	a, err := assign.Parse(arg, r.assignOptions()...)
	if err != nil || len(a.Path) == 0 {
		msg := fmt.Sprintf("%q is not an override: write key=value, key:=json, key+=value or key:+=json", limits.Cut(arg, r.lim.Quote))
		if err != nil && strings.Contains(arg, "=") && !strings.HasPrefix(strings.TrimSpace(arg), "{") {
			msg = err.Error() // an assignment written wrong: what is wrong with it
		}
		r.add(&diag.Error{Code: diag.CodeSyntax, Source: label, Msg: msg})
		return
	}
	if r.app.Checked != nil && !a.Path.HasPrefix(r.app.Checked) {
		return // a key of the host's own (see Checked)
	}
	a.Source = label
	r.assignment(KindCfg, label+" ("+limits.Cut(arg, r.lim.Quote)+")", a)
}

// isFileArg reports whether a --cfg argument names a file: it is not an
// override or a JSON object, and it exists or has a layer file's
// extension.
func isFileArg(arg string) bool {
	if strings.HasPrefix(strings.TrimSpace(arg), "{") || strings.ContainsAny(arg, "=") {
		return false
	}
	if _, ok := codec.FormatOf(arg); ok {
		return true
	}
	_, err := os.Stat(arg)
	return err == nil
}
