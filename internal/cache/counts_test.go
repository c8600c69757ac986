package cache

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// counter counts texts by their length, and how often it was asked.
type counter struct{ calls atomic.Int64 }

func (c *counter) count(s string) int { c.calls.Add(1); return len(s) }

// TestCounts: a text counted in one run is not counted in the next, under
// any change of the others; a changed text is counted again; the file is
// written only when a count was added or an old one used again on a later
// day; a file that is not whole is counted anew and written again.
func TestCounts(t *testing.T) {
	const day = 20_000
	tests := []struct {
		name    string
		spoil   string // the file's text before the second run, when not ""
		later   int64  // days after the first run
		texts   []string
		calls   int64
		rewrite bool
	}{
		{name: "the same texts count nothing", texts: []string{"a", "bb"}},
		{name: "a text counted before, alone", texts: []string{"bb"}},
		{name: "a new text is counted", texts: []string{"a", "ccc"}, calls: 1, rewrite: true},
		{name: "a changed text is counted", texts: []string{"a", "bB"}, calls: 1, rewrite: true},
		{name: "a day later, used again", later: 1, texts: []string{"a"}, rewrite: true},
		{name: "a cut file", spoil: `{"version":4,"encoding":"o200k_base","counter":"tok@v1","counts":{`, texts: []string{"a", "bb"}, calls: 2, rewrite: true},
		{name: "another encoding's", spoil: `{"version":4,"encoding":"cl100k_base","counter":"tok@v1","counts":{}}`, texts: []string{"a"}, calls: 1, rewrite: true},
		{name: "another counter's", spoil: `{"version":4,"encoding":"o200k_base","counter":"tok@v0","counts":{"ca978112ca1bbdcafac231b39a23dc4d":[9,20000]}}`, texts: []string{"a"}, calls: 1, rewrite: true},
		{name: "a key of another form", spoil: `{"version":4,"encoding":"o200k_base","counter":"tok@v1","counts":{"a":[1,1]}}`, texts: []string{"a"}, calls: 1, rewrite: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cache{Dir: t.TempDir()}
			first := c.Counts("o200k_base", "tok@v1")
			first.today = day
			var cnt counter
			for _, s := range []string{"a", "bb"} {
				if got := first.Count(s, cnt.count); got != len(s) {
					t.Fatalf("%q: %d", s, got)
				}
			}
			if err := first.Write(); err != nil {
				t.Fatal(err)
			}
			if tt.spoil != "" {
				if err := os.WriteFile(first.Path(), []byte(tt.spoil), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(first.Path(), old, old); err != nil {
				t.Fatal(err)
			}
			second := c.Counts("o200k_base", "tok@v1")
			second.today = day + tt.later
			cnt.calls.Store(0)
			for _, s := range tt.texts {
				if got := second.Count(s, cnt.count); got != len(s) {
					t.Errorf("%q: %d, want %d", s, got, len(s))
				}
			}
			if got := cnt.calls.Load(); got != tt.calls {
				t.Errorf("counted %d texts, want %d", got, tt.calls)
			}
			if err := second.Write(); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(first.Path())
			if err != nil {
				t.Fatal(err)
			}
			if rewrote := !info.ModTime().Equal(old); rewrote != tt.rewrite {
				t.Errorf("the file written again: %v, want %v", rewrote, tt.rewrite)
			}
			// What was written reads back, counting nothing.
			third := c.Counts("o200k_base", "tok@v1")
			cnt.calls.Store(0)
			for _, s := range tt.texts {
				third.Count(s, cnt.count)
			}
			if got := cnt.calls.Load(); got != 0 {
				t.Errorf("read back: %d texts counted again", got)
			}
		})
	}
}

// TestCountsBounded: past MaxCounts, the counts used longest ago go.
func TestCountsBounded(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	first := c.Counts("o200k_base", "tok@v1")
	first.today = 100
	var cnt counter
	for i := range MaxCounts {
		first.Count(fmt.Sprint(i), cnt.count)
	}
	if err := first.Write(); err != nil {
		t.Fatal(err)
	}
	second := c.Counts("o200k_base", "tok@v1")
	second.today = 101
	second.Count("0", cnt.count) // used again
	second.Count("new", cnt.count)
	if err := second.Write(); err != nil {
		t.Fatal(err)
	}
	third := c.Counts("o200k_base", "tok@v1")
	third.read()
	if got := len(third.entries); got != MaxCounts {
		t.Errorf("%d counts kept, want %d", got, MaxCounts)
	}
	cnt.calls.Store(0)
	for _, s := range []string{"0", "new"} {
		third.Count(s, cnt.count)
	}
	if got := cnt.calls.Load(); got != 0 {
		t.Errorf("the counts used last were dropped: %d counted again", got)
	}
	b, err := os.ReadFile(third.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > maxCountsFile/2 {
		t.Errorf("a file of %d counts is %d bytes, more than half the %d read back", MaxCounts, len(b), maxCountsFile)
	}
}

// TestCountsConcurrent: texts counted from several goroutines at once
// are all kept.
func TestCountsConcurrent(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	counts := c.Counts("o200k_base", "tok@v1")
	var cnt counter
	done := make(chan int)
	for g := range 4 {
		go func() {
			n := 0
			for i := range 100 {
				n += counts.Count(strings.Repeat("x", g*100+i), cnt.count)
			}
			done <- n
		}()
	}
	total := 0
	for range 4 {
		total += <-done
	}
	if err := counts.Write(); err != nil {
		t.Fatal(err)
	}
	again := c.Counts("o200k_base", "tok@v1")
	cnt.calls.Store(0)
	got := 0
	for g := range 4 {
		for i := range 100 {
			got += again.Count(strings.Repeat("x", g*100+i), cnt.count)
		}
	}
	if diff := cmp.Diff([]int64{int64(total), 0}, []int64{int64(got), cnt.calls.Load()}); diff != "" {
		t.Errorf("total and counted again (-want +got):\n%s", diff)
	}
}
