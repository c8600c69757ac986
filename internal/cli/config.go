package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/command"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/policy"
	"github.com/strata-config/strata/resolve"
)

type configCmd struct {
	OpenFlags `embed:""`
	JSON      bool   `name:"json" help:"Print JSON instead of TOML."`
	Explain   string `placeholder:"KEY" help:"Show every layer that sets KEY, in order, and which one wins."`
	Sources   bool   `help:"List the layers read, in order, and the files looked for."`
	Check     bool   `help:"Resolve the tools too (running what discovery runs) and report every problem, settings that apply to no tool here included; print the count of tools."`
}

func (c *configCmd) Run(e *env) error {
	if c.Check {
		return (&resolveCmd{ResolveFlags: ResolveFlags{OpenFlags: c.OpenFlags, Verbose: true}, check: true}).Run(e)
	}
	app := c.app(e)
	res, err := app.Load(e.Ctx)
	if err != nil {
		return err
	}
	// as strata.Open does: the runtime checks the command templates
	if es := diag.All(command.CheckTools(res.Config, nil)); len(es) > 0 {
		for i, x := range es {
			es[i] = res.Locate(x)
		}
		return diag.Errors(es)
	}
	clamps, err := c.clamp(e, res)
	if err != nil {
		return err
	}
	warn(e, res.Warnings)
	switch {
	case c.Explain != "":
		ex, err := res.Explain(c.Explain)
		if err != nil {
			return usageError{err}
		}
		ex = policy.Explain(ex, clamps)
		text := ex.String()
		rulesAt := ex.Path
		if from := inheritedFrom(ex); from != nil {
			// Nothing sets it for the tool: it is what tools.'*' gives.
			all, err := res.Explain(from.String())
			if err != nil {
				return err
			}
			all = policy.Explain(all, clamps)
			text = fmt.Sprintf("%s = %s  (inherited from %s: no layer sets it for the tool)\n%s", ex.Path, cmp.Or(all.Value, "(not set)"), from, all.String())
			rulesAt = from
		}
		text += rulesText(res.Config, rulesAt)
		_, err = fmt.Fprint(e.Stdout, relativeText(text))
		return err
	case c.Sources:
		return writeSources(e, res)
	}
	return write(e, res.Config, c.JSON)
}

// clamp clamps the config res loaded to the policies (the system's and
// those --policy names), as a workspace opened with them is: each clamp
// is a warning of res, or with --strict an error.
func (f OpenFlags) clamp(e *env, res *load.Result[config.Partial, config.Config]) ([]policy.Clamp, error) {
	set, err := policy.ReadAll(e.Ctx, f.policies(), nil, res.Area())
	if err != nil {
		return nil, err
	}
	clamped, clamps := set.Clamp(res.Config, res.Environ)
	var errs diag.Errors
	for _, c := range clamps {
		errs = append(errs, c.Problem(f.Strict))
	}
	if f.Strict && len(errs) > 0 {
		return nil, errs
	}
	res.Config = clamped
	res.Warnings = append(res.Warnings, errs...)
	return clamps, nil
}

// inherited are the settings of a tool that it takes from tools.'*' when
// its own entry says nothing of them (config.EffectiveTool).
var inherited = map[string]bool{"run": true, "result": true, "policy.run": true, "policy.result": true, "enable": true, "enable.state": true, "enable.allow_toggle": true}

// rulesText lists the rules of the policy at path (tools.<name>.run,
// .result, .policy.run or .policy.result) in the order they are tried,
// each with where it was written; "" for another path.
func rulesText(c config.Config, path partial.Path) string {
	if len(path) < 3 || path[0] != "tools" {
		return ""
	}
	t, ok := c.Tools[path[1]]
	if !ok {
		return ""
	}
	var list []string
	var at []config.Position
	catchAll := false
	add := func(s string, p config.Position, all bool) {
		list, at, catchAll = append(list, s), append(at, p), catchAll || all
	}
	switch strings.Join(path[2:], ".") {
	case "run":
		for _, r := range t.Run {
			add(r.String(), r.At, r.IsCatchAll())
		}
	case "result":
		for _, r := range t.Result {
			add(r.String(), r.At, r.IsCatchAll())
		}
	case "policy.run":
		for _, r := range t.Policy.Get().Run {
			add(r.String(), r.At, r.IsCatchAll())
		}
	case "policy.result":
		for _, r := range t.Policy.Get().Result {
			add(r.String(), r.At, r.IsCatchAll())
		}
	default:
		return ""
	}
	if len(list) == 0 || len(list) == 1 && catchAll {
		return "" // a mode alone: the line above says it all
	}
	var b strings.Builder
	b.WriteString("rules, in the order they are tried (the first that holds decides):\n")
	for i, r := range list {
		where := cmp.Or(at[i].String(), "default")
		fmt.Fprintf(&b, "  %d  %s: %s\n", i, where, r)
	}
	if !catchAll {
		b.WriteString(`  then the implicit { mode = "ask" }` + "\n")
	}
	return b.String()
}

// inheritedFrom returns the tools.'*' path that ex's value comes from:
// ex is a tool's inherited setting that no layer sets for the tool; nil
// otherwise.
func inheritedFrom(ex load.Explanation) partial.Path {
	p := ex.Path
	if len(p) < 3 || p[0] != "tools" || p[1] == config.EveryTool || !inherited[strings.Join(p[2:], ".")] || len(ex.Steps) > 0 || ex.Default != "" {
		return nil
	}
	return append(partial.Path{"tools", config.EveryTool}, p[2:]...)
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
		switch {
		case p.Untrusted:
			state = "untrusted"
		case p.Found:
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
	_, err := fmt.Fprint(e.Stdout, b.String())
	return err
}

// rel shortens a path for output: relative when it is under the working
// directory, ~/... when it is under the home directory (the nearer of the
// two when both hold it), as it is otherwise.
func rel(path string) string {
	if !filepath.IsAbs(path) {
		return path
	}
	for _, p := range shortPrefixes() {
		if path == p.dir {
			return cmp.Or(strings.TrimSuffix(p.short, string(filepath.Separator)), ".")
		}
		if r, ok := strings.CutPrefix(path, p.dir+string(filepath.Separator)); ok {
			return p.short + r
		}
	}
	return path
}

// relativeText shortens the absolute paths in a text as [rel] does.
func relativeText(s string) string {
	for _, p := range shortPrefixes() {
		s = strings.ReplaceAll(s, p.dir+string(filepath.Separator), p.short)
	}
	return s
}

// shortPrefix is a directory whose paths print shorter: its own path and
// separator become short.
type shortPrefix struct{ dir, short string }

// shortPrefixes returns the working directory (its paths print relative)
// and the home directory (its paths print as ~/...), the longer first.
func shortPrefixes() []shortPrefix {
	var out []shortPrefix
	if wd, err := filepath.Abs("."); err == nil {
		out = append(out, shortPrefix{dir: wd})
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		out = append(out, shortPrefix{dir: filepath.Clean(home), short: "~" + string(filepath.Separator)})
	}
	slices.SortStableFunc(out, func(a, b shortPrefix) int { return len(b.dir) - len(a.dir) })
	return out
}

// warn prints problems that did not fail the command.
func warn(e *env, ws diag.Errors) {
	warnVerbose(e, ws, true)
}

// warnVerbose is warn, leaving out the warnings of settings that apply
// to no tool here (resolve.ErrAppliesToNothing) unless verbose: what a
// user file says of tools that other workspaces have is no news in this
// one.
func warnVerbose(e *env, ws diag.Errors, verbose bool) {
	if !verbose {
		ws = slices.DeleteFunc(slices.Clone(ws), func(w *diag.Error) bool { return errors.Is(w, resolve.ErrAppliesToNothing) })
	}
	if len(ws) == 0 {
		return
	}
	for _, w := range bounded(ws) {
		if errors.Is(w, assign.ErrUnknownName) {
			c := *w
			c.Msg += "; the variable is ignored"
			w = &c
		}
		fmt.Fprintf(e.Stderr, "strata: warning: %s\n", line(w))
	}
}
