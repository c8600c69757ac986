package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
	"github.com/strata-config/strata/trust"
)

// askTrust asks on the terminal, once for each directory whose trust
// would apply files that w did not apply, whether to trust it, as Claude
// Code's and VS Code's trust dialogs do before they start a project's
// servers: it shows the files and what they would start (MCP servers,
// tools' commands, discovery directories), and "Trust DIR? [y/N]". A yes
// records the directory as strata trust does (exactly that directory;
// see [load.Untrusted]), and askTrust reports that one was, so that the
// workspace is opened again. It asks only when stdin and stderr are both
// terminals (never for strata serve, whose stdin is its client, nor in
// CI), and never about a directory too broad to trust (the home
// directory, /: see [load.Broad]) or a repository nested in a trusted
// workspace (which takes --recursive): those keep the warning.
func askTrust(e *env, w *strataWorkspace) (bool, error) {
	groups := w.Loaded().Untrusted
	if len(groups) == 0 || !isTerminal(e.Stdin) || !isTerminalWriter(e.Stderr) || os.Getenv("CI") != "" {
		return false, nil
	}
	environ := os.Environ()
	store := &trust.Store{Path: trust.DefaultPath("strata", environ)}
	if store.Path == "" {
		return false, nil
	}
	in := bufio.NewReader(e.Stdin)
	trusted := false
	for _, g := range groups {
		if g.Nested || load.Broad(g.Dir, environ) != "" {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "strata: %s is not trusted: its files do not apply, and strata starts none of their programs. Trusting it applies:\n", g.Dir)
		for _, f := range g.Files {
			for _, line := range applies(e, f) {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		}
		fmt.Fprintf(&b, "Trust %s? [y/N] ", g.Dir)
		io.WriteString(e.Stderr, b.String())
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(e.Stderr)
			return trusted, nil // stdin ended: no
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
		default:
			continue
		}
		if err := store.Update(func(l *trust.List) error {
			l.AddWorkspace(g.Dir)
			return nil
		}); err != nil {
			return trusted, err
		}
		fmt.Fprintf(e.Stderr, "strata: trusted %s (in %s; strata trust --forget %s undoes it)\n", g.Dir, rel(store.Path), shellquote.Join(g.Dir))
		trusted = true
	}
	return trusted, nil
}

// applies says what the file at path, a file not applied, would apply:
// the file, and each program it would start, one line each. It reads the
// file (and what it extends) as strata merge does, starting nothing and
// asking for no input; a file that does not read says so.
func applies(e *env, path string) []string {
	app := load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Environ: os.Environ(), MCPServers: partial.Path{"mcp_servers"}}
	layers, _, err := app.File(e.Ctx, path)
	if err != nil {
		return []string{rel(path) + ": cannot read it: " + oneLine(firstProblem(err))}
	}
	var out []string
	for _, l := range layers {
		starts := startsOf(l.Partial, filepath.Dir(l.Name))
		out = append(out, rel(l.Name)+starts[0])
		out = append(out, starts[1:]...)
	}
	return out
}

// startsOf says, for the lines of applies, what the layer p, a file in
// dir (whose relative paths are relative to it), starts: its MCP
// servers, its tools' commands and its discovery directories; the first
// item goes on the file's line.
func startsOf(p *config.Partial, dir string) []string {
	program := func(c config.Command) string {
		c.Rebase(dir)
		if filepath.IsAbs(c.Program) {
			c.Program = rel(c.Program)
		}
		return c.String()
	}
	var items []string
	for _, name := range p.MCPServers.Keys() {
		s := p.MCPServers.Get(name)
		if url, ok := s.URL.Get(); ok {
			items = append(items, fmt.Sprintf("the MCP server %s, at %s", name, url))
			continue
		}
		c, _ := s.Command.Get()
		// What a variable gave shows as its reference (secret.Texts).
		args := secret.Texts(s.Args.Items)
		items = append(items, fmt.Sprintf("the MCP server %s: %s", name, program(config.Command{Program: c.String(), Args: args})))
	}
	for _, name := range p.Tools.Keys() {
		if c, ok := p.Tools.Get(name).Command.Get(); ok && !c.IsZero() {
			items = append(items, fmt.Sprintf("the tool %s: %s", name, program(c)))
		}
	}
	for _, d := range p.Discover.Dirs.Items {
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		items = append(items, "the executables of "+rel(d)+" (to ask each what it is)")
	}
	if len(items) == 0 {
		return []string{" (settings; no program)"}
	}
	out := []string{", which starts " + items[0]}
	for _, it := range items[1:] {
		out = append(out, "  and "+it)
	}
	return out
}

// firstProblem is the first problem of err, for one line.
func firstProblem(err error) string {
	if all := diag.All(err); len(all) > 0 {
		return line(all[0])
	}
	return err.Error()
}

// namedNotApplied splits the warnings of w: named are those about files
// of an untrusted workspace that the command line named (--cfg
// .mcp.json, and what such a file extends), as errors: what was asked
// for cannot be given, so the command fails (exit status 1) rather than
// go on without it. Files the workspace holds by their place
// (.strata/config.toml, .strata.toml) are among the others, warnings,
// and the command goes on with the user's own layers: a host or an
// editor runs strata in every directory it opens, and a clone must not
// make it fail.
func namedNotApplied(w *strataWorkspace) (named diag.Errors, others diag.Errors) {
	res := w.Loaded()
	asked := map[string]bool{}
	for _, p := range res.Probes {
		if p.Untrusted && p.Kind == load.KindCfg {
			asked[p.Path] = true
		}
	}
	dirs := map[string]bool{}
	for _, g := range res.Untrusted {
		for _, f := range g.Files {
			if asked[f] {
				dirs[g.Dir] = true
			}
		}
	}
	for _, wr := range w.Warnings() {
		if wr.Code == diag.CodeUntrusted && dirs[wr.Source] {
			e := *wr
			e.Severity = diag.SeverityError
			named = append(named, &e)
			continue
		}
		others = append(others, wr)
	}
	return named, others
}
