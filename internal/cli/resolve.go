package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/budget"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/termtext"
)

// strataWorkspace is strata's own workspace: the tools model at the root.
type strataWorkspace = strata.Workspace[config.Partial, config.Config]

// open opens the workspace as the flags say, with strata's trust list
// and cache; its warnings go to stderr.
func open(e *env, f OpenFlags, opts ...strata.Option) (*strataWorkspace, error) {
	s := f.app(e)
	base := []strata.Option{
		strata.Name(s.Name), strata.Dir(s.Dir), strata.Environ(s.Environ), strata.Cfg(s.Cfg...),
		strata.TrustStore(s.TrustStore), strata.TrustHint(s.TrustHint), strata.UnknownEnv(s.UnknownEnv), strata.HostEnv(s.HostEnv...),
		strata.CacheDir(strata.DefaultCacheDir(s.Name, s.Environ)),
		strata.SignIns(strata.DefaultSignInFile(s.Name, s.Environ)),
	}
	for _, p := range f.policies() {
		if p.Optional {
			base = append(base, strata.SystemPolicy(p.Path))
		} else {
			base = append(base, strata.Policies(p.Path))
		}
	}
	if f.Strict {
		base = append(base, strata.Strict())
	}
	if s.TrustWorkspace {
		base = append(base, strata.TrustWorkspace())
	}
	if s.Input != nil {
		base = append(base, strata.Input(s.Input))
	}
	base = append(base, progress(e))
	w, err := strata.Open[config.Partial](e.Ctx, config.Default(), append(base, opts...)...)
	if err != nil {
		return nil, err
	}
	if asked, err := askTrust(e, w); err != nil {
		w.Close()
		return nil, err
	} else if asked {
		w.Close()
		if w, err = strata.Open[config.Partial](e.Ctx, config.Default(), append(base, opts...)...); err != nil {
			return nil, err
		}
	}
	named, others := namedNotApplied(w)
	if len(named) > 0 && !f.partial {
		warn(e, others)
		w.Close()
		return nil, named
	}
	if len(named) > 0 {
		// --partial: the run goes on, and fails at its end; what fails it
		// is said as the error it is.
		report(e.Stderr, named)
	}
	warn(e, others)
	return w, nil
}

// openResolve is open with the flags of resolving.
func openResolve(e *env, f ResolveFlags, opts ...strata.Option) (*strataWorkspace, error) {
	if f.Refresh {
		opts = append(opts, strata.Refresh())
	}
	if f.Offline {
		opts = append(opts, strata.Offline())
	}
	if f.Toolset != "" {
		opts = append(opts, strata.Toolset(f.Toolset))
	}
	return open(e, f.OpenFlags, opts...)
}

// Run runs strata resolve.
func (c *resolveCmd) Run(e *env) error {
	e, stop := stopOnSignals(e)
	defer stop()
	c.partial = c.Partial || c.check
	w, err := openResolve(e, c.ResolveFlags)
	if err != nil {
		return err
	}
	defer w.Close()
	failed := false
	if named, _ := namedNotApplied(w); len(named) > 0 {
		failed = true // --partial: the files named that were not applied
	}
	if c.Explain != "" {
		return explainTool(e, w, c)
	}
	cat, err := w.Resolve(e.Ctx)
	if cat == nil {
		return err
	}
	if err != nil && !c.check {
		// Errors first, then what follows from them: the warnings
		// (a lock's tools of a server that failed, say).
		report(e.Stderr, err)
		err = exitStatus(1)
	}
	if failed && err == nil && !c.check {
		err = exitStatus(1)
	}
	warnVerbose(e, cat.Warnings, c.Verbose)
	if err != nil && !c.Partial && !c.check {
		return err // a run that failed prints no catalog: a script would take it for the whole
	}
	if c.check {
		// strata config --check: the problems above, and what resolved.
		for _, p := range bounded(err) {
			fmt.Fprintf(e.Stderr, "strata: %s\n", line(p)) // errors, not warnings: the check fails
		}
		if err != nil || failed {
			return exitStatus(1)
		}
		_, err := fmt.Fprintf(e.Stdout, "%s resolved; %s\n", diag.Counted(len(cat.Tools), "tool"), diag.Counted(len(cat.Warnings), "warning"))
		return err
	}
	b := w.Model().Budget
	written, xerr := export.Write(cat, export.Dialect(c.Export), b)
	var de *diag.Error
	switch {
	case xerr != nil && c.Stats && written != nil && errors.As(xerr, &de):
		// What a provider would refuse is what --stats is asked to show.
		warning := *de
		warning.Severity = diag.SeverityWarning
		warn(e, diag.Errors{&warning})
	case xerr != nil:
		return xerr
	}
	warn(e, written.Notes)
	var out []byte
	if c.Stats || b.Tokens > 0 {
		counts := budget.OpenCounts(w.CacheDir())
		stats := counts.Measure(written, b)
		writeCounts(e, counts)
		if w := stats.Check(); w != nil {
			warn(e, diag.Errors{w})
		}
		if c.Stats {
			out = statsText(stats)
			if c.JSON {
				j, jerr := json.MarshalIndent(stats, "", "  ")
				if jerr != nil {
					return jerr
				}
				out = termtext.JSON(append(j, '\n'))
			}
		}
	}
	if !c.Stats {
		out = written.JSON()
	}
	if _, werr := e.Stdout.Write(out); werr != nil {
		return werr
	}
	return err
}

// writeCounts keeps the token counts made in the cache; a cache that
// cannot be written is a warning (the counts are made again next time).
func writeCounts(e *env, counts *budget.Counts) {
	if err := counts.Write(); err != nil {
		warn(e, diag.Errors{{Code: diag.CodeWrite, Severity: diag.SeverityWarning, Source: "cache", Msg: err.Error(), Err: err}})
	}
}

// statsText is the table of --stats: the total, each tool (the most
// costly first), each server.
func statsText(s budget.Stats) []byte {
	var b bytes.Buffer
	loaded := 0
	for _, t := range s.Tools {
		if t.Load != config.LoadDeferred {
			loaded++
		}
	}
	fmt.Fprintf(&b, "%s: %s in %s (%s)", s.Dialect, diag.Counted(s.Total, "token"), diag.Counted(loaded, "tool"), budget.Encoding)
	if s.Budget > 0 {
		fmt.Fprintf(&b, ", budget %s", diag.Count(s.Budget))
		if s.Total > s.Budget {
			fmt.Fprintf(&b, ": over by %s", diag.Count(s.Total-s.Budget))
		}
	}
	if s.Deferred > 0 {
		fmt.Fprintf(&b, "; deferred: %s in %s", diag.Counted(s.Deferred, "token"), diag.Counted(len(s.Tools)-loaded, "tool"))
	}
	b.WriteString("\n\n")
	width := len("tool")
	for _, t := range s.Tools {
		width = max(width, len(t.Name))
	}
	fmt.Fprintf(&b, "%8s  %-*s  %s\n", "tokens", width, "tool", "source")
	for _, t := range s.Tools {
		source := t.Source
		if t.Load == config.LoadDeferred {
			source += " (deferred)"
		}
		fmt.Fprintf(&b, "%8d  %-*s  %s\n", t.Tokens, width, t.Name, source)
	}
	if len(s.Servers) > 0 {
		fmt.Fprintf(&b, "\n%8s  %5s  %8s  %s\n", "tokens", "tools", "deferred", "server")
		for _, sv := range s.Servers {
			fmt.Fprintf(&b, "%8d  %5d  %8d  %s\n", sv.Tokens, sv.Tools, sv.Deferred, sv.Name)
		}
	}
	return []byte(termtext.Lines(b.String()))
}
