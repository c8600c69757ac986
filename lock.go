package strata

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/upstream"
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
func (w *engine) LockPath(user bool) string {
	if user {
		dir := (&load.App[struct{}, struct{}]{Name: w.s.Name, ConfigHome: w.s.ConfigHome, Environ: w.environ}).UserDir()
		if dir == "" {
			return ""
		}
		return filepath.Join(dir, w.s.Name+".lock")
	}
	if w.view.root == "" {
		return ""
	}
	return filepath.Join(w.view.root, "."+w.s.Name, w.s.Name+".lock")
}

// LockWrite is what [Workspace.WriteLock] wrote.
type LockWrite struct {
	// Path is the lock file.
	Path string
	// Tools are its entries: every tool of the catalog.
	Tools []lock.Entry
	// Changes are those from the lock before, which writing accepted.
	Changes []lock.Change
	// Kept are the tools of the lock before whose server was left out
	// whole (by a policy, or enabled = false): not gone, they are kept in
	// the lock as they were locked ([lock.Unlisted], with why).
	Kept []lock.Change
}

// relayed are the client capabilities strata serve relays for its
// clients: sampling, elicitation (form and URL) and roots. Servers listed
// with them offer every tool a client of strata may be offered: serve
// over HTTP declares them, and the lock lists its servers with them (see
// [lock.Version]).
func relayed() mcpclient.Capabilities {
	return mcpclient.Capabilities{
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		Roots:       &mcp.RootCapabilities{},
	}
}

// covers reports whether servers listed as a client that declares c
// offer every tool they offer the lock: c declares each capability of
// [relayed].
func covers(c mcpclient.Capabilities) bool {
	return c.Sampling != nil && c.Roots != nil && c.Elicitation != nil && c.Elicitation.Form != nil && c.Elicitation.URL != nil
}

// listingAs returns the workspace with its MCP servers declared caps:
// w when its servers declare them already, else a workspace of its config
// with servers of its own, which done stops. The lock lists as a client
// that declares [relayed], so that it has every tool a client of strata
// serve may be offered, and lock --diff shows every tool serve may hold
// back.
func (w *engine) listingAs(caps mcpclient.Capabilities) (lw *engine, done func()) {
	if reflect.DeepEqual(w.servers.Declared(), caps) || caps.IsZero() && w.servers.Declared().IsZero() {
		return w, func() {}
	}
	servers := &upstream.Servers{}
	servers.Serve(upstream.Client{Capabilities: caps})
	lw = &engine{s: w.s, view: w.view, reopen: w.reopen, model: w.model, clamps: w.clamps, trusted: w.trusted, root: w.root, dir: w.dir, list: w.list, environ: w.environ, servers: servers, owned: true}
	return lw, func() { _ = servers.Close() }
}

// unlisted reports whether the source of a lock entry gave no tools in
// this resolution (see [engine.whyUnlisted]).
func (w *engine) unlisted(e lock.Entry) bool { return w.whyUnlisted(e) != "" }

// whyUnlisted says why the source of a lock entry gave no tools in this
// resolution, as a [lock.Change]'s Why, or "" when it did (a locked tool
// not among them is gone). A source that did not list its tools (a
// server that did not start, a launch that no longer matches its pin)
// has its own error; a server left out whole, that a policy does not let
// start or that the config does not enable, is named with why (the
// policy's constraint, where it is, its reason): its tools are left out
// for now, not gone.
func (w *engine) whyUnlisted(e lock.Entry) string {
	key := e.Source
	if e.Source == lock.DiscoverDirs {
		key = partial.Path{"tools", e.Name}.String()
	}
	if w.found.Failed[key] {
		return lock.NotListed
	}
	name, ok := strings.CutPrefix(e.Source, "mcp_servers.")
	if !ok {
		return ""
	}
	name = unquote(name)
	if srv, has := w.model.MCPServers[name]; !has || srv.IsEnabled() {
		return ""
	}
	for _, c := range w.clamps {
		if server, ok := leftOut(c); ok && server == name {
			why := "is left out by the policy " + c.Policy.String() + " at " + c.At()
			if c.Reason != "" {
				why += " (" + c.Reason + ")"
			}
			return why
		}
	}
	return "is not enabled (enabled = false)"
}

// readLock reads the lock at path, nil when there is none, through the
// load's gate (load.Result.ReadFile): the lock of a workspace nobody
// trusted is looked at, never opened, and is a problem with
// diag.CodeUntrusted.
func (w *engine) readLock(ctx context.Context, path string) (*lock.Lockfile, error) {
	data, err := w.view.ReadFile(ctx, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return lock.ReadBytes(path, data, w.s.Limits)
}

// sayLock names the lock of the workspace nobody trusted, when there is
// one at its place (looked at, never opened), in the one warning about
// the workspace's files that are not applied, so that every command says
// it once, in that line; without such a warning (the workspace has no
// other file), [Workspace.applyLock] warns of the lock alone.
func (w *engine) sayLock() {
	path := w.LockPath(false)
	if path == "" {
		return
	}
	if _, err := os.Lstat(path); err != nil {
		return
	}
	for i, e := range w.view.warnings {
		if errors.Is(e, diag.CodeUntrusted) && e.Source == w.view.root {
			said := *e
			said.Msg += "; the workspace's lock is not applied either (" + path + ")"
			w.view.warnings = slices.Clone(w.view.warnings)
			w.view.warnings[i] = &said
			w.lockSaid = true
			return
		}
	}
}

// lockTarget is the lock that WriteLock writes: the workspace's, refused
// in a workspace nobody trusted or outside any, or the user's.
func (w *engine) lockTarget(user bool) (string, error) {
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
// or removed tool, one per source that gave no tools) and the lock's
// problems. Under hold, a lock that cannot be read, or names tools of
// sources the config does not have, fails: nothing it locks can be
// checked.
func (w *engine) applyLock(ctx context.Context, full *resolve.Catalog) (*resolve.Catalog, LockState, diag.Errors, error) {
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
		got, err := w.readLock(ctx, path)
		if errors.Is(err, diag.CodeUntrusted) {
			// The workspace's, while nobody trusts it: looked at, never
			// opened.
			st.Ignored = path
			if !w.lockSaid {
				warnings = append(warnings, &diag.Error{Code: diag.CodeUntrusted, Severity: diag.SeverityWarning, Source: path,
					Msg:  "the workspace's lock is not applied: nobody trusted the workspace, and the lock is its content",
					Hint: "trust the workspace to apply it (" + w.s.Name + " trust, or --trust)"})
			}
			continue
		}
		if got == nil && err == nil {
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
	st.Changes = lock.UnlistWhy(lock.Verify(full, f), w.whyUnlisted)
	if !covers(w.servers.Declared()) {
		// The servers were listed as a client that declares less than
		// the lock's listing did: a locked tool they offer only to a
		// client that declares more is not missing.
		st.Changes = slices.DeleteFunc(st.Changes, func(c lock.Change) bool {
			return c.Kind == lock.Removed && c.Locked.NeedsCapabilities
		})
	}
	held := st.Policy == config.LockHold
	if o := f.Outdated(); o != nil && slices.ContainsFunc(st.Changes, func(c lock.Change) bool {
		return c.Kind == lock.Changed && c.Locked.Other == "" && c.Now.Other != ""
	}) {
		// The cause first, once: the tools it holds back follow.
		warnings = append(warnings, o)
	}
	// What gave no tools is said first, on its own (a server's error, a
	// policy's or the config's warning): here, one line a source says
	// why and what follows from it for the lock. Its tools are not gone:
	// no advice to write the lock again, which would drop them.
	for _, line := range lock.UnlistedLines(st.Changes) {
		warnings = append(warnings, &diag.Error{Code: diag.CodeLeftOut, Severity: diag.SeverityWarning, Source: f.Path, Msg: line})
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
func (w *engine) lockFailed(full *resolve.Catalog, st LockState, warnings diag.Errors, err error) (*resolve.Catalog, LockState, diag.Errors, error) {
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
func (w *engine) unknownSources(f *lock.Lockfile, cat *resolve.Catalog) error {
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
func (w *engine) hasSource(source string) bool {
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
