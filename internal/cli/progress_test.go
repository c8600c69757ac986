package cli

import (
	"strings"
	"testing"
	"time"
)

// lines is a writer that hands each line written to a channel.
type lines struct{ c chan string }

func (l *lines) Write(p []byte) (int, error) {
	l.c <- string(p)
	return len(p), nil
}

// TestWaiting: what is waited for is said once it has taken the first
// delay, then again with the time waited, until it is done; what is done
// before the first delay is never said.
func TestWaiting(t *testing.T) {
	w := &lines{c: make(chan string, 100)}
	progress := waiting(w, time.Millisecond, time.Millisecond)
	done := progress("npx to install \x1b[31msrv")
	if got, want := <-w.c, "strata: waiting for npx to install \\x1b[31msrv\n"; got != want {
		t.Errorf("first line %q, want %q", got, want)
	}
	for range 3 {
		if got := <-w.c; !strings.HasPrefix(got, "strata: still waiting for npx to install \\x1b[31msrv (") {
			t.Errorf("next line %q", got)
		}
	}
	done()
	quick := waiting(w, time.Hour, time.Hour)("a quick server")
	quick()
	done = progress("after")
	<-w.c // the line of after: nothing of the quick server came before it
	done()
	select {
	case got := <-w.c:
		if strings.Contains(got, "quick") {
			t.Errorf("a program done before the first delay was said: %q", got)
		}
	default:
	}
}
