package cli

import (
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestOneProc: strata serve runs on one P when its stdin is read in the
// poller, unless GOMAXPROCS says otherwise.
func TestOneProc(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	polled, w, err := os.Pipe() // non-blocking: read in the poller
	if err != nil {
		t.Fatal(err)
	}
	defer polled.Close()
	defer w.Close()
	tests := []struct {
		name       string
		gomaxprocs string // "": unset
		in         io.Reader
		want       int
	}{
		{name: "a pipe read in the poller", in: polled, want: 1},
		{name: "GOMAXPROCS set", gomaxprocs: "3", in: polled, want: 3},
		{name: "not a file", in: strings.NewReader(""), want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", tt.gomaxprocs) // restored after the test
			if tt.gomaxprocs == "" {
				os.Unsetenv("GOMAXPROCS")
			}
			runtime.GOMAXPROCS(3)
			oneProc(tt.in)
			if got := runtime.GOMAXPROCS(0); got != tt.want {
				t.Errorf("GOMAXPROCS is %d after oneProc, want %d", got, tt.want)
			}
		})
	}
}
