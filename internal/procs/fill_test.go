package procs

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFill: a call per processor while the processors are busy, more up
// to the limit while they stay idle, and Each's limit where the system
// does not say how idle they are.
func TestFill(t *testing.T) {
	t.Parallel()
	idle := func(v float64) looker { return func() (float64, bool) { return v, true } }
	// idles is idle processors, then none.
	idles := func(v ...float64) looker {
		var mu sync.Mutex
		return func() (float64, bool) {
			mu.Lock()
			defer mu.Unlock()
			if len(v) == 0 {
				return 0, true
			}
			x := v[0]
			v = v[1:]
			return x, true
		}
	}
	tests := []struct {
		name  string
		cpus  int
		limit int
		n     int
		look  looker
		want  int // the most calls at once
	}{
		{name: "busy: a call per processor", cpus: 2, limit: 8, n: 40, look: idle(0), want: 2},
		{name: "less than a processor idle", cpus: 2, limit: 8, n: 40, look: idle(0.9), want: 2},
		{name: "idle: up to the limit", cpus: 2, limit: 8, n: 40, look: idle(2), want: 8},
		{name: "half idle: as many again, then busy", cpus: 4, limit: 16, n: 40, look: idles(2), want: 8},
		{name: "the limit below the processors", cpus: 4, limit: 2, n: 40, look: idle(4), want: 2},
		{name: "fewer calls than processors", cpus: 4, limit: 8, n: 3, look: idle(0), want: 3},
		{name: "idleness unknown for now", cpus: 2, limit: 8, n: 40, look: func() (float64, bool) { return 0, false }, want: 2},
		{name: "the system does not say: the limit", cpus: 2, limit: 8, n: 40, want: 8},
		{name: "no calls", cpus: 2, limit: 8, n: 0, look: idle(2), want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var (
				calls = make([]atomic.Int32, tc.n)
				held  = newAtOnce(tc.want)
			)
			tick := make(chan time.Time)
			done := make(chan struct{})
			go func() {
				// A look after every call that starts, until the end.
				for {
					select {
					case tick <- time.Time{}:
					case <-done:
						return
					}
				}
			}()
			fillTicked(t.Context(), tc.cpus, tc.limit, tc.n, func(ctx context.Context, i int) {
				calls[i].Add(1)
				held.hold(t, i)
			}, tc.look, tick)
			close(done)
			if got := held.most.Load(); got != int32(tc.want) {
				t.Errorf("at most %d calls at once, want %d", got, tc.want)
			}
			for i := range calls {
				if got := calls[i].Load(); got != 1 {
					t.Errorf("f(%d) called %d times, want 1", i, got)
				}
			}
		})
	}
}

// TestIdleLooker: where the system says, the idle processors are between
// none and all of them.
func TestIdleLooker(t *testing.T) {
	look := idleLooker()
	if look == nil {
		t.Skip("the system does not say how idle its processors are")
	}
	// Spend a little of a processor's time, so that the system's count
	// of ticks moves on.
	for {
		idle, ok := look()
		if ok {
			if idle < 0 || idle > float64(runtime.NumCPU()) {
				t.Errorf("%.2f processors idle of %d", idle, runtime.NumCPU())
			}
			return
		}
		for i := 0; i < 1e6; i++ {
			sink += i
		}
	}
}

var sink int

// atOnce holds calls until want of them run at once, and counts the most
// that ran at once.
type atOnce struct {
	want          int32
	current, most atomic.Int32
	full          chan struct{} // closed when want calls run at once
	once          sync.Once
}

func newAtOnce(want int) *atOnce {
	return &atOnce{want: int32(want), full: make(chan struct{})}
}

// hold counts call i as running until it returns, which is once want calls
// have run at once (whatever the scheduling; calls after that do not wait),
// or, failing t, after fillBound.
func (a *atOnce) hold(t *testing.T, i int) {
	c := a.current.Add(1)
	defer a.current.Add(-1)
	for {
		m := a.most.Load()
		if c <= m || a.most.CompareAndSwap(m, c) {
			break
		}
	}
	if c == a.want {
		a.once.Do(func() { close(a.full) })
	}
	select {
	case <-a.full:
	case <-time.After(fillBound):
		t.Errorf("f(%d): %d calls never ran at once", i, a.want)
	}
}

// fillBound bounds a wait for what must happen.
const fillBound = 30 * time.Second
