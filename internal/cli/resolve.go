package cli

import (
	"fmt"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
)

// strataWorkspace is strata's own workspace: the tools model at the root.
type strataWorkspace = strata.Workspace[config.Partial, config.Config]

// open opens the workspace as the flags say, with strata's trust list
// and cache; its warnings go to stderr.
func open(e *env, f OpenFlags, opts ...strata.Option) (*strataWorkspace, error) {
	s := f.app(e)
	base := []strata.Option{
		strata.Name(s.Name), strata.Dir(s.Dir), strata.Environ(s.Environ), strata.Cfg(s.Cfg...),
		strata.TrustStore(s.TrustStore), strata.TrustHint(s.TrustHint), strata.UnknownEnv(s.UnknownEnv),
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
	warnVerbose(e, cat.Warnings, c.Verbose)
	if c.check {
		// strata config --check: the problems above, and what resolved.
		warn(e, diag.All(err))
		if err != nil {
			return exitStatus(1)
		}
		_, err := fmt.Fprintf(e.Stdout, "%d tools resolve; %d warnings\n", len(cat.Tools), len(cat.Warnings))
		return err
	}
	out, skipped, xerr := export.Marshal(cat, export.Dialect(c.Export))
	if xerr != nil {
		return xerr
	}
	warn(e, skipped)
	if _, werr := e.Stdout.Write(out); werr != nil {
		return werr
	}
	return err
}
