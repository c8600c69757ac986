// Package trust keeps what a user trusts, out of reach of any workspace:
// the workspaces whose own files may apply, and pins of the programs the
// user's tools launch.
//
// Trust is a property of a layer, decided before merging (see package
// load): until its workspace is trusted, no workspace file, directory file,
// file they extend or MCP file they name applies, so a cloned repository
// runs nothing and changes nothing about how the user's own tools run. A
// [List] is kept in the user's config directory ([DefaultPath]) and
// changed only under a lock with an atomic rename ([Store.Update]), so
// concurrent changes lose nothing.
//
// A [Pin] holds a launch to what it was when the user pinned it: the
// program's content, its arguments, its environment, its directory, and
// the content of the files its arguments name (an interpreter's script).
// A pinned launch is checked again right before every run, and refused
// when anything of it changed.
package trust

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// File is the name of the trust list in the user's config directory.
const File = "trusted.toml"

// DefaultPath returns where an application called name keeps its trust
// list: [File] in the user's config directory, the <NAME>_CONFIG_HOME
// variable, else $XDG_CONFIG_HOME/<name>, else $HOME/.config/<name>, read
// from environ; "" when none is set.
func DefaultPath(name string, environ []string) string {
	dir := (&load.App[struct{}, struct{}]{Name: name, Environ: environ}).UserDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, File)
}

// List is what the user trusts.
type List struct {
	// Workspaces are the roots of trusted workspaces (absolute, symbolic
	// links resolved). A directory file applies when its directory is a
	// trusted root or inside one.
	Workspaces []string `toml:"workspaces"`
	// Pins are pinned launches by the key path of what launches them:
	// tools.<name> or mcp_servers.<name>.
	Pins map[string]Pin `toml:"pins"`
}

// Trusts reports whether dir is a trusted workspace root or inside one. It
// implements load.Trust.
func (l List) Trusts(dir string) bool {
	dir = canonical(dir)
	for _, w := range l.Workspaces {
		if dir == w || strings.HasPrefix(dir, w+string(filepath.Separator)) || w == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// canonical makes a directory absolute and clean, with symbolic links
// resolved where it exists, so that a link cannot pass for a trusted root.
func canonical(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Clean(dir)
}

// AddWorkspace trusts the workspace at root.
func (l *List) AddWorkspace(root string) {
	root = canonical(root)
	if !slices.Contains(l.Workspaces, root) {
		l.Workspaces = append(l.Workspaces, root)
		slices.Sort(l.Workspaces)
	}
}

// Once is a [load.Trust] that trusts the workspace at one root besides
// what a list trusts: --trust, for one run.
type Once struct {
	List List
	Root string
}

// Trusts implements load.Trust.
func (o Once) Trusts(dir string) bool {
	if o.Root != "" && (List{Workspaces: []string{canonical(o.Root)}}).Trusts(dir) {
		return true
	}
	return o.List.Trusts(dir)
}

// Store is a trust list kept in a file.
type Store struct {
	// Path is the file; see DefaultPath.
	Path string
}

// listLayer is a [List] as a layer, for reading and writing the file.
type listLayer struct {
	Workspaces partial.List[string]  `toml:"workspaces" strata:"append"`
	Pins       partial.Map[pinLayer] `toml:"pins"`
}

// pinLayer is a [Pin] as a layer.
type pinLayer struct {
	Launch  partial.Value[string]              `toml:"launch"`
	Program partial.Value[string]              `toml:"program"`
	Args    partial.List[string]               `toml:"args"`
	Env     partial.List[string]               `toml:"env"`
	Dir     partial.Value[string]              `toml:"dir"`
	Files   partial.Map[partial.Value[string]] `toml:"files"`
}

// Read reads the list; a missing file is an empty list. A list written
// before pins held hashes (with values of the environment and arguments in
// clear) is rewritten, under the lock, without them.
func (s *Store) Read() (List, error) {
	l, err := s.read()
	if err == nil && l.upgradePins() {
		// Best effort: the list read is right either way.
		_ = s.Update(func(*List) error { return nil })
	}
	return l, err
}

// read reads the list as it is in the file.
func (s *Store) read() (List, error) {
	if s == nil || s.Path == "" {
		return List{}, nil
	}
	if _, err := os.Stat(s.Path); errors.Is(err, fs.ErrNotExist) {
		return List{}, nil
	}
	data, err := load.Limits{}.ReadFile(context.Background(), s.Path)
	if err != nil {
		return List{}, err
	}
	return parse(s.Path, data)
}

func parse(name string, data []byte) (List, error) {
	var p listLayer
	if err := load.Decode(name, data, partial.TOML, &p); err != nil {
		return List{}, err
	}
	return partial.Finalize(&p, List{})
}

// Update changes the list with change and writes it back, holding a lock
// on the file for the whole read-change-write, and replacing the file
// atomically: concurrent updates, from any process, all take effect.
func (s *Store) Update(change func(*List) error) error {
	if s == nil || s.Path == "" {
		return &diag.Error{Msg: "no trust list: there is no user config directory", Hint: "set HOME, XDG_CONFIG_HOME or <NAME>_CONFIG_HOME"}
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return &diag.Error{Source: s.Path, Msg: "cannot create the directory of the trust list", Err: err}
	}
	unlock, err := lock(s.Path + ".lock")
	if err != nil {
		return &diag.Error{Source: s.Path, Msg: "cannot lock the trust list", Err: err}
	}
	defer unlock()
	l, err := s.read()
	if err != nil {
		return err
	}
	l.upgradePins()
	if err := change(&l); err != nil {
		return err
	}
	return s.write(l)
}

// write replaces the file with l.
func (s *Store) write(l List) error {
	p, err := partial.From[listLayer](l, List{})
	if err != nil {
		return err
	}
	b, err := partial.Encode(p, partial.TOML)
	if err != nil {
		return err
	}
	b = append([]byte("# What you trust; written by `strata trust`. Workspaces listed here may\n# apply their own config files; pins hold launches to what they were.\n"), b...)
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), filepath.Base(s.Path)+".*.tmp")
	if err != nil {
		return &diag.Error{Source: s.Path, Msg: "cannot write the trust list", Err: err}
	}
	_, werr := tmp.Write(b)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return &diag.Error{Source: s.Path, Msg: "cannot write the trust list", Err: err}
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		os.Remove(tmp.Name())
		return &diag.Error{Source: s.Path, Msg: "cannot write the trust list", Err: err}
	}
	return nil
}

// String describes the list for messages.
func (l List) String() string {
	return fmt.Sprintf("%d workspaces, %d pins", len(l.Workspaces), len(l.Pins))
}
