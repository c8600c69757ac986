package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/secret"
)

// collectingDownstream keeps the log messages a call is given, in order.
type collectingDownstream struct {
	recordingDownstream
	mu   sync.Mutex
	logs []string
}

func (d *collectingDownstream) Log(_ context.Context, p *mcp.LoggingMessageParams) error {
	d.mu.Lock()
	d.logs = append(d.logs, fmt.Sprint(p.Data))
	d.mu.Unlock()
	return nil
}

// remoteLogger serves, over streamable HTTP, a tool that sends log
// messages and then its result; with closeStream, it closes the call's
// event stream first, asking the client to resume it (SEP-1699), which
// its event store lets it.
func remoteLogger(t *testing.T, closeStream bool) string {
	srv := mcp.NewServer(&mcp.Implementation{Name: "logger", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if closeStream && req.Extra != nil && req.Extra.CloseSSEStream != nil {
			req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: time.Millisecond})
		}
		for i := range 3 {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: fmt.Sprintf("message %d", i)}); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestRemoteCallLogs (issue 36, 9): over streamable HTTP, every log
// message a server sends during a call reaches the call's client before
// the call returns, the last one too (it was lost about half the time:
// the SDK gives the call its response before the handler has the message
// read before it); and a call whose event stream the server closes,
// asking the client to resume it, is resumed with Last-Event-ID (the
// conformance suite's server-sse-polling), its messages and result lost
// neither.
func TestRemoteCallLogs(t *testing.T) {
	for _, tt := range []struct {
		name        string
		closeStream bool
	}{
		{name: "on the call's stream"},
		{name: "on a resumed stream", closeStream: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := remoteLogger(t, tt.closeStream)
			ctx := testContext(t)
			s, err := Dial(ctx, Remote{URL: secret.Plain(url), Relay: &Relay{Name: "logger", Level: "debug"}}, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i := range 30 {
				d := &collectingDownstream{}
				res, err := s.Call(WithDownstream(ctx, d), "log", json.RawMessage(`{}`), nil)
				if err != nil || res.IsError {
					t.Fatalf("call %d: %+v, %v", i, res, err)
				}
				d.mu.Lock()
				got := fmt.Sprint(d.logs)
				d.mu.Unlock()
				if want := "[message 0 message 1 message 2]"; got != want {
					t.Fatalf("call %d: the client was given %s before the call returned, want %s", i, got, want)
				}
			}
		})
	}
}
