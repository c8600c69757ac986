package mcpcommands

import (
	"fmt"
	"os"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/cli"
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
	out, skipped, xerr := export.JSON(cat, export.Dialect(c.Export))
	if xerr != nil {
		return xerr
	}
	cli.Warn(e, skipped)
	if _, werr := e.Stdout.Write(out); werr != nil {
		return werr
	}
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
	if c.Pin == "" {
		w, err := open(&cli.Env{Ctx: e.Ctx, Stdout: e.Stdout, Stderr: nopWriter{}}, cli.OpenFlags{Root: c.Root, Trust: true})
		if err != nil {
			return err
		}
		defer w.Close()
		if err := store.Update(func(l *trust.List) error { l.AddWorkspace(w.Root()); return nil }); err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.Stdout, "trusted %s (in %s)\n", cli.Rel(w.Root()), cli.Rel(store.Path))
		return err
	}
	w, err := open(e, cli.OpenFlags{Root: c.Root})
	if err != nil {
		return err
	}
	defer w.Close()
	launch, err := w.Launch(c.Pin)
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

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
