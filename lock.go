package strata

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/lock"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// LockState is what the lock of tool definitions (package lock) did to the
// catalog of [Workspace.Resolve], for a host to show: which lock applies,
// under which policy, and every change since it was written.
type LockState struct {
	// Path is the lock that applies; "" when none does.
	Path string
	// Policy is the lock policy of the config (lock.policy): hold, warn or
	// off.
	Policy config.LockPolicy
	// Ignored is a lock that exists and does not apply: the workspace's,
	// while nobody trusts the workspace (it is the workspace's content).
	Ignored string
	// Changes are the differences from the lock to the tools as they
	// resolved, sorted by tool; under hold, those whose
	// [lock.Change.Held] is true are left out of the catalog.
	Changes []lock.Change
}

// Held returns the names of the tools the lock holds back: left out of the
// catalog under hold, kept with a warning under warn.
func (s LockState) Held() []string {
	var out []string
	for _, c := range s.Changes {
		if c.Held() {
			out = append(out, c.Tool)
		}
	}
	return out
}

// LockPath returns where the lock of the workspace is (user false:
// <root>/.<name>/<name>.lock, "" outside a workspace) or the user's (user
// true: beside the user's config file, "" without a user directory),
// whether or not it exists.
func (w *Workspace[P, R]) LockPath(user bool) string {
	if user {
		dir := (&load.App[struct{}, struct{}]{Name: w.s.Name, Environ: w.environ}).UserDir()
		if dir == "" {
			return ""
		}
		return filepath.Join(dir, w.s.Name+".lock")
	}
	if w.loaded.Root == "" {
		return ""
	}
	return filepath.Join(w.loaded.Root, "."+w.s.Name, w.s.Name+".lock")
}

// Lock returns the state of the lock: which applies, and what changed
// since it was written. It resolves the catalog first (see
// [Workspace.Resolve]).
func (w *Workspace[P, R]) Lock(ctx context.Context) (LockState, error) {
	if _, err := w.Resolve(ctx); err != nil && !w.resolved() {
		return LockState{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lockState, w.lockErr
}

// resolved reports whether Resolve has run to its end.
func (w *Workspace[P, R]) resolved() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.full != nil
}

// LockWrite is what [Workspace.WriteLock] wrote.
type LockWrite struct {
	// Path is the lock file.
	Path string
	// Tools are its entries: every tool of the catalog.
	Tools []lock.Entry
	// Changes are those from the lock before, which writing accepted.
	Changes []lock.Change
}

// WriteLock writes the lock of the catalog as it resolves now, every tool
// of it, whatever the lock before held back: the workspace's lock (user
// false), which only a trusted workspace may have, or the user's. It
// refuses while some tools do not resolve: a lock without them would
// hold them back once they do.
func (w *Workspace[P, R]) WriteLock(ctx context.Context, user bool) (LockWrite, error) {
	path, err := w.lockTarget(user)
	if err != nil {
		return LockWrite{}, err
	}
	full, err := w.resolveAll(ctx)
	if full == nil {
		return LockWrite{}, err
	}
	if err != nil {
		return LockWrite{}, &diag.Error{Code: diag.CodeRefused, Source: path, Msg: "not written: some tools did not resolve: " + err.Error(), Hint: "fix them, or disable them, first: a lock without them would hold them back once they resolve"}
	}
	out := LockWrite{Path: path, Tools: lock.Entries(full)}
	var before []lock.Entry
	if f, rerr := lock.Read(ctx, path, w.s.Limits); rerr == nil && f != nil {
		before = f.Tools
	}
	if err := lock.WriteFile(path, out.Tools); err != nil {
		return LockWrite{}, err
	}
	out.Changes = lock.Compare(before, out.Tools)
	return out, nil
}

// LockDiff returns the changes from the lock that applies (or that
// WriteLock would write, for user) to the catalog as it resolves now,
// held tools included, and the lock's path.
func (w *Workspace[P, R]) LockDiff(ctx context.Context, user bool) (string, []lock.Change, error) {
	path, err := w.lockTarget(user)
	if err != nil {
		return "", nil, err
	}
	full, err := w.resolveAll(ctx)
	if full == nil {
		return "", nil, err
	}
	f, rerr := lock.Read(ctx, path, w.s.Limits)
	if rerr != nil {
		return path, nil, rerr
	}
	return path, lock.Verify(full, f), err
}

// lockTarget is the lock that WriteLock writes: the workspace's, refused
// in a workspace nobody trusted or outside any, or the user's.
func (w *Workspace[P, R]) lockTarget(user bool) (string, error) {
	path := w.LockPath(user)
	switch {
	case user && path == "":
		return "", &diag.Error{Code: diag.CodeNotFound, Msg: "no user config directory for the lock", Hint: "set HOME, XDG_CONFIG_HOME or " + strings.ToUpper(w.s.Name) + "_CONFIG_HOME"}
	case path == "":
		return "", &diag.Error{Code: diag.CodeNotFound, Source: w.root, Msg: "not in a workspace: no ." + w.s.Name + "/ directory here or above, so no workspace lock",
			Hint: "make a ." + w.s.Name + "/ directory at the project's root and trust it, or lock your own tools with --user"}
	case !user && !w.trusted:
		return "", &diag.Error{Code: diag.CodeUntrusted, Source: path, Msg: "not written: nobody trusted this workspace, and its lock would not apply (it is the workspace's content)",
			Hint: "trust the workspace first (" + w.s.Name + " trust, or --trust), or lock your own tools with --user"}
	}
	return path, nil
}

// applyLock applies the lock to full, the catalog as it resolved: it
// returns the catalog with the tools the lock holds back left out (under
// hold), the state, the warnings to add to the catalog's (one per held
// or removed tool) and the lock's problems. Under hold, a lock that
// cannot be read, or names tools of sources the config does not have,
// fails: nothing it locks can be checked.
func (w *Workspace[P, R]) applyLock(ctx context.Context, full *resolve.Catalog) (*resolve.Catalog, LockState, diag.Errors, error) {
	st := LockState{Policy: w.model.Lock.Policy.Or()}
	if st.Policy == config.LockOff {
		return full, st, nil, nil
	}
	var warnings diag.Errors
	var f *lock.Lockfile
	for _, user := range []bool{false, true} {
		path := w.LockPath(user)
		if path == "" {
			continue
		}
		got, err := lock.Read(ctx, path, w.s.Limits)
		if got == nil && err == nil {
			continue
		}
		if !user && !w.trusted {
			st.Ignored = path
			warnings = append(warnings, &diag.Error{Code: diag.CodeUntrusted, Severity: diag.SeverityWarning, Source: path,
				Msg:  "the workspace's lock is not applied: nobody trusted the workspace, and the lock is its content",
				Hint: "trust the workspace to apply it (" + w.s.Name + " trust, or --trust)"})
			continue
		}
		st.Path = path
		if err != nil {
			return w.lockFailed(full, st, warnings, err)
		}
		f = got
		break
	}
	if f == nil {
		return full, st, warnings, nil
	}
	if err := w.unknownSources(f, full); err != nil {
		return w.lockFailed(full, st, warnings, err)
	}
	st.Changes = lock.Verify(full, f)
	held := st.Policy == config.LockHold
	if o := f.Outdated(); o != nil && slices.ContainsFunc(st.Changes, func(c lock.Change) bool {
		return c.Kind == lock.Changed && c.Locked.Other == "" && c.Now.Other != ""
	}) {
		// The cause first, once: the tools it holds back follow.
		warnings = append(warnings, o)
	}
	for _, c := range st.Changes {
		switch {
		case c.Held():
			e := f.Problem(c.Tool, "", "", "")
			if c.Kind == lock.Added {
				e = &diag.Error{Code: diag.CodeChanged, Source: f.Path, Path: partial.Path{"tools", c.Tool}}
			}
			e.Severity, e.Code = diag.SeverityWarning, diag.CodeChanged
			e.Msg = c.String()
			if held {
				e.Msg = "held back: " + e.Msg
			}
			e.Hint = "see the change with " + w.s.Name + " lock --diff; accept it with " + w.s.Name + " lock"
			warnings = append(warnings, e)
		case c.Kind == lock.Removed:
			e := f.Problem(c.Tool, "", c.String(), "write the lock again with "+w.s.Name+" lock")
			e.Severity = diag.SeverityWarning
			warnings = append(warnings, e)
		}
	}
	if held {
		full, _ = lock.Hold(full, st.Changes)
	}
	return full, st, warnings, nil
}

// lockFailed is applyLock's answer for a lock that does not apply: under
// hold, no catalog; under warn, the catalog, its problems as warnings.
func (w *Workspace[P, R]) lockFailed(full *resolve.Catalog, st LockState, warnings diag.Errors, err error) (*resolve.Catalog, LockState, diag.Errors, error) {
	if st.Policy == config.LockHold {
		return nil, st, warnings, err
	}
	for _, e := range diag.All(err) {
		c := *e
		c.Severity = diag.SeverityWarning
		warnings = append(warnings, &c)
	}
	return full, st, warnings, nil
}

// unknownSources reports the entries of f whose tool is not in the
// catalog and whose source the config does not have: a lock of another
// config, or a typo.
func (w *Workspace[P, R]) unknownSources(f *lock.Lockfile, cat *resolve.Catalog) error {
	var names []string
	for _, d := range cat.Tools {
		names = append(names, d.Name)
	}
	var errs diag.Errors
	for _, e := range f.Tools {
		if _, ok := cat.Tool(e.Name); ok || w.hasSource(e.Source) {
			continue
		}
		hint := "write the lock again with " + w.s.Name + " lock"
		if c := suggest.Closest(e.Name, names); c != "" {
			hint = "did you mean " + c + "? or " + hint
		}
		errs = append(errs, f.Problem(e.Name, "source", fmt.Sprintf("the lock names a tool of %s, which the config does not have", e.Source), hint))
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// hasSource reports whether the config has the source of a lock entry.
func (w *Workspace[P, R]) hasSource(source string) bool {
	switch {
	case source == lock.HostBuiltin:
		return true
	case source == lock.DiscoverDirs:
		return len(w.model.Discover.Dirs) > 0
	}
	if name, ok := strings.CutPrefix(source, "mcp_servers."); ok {
		_, has := w.model.MCPServers[unquote(name)]
		return has
	}
	if name, ok := strings.CutPrefix(source, "tools."); ok {
		_, has := w.model.Tools[unquote(name)]
		return has
	}
	return false
}

// unquote reads one key of a dotted key path.
func unquote(k string) string {
	if p, err := partial.ParsePath(k); err == nil && len(p) == 1 {
		return p[0]
	}
	return k
}
