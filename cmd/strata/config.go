package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

type configCmd struct {
	Root    string   `help:"Directory to load from, as if strata ran there (default: the current one)." placeholder:"DIR"`
	Cfg     []string `name:"cfg" placeholder:"X" sep:"none" help:"A layer on top: a file, key=value, key:=json, key+=value, key:+=json, a JSON object, or NONE to drop the layers below; repeatable."`
	JSON    bool     `name:"json" help:"Print JSON instead of TOML."`
	Explain string   `placeholder:"KEY" help:"Show every layer that sets KEY, in order, and which one wins."`
	Sources bool     `help:"List the layers read, in order, and the files looked for."`
}

func (c *configCmd) Run(e *env) error {
	res, err := app(c.Root, c.Cfg).Load(e.ctx)
	if err != nil {
		return err
	}
	warn(e, res.Warnings)
	switch {
	case c.Explain != "":
		path, err := partial.ParsePath(c.Explain)
		if err != nil {
			return usageError{err}
		}
		ex, err := res.Explain(path)
		if err != nil {
			return usageError{err}
		}
		_, err = fmt.Fprint(e.stdout, relativeText(ex.String()))
		return err
	case c.Sources:
		return writeSources(e, res)
	}
	return write(e, res.Config, c.JSON)
}

// writeSources lists the files looked for and the layers read.
func writeSources(e *env, res *load.Result[config.Partial, config.Config]) error {
	var b strings.Builder
	if res.Root != "" {
		fmt.Fprintf(&b, "workspace root: %s\n", rel(res.Root))
	} else {
		b.WriteString("no workspace\n")
	}
	b.WriteString("\nfiles looked for:\n")
	for _, p := range res.Probes {
		state := "not found"
		if p.Found {
			state = "read"
		}
		fmt.Fprintf(&b, "  %-9s %-9s %s\n", p.Kind, state, rel(p.Path))
	}
	b.WriteString("\nlayers, lowest first:\n")
	for _, l := range res.Layers {
		name := rel(l.Name)
		if len(l.Extends) > 0 {
			var chain []string
			for _, x := range l.Extends {
				chain = append(chain, rel(x))
			}
			name += " (extended by " + strings.Join(chain, " -> ") + ")"
		}
		if l.Dropped {
			name += " (dropped by --cfg NONE)"
		}
		fmt.Fprintf(&b, "  %-9s %s\n", l.Kind, name)
	}
	_, err := fmt.Fprint(e.stdout, b.String())
	return err
}

// rel shortens a path under the working directory to a relative one.
func rel(path string) string {
	if !filepath.IsAbs(path) {
		return path
	}
	wd, err := filepath.Abs(".")
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// relativeText shortens the absolute paths under the working directory in
// a text.
func relativeText(s string) string {
	wd, err := filepath.Abs(".")
	if err != nil {
		return s
	}
	return strings.ReplaceAll(s, wd+string(filepath.Separator), "")
}

// warn prints problems that did not fail the command.
func warn(e *env, ws diag.Errors) {
	if len(ws) == 0 {
		return
	}
	for _, w := range bounded(ws) {
		fmt.Fprintf(e.stderr, "strata: warning: %s\n", line(w))
	}
}
