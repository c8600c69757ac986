package load

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/readfile"
	"github.com/strata-config/strata/internal/untrusted"
)

// gate decides what a file is by where it lies, before it is opened: the
// one place every file of a load is read through (the user's file, the
// workspace's, directory files, --cfg files, what extends reach, other
// clients' files, envFiles), and, through [Result.ReadFile], every file
// a workspace reads afterwards (the lock). A file that lies in the
// workspace nobody trusted is its content, whichever way it was named: a
// relative path, "..", a symbolic link from outside, an absolute path in
// the user's own file. It is looked at (lstat), never opened.
//
// The workspace's own files at their places (.<name>/config.toml,
// .<name>.toml) are decided before, by the trust of their directory
// (see [Truster]): an untrusted one never reaches the gate. The zero gate
// keeps nothing out ([App.File], whose layers are printed, never run).
type gate struct {
	// ws is the workspace nobody trusted (outside a workspace, the
	// repository around the working directory, else the working
	// directory), or none: never the home directory or an ancestor of it
	// (see untrusted.New).
	ws untrusted.Workspace
	// dot is the .<name> directory of a workspace nobody trusted,
	// wherever its root is (the home directory too): the workspace's own.
	dot untrusted.Workspace
	// own is the user's config directory, absolute: a file named in it is
	// the user's, wherever it lies (a working directory in it makes it
	// the untrusted root).
	own string
	// dir is the directory whose trust applies what ws or dot hold: the
	// workspace root, or outside one the repository's root or the
	// working directory (see untrustedRoot).
	dir string
	// max is the size of the largest file ReadFile reads.
	max int64
	// area is the workspace whether trusted or not (outside one, the
	// repository or the working directory; none for the home directory
	// or /), and areaDot its .<name> directory: a file that lies there
	// is the workspace's, whichever layer named it.
	area, areaDot untrusted.Workspace
	// private are the user's own directories (the config directory, the
	// trust list's, App.Private), whose files no file of the workspace
	// names.
	private []string
}

// naming returns the problem of the file at abs (path as written) when
// the file by (absolute) of a layer of kind names it and by is the
// workspace's (a workspace or directory file, what they extend, or a file
// that lies in the workspace, trusted or not, however it was named)
// while abs lies in one of the user's own directories: an extends of the
// user's file would apply it a second time, as the workspace's, and an
// envFile there would hand what it holds (the user's settings, the
// sign-ins) to the workspace's server. Nil otherwise.
func (g *gate) naming(by string, kind Kind, path, abs string) *diag.Error {
	if kind != KindWorkspace && kind != KindDirectory && !g.area.Holds(by) && !g.areaDot.Holds(by) {
		return nil
	}
	if g.ownDir(by) != "" {
		return nil // the user's file, wherever the workspace is
	}
	dir := g.ownDir(abs)
	if dir == "" {
		return nil
	}
	return &diag.Error{Code: diag.CodeRefused, Source: path,
		Msg:  "it lies in " + dir + ", your own directory, which a file of the workspace may not name",
		Hint: "name it from your user file, not from the workspace's files"}
}

// ownDir returns the user's own directory that holds the file at abs, or
// "".
func (g *gate) ownDir(abs string) string {
	for _, d := range g.private {
		if untrusted.New(d, "").Holds(abs) {
			return d
		}
	}
	return ""
}

// holds reports whether the file at abs, an absolute path, is the
// workspace's content.
func (g *gate) holds(abs string) bool {
	abs = filepath.Clean(abs)
	if g.own != "" && (abs == g.own || strings.HasPrefix(abs, g.own+string(filepath.Separator))) {
		return false
	}
	return g.ws.Holds(abs) || g.dot.Holds(abs)
}

// read reads the file at path (abs, absolute) of at most max bytes, what
// naming it in messages ("a layer file"), with the one bounded reader,
// unless it is the workspace's content: then it is looked at, not
// opened, and the problem has [diag.CodeUntrusted] (a file that is not
// there is the problem of a missing file, as for any other).
func (g *gate) read(ctx context.Context, path, abs string, max int64, what string) ([]byte, error) {
	if !g.holds(abs) {
		return readfile.Regular(ctx, path, max, what)
	}
	// Looked at, never opened nor followed: whatever it is (a link, a
	// directory, a named pipe), it does not apply.
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: "cannot read: " + unwrapPath(err).Error(), Err: err}
	}
	return nil, &diag.Error{Code: diag.CodeUntrusted, Source: path,
		Msg:  "not read: it lies in " + g.dir + ", which is not trusted: it is that workspace's content",
		Hint: "trust " + g.dir + " to apply it"}
}

// UntrustedRoot returns the root of what nobody trusted, under which
// every file (see [Result.ReadFile]) and every launch is the workspace's
// content: the workspace root, or outside one the root of the repository
// Dir is in ([RepositoryRoot]), else Dir; "" when it is trusted, or when
// that is the home directory, an ancestor of it or /. It is decided once,
// by Load.
func (r *Result[P, R]) UntrustedRoot() string { return r.gate.ws.Root() }

// Area returns the root of what the workspace may write, trusted or not:
// the workspace root, or outside one the root of the repository Dir is
// in ([RepositoryRoot]), else Dir; "" when that is the home directory,
// an ancestor of it or /, which are no workspace's (a user working there
// is among their own files). A file that lies in it is the workspace's,
// whichever layer named it; a policy file may not (see package policy).
func (r *Result[P, R]) Area() string { return r.gate.area.Root() }

// ReadFile reads a file for the workspace r loaded, as Load read each of
// its own: through the one place that decides what a file is by where it
// lies. While nobody trusts the workspace, a file that lies in it
// (see [Result.UntrustedRoot]), or in its .<name>
// directory, is its content, whichever way path names it (relative, with
// "..", through a symbolic link from outside): it is looked at (lstat),
// never opened, and the problem has [diag.CodeUntrusted]. A file in the
// user's config directory is the user's. Any other file is read as a
// layer file is: a regular file (a link to one is followed) within
// Limits.FileSize, a named pipe never waited on. A file that is not there
// is a problem that wraps [fs.ErrNotExist].
//
// A host reads the workspace's files of its own (beside its config)
// through ReadFile, and strata its lock.
func (r *Result[P, R]) ReadFile(ctx context.Context, path string) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: err.Error(), Err: err}
	}
	max := r.gate.max
	if max == 0 {
		max = codec.Limits{}.WithDefaults().FileSize // a Result Load did not make
	}
	return r.gate.read(ctx, path, abs, max, "a layer file")
}
