package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/termtext"
	"github.com/strata-config/strata/lock"
)

// Run runs strata lock: it writes the lock of the catalog as it resolves
// now, or, with --diff, prints what changed since (exit 1 when something
// did).
func (c *lockCmd) Run(e *env) error {
	e, stop := stopOnSignals(e)
	defer stop()
	w, err := openResolve(e, c.ResolveFlags)
	if err != nil {
		return err
	}
	defer w.Close()
	if c.Diff {
		path, changes, err := w.LockDiff(e.Ctx, c.User)
		if path == "" || changes == nil && err != nil {
			return err
		}
		if err != nil {
			// What did not resolve, first: the diff is of what did.
			report(e.Stderr, err)
		}
		// Descriptions are what servers wrote: escaped where a terminal
		// would act on them.
		if _, werr := io.WriteString(e.Stdout, lock.Diff(changes)); werr != nil {
			return werr
		}
		if len(changes) > 0 || err != nil {
			return exitStatus(1)
		}
		return nil
	}
	wrote, err := w.WriteLock(e.Ctx, c.User)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.Stdout, "locked %s in %s%s\n", diag.Counted(len(wrote.Tools), "tool"), rel(wrote.Path), accepted(wrote.Changes)); err != nil {
		return err
	}
	for _, line := range lock.KeptLines(wrote.Kept) {
		if _, err := fmt.Fprintf(e.Stdout, "%s\n", termtext.Line(line)); err != nil {
			return err
		}
	}
	return nil
}

// accepted says what writing the lock accepted.
func accepted(changes []lock.Change) string {
	by := map[lock.ChangeKind][]string{}
	for _, c := range changes {
		by[c.Kind] = append(by[c.Kind], c.Tool)
	}
	var parts []string
	for _, k := range []lock.ChangeKind{lock.Changed, lock.Added, lock.Unlocked, lock.Removed} {
		if len(by[k]) > 0 {
			what := string(k)
			if k == lock.Unlocked {
				what = "new"
			}
			parts = append(parts, what+" "+strings.Join(by[k], ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return termtext.Line(" (" + strings.Join(parts, "; ") + ")")
}

// heldBack is the error of a call of a tool that the lock holds back, or
// nil.
func heldBack(e *env, w *strataWorkspace, name string) error {
	st, _ := w.Lock(e.Ctx)
	if st.Policy != config.LockHold {
		return nil
	}
	for _, c := range st.Changes {
		if c.Tool == name && c.Held() {
			return &diag.Error{Code: diag.CodeRefused, Source: rel(st.Path), Msg: fmt.Sprintf("call %s: held back by the lock: %s", name, c.String()),
				Hint: "see the change with strata lock --diff; accept it with strata lock"}
		}
	}
	return nil
}
