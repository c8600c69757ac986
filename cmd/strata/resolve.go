package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// resolveFlags are the flags of the commands that resolve a workspace.
type resolveFlags struct {
	Root    string   `help:"Directory to resolve from, as if strata ran there (default: the current one)." placeholder:"DIR"`
	Cfg     []string `name:"cfg" placeholder:"X" sep:"none" help:"A layer on top: a file, key=value, key:=json, key+=value, key:+=json, a JSON object, or NONE; repeatable."`
	Refresh bool     `help:"Ask every tool again instead of using cached answers."`
	Offline bool     `help:"Run nothing: use cached answers only."`
	Trust   bool     `help:"Trust this workspace for this run: let programs its files name run."`
}

type resolveCmd struct {
	resolveFlags `embed:""`
	Export       string `enum:"strata,openai,anthropic,mcp" default:"strata" help:"Output format: strata, openai, anthropic or mcp."`
}

func (c *resolveCmd) Run(e *env) error {
	w, err := c.resolve(e, nil)
	if w == nil {
		return err
	}
	out, xerr := w.catalog.Export(resolve.Format(c.Export))
	if xerr != nil {
		return xerr
	}
	if _, werr := e.stdout.Write(out); werr != nil {
		return werr
	}
	return err
}

// app describes strata's own configuration sources.
func app(root string, cfg []string) *load.App[config.Partial, config.Config] {
	return &load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Dir: root, Cfg: cfg, MCPServers: partial.Path{"mcp_servers"}}
}

// workspace is a resolved workspace.
type workspace struct {
	config   config.Config
	resolver *resolve.Resolver
	catalog  *resolve.Catalog
	// watch are the files and directories whose change changes the
	// catalog: config files read or looked for, the trust list, discovery
	// directories, programs.
	watch []string
}

// resolve loads the config and resolves its tools, with servers keeping
// MCP servers running when not nil; warnings go to stderr. It returns the
// catalog of the tools that resolved along with the problems of the
// others; nil when the config does not load.
func (f resolveFlags) resolve(e *env, servers *resolve.Servers) (*workspace, error) {
	a := app(f.Root, f.Cfg)
	res, err := a.Load(e.ctx)
	if err != nil {
		return nil, err
	}
	warn(e, res.Warnings)
	trustedFile := filepath.Join(a.UserDir(), resolve.TrustedFile)
	trusted, err := resolve.ReadTrusted(trustedFile)
	if err != nil {
		return nil, err
	}
	dir := res.Root
	if dir == "" {
		if dir, err = filepath.Abs(orDot(f.Root)); err != nil {
			return nil, err
		}
	}
	r := &resolve.Resolver{
		Root:    dir,
		Cache:   &resolve.Cache{Dir: resolve.DefaultCacheDir("strata", os.Environ())},
		Refresh: f.Refresh,
		Offline: f.Offline,
		Trust:   &resolve.Policy{Result: res, Trusted: trusted, All: f.Trust},
		Locate:  res.Locate,
		Servers: servers,
	}
	cat, err := r.Resolve(e.ctx, res.Config)
	if cat == nil {
		return nil, err
	}
	warn(e, cat.Warnings)
	watch := append([]string{trustedFile}, r.Watch(res.Config)...)
	for _, p := range res.Probes {
		watch = append(watch, p.Path)
	}
	for _, l := range res.Layers {
		if l.Doc != nil {
			watch = append(watch, l.Name)
		}
	}
	for i, p := range watch {
		if abs, err := filepath.Abs(p); err == nil {
			watch[i] = abs
		}
	}
	return &workspace{config: res.Config, resolver: r, catalog: cat, watch: watch}, err
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

type trustCmd struct {
	Root     string `help:"The workspace to trust (default: the one around the current directory)." placeholder:"DIR"`
	Checksum string `help:"Trust a program wherever it comes from, by the checksum of FILE." placeholder:"FILE"`
}

func (c *trustCmd) Run(e *env) error {
	a := app(c.Root, nil)
	path := filepath.Join(a.UserDir(), resolve.TrustedFile)
	if a.UserDir() == "" {
		return &diag.Error{Msg: "no user config directory: set HOME, XDG_CONFIG_HOME or STRATA_CONFIG_HOME"}
	}
	trusted, err := resolve.ReadTrusted(path)
	if err != nil {
		return err
	}
	var added string
	if c.Checksum != "" {
		sum, err := resolve.Checksum(c.Checksum)
		if err != nil {
			return &diag.Error{Source: c.Checksum, Msg: "cannot read: " + err.Error()}
		}
		trusted.Checksums = appendNew(trusted.Checksums, sum)
		added = sum + " (" + c.Checksum + ")"
	} else {
		res, err := a.Load(e.ctx)
		if err != nil {
			return err
		}
		if res.Root == "" {
			return &diag.Error{Msg: "not in a workspace: no directory here or above holds .strata/", Hint: "pass --root DIR"}
		}
		trusted.Workspaces = appendNew(trusted.Workspaces, res.Root)
		added = res.Root
	}
	if err := trusted.Write(path); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "trusted %s (in %s)\n", added, rel(path))
	return err
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
