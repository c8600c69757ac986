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
	"github.com/strata-config/strata/resolve"
)

// strataWorkspace is strata's own workspace: the tools model at the root.
type strataWorkspace = strata.Workspace[config.Partial, config.Config]

// open opens the workspace as the flags say, with strata's trust list
// and cache; its warnings go to stderr.
func open(e *env, f OpenFlags, opts ...strata.Option) (*strataWorkspace, error) {
	s := f.app(e)
	base := []strata.Option{
		strata.Name(s.Name), strata.Dir(s.Dir), strata.Environ(s.Environ), strata.Cfg(s.Cfg...),
		strata.TrustStore(s.TrustStore), strata.TrustHint(s.TrustHint),
		strata.CacheDir(strata.DefaultCacheDir(s.Name, s.Environ)),
	}
	if s.TrustWorkspace {
		base = append(base, strata.TrustWorkspace())
	}
	if s.Input != nil {
		base = append(base, strata.Input(s.Input))
	}
	w, err := strata.Open[config.Partial](e.Ctx, config.Default(), append(base, opts...)...)
	if err != nil {
		return nil, err
	}
	warn(e, w.Warnings())
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
	w, err := openResolve(e, c.ResolveFlags)
	if err != nil {
		return err
	}
	defer w.Close()
	cat, err := w.Resolve(e.Ctx)
	if cat == nil {
		return err
	}
	warn(e, cat.Warnings)
	if c.Explain != "" {
		if xerr := explainTool(e, w, c); xerr != nil {
			return xerr
		}
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
		stats := budget.Measure(written, b)
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
	fmt.Fprintf(&b, "%s: %d tokens in %d tools (%s)", s.Format, s.Total, loaded, budget.Encoding)
	if s.Budget > 0 {
		fmt.Fprintf(&b, ", budget %d", s.Budget)
		if s.Total > s.Budget {
			fmt.Fprintf(&b, ": over by %d", s.Total-s.Budget)
		}
	}
	if s.Deferred > 0 {
		fmt.Fprintf(&b, "; deferred: %d tokens in %d tools", s.Deferred, len(s.Tools)-loaded)
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

// explainTool prints why the tool c.Explain is in the run's tool set or
// out of it, how it loads, and what it costs in c.Export.
func explainTool(e *env, w *strataWorkspace, c *resolveCmd) error {
	ch, d, err := w.ExplainTool(e.Ctx, c.Explain)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s (source %s)\n", d.Name, d.Source)
	set := ch.Set
	if set == "" {
		set = "none"
	}
	in := "in"
	if !ch.In {
		in = "out"
	}
	fmt.Fprintf(&b, "  tool set: %s: %s (%s)\n", set, in, ch.Why)
	fmt.Fprintf(&b, "  load: %s (%s)\n", ch.Load, ch.LoadFrom)
	d.Load = ""
	if ch.Load == config.LoadDeferred {
		d.Load = config.LoadDeferred
	}
	one := &resolve.Catalog{Tools: []resolve.Definition{d}}
	if written, werr := export.Write(one, export.Dialect(c.Export), config.Budget{}); werr == nil && len(written.Entries) > 0 && written.Entries[0].Name != export.SearchTool {
		st := budget.Measure(&export.Written{Dialect: written.Dialect, Entries: written.Entries[:1]}, config.Budget{})
		fmt.Fprintf(&b, "  tokens: %d in %s\n", st.Total+st.Deferred, c.Export)
	} else {
		fmt.Fprintf(&b, "  tokens: not written in %s (its name is not one %s takes)\n", c.Export, c.Export)
	}
	_, err = e.Stdout.Write([]byte(termtext.Lines(b.String())))
	return err
}
