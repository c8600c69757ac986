package cli

import (
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/internal/termtext"
)

// progressAfter is how long a program that discovery started may run
// before the command line says that it waits for it: most answer well
// within it, and a line for each would be noise.
const progressAfter = time.Second

// progress returns the option that says on stderr, when it is a
// terminal, what discovery waits for: each program or server that has
// not answered after progressAfter, once, with its timeout. Without a
// terminal (a script, a log, an MCP client reading stderr) it is nil:
// nothing is said.
func progress(e *env) strata.Option {
	w := e.Stderr
	if tw, ok := w.(*termtext.Writer); ok {
		w = tw.W
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var mu sync.Mutex // one line at a time
	return strata.Progress(func(what string) func() {
		stopped := false
		t := time.AfterFunc(progressAfter, func() {
			mu.Lock()
			defer mu.Unlock()
			if !stopped {
				fmt.Fprintf(e.Stderr, "strata: waiting for %s\n", termtext.Line(what))
			}
		})
		return func() {
			t.Stop()
			mu.Lock()
			stopped = true // a line being written ends before done returns
			mu.Unlock()
		}
	})
}
