//go:build unix

package mcpclient

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStartPrivate: a server started with Private runs its session in a
// new, empty directory of the base, gone once the session has ended:
// closed, killed after ignoring the end of its stdin, ended by itself (by
// the time Done is closed), or never started (it hung or crashed in
// initialize).
func TestStartPrivate(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		grace   time.Duration
		startup time.Duration
		fails   bool
		killed  bool // the server is killed rather than closed
	}{
		{name: "closed", args: []string{"-tools", "1"}, grace: noGrace, startup: 10 * time.Second},
		{name: "ignores the end of stdin", args: []string{"-tools", "1", "-ignore-stdin-close", "-child"}, grace: 50 * time.Millisecond, startup: 10 * time.Second},
		{name: "ends by itself", args: []string{"-tools", "1"}, grace: noGrace, startup: 10 * time.Second, killed: true},
		{name: "hangs in initialize", args: []string{"-hang-init"}, grace: noGrace, startup: 300 * time.Millisecond, fails: true},
		{name: "crashes after initialize", args: []string{"-crash-after-init"}, grace: noGrace, startup: 10 * time.Second, fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec, pids := startLogged(t, tt.args...)
			base := filepath.Join(t.TempDir(), "start")
			spec.Dir, spec.Private, spec.Grace = base, true, tt.grace
			var s *Session
			var err error
			returns(t, "Start", func() { s, err = Start(testContext(t), spec, tt.startup) })
			if tt.fails {
				if err == nil {
					s.Close()
					t.Fatal("Start succeeded, want an error")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				es, _ := os.ReadDir(base)
				if len(es) != 1 {
					t.Fatalf("%s holds %v while the server runs; want its one directory", base, es)
				}
				if tt.killed {
					if err := syscall.Kill(onePid(t, pids), syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					returns(t, "Done", func() { <-s.Done() })
				} else {
					returns(t, "Close", func() { err = s.Close() })
					if err != nil {
						t.Errorf("Close: %v", err)
					}
				}
			}
			if es, err := os.ReadDir(base); err != nil || len(es) != 0 {
				t.Errorf("%s holds %v, %v after the session ended", base, es, err)
			}
		})
	}
}
