package procs

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Fill calls f(ctx, i) for every i in [0, n), as [Each] does, starting as
// many calls at once as keep the machine's processors busy, and at most
// limit: a call per processor at first, and more while processors stay
// idle (programs that wait, for a network or a slow interpreter, leave
// them so). Where the system does not say how idle its processors are, it
// is Each with limit.
//
// Programs that answer at once keep the processors busy: more of them at
// once than there are processors only take turns on them, which cost a
// cold discovery of 200 tools on 2 processors a quarter of its time
// (BenchmarkDescribe); programs that wait leave room for others.
func Fill(ctx context.Context, limit, n int, f func(ctx context.Context, i int)) {
	fill(ctx, runtime.NumCPU(), limit, n, f, idleLooker())
}

// looker tells how many processors were idle, on average, since it was
// last called (since it was made, on the first call); ok is false when it
// cannot tell. A nil looker: the system does not say.
type looker func() (idle float64, ok bool)

// lookEvery is how often Fill looks at how idle the processors are: the
// system counts their time in ticks of 10 ms.
const lookEvery = 100 * time.Millisecond

// fill is Fill on cpus processors, told how idle they are by look, which
// it calls every lookEvery while calls run.
func fill(ctx context.Context, cpus, limit, n int, f func(ctx context.Context, i int), look looker) {
	tick := time.NewTicker(lookEvery)
	defer tick.Stop()
	fillTicked(ctx, cpus, limit, n, f, look, tick.C)
}

// fillTicked is fill, looking at each tick.
func fillTicked(ctx context.Context, cpus, limit, n int, f func(ctx context.Context, i int), look looker, tick <-chan time.Time) {
	if limit <= 0 {
		limit = runtime.NumCPU()
	}
	if look == nil {
		Each(ctx, limit, n, f)
		return
	}
	allowed := min(max(cpus, 1), limit)
	var (
		mu      sync.Mutex
		changed = sync.NewCond(&mu)
		running int
		wg      sync.WaitGroup
	)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-tick:
			}
			idle, ok := look()
			mu.Lock()
			if ok {
				allowed = widen(allowed, running, cpus, limit, idle)
				changed.Broadcast()
			}
			mu.Unlock()
		}
	}()
	for i := range n {
		mu.Lock()
		for running >= allowed {
			changed.Wait()
		}
		running++
		mu.Unlock()
		wg.Go(func() {
			defer func() {
				mu.Lock()
				running--
				changed.Broadcast()
				mu.Unlock()
			}()
			f(ctx, i)
		})
	}
	wg.Wait()
	close(done)
}

// widen returns how many calls may run at once, allowed before, with
// running calls running and idle of cpus processors idle: as many more
// than are running as would keep the idle processors as busy as the
// running calls keep the others, when at least one is idle; never fewer
// than before, nor more than limit.
func widen(allowed, running, cpus, limit int, idle float64) int {
	if idle < 1 || running < allowed {
		// Busy, or not every call allowed runs (there are no more to
		// start): nothing says more would help.
		return allowed
	}
	busy := float64(cpus) - idle
	if busy < 0.5 {
		busy = 0.5
	}
	want := int(float64(running)*float64(cpus)/busy + 0.5)
	return min(max(want, allowed), limit)
}
