package cli

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/trust"
)

// Run runs strata trust.
func (c *trustCmd) Run(e *env) error {
	e, stop := stopOnSignals(e)
	defer stop()
	environ := os.Environ()
	store := &trust.Store{Path: trust.DefaultPath("strata", environ)}
	if store.Path == "" {
		return &diag.Error{Code: diag.CodeWrite, Msg: "no user config directory: set HOME, XDG_CONFIG_HOME or STRATA_CONFIG_HOME"}
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
	// What load asks the trust of: the workspace root, else the
	// repository's.
	root, repository := load.TrustRoot(dir, "strata", environ)
	target := root
	if c.Recursive && c.Root != "" || root == "" {
		target = dir // DIR itself, named
	}
	if err := load.RefuseBroad(target, environ, filepath.Join(filepath.Dir(store.Path), "config.toml"), "strata"); err != nil && !c.Recursive {
		err.Hint += "; or, to trust every workspace below " + target + ", present and future, pass --recursive"
		return err
	}
	if root == "" && c.Root == "" {
		return usage(&diag.Error{Code: diag.CodeUsage, Source: dir, Msg: "not in a workspace: no .strata/ directory here or above",
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
	what, where := rel(target), "in "+rel(store.Path)
	switch {
	case c.Recursive:
		what += " and everything below it, nested repositories included"
		where = "recursive; " + where
	case repository && target == root:
		what += ", a repository in no workspace (no .strata/): its .strata.toml files, and the files in it named while strata runs in it"
	case root == "":
		what += " alone, in no workspace: its .strata.toml, and the files in it named while strata runs there"
	}
	_, err = fmt.Fprintf(e.Stdout, "trusted %s (%s)\n", what, where)
	return err
}

// listTrust prints the trust list: every directory, recursive ones
// marked, and every pin.
func listTrust(e *env, store *trust.Store) error {
	l, err := store.Read()
	if err != nil {
		return err
	}
	var b strings.Builder
	if len(l.Workspaces)+len(l.Recursive)+len(l.Pins) == 0 {
		fmt.Fprintf(&b, "nothing is trusted (%s)\n", rel(store.Path))
		_, err = io.WriteString(e.Stdout, b.String())
		return err
	}
	fmt.Fprintf(&b, "trusted (%s):\n", rel(store.Path))
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
func forget(e *env, store *trust.Store, dir string) error {
	var pins []string
	if err := store.Update(func(l *trust.List) (err error) {
		pins, err = l.Forget(dir)
		return err
	}); err != nil {
		return err
	}
	abs, _ := filepath.Abs(dir)
	msg := "forgot " + rel(abs)
	if len(pins) > 0 {
		msg += " and its pins: " + strings.Join(pins, ", ")
	}
	_, err := fmt.Fprintf(e.Stdout, "%s (in %s)\n", msg, rel(store.Path))
	return err
}

// pin pins the launch of c.Pin.
func pin(e *env, store *trust.Store, c *trustCmd) error {
	w, err := open(e, OpenFlags{Root: c.Root})
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
	_, err = fmt.Fprintf(e.Stdout, "pinned %s: %s (in %s)\n", c.Pin, pin.Launch, rel(store.Path))
	return err
}
