package upstream

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStopIdle: a server that only listed its tools (a one-shot strata
// resolve) stops idle, sent SIGTERM as its stdin closes, since it has
// nothing to finish; one that a call went to keeps the default grace, to
// finish what the call began. (mcpclient's TestClose holds that an idle
// session's server is not waited for.)
func TestStopIdle(t *testing.T) {
	tests := []struct {
		name string
		call bool
		idle bool
	}{
		{name: "listed only", call: false, idle: true},
		{name: "called", call: true, idle: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
			server.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
				})
			s := Server{Name: "s", Startup: time.Minute, ToolTimeout: time.Minute,
				Transport: func(ctx context.Context) (mcp.Transport, error) {
					st, ct := mcp.NewInMemoryTransports()
					if _, err := server.Connect(ctx, st, nil); err != nil {
						return nil, err
					}
					return ct, nil
				}}
			var p Servers
			defer p.Close()
			if _, _, err := p.Tools(ctx, s, nil); err != nil {
				t.Fatal(err)
			}
			if tt.call {
				if _, err := p.Call(ctx, s, "echo", []byte(`{}`), nil); err != nil {
					t.Fatal(err)
				}
			}
			p.mu.Lock()
			l := p.live[s.id()]
			p.mu.Unlock()
			if l == nil {
				t.Fatal("the server is not running")
			}
			if got := l.idle(); got != tt.idle {
				t.Errorf("idle %v, want %v", got, tt.idle)
			}
		})
	}
}

// TestStatesFailedStart: a server whose start failed is "failed" in
// States, with why, from the moment its callers are told: also while it
// is still in the running set, which it leaves just after (/health said
// "running" for a server whose start had just failed a call, on a busy
// machine: TestServeHTTPHidesStartErrors).
func TestStatesFailedStart(t *testing.T) {
	s := Server{Name: "web"}
	id := s.id()
	failed := errors.New("exited during its start")
	l := &live{spec: s, ready: make(chan struct{}), err: failed}
	close(l.ready) // its callers are told; it leaves live after
	retry := time.Now().Add(time.Second)
	p := &Servers{live: map[string]*live{id: l}, failed: map[string]*failure{id: {spec: s, err: failed, attempts: 1, retry: retry}}}
	want := []State{{Name: "web", State: "failed", Err: failed, Failures: 1, Retry: retry}}
	if diff := cmp.Diff(want, p.States(), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("States (-want +got):\n%s", diff)
	}
}
