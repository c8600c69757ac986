package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/internal/termtext"
)

// How long a program that discovery started (or doctor checks) may run
// before the command line says that it waits for it, and how often it
// says so again while it waits. On a terminal the first line comes after
// a second: most programs answer well within it, and a line for each
// would be noise. Without one (CI, a pipe, a log) after ten seconds, the
// default start-up timeout, which only a server given more time (a
// launcher that installs, a timeout of its own) waits past: a log stays
// as it was for the runs that went as usual, and a first install of an
// npm server (which took minutes without a line) is said while it runs.
const (
	progressTerminal = time.Second
	progressLog      = 10 * time.Second
	progressEvery    = 30 * time.Second
)

// progress returns the option that says on stderr what discovery (and
// doctor) waits for: each program or server that has not answered after
// progressTerminal on a terminal, progressLog otherwise, and again every
// progressEvery with the time it has waited.
func progress(e *env) strata.Option {
	first := progressLog
	if isTerminalWriter(e.Stderr) {
		first = progressTerminal
	}
	return strata.Progress(waiting(e.Stderr, first, progressEvery))
}

// isTerminalWriter reports whether w (or the writer a termtext.Writer
// writes to) is a terminal.
func isTerminalWriter(w io.Writer) bool {
	if tw, ok := w.(*termtext.Writer); ok {
		w = tw.W
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// waiting returns the progress function that writes to w "strata:
// waiting for WHAT" once WHAT has run for first, and "strata: still
// waiting for WHAT (1m0s)" every every after that, until done.
func waiting(w io.Writer, first, every time.Duration) func(what string) func() {
	var mu sync.Mutex // one line at a time
	return func(what string) func() {
		start := time.Now()
		stopped := false
		var t *time.Timer
		var tick func()
		said := false
		tick = func() {
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				return
			}
			if !said {
				fmt.Fprintf(w, "strata: waiting for %s\n", termtext.Line(what))
				said = true
			} else {
				fmt.Fprintf(w, "strata: still waiting for %s (%v)\n", termtext.Line(what), time.Since(start).Round(time.Second))
			}
			t = time.AfterFunc(every, tick)
		}
		mu.Lock()
		t = time.AfterFunc(first, tick)
		mu.Unlock()
		return func() {
			mu.Lock()
			stopped = true // a line being written ends before done returns
			t.Stop()
			mu.Unlock()
		}
	}
}
