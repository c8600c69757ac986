package discover_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/resolve"
)

// TestFailureRemembered: a program that does not answer within its
// timeout is remembered for cache.FailureTTL on the resolver's clock, and
// not run again until then; Refresh and a longer timeout run it again.
// The warning says when it failed and for how long it is remembered.
func TestFailureRemembered(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	dir := describeDir(t, map[string]string{
		"slow": "echo run >> " + log + "\nexec sleep 1000\n",
		"ok":   describing("ok", "Fine.", `{"type":"object"}`),
	})
	store := &cache.Cache{Dir: t.TempDir()}
	at := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	for _, step := range []struct {
		name    string
		after   time.Duration // since the first failure
		refresh bool
		timeout time.Duration
		runs    int    // of slow, in all, after the step
		warning string // in the warning about slow
	}{
		{name: "fails", runs: 1, warning: "slow: did not describe itself within 200ms (remembered for 10 min; --refresh retries)"},
		{name: "remembered", after: 30 * time.Second, runs: 1, warning: "slow: did not describe itself within 200ms (30s ago, not asked again for 10 min more; --refresh retries)"},
		{name: "still remembered", after: 9 * time.Minute, runs: 1, warning: "(9 min ago, not asked again for 1 min more; --refresh retries)"},
		{name: "forgotten after the ttl", after: 10 * time.Minute, runs: 2, warning: "(remembered for 10 min; --refresh retries)"},
		{name: "refresh asks again", after: 10 * time.Minute, refresh: true, runs: 3, warning: "(remembered for 10 min; --refresh retries)"},
		{name: "a longer timeout asks again", after: 10 * time.Minute, timeout: 300 * time.Millisecond, runs: 4, warning: "within 300ms (remembered for 10 min"},
		{name: "the longer timeout's failure is remembered", after: 11 * time.Minute, timeout: 300 * time.Millisecond, runs: 4, warning: "within 300ms (1 min ago, not asked again for 9 min more"},
	} {
		t.Run(step.name, func(t *testing.T) {
			now := at.Add(step.after)
			timeout := step.timeout
			if timeout == 0 {
				timeout = 200 * time.Millisecond
			}
			// slow's own timeout; ok has the default, whatever the load.
			src := fmt.Sprintf("[discover]\ndirs = [%q]\n[tools.slow]\ndiscover_timeout_sec = %v\n", dir, timeout.Seconds())
			c, err := resolveIn(t, discover.Resolver{Cache: store, Refresh: step.refresh, Now: func() time.Time { return now }}, src)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Tool("ok"); !ok {
				t.Error("the catalog has no ok: the tool that answers is left out too")
			}
			if got := runs(t, log); got != step.runs {
				t.Errorf("slow ran %d times in all, want %d", got, step.runs)
			}
			if ws := c.Warnings.Error(); !strings.Contains(ws, step.warning) {
				t.Errorf("warnings:\n%s\nwant one with %q", ws, step.warning)
			}
		})
	}
}

// TestDiscoverFor: discovery for a call of one tool asks that tool's
// executable alone; the others answer from the cache.
func TestDiscoverFor(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	dir := describeDir(t, map[string]string{
		"a":      "echo run >> " + log + "\n" + describing("a", "A.", `{"type":"object"}`),
		"b":      "echo run >> " + log + "\n" + describing("b", "B.", `{"type":"object"}`),
		"c.sh":   "echo run >> " + log + "\n" + describing("renamed", "C.", `{"type":"object"}`),
		"hangs":  "echo run >> " + log + "\nexec sleep 1000\n",
		"broken": "echo run >> " + log + "\nexit 3\n",
	})
	src := fmt.Sprintf("[discover]\ndirs = [%q]\n[tools.hangs]\ndiscover_timeout_sec = 0.2\n", dir)
	store := &cache.Cache{Dir: t.TempDir()}
	for _, step := range []struct {
		name  string
		tool  string
		runs  int      // in all, after the step
		found []string // the catalog's tools
	}{
		{name: "cold: its executable alone", tool: "a", runs: 1, found: []string{"a"}},
		{name: "another, beside what the cache holds", tool: "b", runs: 2, found: []string{"a", "b"}},
		{name: "an executable of another name is not found", tool: "renamed", runs: 2, found: []string{"a", "b"}},
		{name: "cached: nothing runs", tool: "b", runs: 2, found: []string{"a", "b"}},
	} {
		t.Run(step.name, func(t *testing.T) {
			r := discover.Resolver{Cache: store, Root: t.TempDir(), Environ: environ}
			conf := configOf(t, src)
			f, err := r.DiscoverFor(context.Background(), conf, []string{step.tool})
			if err != nil {
				t.Fatal(err)
			}
			c, err := resolve.Build(conf, f)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, d := range c.Tools {
				names = append(names, d.Name)
			}
			if strings.Join(names, ",") != strings.Join(step.found, ",") {
				t.Errorf("catalog %v, want %v", names, step.found)
			}
			if got := runs(t, log); got != step.runs {
				t.Errorf("%d runs in all, want %d", got, step.runs)
			}
		})
	}
	// Once everything answered, or failed in a way that is remembered,
	// a call needs nothing more.
	r := discover.Resolver{Cache: store, Root: t.TempDir(), Environ: environ}
	if _, err := build(context.Background(), &r, configOf(t, src)); err != nil {
		t.Fatal(err)
	}
	before := runs(t, log)
	_, err := r.DiscoverFor(context.Background(), configOf(t, src), []string{"renamed"})
	if err != nil {
		t.Fatal(err)
	}
	if runs(t, log) != before {
		t.Errorf("a warm call ran %d programs", runs(t, log)-before)
	}
}
