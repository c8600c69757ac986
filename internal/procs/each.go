package procs

import (
	"context"
	"runtime"
	"sync"
)

// Each calls f(ctx, i) for every i in [0, n), at most limit calls at once
// (runtime.NumCPU() when limit is zero or negative), and returns when all
// have returned. It calls f for every i even once ctx is done, so that a
// caller filling a slice by index gets every entry; f is expected to
// return early then ([Run] does). A panic in f is not recovered.
func Each(ctx context.Context, limit, n int, f func(ctx context.Context, i int)) {
	if limit <= 0 {
		limit = runtime.NumCPU()
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(ctx, i)
		})
	}
	wg.Wait()
}
