package mcpclient

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestWithInstall: the start's bound waits while the launcher installs,
// however long past the startup time, and ends a startup time after the
// install did; without an install it ends at the startup time.
func TestWithInstall(t *testing.T) {
	asked := make(chan struct{}, 1000)
	var installed atomic.Bool
	installing := func() bool {
		asked <- struct{}{}
		return !installed.Load()
	}
	ctx, cancel := withInstall(context.Background(), time.Millisecond, installing, time.Millisecond)
	defer cancel()
	for range 20 {
		// The bound was over, and the install went on, 20 times.
		select {
		case <-asked:
		case <-ctx.Done():
			t.Fatalf("the start ended while the launcher installed: %v", context.Cause(ctx))
		}
	}
	installed.Store(true)
	<-ctx.Done()
	if cause := context.Cause(ctx); !errors.Is(cause, context.DeadlineExceeded) {
		t.Errorf("cause %v, want the deadline", cause)
	}

	never := func() bool { return false }
	ctx, cancel = withInstall(context.Background(), time.Millisecond, never, time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if cause := context.Cause(ctx); !errors.Is(cause, context.DeadlineExceeded) {
		t.Errorf("no install: cause %v, want the deadline", cause)
	}

	ctx, cancel = withInstall(context.Background(), time.Hour, installing, time.Millisecond)
	cancel()
	if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
		t.Errorf("cancelled: cause %v, want canceled", cause)
	}
}
