package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

type resolveCmd struct {
	Root    string   `help:"Directory to resolve from, as if strata ran there (default: the current one)." placeholder:"DIR"`
	Cfg     []string `name:"cfg" placeholder:"X" sep:"none" help:"A layer on top: a file, key=value, key:=json, key+=value, key:+=json, a JSON object, or NONE; repeatable."`
	Export  string   `enum:"strata,openai,anthropic,mcp" default:"strata" help:"Output format: strata, openai, anthropic or mcp."`
	Refresh bool     `help:"Ask every tool again instead of using cached answers."`
	Offline bool     `help:"Run nothing: use cached answers only."`
	Trust   bool     `help:"Trust this workspace for this run: let programs its files name run."`
}

func (c *resolveCmd) Run(e *env) error {
	cat, err := resolveCatalog(e, c.Root, c.Cfg, c.Refresh, c.Offline, c.Trust)
	if cat == nil {
		return err
	}
	warn(e, cat.Warnings)
	out, xerr := cat.Export(resolve.Format(c.Export))
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

// resolveCatalog loads the config and resolves its tools. It returns the
// catalog of the tools that resolved along with the problems of the
// others.
func resolveCatalog(e *env, root string, cfg []string, refresh, offline, trustAll bool) (*resolve.Catalog, error) {
	a := app(root, cfg)
	res, err := a.Load(e.ctx)
	if err != nil {
		return nil, err
	}
	warn(e, res.Warnings)
	trusted, err := resolve.ReadTrusted(filepath.Join(a.UserDir(), resolve.TrustedFile))
	if err != nil {
		return nil, err
	}
	dir := res.Root
	if dir == "" {
		if dir, err = filepath.Abs(orDot(root)); err != nil {
			return nil, err
		}
	}
	r := resolve.Resolver{
		Root:    dir,
		Cache:   &resolve.Cache{Dir: resolve.DefaultCacheDir("strata", os.Environ())},
		Refresh: refresh,
		Offline: offline,
		Trust:   &resolve.Policy{Result: res, Trusted: trusted, All: trustAll},
		Locate:  res.Locate,
	}
	return r.Resolve(e.ctx, res.Config)
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
		return &partial.Error{Msg: "no user config directory: set HOME, XDG_CONFIG_HOME or STRATA_CONFIG_HOME"}
	}
	trusted, err := resolve.ReadTrusted(path)
	if err != nil {
		return err
	}
	var added string
	if c.Checksum != "" {
		sum, err := resolve.Checksum(c.Checksum)
		if err != nil {
			return &partial.Error{Source: c.Checksum, Msg: "cannot read: " + err.Error()}
		}
		trusted.Checksums = appendNew(trusted.Checksums, sum)
		added = sum + " (" + c.Checksum + ")"
	} else {
		res, err := a.Load(e.ctx)
		if err != nil {
			return err
		}
		if res.Root == "" {
			return &partial.Error{Msg: "not in a workspace: no directory here or above holds .strata/", Hint: "pass --root DIR"}
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
