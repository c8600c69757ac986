package main

import (
	"fmt"
	"os"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/trust"
)

// workspace is strata's own workspace: the tools model at the root.
type workspace = strata.Workspace[config.Partial, config.Config]

// openFlags are the flags of the commands that open a workspace.
type openFlags struct {
	Root  string   `help:"Directory to load from, as if strata ran there (default: the current one)." placeholder:"DIR"`
	Cfg   []string `name:"cfg" placeholder:"X" sep:"none" help:"A layer on top: a file, key=value, key:=json, key+=value, key:+=json, a JSON object, or NONE to drop the layers below; repeatable."`
	Trust bool     `help:"Trust this workspace for this run: let its own files apply and its programs run."`
}

// resolveFlags are the flags of the commands that resolve a workspace.
type resolveFlags struct {
	openFlags `embed:""`
	Refresh   bool `help:"Ask every tool again instead of using cached answers."`
	Offline   bool `help:"Run nothing: use cached answers only."`
}

// open opens the workspace with strata's trust list and cache; its
// warnings go to stderr.
func (f openFlags) open(e *env, opts ...strata.Option) (*workspace, error) {
	environ := os.Environ()
	base := []strata.Option{
		strata.Name("strata"), strata.Dir(f.Root), strata.Environ(environ), strata.Cfg(f.Cfg...),
		strata.TrustStore(&trust.Store{Path: trust.DefaultPath("strata", environ)}),
		strata.TrustHint("to apply them, run strata trust there, or pass --trust"),
		strata.CacheDir(strata.DefaultCacheDir("strata", environ)),
	}
	if f.Trust {
		base = append(base, strata.TrustWorkspace())
	}
	if input := terminalInput(e); input != nil {
		base = append(base, strata.Input(input))
	}
	w, err := strata.Open[config.Partial](e.ctx, config.Default(), append(base, opts...)...)
	if err != nil {
		return nil, err
	}
	warn(e, w.Warnings())
	return w, nil
}

func (f resolveFlags) open(e *env, opts ...strata.Option) (*workspace, error) {
	if f.Refresh {
		opts = append(opts, strata.Refresh())
	}
	if f.Offline {
		opts = append(opts, strata.Offline())
	}
	return f.openFlags.open(e, opts...)
}

type resolveCmd struct {
	resolveFlags `embed:""`
	Export       string `enum:"strata,openai,anthropic,mcp" default:"strata" help:"Output format: strata, openai, anthropic or mcp."`
}

func (c *resolveCmd) Run(e *env) error {
	e, stop := e.handleSignals()
	defer stop()
	w, err := c.open(e)
	if err != nil {
		return err
	}
	defer w.Close()
	cat, err := w.Resolve(e.ctx)
	if cat == nil {
		return err
	}
	warn(e, cat.Warnings)
	out, xerr := export.JSON(cat, export.Dialect(c.Export))
	if xerr != nil {
		return xerr
	}
	if _, werr := e.stdout.Write(out); werr != nil {
		return werr
	}
	return err
}

type trustCmd struct {
	Root string `help:"The workspace to trust (default: the one around the current directory)." placeholder:"DIR"`
	Pin  string `help:"Pin the launch of KEY (tools.<name> or mcp_servers.<name>): it runs only as it is now, checked before every run." placeholder:"KEY"`
}

func (c *trustCmd) Run(e *env) error {
	e, stop := e.handleSignals()
	defer stop()
	environ := os.Environ()
	store := &trust.Store{Path: trust.DefaultPath("strata", environ)}
	if store.Path == "" {
		return &diag.Error{Msg: "no user config directory: set HOME, XDG_CONFIG_HOME or STRATA_CONFIG_HOME"}
	}
	if c.Pin == "" {
		w, err := (openFlags{Root: c.Root, Trust: true}).open(&env{ctx: e.ctx, stdout: e.stdout, stderr: nopWriter{}})
		if err != nil {
			return err
		}
		defer w.Close()
		if err := store.Update(func(l *trust.List) error { l.AddWorkspace(w.Root()); return nil }); err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "trusted %s (in %s)\n", rel(w.Root()), rel(store.Path))
		return err
	}
	w, err := (openFlags{Root: c.Root}).open(e)
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
		fmt.Fprintf(e.stderr, "strata: note: %s runs %s, an interpreter: the pin covers it, its arguments and the files they name, not what those files load\n", c.Pin, launch.Program)
	}
	_, err = fmt.Fprintf(e.stdout, "pinned %s: %s (in %s)\n", c.Pin, pin.Launch, rel(store.Path))
	return err
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
