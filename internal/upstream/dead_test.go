package upstream_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/secret"
)

// TestRemoteDiesMidCall (issue 26): a remote server that goes away while a
// call waits for it fails the call soon, with an error that names the
// server, rather than after the SDK's five attempts to reconnect (about
// 20 seconds), or after the tool timeout: the call ends because the
// server is gone, not because the timeout passed.
func TestRemoteDiesMidCall(t *testing.T) {
	entered := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "dying", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		// The response's event stream is open: the client reconnects to
		// it when it breaks.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1})
		close(entered)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	// Its events have ids, as server-everything's do: the client may
	// resume a broken stream.
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
	defer hs.Close()

	servers := &upstream.Servers{}
	defer servers.Close()
	spec := upstream.Server{Name: "faraway", Remote: mcpclient.Remote{URL: secret.Plain(hs.URL)}, Startup: time.Minute, ToolTimeout: 15 * time.Second}
	errs := make(chan error, 1)
	go func() {
		_, err := servers.Call(context.Background(), spec, "wait", json.RawMessage(`{}`), map[string]any{"progressToken": "p"})
		errs <- err
	}()
	<-entered
	hs.CloseClientConnections()
	hs.Listener.Close()
	err := <-errs
	if err == nil || !strings.Contains(err.Error(), "faraway") || strings.Contains(err.Error(), "no answer within") {
		t.Errorf("the call ended with %v, want an error that the server faraway went away", err)
	}
}
