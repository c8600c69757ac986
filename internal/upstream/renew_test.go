package upstream

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/proctest"
	"github.com/strata-config/strata/internal/testbin"
	"github.com/strata-config/strata/secret"
)

var mcpfake string

func TestMain(m *testing.M) {
	testbin.Main(m, map[string]*string{testbin.MCPFake: &mcpfake})
}

// readLines returns the lines of file, none when it does not exist.
func readLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(string(b), "start ", "start:"))
}

// waitLines waits until file holds n lines, and returns them.
func waitLines(t *testing.T, file string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		lines := readLines(t, file)
		if len(lines) >= n || time.Now().After(deadline) {
			return lines
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRenewSubscriptions: a server that clients are subscribed to and that
// ends on its own is started again, and the new process is subscribed to
// the same resources, so that their updates go on coming. A server that
// strata stops (Retain, Close) is not started again, nor one that ended
// within renewAfter of its start (it would end again).
func TestRenewSubscriptions(t *testing.T) {
	for _, tt := range []struct {
		name      string
		young     bool // the server ends within renewAfter of its start
		subscribe bool
		wantStart int
	}{
		{name: "subscribed", subscribe: true, wantStart: 2},
		{name: "not subscribed", wantStart: 1},
		{name: "ended young", young: true, subscribe: true, wantStart: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			requests, starts := filepath.Join(dir, "requests"), filepath.Join(dir, "starts")
			s := Server{Name: "fake", Command: secret.Plain(mcpfake), Args: secret.Plains("-resources", "3", "-requests", requests, "-log", starts), Startup: time.Minute, ToolTimeout: time.Minute}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var p Servers
			defer p.Close()
			if _, _, err := p.Tools(ctx, s, nil); err != nil {
				t.Fatal(err)
			}
			if tt.subscribe {
				for _, uri := range []string{"fake://res/2", "fake://res/0"} {
					if err := p.Subscribe(ctx, s, uri); err != nil {
						t.Fatal(err)
					}
				}
			}
			// As if it had run for an hour, rather than wait; or as if it
			// had just started, however slow the machine.
			since := time.Now().Add(-time.Hour)
			if tt.young {
				since = time.Now().Add(time.Hour)
			}
			p.mu.Lock()
			p.live[s.id()].since = since
			p.mu.Unlock()
			pid, err := strconv.Atoi(strings.TrimPrefix(readLines(t, starts)[0], "start:"))
			if err != nil {
				t.Fatal(err)
			}
			proc, err := os.FindProcess(pid)
			if err != nil {
				t.Fatal(err)
			}
			if err := proc.Kill(); err != nil {
				t.Fatal(err)
			}
			if tt.wantStart == 1 {
				// Nothing is left to follow once the end is seen, unless a
				// renewal started the server again (then this fails
				// rather than hangs).
				proctest.Returns(t, "following the ended server", 30*time.Second, p.follow.Wait)
				if got := readLines(t, starts); len(got) != 1 {
					t.Errorf("%d starts, want 1", len(got))
				}
				return
			}
			if got := waitLines(t, starts, 2); len(got) != 2 {
				t.Fatalf("%d starts, want 2", len(got))
			}
			// The new process is sent the two subscriptions, once each.
			var second []string
			for range 1000 {
				all := readLines(t, requests)
				i := len(all) - 1
				for i > 0 && all[i] != "initialize" {
					i--
				}
				second = all[i:]
				if strings.Count(strings.Join(second, " "), "resources/subscribe") == 2 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			want := []string{"initialize", "notifications/initialized", "resources/subscribe", "resources/subscribe", "server/identity", "tools/list"}
			slices.Sort(second)
			if diff := cmp.Diff(want, second); diff != "" {
				t.Errorf("what the new process was sent (-want +got):\n%s", diff)
			}
			// Retain stops it: it is not started again (nothing is left
			// to follow).
			p.mu.Lock()
			p.live[s.id()].since = time.Now().Add(-time.Hour)
			p.mu.Unlock()
			p.Retain(nil)
			proctest.Returns(t, "following the stopped server", 30*time.Second, p.follow.Wait)
			if got := readLines(t, starts); len(got) != 2 {
				t.Errorf("%d starts after Retain stopped the server, want 2", len(got))
			}
		})
	}
}
