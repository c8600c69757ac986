// Package proctest inspects processes from /proc (Linux only), for the
// tests that check that strata leaves none behind, puts a safety net
// under the waits of tests on processes ([Returns]), and keeps what a
// process writes where a test reads it meanwhile ([Buffer]).
package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Stat returns the name, state and process group of pid; ok is false when
// there is no such process.
func Stat(pid int) (name string, state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", 0, 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return "", 0, 0, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 3 {
		return "", 0, 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	if err != nil {
		return "", 0, 0, false
	}
	return string(b[open+1 : end]), f[0][0], pgrp, true
}

// Alive reports whether pid is a process that has not died: zombies (Z)
// and dead tasks (X) are dead. Orphaned zombies stay in their group until
// PID 1 reaps them, which the init of some containers never does, so
// kill(-pgid, 0) alone cannot tell.
func Alive(pid int) bool {
	_, state, _, ok := Stat(pid)
	return ok && state != 'Z' && state != 'X'
}

// Group returns the live processes of process group pgid: their names by
// pid.
func Group(pgid int) map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if name, state, pgrp, ok := Stat(pid); ok && pgrp == pgid && state != 'Z' && state != 'X' {
			out[pid] = name
		}
	}
	return out
}

// WaitGroup waits at most timeout for the live processes of group pgid to
// be want (counts by name), and returns the counts it saw last.
func WaitGroup(pgid int, want map[string]int, timeout time.Duration) map[string]int {
	deadline := time.Now().Add(timeout)
	for {
		got := map[string]int{}
		for _, name := range Group(pgid) {
			got[name]++
		}
		if equal(want, got) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func equal(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// WaitGone waits at most timeout for pid to die, and reports whether it
// did.
func WaitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for Alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// Returns runs f and fails the test when f has not returned within safety:
// a safety net for code that must not wait for a process it should end, so
// that such a test fails rather than hangs. safety is no measure: make it
// long enough that only a hang reaches it.
func Returns(t testing.TB, what string, safety time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(safety):
		t.Fatalf("%s did not return within %v", what, safety)
	}
}

// PeakRSS returns the largest resident set pid has had so far, in bytes
// (VmHWM of /proc/<pid>/status); ok is false when there is no such
// process. Unlike the rusage of a child that os/exec started (with vfork,
// so that its maximum counts its parent's memory), it is the process's
// own.
func PeakRSS(pid int) (bytes int64, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "VmHWM:"); found {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// Buffer is a buffer that the goroutine copying a process's output and a
// test reading it meanwhile may share.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed at the next write
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written != nil {
		close(l.written)
		l.written = nil
	}
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Await waits until the buffer holds text, and reports whether it came
// within safety (a safety net, no measure: see [Returns]).
func (l *Buffer) Await(text string, safety time.Duration) bool {
	timer := time.NewTimer(safety)
	defer timer.Stop()
	for {
		l.mu.Lock()
		if strings.Contains(l.b.String(), text) {
			l.mu.Unlock()
			return true
		}
		if l.written == nil {
			l.written = make(chan struct{})
		}
		written := l.written
		l.mu.Unlock()
		select {
		case <-written:
		case <-timer.C:
			return false
		}
	}
}
