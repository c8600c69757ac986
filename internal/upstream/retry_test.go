package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/secret"
)

// flaky is an MCP server whose starts fail while down is set: each start
// is counted, and told on starts.
type flaky struct {
	down   atomic.Bool
	n      atomic.Int32
	starts chan int32
}

func newFlaky() *flaky { return &flaky{starts: make(chan int32, 100)} }

func (f *flaky) spec(name string) upstream.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	return upstream.Server{Name: name, Startup: time.Minute, ToolTimeout: time.Minute,
		// A secret in its command: no error names its value.
		Command: secret.From("the-secret-value", "$TOKEN"),
		Transport: func(ctx context.Context) (mcp.Transport, error) {
			f.starts <- f.n.Add(1)
			if f.down.Load() {
				return nil, errors.New("connection refused")
			}
			st, ct := mcp.NewInMemoryTransports()
			if _, err := server.Connect(ctx, st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		}}
}

// TestRetryDown (issue 36, 8): a server whose start failed is not started
// again before its retry time, however many calls come meanwhile (each is
// told it is down, with why and when it is tried again); a client that
// asks for it has it started again once the time comes, and a server that
// comes back is told to OnChange (its tools are served again) and leaves
// the failed states.
func TestRetryDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := newFlaky()
	f.down.Store(true)
	spec := f.spec("web")
	changed := make(chan string, 10)
	p := &upstream.Servers{OnChange: func(name string) { changed <- name }, RetryFirst: time.Hour, RetryMax: time.Hour}
	defer p.Close()

	if _, _, err := p.Tools(ctx, spec, nil); err == nil {
		t.Fatal("the first start succeeded, want it to fail")
	}
	<-f.starts
	// Many clients call it at once, before its retry time: none starts it.
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = p.Call(ctx, spec, "echo", []byte(`{}`), nil)
			p.Want()
		})
	}
	wg.Wait()
	for _, err := range errs {
		var down *upstream.DownError
		if !errors.As(err, &down) {
			t.Fatalf("a call while the server is down: %v, want a DownError", err)
		}
		msg := err.Error()
		if !regexp.MustCompile(`^server web is down: cannot start '<from \$TOKEN>': connection refused, retrying in 3[0-9]{3}s$`).MatchString(msg) {
			t.Errorf("the call's error %q, want that web is down, why, and when it is tried again (in an hour and a tenth at most)", msg)
		}
		if strings.Contains(msg, "the-secret-value") {
			t.Errorf("the call's error %q holds a secret's value", msg)
		}
	}
	if got := f.n.Load(); got != 1 {
		t.Errorf("%d starts while the server waited for its retry time, want 1", got)
	}
	st := p.States()
	if len(st) != 1 || st[0].State != "failed" || st[0].Failures != 1 || st[0].Err == nil || st[0].Retry.IsZero() {
		t.Errorf("states %+v, want web failed once, with its error and retry time", st)
	}

	// The retry time comes (a Servers that waits little): a client asks,
	// the server is started again, fails again, and waits longer.
	p.RetryFirst = time.Millisecond
	p.RetryMax = 2 * time.Millisecond
	f.down.Store(false)
	p.Want("another")
	select {
	case n := <-f.starts:
		t.Fatalf("start %d of a server nobody asked for", n)
	default:
	}
	p.Want("web")
	// The retry time set by the first failure (an hour) has not come:
	// nothing starts until it does. A server configured anew (another
	// identity) starts at once.
	select {
	case n := <-f.starts:
		t.Fatalf("start %d before the retry time", n)
	default:
	}
	p.Retain(map[string]bool{}) // the config changed: its failure is forgotten
	if _, err := p.Call(ctx, spec, "echo", []byte(`{}`), nil); err != nil {
		t.Fatalf("a call once the server is up: %v", err)
	}
	if got := p.States(); len(got) != 1 || got[0].State != "running" || got[0].Err != nil {
		t.Errorf("states %+v, want web running", got)
	}
}

// TestRetryComesBack (issue 36, 8): a server down at its first start is
// started again at its retry time while calls ask for it (a call before
// the time is told it is down, and has it started then); when it comes
// back, OnChange is told, the calls reach it and its tools are listed.
func TestRetryComesBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := newFlaky()
	f.down.Store(true)
	spec := f.spec("web")
	changed := make(chan string, 10)
	p := &upstream.Servers{OnChange: func(name string) { changed <- name }, RetryFirst: time.Millisecond, RetryMax: 4 * time.Millisecond}
	defer p.Close()
	if _, _, err := p.Tools(ctx, spec, nil); err == nil {
		t.Fatal("the first start succeeded, want it to fail")
	}
	<-f.starts
	// call calls until the server answers, or, while it is down, until
	// a call is told it is down, and the start that call asked for came.
	call := func() error {
		for {
			_, err := p.Call(ctx, spec, "echo", []byte(`{}`), nil)
			var down *upstream.DownError
			switch {
			case errors.As(err, &down):
				<-f.starts
				return err
			case err == nil, ctx.Err() != nil:
				return err
			}
		}
	}
	for range 3 {
		if err := call(); err == nil {
			t.Fatal("a call reached a server that is down")
		}
	}
	if got := f.n.Load(); got < 4 {
		t.Errorf("%d starts, want at least 4: the first and one for each call that was told the server is down", got)
	}
	f.down.Store(false)
	for call() != nil {
	}
	if got := <-changed; got != "web" {
		t.Errorf("OnChange told %q, want web", got)
	}
	a, started, err := p.Tools(ctx, spec, nil)
	if err != nil || started {
		t.Fatalf("tools of the server come back: started %v, %v", started, err)
	}
	if len(a.Tools) != 1 || a.Tools[0].Name != "echo" {
		t.Errorf("tools %+v, want echo", a.Tools)
	}
	if st := p.States(); len(st) != 1 || st[0].State != "running" {
		t.Errorf("states %+v, want web running", st)
	}
}

func ExampleDownError() {
	e := &upstream.DownError{Server: "web", Err: errors.New("cannot start web-server: exit status 1")}
	fmt.Println(e)
	// Output: server web is down: cannot start web-server: exit status 1, retrying now
}
