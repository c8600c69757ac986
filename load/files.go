package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/clients"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/readfile"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/untrusted"
)

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// extensions are the formats a layer file may have, probed in this order.
var extensions = []string{".toml", ".json", ".yaml", ".yml"}

// probeFile looks for base with each extension and reads the one it finds,
// when trusted; an untrusted file is only recorded.
func (r *reader[P, R]) probeFile(ctx context.Context, kind Kind, base string, trusted bool) {
	var found []string
	for _, ext := range extensions {
		path := base + ext
		if !trusted {
			// Looked at, never opened nor followed: whatever it is (a
			// directory, a link loop), it does not apply, and it cannot
			// fail the user's load.
			_, err := os.Lstat(path)
			r.res.Probes = append(r.res.Probes, Probe{Kind: kind, Path: path, Found: err == nil, Untrusted: err == nil})
			continue
		}
		info, err := os.Stat(path)
		switch {
		case err == nil && info.IsDir():
			r.add(&diag.Error{Code: diag.CodeRead, Source: path, Msg: "is a directory, not a layer file"})
		case err == nil:
			found = append(found, path)
		case !errors.Is(err, fs.ErrNotExist):
			r.add(&diag.Error{Code: diag.CodeRead, Source: path, Msg: "cannot read: " + unwrapPath(err).Error()})
		}
		r.res.Probes = append(r.res.Probes, Probe{Kind: kind, Path: path, Found: err == nil})
	}
	if !trusted {
		return
	}
	switch len(found) {
	case 0:
	case 1:
		r.file(ctx, kind, found[0], nil, "")
	default:
		r.add(&diag.Error{Code: diag.CodeInvalid, Source: found[0], Msg: "another layer file is in the same place: " + strings.Join(found[1:], ", "), Hint: "keep one of them"})
	}
}

// File reads the layer file at path and the files it extends, the way
// [App.Load] reads each of its files: extends relative to the file, a
// glob's matches in sorted order, "after" entries above the file, cycles
// and missing files reported (see [codec.ExtendsKey]), files of other tools read
// when [App].MCPServers is set. It returns the layers, lowest first, of
// [KindCfg] as a --cfg file's are; the warnings are those [Result].Warnings
// would hold; the error holds every problem found. Relative paths stay as
// the files write them: the layers are to print or compare, not to run.
// So File reads a file wherever it lies, in a workspace nobody trusted
// too: it starts nothing and connects to nothing (strata merge and diff
// read through it), and is how one looks at a repository's files before
// trusting it. What came from a variable or an input prints as its
// reference ([codec.Document.Secrets]).
func (a *App[P, R]) File(ctx context.Context, path string) (layers []Layer[P], warnings diag.Errors, err error) {
	if _, err := shape.OfPartial(typeOf[P]()); err != nil {
		return nil, nil, err
	}
	lim := a.Limits.WithDefaults()
	r := reader[P, R]{app: a, res: &Result[P, R]{}, asWritten: true, lim: lim, errs: diag.Collector{Max: lim.Problems}}
	r.file(ctx, KindCfg, path, nil, "")
	if err := r.errs.Err(); err != nil {
		return nil, r.res.Warnings, err
	}
	return r.res.Layers, r.res.Warnings, nil
}

// fileKey names a file read: its absolute path, and the foreign format it
// was read in.
type fileKey struct {
	abs string
	f   clients.Format
}

// fileRead is what reading a file gave, kept so that a file that several
// extends name is read once; a file that failed is reported once.
type fileRead[P any] struct {
	d      *codec.Document
	p      *P
	exts   []codec.Extend
	client clients.Format
	failed bool
}

// file reads a layer file and the files it extends, adding their layers in
// order. chain lists the files whose extends led here; f names a foreign
// format the file is in, or is empty to recognise one.
func (r *reader[P, R]) file(ctx context.Context, kind Kind, path string, chain []string, f clients.Format) {
	if len(chain) == 0 {
		r.chainFiles, r.chainFull = 0, false // a new chain
	}
	if err := ctx.Err(); err != nil {
		r.add(&diag.Error{Code: diag.CodeRead, Source: path, Msg: "not read: " + err.Error(), Err: err})
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		r.add(&diag.Error{Code: diag.CodeRead, Source: path, Msg: err.Error()})
		return
	}
	for _, c := range chain {
		if c == abs {
			r.add(&diag.Error{Code: diag.CodeInvalid, Source: path, Msg: "extends itself: " + strings.Join(append(chain, abs), " -> "), Hint: "remove one of the extends"})
			return
		}
	}
	fr := r.read(ctx, kind, path, abs, chain, f)
	if fr.failed {
		return
	}
	inner := append(append([]string(nil), chain...), abs)
	var after []codec.Extend
	for _, e := range fr.exts {
		if e.After {
			after = append(after, e)
			continue
		}
		r.extend(ctx, kind, fr.d, e, inner)
	}
	r.push(Layer[P]{Kind: kind, Name: path, Extends: chain, Partial: fr.p, Doc: fr.d, Client: string(fr.client)})
	for _, e := range after {
		r.extend(ctx, kind, fr.d, e, inner)
	}
}

// read reads, parses and decodes the file at path, once: later calls give
// what the first one gave, without its problems. A file of the workspace
// nobody trusted is not read (see [gate]): it is recorded, as a file of
// kind not applied, for the warning about them.
func (r *reader[P, R]) read(ctx context.Context, kind Kind, path, abs string, chain []string, f clients.Format) *fileRead[P] {
	if len(chain) > 0 {
		// Before the files read: the user's file, read as the user's,
		// is not applied again as the workspace's.
		if err := r.res.gate.naming(chain[len(chain)-1], kind, path, abs); err != nil {
			err.Msg = "not read: " + err.Msg + " (extended by " + strings.Join(chain, " -> ") + ")"
			r.add(err)
			return &fileRead[P]{failed: true}
		}
	}
	key := fileKey{abs, f}
	if fr, ok := r.files[key]; ok {
		return fr
	}
	fr := &fileRead[P]{failed: true}
	if r.files == nil {
		r.files = make(map[fileKey]*fileRead[P])
	}
	r.files[key] = fr
	max := min(r.lim.FileSize, r.lim.Total-r.readBytes)
	data, err := r.res.gate.read(ctx, path, abs, max, "a layer file")
	if errors.Is(err, diag.CodeUntrusted) {
		if !slices.ContainsFunc(r.res.Probes, func(p Probe) bool { return p.Untrusted && p.Path == abs }) {
			r.res.Probes = append(r.res.Probes, Probe{Kind: kind, Path: abs, Found: true, Untrusted: true, TrustDir: r.res.gate.dir})
		}
		return fr
	}
	format, ok := codec.FormatOf(path)
	if !ok {
		r.add(&diag.Error{Code: diag.CodeRead, Source: path, Msg: "cannot tell the format from the file name", Hint: "use a .toml, .json, .yaml or .yml file"})
		return fr
	}
	if err != nil && max < r.lim.FileSize && errors.Is(err, readfile.ErrTooLarge) {
		err = &diag.Error{Code: diag.CodeLimit, Source: path, Msg: fmt.Sprintf("the layer files of this load hold more than %s in all, the limit", readfile.Bytes(r.lim.Total)), Hint: "extend fewer or smaller files"}
	}
	r.readBytes += int64(len(data))
	if err != nil {
		if e, ok := err.(*diag.Error); ok && len(chain) > 0 {
			e.Msg += " (extended by " + strings.Join(chain, " -> ") + ")"
		}
		r.add(err)
		return fr
	}
	if f == "" && r.app.MCPServers != nil {
		f = clients.ByName(path)
	}
	if r.readValues > r.lim.Values {
		// The files before went past Limits.Values, which a problem
		// says: no more is read.
		return fr
	}
	d, values, err := r.lim.ParseAfter(path, data, format, f.JSONC(), r.readValues)
	r.readValues += values
	if err != nil {
		r.add(err)
		return fr
	}
	if f == "" && r.app.MCPServers != nil {
		f = clients.Detect(doc.TreeOf(d), rootDeclares[P])
	}
	if f != "" {
		if r.app.MCPServers == nil {
			r.add(&diag.Error{Code: diag.CodeUsage, Source: path, Msg: fmt.Sprintf("this application does not read %s files", f)})
			return fr
		}
		r.by, r.byKind = abs, kind // what names its envFiles
		warnings, err := clients.Translate(ctx, d.Name(), doc.TreeOf(d), f, r.app.MCPServers, r.importer())
		if err != nil {
			r.add(err)
			return fr
		}
		for _, w := range warnings {
			r.warn(w)
		}
	}
	exts, err := d.Extends(clients.Names())
	if err != nil {
		r.add(err)
		return fr
	}
	p := new(P)
	d.StrictUnder(r.app.Checked)
	if err := d.Decode(p); err != nil {
		if f == "" {
			err = clients.CodexProblems(d.Name(), doc.TreeOf(d), err, r.app.Name)
		}
		r.add(err)
		return fr
	}
	if !r.asWritten {
		rebase(p, filepath.Dir(abs))
	}
	if f == "" {
		d.Release() // a foreign file's tree is its mapping, not what was read
	}
	*fr = fileRead[P]{d: d, p: p, exts: exts, client: f}
	return fr
}

// rootDeclares reports whether the host's partial type P has key at its
// root.
func rootDeclares[P any](key string) bool {
	t, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		return false
	}
	_, ok := t.Field(key)
	return ok
}

// extend reads the files one extends entry names, as long as the chain
// has read fewer files than the limit.
func (r *reader[P, R]) extend(ctx context.Context, kind Kind, d *codec.Document, e codec.Extend, chain []string) {
	if r.chainFull {
		return
	}
	dir := filepath.Dir(d.Name())
	pattern := e.Path
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(dir, pattern)
	}
	if !hasMeta(e.Path) {
		if _, err := os.Stat(pattern); err != nil {
			r.add(e.Problem(diag.CodeRead, "extends a missing file "+pattern+" ("+chainText(chain)+")", "the path is relative to "+d.Name()))
			return
		}
		if r.countFile(d, e, chain) {
			r.file(ctx, kind, pattern, chain, clients.Format(e.Format))
		}
		return
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		r.add(e.Problem(diag.CodeSyntax, "invalid pattern "+e.Path+": "+err.Error(), ""))
		return
	}
	sort.Strings(matches)
	if len(matches) == 0 {
		r.add(e.Problem(diag.CodeRead, "the pattern "+pattern+" matches no file ("+chainText(chain)+")", "the pattern is relative to "+d.Name()))
		return
	}
	for _, m := range matches {
		if !r.countFile(d, e, chain) {
			return
		}
		r.file(ctx, kind, m, chain, clients.Format(e.Format))
	}
}

// countFile counts a file that extends entry e of d reads, and reports
// whether the chain may read it: past the limit, the chain stops, with one
// problem at the entry that went over.
func (r *reader[P, R]) countFile(d *codec.Document, e codec.Extend, chain []string) bool {
	if r.chainFull {
		return false // and said so
	}
	if r.chainFiles++; r.chainFiles <= r.lim.Files {
		return true
	}
	r.chainFull = true
	r.add(e.Problem(diag.CodeLimit, fmt.Sprintf("the extends of %s read more than %s files, the limit (counting a file once for each extends that names it)", chain[0], diag.Count(r.lim.Files)), "extend fewer files, or have one file extend them all once"))
	return false
}

func chainText(chain []string) string {
	return "extended by " + strings.Join(chain, " -> ")
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// WorkspaceRoot returns the root of the workspace of an application called
// name around dir: the nearest ancestor of dir (dir included) that holds a
// directory .<name>, or a .<name> that cannot be read (a symbolic link
// loop), or "" outside a workspace. It is the root Load finds, which
// reports a .<name> it cannot read: an error when the workspace is
// trusted, else a warning.
func WorkspaceRoot(dir, name string) (string, error) {
	root, _ := workspaceRoot(dir, "."+name, "")
	return root, nil
}

// workspaceRoot returns the nearest ancestor of dir (dir included) that
// holds a directory named marker, or "", and the problem of a marker that
// cannot be read, which marks the root too. A marker that is the user's
// own directory, user, marks nothing.
func workspaceRoot(dir, marker, user string) (string, *diag.Error) {
	if user != "" {
		user = realDir(user)
	}
	for d := dir; ; {
		info, err := os.Stat(filepath.Join(d, marker))
		switch {
		case err == nil && info.IsDir() && user != "" && realDir(filepath.Join(d, marker)) == user:
		case err == nil && info.IsDir():
			return d, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission):
			return d, &diag.Error{Code: diag.CodeRead, Source: filepath.Join(d, marker), Msg: "cannot read: " + unwrapPath(err).Error()}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", nil
		}
		d = parent
	}
}

// RepositoryRoot returns the nearest ancestor of dir (dir included) that
// holds a repository (a .git entry of any kind: a submodule's or a
// worktree's is a file), or "" when there is none or it is the home
// directory (HOME or USERPROFILE in environ; nil is the process's
// environment), an ancestor of it or the root of the file system: a
// repository of dotfiles holds the user's own files, not a stranger's.
//
// Outside a .<name> workspace, it is the root of what nobody trusted
// (see [Result.UntrustedRoot]): a clone without a .<name>/ directory is
// one piece, whichever of its directories strata runs in.
func RepositoryRoot(dir string, environ []string) string {
	if environ == nil {
		environ = os.Environ()
	}
	return repositoryRoot(dir, homeOf(envMap(environ)))
}

func repositoryRoot(dir, home string) string {
	for d := filepath.Clean(dir); ; {
		if nestedRepository(d) {
			if broadRoot(d, home) {
				return "" // /, or the home directory or above
			}
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// TrustRoot returns the directory whose trust applies the files around
// dir of an application called name (HOME and the config directory read
// from environ; nil is the process's environment), as [App.Load] asks
// it: the workspace root, the nearest directory holding .<name>; else
// the root of the repository around dir ([RepositoryRoot]), with
// repository set; else "": dir alone. A workspace root at the home
// directory or / is returned too: trusting it is refused ([RefuseBroad]).
func TrustRoot(dir, name string, environ []string) (root string, repository bool) {
	if environ == nil {
		environ = os.Environ()
	}
	env := envMap(environ)
	ws, _ := workspaceRoot(dir, "."+name, (&App[struct{}, struct{}]{Name: name}).userDir(env))
	if ws != "" {
		return ws, false
	}
	repo := repositoryRoot(dir, homeOf(env))
	return repo, repo != ""
}

// roots returns, for the workspace root (or "") around dir, the directory
// whose trust applies the files there (trust) and the one under which
// everything is the workspace's content until then (region): the
// workspace root, else the root of the repository around dir, else dir.
// The region is none ("") where it would be the home directory, an
// ancestor of it or /, and a workspace root there, which nobody trusts,
// leaves the region to the repository around dir, else dir: a clone
// below a home directory that holds .<name>/ is not the user's.
func roots(root, dir, home string) (trust, region string) {
	inner := cmp.Or(repositoryRoot(dir, home), dir)
	trust, region = cmp.Or(root, inner), cmp.Or(root, inner)
	if root != "" && broadRoot(root, home) {
		region = inner
	}
	if broadRoot(region, home) {
		region = ""
	}
	return trust, region
}

// broadRoot reports whether dir is the home directory, an ancestor of it
// or /, which nobody trusts by itself (see untrusted.New).
func broadRoot(dir, home string) bool { return untrusted.New(dir, home).IsZero() }

// isWithin reports whether the clean absolute path p is top or below it.
func isWithin(p, top string) bool {
	return p == top || strings.HasPrefix(p, top+string(filepath.Separator))
}

// directories returns the directories whose directory files apply: from
// root (or, outside a workspace, from /) down to dir.
func directories(root, dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// unwrapPath drops the path from an *os.PathError, which the message names
// already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// importer returns what reading clients' files needs of this load.
func (r *reader[P, R]) importer() *clients.Env {
	if r.im == nil {
		r.im = &clients.Env{Environ: r.env, Root: r.res.Root, Dir: r.dir, Input: r.app.Input, Untrusted: r.ws, ReadEnvFile: r.readEnvFile}
	}
	return r.im
}

// readEnvFile reads an envFile through the gate (one of the workspace
// nobody trusted is not opened; internal/clients leaves its server out
// before asking) and the one bounded reader, within the limits of a layer
// file and counting towards the load's total.
func (r *reader[P, R]) readEnvFile(ctx context.Context, path string) ([]byte, error) {
	max := min(r.lim.FileSize, r.lim.Total-r.readBytes)
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: err.Error(), Err: err}
	}
	if err := r.res.gate.naming(r.by, r.byKind, path, abs); err != nil {
		return nil, err
	}
	data, err := r.res.gate.read(ctx, path, abs, max, "an environment file")
	if err != nil && max < r.lim.FileSize && errors.Is(err, readfile.ErrTooLarge) {
		err = &diag.Error{Code: diag.CodeLimit, Source: path, Msg: fmt.Sprintf("the files of this load hold more than %s in all, the limit", readfile.Bytes(r.lim.Total)), Err: readfile.ErrTooLarge}
	}
	r.readBytes += int64(len(data))
	return data, err
}
