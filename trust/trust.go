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

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/filelock"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/readfile"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/userdir"
	"github.com/strata-config/strata/partial"
)

// ErrChanged is what the error of [Pin.Check] wraps: the launch is not the
// one pinned.
var ErrChanged = errors.New("the launch differs from the one pinned")

// File is the name of the trust list in the user's config directory.
const File = "trusted.toml"

// DefaultPath returns where an application called name keeps its trust
// list: [File] in the user's config directory, the <NAME>_CONFIG_HOME
// variable, else $XDG_CONFIG_HOME/<name>, else $HOME/.config/<name>, read
// from environ (nil is the process's environment); "" when none is set.
func DefaultPath(name string, environ []string) string {
	if environ == nil {
		environ = os.Environ()
	}
	dir := userdir.Config(name, userdir.Getenv(environ))
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, File)
}

// List is what the user trusts.
//
// Trust names exact roots: an entry of Workspaces trusts that directory
// and nothing else, neither the directories above it nor a repository
// nested in it (package load's Trust says which directory decides each
// file). Trusting a directory with everything
// below it is a choice of its own, kept apart in Recursive.
type List struct {
	// Workspaces are trusted directories (absolute, symbolic links
	// resolved), each trusted exactly: a workspace root, whose workspace
	// file and directory files apply (not those of a repository nested in
	// it), or, outside any workspace, a directory whose directory file
	// applies. A list written when entries were matched as prefixes is
	// read the same way: each of its entries is exact.
	Workspaces []string `toml:"workspaces"`
	// Recursive are directories trusted with everything below them: every
	// workspace, directory file and nested repository there, present and
	// future.
	Recursive []string `toml:"recursive"`
	// Pins are pinned launches by the key path of what launches them:
	// tools.<name> or mcp_servers.<name>.
	Pins map[string]Pin `toml:"pins"`
}

// Trusts reports whether dir is trusted: an entry of Workspaces names it,
// or an entry of Recursive names it or a directory above it. It
// implements package load's Trust.
func (l List) Trusts(dir string) bool {
	dir = canonical(dir)
	if slices.Contains(l.Workspaces, dir) {
		return true
	}
	for _, r := range l.Recursive {
		if within(dir, r) {
			return true
		}
	}
	return false
}

// within reports whether dir is top or below it.
func within(dir, top string) bool {
	rel, err := filepath.Rel(top, dir)
	return err == nil && filepath.IsAbs(top) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
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

// AddWorkspace trusts the directory root exactly (see [List]).
func (l *List) AddWorkspace(root string) {
	root = canonical(root)
	if !slices.Contains(l.Workspaces, root) {
		l.Workspaces = append(l.Workspaces, root)
		slices.Sort(l.Workspaces)
	}
}

// AddRecursive trusts the directory top and everything below it.
func (l *List) AddRecursive(top string) {
	top = canonical(top)
	if !slices.Contains(l.Recursive, top) {
		l.Recursive = append(l.Recursive, top)
		slices.Sort(l.Recursive)
	}
}

// Forget stops trusting dir: it removes the entries that name it (exact
// and recursive) and the pins of the launches that start there (or below
// it, for a recursive entry), and returns the keys of those pins. A
// directory no entry names is an error that suggests the nearest entry.
func (l *List) Forget(dir string) (pins []string, err error) {
	dir = canonical(dir)
	exact, recursive := slices.Contains(l.Workspaces, dir), slices.Contains(l.Recursive, dir)
	if !exact && !recursive {
		e := &diag.Error{Code: diag.CodeUntrusted, Source: dir, Msg: "not in the trust list"}
		all := slices.Concat(l.Workspaces, l.Recursive)
		if s := suggest.Closest(dir, all); s != "" {
			e.Hint = "did you mean " + s + "?"
		} else if len(all) > 0 {
			e.Hint = "the list names " + strings.Join(all, ", ")
		} else {
			e.Hint = "the list is empty"
		}
		return nil, e
	}
	l.Workspaces = slices.DeleteFunc(l.Workspaces, func(w string) bool { return w == dir })
	l.Recursive = slices.DeleteFunc(l.Recursive, func(w string) bool { return w == dir })
	for key, p := range l.Pins {
		if d := canonical(p.Dir); p.Dir != "" && (d == dir || recursive && within(d, dir)) {
			pins = append(pins, key)
			delete(l.Pins, key)
		}
	}
	slices.Sort(pins)
	return pins, nil
}

// Store is a trust list kept in a file.
type Store struct {
	// Path is the file; see DefaultPath.
	Path string
}

// listLayer is a [List] as a layer, for reading and writing the file.
type listLayer struct {
	Workspaces partial.List[string]  `toml:"workspaces" strata:"append"`
	Recursive  partial.List[string]  `toml:"recursive" strata:"append"`
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
	data, err := readfile.Regular(context.Background(), s.Path, limits.FileSize, "a layer file")
	if err != nil {
		return List{}, err
	}
	return parse(s.Path, data)
}

// parse reads the trust list in data, named name in messages, within the
// default limits.
func parse(name string, data []byte) (List, error) {
	var p listLayer
	if err := codec.Decode(name, data, partial.TOML, &p); err != nil {
		return List{}, err
	}
	return partial.Finalize(&p, List{})
}

// Update changes the list with change and writes it back, holding a lock
// on the file for the whole read-change-write, and replacing the file
// atomically: concurrent updates, from any process, all take effect.
func (s *Store) Update(change func(*List) error) error {
	if s == nil || s.Path == "" {
		return &diag.Error{Code: diag.CodeWrite, Msg: "no trust list: there is no user config directory", Hint: "set HOME, XDG_CONFIG_HOME or <NAME>_CONFIG_HOME"}
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return &diag.Error{Code: diag.CodeWrite, Source: s.Path, Msg: "cannot create the directory of the trust list", Err: err}
	}
	unlock, err := filelock.Lock(s.Path + ".lock")
	if err != nil {
		return &diag.Error{Code: diag.CodeWrite, Source: s.Path, Msg: "cannot lock the trust list", Err: err}
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

// header opens the file: what its keys mean.
const header = `# What you trust; written by strata trust. Each of workspaces is trusted
# exactly: that directory's own config files apply (a workspace root's
# .strata/ and the .strata.toml files below it), not those of the
# directories above it or of a repository nested in it. Each of recursive
# is trusted with everything below it, nested repositories included. Pins
# hold launches to what they were.
`

// write replaces the file with l.
func (s *Store) write(l List) error {
	p, err := partial.From[listLayer](l, List{})
	if err != nil {
		return err
	}
	b, err := codec.Encode(p, partial.TOML)
	if err != nil {
		return err
	}
	b = append([]byte(header), b...)
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), filepath.Base(s.Path)+".*.tmp")
	if err != nil {
		return &diag.Error{Code: diag.CodeWrite, Source: s.Path, Msg: "cannot write the trust list", Err: err}
	}
	_, werr := tmp.Write(b)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return &diag.Error{Code: diag.CodeWrite, Source: s.Path, Msg: "cannot write the trust list", Err: err}
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		os.Remove(tmp.Name())
		return &diag.Error{Code: diag.CodeWrite, Source: s.Path, Msg: "cannot write the trust list", Err: err}
	}
	return nil
}

// String describes the list for messages.
func (l List) String() string {
	return fmt.Sprintf("%s, %d recursive, %s", diag.Counted(len(l.Workspaces), "workspace"), len(l.Recursive), diag.Counted(len(l.Pins), "pin"))
}
