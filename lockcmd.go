package strata

import (
	"context"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/lock"
	"github.com/strata-config/strata/resolve"
)

// The lock's commands: they resolve the catalog (workspace.go) and apply
// the lock's stage to it (lock.go), which never calls back.

// Lock returns the state of the lock: which applies, and what changed
// since it was written. It resolves the catalog first (see
// [Workspace.Resolve]).
func (w *engine) Lock(ctx context.Context) (LockState, error) {
	if _, err := w.Resolve(ctx); err != nil && !w.resolved() {
		return LockState{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lockState, w.lockErr
}

// resolved reports whether Resolve has run to its end.
func (w *engine) resolved() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.full != nil
}

// WriteLock writes the lock of the catalog as it resolves now, every tool
// of it, whatever the lock before held back: the workspace's lock (user
// false), which only a trusted workspace may have, or the user's. Its MCP
// servers are listed as a client that declares sampling, elicitation and
// roots, so that the lock has every tool a client of strata serve may be
// offered, and as a client of none, to mark the tools offered only to the
// first ([lock.Entry].NeedsCapabilities). It refuses while some tools do
// not resolve (their errors come first): a lock without them would hold
// them back once they do. The locked tools of a server left out whole (by
// a policy, or enabled = false) are kept as they were locked
// ([LockWrite].Kept).
func (w *engine) WriteLock(ctx context.Context, user bool) (LockWrite, error) {
	path, err := w.lockTarget(user)
	if err != nil {
		return LockWrite{}, err
	}
	// The servers are listed twice, at once: as the lock lists them
	// (every tool any client may be offered), and as a client that
	// declares nothing, which tells the tools offered only to clients
	// that declare more.
	lw, done := w.listingAs(relayed())
	defer done()
	pw, pdone := w.listingAs(mcpclient.Capabilities{})
	defer pdone()
	plain := make(chan *resolve.Catalog, 1)
	go func() {
		cat, _ := pw.resolveAll(ctx) // its problems are those of lw's listing, or of a server that answers a client of no capabilities worse
		plain <- cat
	}()
	full, err := lw.resolveAll(ctx)
	offered := <-plain
	if full == nil {
		return LockWrite{}, err
	}
	if err != nil {
		// The causes first, each with its fix; then what follows.
		return LockWrite{}, append(diag.Errors(diag.All(err)), &diag.Error{Code: diag.CodeRefused, Source: path, Msg: "not written: the tools above did not resolve", Hint: "fix them, or disable them, first: a lock without them would hold them back once they resolve"})
	}
	out := LockWrite{Path: path, Tools: lock.Entries(full)}
	for i, e := range out.Tools {
		if _, ok := offered.Tool(e.Name); offered != nil && !ok && strings.HasPrefix(e.Source, "mcp_servers.") && !pw.unlisted(e) {
			out.Tools[i].NeedsCapabilities = true
		}
	}
	var before []lock.Entry
	if f, rerr := w.readLock(ctx, path); rerr == nil && f != nil {
		before = f.Tools
	}
	// The tools of a server left out whole (a policy, enabled = false)
	// are not gone: they are kept as they were locked, and compared once
	// it is back.
	have := map[string]bool{}
	for _, e := range out.Tools {
		have[e.Name] = true
	}
	for _, e := range before {
		if have[e.Name] {
			continue
		}
		if why := lw.whyUnlisted(e); why != "" && why != lock.NotListed {
			out.Tools = append(out.Tools, e)
			out.Kept = append(out.Kept, lock.Change{Kind: lock.Unlisted, Tool: e.Name, Locked: &e, Why: why})
		}
	}
	slices.SortFunc(out.Tools, func(a, b lock.Entry) int { return strings.Compare(a.Name, b.Name) })
	if err := lock.WriteFile(path, out.Tools); err != nil {
		return LockWrite{}, err
	}
	out.Changes = lock.Compare(before, out.Tools)
	return out, nil
}

// LockDiff returns the changes from the lock that applies (or that
// WriteLock would write, for user) to the catalog as WriteLock lists it
// now, held tools included, and the lock's path. The locked tools of a
// source that gave no tools are [lock.Unlisted], with why: a server that
// did not list its tools (the error says why), or one left out whole by a
// policy or the config.
func (w *engine) LockDiff(ctx context.Context, user bool) (string, []lock.Change, error) {
	path, err := w.lockTarget(user)
	if err != nil {
		return "", nil, err
	}
	lw, done := w.listingAs(relayed())
	defer done()
	full, err := lw.resolveAll(ctx)
	if full == nil {
		return "", nil, err
	}
	f, rerr := w.readLock(ctx, path)
	if rerr != nil {
		return path, nil, rerr
	}
	return path, lock.UnlistWhy(lock.Verify(full, f), lw.whyUnlisted), err
}
