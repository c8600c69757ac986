package mcpcommands

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/budget"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/cli"
	"github.com/strata-config/strata/internal/termtext"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// workspace is strata's own workspace: the tools model at the root.
type workspace = strata.Workspace[config.Partial, config.Config]

// open opens the workspace as the flags say, with strata's trust list
// and cache; its warnings go to stderr.
func open(e *cli.Env, f cli.OpenFlags, opts ...strata.Option) (*workspace, error) {
	s := f.Settings(e)
	base := []strata.Option{
		strata.Name(s.Name), strata.Dir(s.Dir), strata.Environ(s.Environ), strata.Cfg(s.Cfg...),
		strata.TrustStore(s.Store), strata.TrustHint(s.TrustHint),
		strata.CacheDir(strata.DefaultCacheDir(s.Name, s.Environ)),
	}
	if s.TrustOnce {
		base = append(base, strata.TrustWorkspace())
	}
	if s.Input != nil {
		base = append(base, strata.Input(s.Input))
	}
	w, err := strata.Open[config.Partial](e.Ctx, config.Default(), append(base, opts...)...)
	if err != nil {
		return nil, err
	}
	cli.Warn(e, w.Warnings())
	return w, nil
}

// openResolve is open with the flags of resolving.
func openResolve(e *cli.Env, f cli.ResolveFlags, opts ...strata.Option) (*workspace, error) {
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

// Resolve runs strata resolve.
func (p Programs) Resolve(e *cli.Env, c *cli.ResolveCmd) error {
	e, stop := p.handleSignals(e)
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
	cli.Warn(e, cat.Warnings)
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
		cli.Warn(e, diag.Errors{&warning})
	case xerr != nil:
		return xerr
	}
	cli.Warn(e, written.Notes)
	var out []byte
	if c.Stats || b.Tokens > 0 {
		stats := budget.Count(written, b)
		if w := stats.Check(); w != nil {
			cli.Warn(e, diag.Errors{w})
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
func explainTool(e *cli.Env, w *workspace, c *cli.ResolveCmd) error {
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
		st := budget.Count(&export.Written{Dialect: written.Dialect, Entries: written.Entries[:1]}, config.Budget{})
		fmt.Fprintf(&b, "  tokens: %d in %s\n", st.Total+st.Deferred, c.Export)
	} else {
		fmt.Fprintf(&b, "  tokens: not written in %s (its name is not one %s takes)\n", c.Export, c.Export)
	}
	_, err = e.Stdout.Write([]byte(termtext.Lines(b.String())))
	return err
}

// Trust runs strata trust.
func (p Programs) Trust(e *cli.Env, c *cli.TrustCmd) error {
	e, stop := p.handleSignals(e)
	defer stop()
	environ := os.Environ()
	store := &trust.Store{Path: trust.DefaultPath("strata", environ)}
	if store.Path == "" {
		return &diag.Error{Msg: "no user config directory: set HOME, XDG_CONFIG_HOME or STRATA_CONFIG_HOME"}
	}
	switch {
	case c.List:
		return listTrust(e, store)
	case c.Forget != "":
		return forget(e, store, c.Forget)
	case c.Pin != "":
		return pin(e, store, c)
	}
	dir, err := filepath.Abs(cmp.Or(c.Root, "."))
	if err != nil {
		return err
	}
	root, err := load.WorkspaceRoot(dir, "strata")
	if err != nil {
		return err
	}
	target := root
	if c.Recursive && c.Root != "" || root == "" {
		target = dir // DIR itself, named
	}
	if why := load.Broad(target, environ); why != "" && !c.Recursive {
		return &diag.Error{Source: target, Msg: "not trusted: it is " + why + ", not a project: trusting it would apply whatever config files land there",
			Hint: "keep settings of your own in your user file (" + filepath.Join(filepath.Dir(store.Path), "config.toml") + "), make a .strata/ directory at a project's root and trust that; or, to trust every workspace below " + target + ", present and future, pass --recursive"}
	}
	if root == "" && c.Root == "" {
		return cli.Usage(&diag.Error{Source: dir, Msg: "not in a workspace: no .strata/ directory here or above",
			Hint: fmt.Sprintf("strata trust would trust %s alone (its .strata.toml, not the directories below it); to do that, run strata trust --root %s; for a project, make a .strata/ directory at its root and run strata trust there", dir, shellquote.Join(dir))})
	}
	if err := store.Update(func(l *trust.List) error {
		if c.Recursive {
			l.AddRecursive(target)
		} else {
			l.AddWorkspace(target)
		}
		return nil
	}); err != nil {
		return err
	}
	what, where := cli.Rel(target), "in "+cli.Rel(store.Path)
	switch {
	case c.Recursive:
		what += " and everything below it, nested repositories included"
		where = "recursive; " + where
	case root == "":
		what += ", its own .strata.toml alone: it is in no workspace"
	}
	_, err = fmt.Fprintf(e.Stdout, "trusted %s (%s)\n", what, where)
	return err
}

// listTrust prints the trust list: every directory, recursive ones
// marked, and every pin.
func listTrust(e *cli.Env, store *trust.Store) error {
	l, err := store.Read()
	if err != nil {
		return err
	}
	var b strings.Builder
	if len(l.Workspaces)+len(l.Recursive)+len(l.Pins) == 0 {
		fmt.Fprintf(&b, "nothing is trusted (%s)\n", cli.Rel(store.Path))
		_, err = io.WriteString(e.Stdout, b.String())
		return err
	}
	fmt.Fprintf(&b, "trusted (%s):\n", cli.Rel(store.Path))
	type entry struct {
		dir       string
		recursive bool
	}
	var entries []entry
	for _, w := range l.Workspaces {
		entries = append(entries, entry{w, false})
	}
	for _, w := range l.Recursive {
		entries = append(entries, entry{w, true})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.dir, b.dir) })
	for _, en := range entries {
		if en.recursive {
			fmt.Fprintf(&b, "  %s  recursive: with everything below it\n", en.dir)
		} else {
			fmt.Fprintf(&b, "  %s\n", en.dir)
		}
	}
	if len(entries) == 0 {
		b.WriteString("  no directory\n")
	}
	if len(l.Pins) > 0 {
		b.WriteString("pinned:\n")
		for _, key := range slices.Sorted(maps.Keys(l.Pins)) {
			p := l.Pins[key]
			// A pin holds its arguments by their hashes: they are counted.
			program := shellquote.Join(p.Program)
			switch n := len(p.Args); n {
			case 0:
			case 1:
				program += " (1 argument)"
			default:
				program += fmt.Sprintf(" (%d arguments)", n)
			}
			fmt.Fprintf(&b, "  %s  %s  %s  in %s\n", key, p.Launch, program, p.Dir)
		}
	}
	_, err = io.WriteString(e.Stdout, b.String())
	return err
}

// forget removes a directory from the trust list, with the pins of the
// launches that start there.
func forget(e *cli.Env, store *trust.Store, dir string) error {
	var pins []string
	if err := store.Update(func(l *trust.List) (err error) {
		pins, err = l.Forget(dir)
		return err
	}); err != nil {
		return err
	}
	abs, _ := filepath.Abs(dir)
	msg := "forgot " + cli.Rel(abs)
	if len(pins) > 0 {
		msg += " and its pins: " + strings.Join(pins, ", ")
	}
	_, err := fmt.Fprintf(e.Stdout, "%s (in %s)\n", msg, cli.Rel(store.Path))
	return err
}

// pin pins the launch of c.Pin.
func pin(e *cli.Env, store *trust.Store, c *cli.TrustCmd) error {
	w, err := open(e, cli.OpenFlags{Root: c.Root})
	if err != nil {
		return err
	}
	defer w.Close()
	launch, err := w.Launch(e.Ctx, c.Pin)
	if err != nil {
		return err
	}
	pin, err := launch.Pin()
	if err != nil {
		return err
	}
	if err := store.Update(func(l *trust.List) error {
		if l.Pins == nil {
			l.Pins = map[string]trust.Pin{}
		}
		l.Pins[c.Pin] = pin
		return nil
	}); err != nil {
		return err
	}
	if trust.IsInterpreter(launch.Program) {
		fmt.Fprintf(e.Stderr, "strata: note: %s runs %s, an interpreter: the pin covers it, its arguments and the files they name, not what those files load\n", c.Pin, launch.Program)
	}
	_, err = fmt.Fprintf(e.Stdout, "pinned %s: %s (in %s)\n", c.Pin, pin.Launch, cli.Rel(store.Path))
	return err
}
