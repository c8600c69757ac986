package strata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// downable is a remote MCP server that can be down: while it is, every
// request is answered 503, as a server behind a proxy that is not up.
type downable struct {
	down atomic.Bool
	hs   *httptest.Server
}

func newDownable(t *testing.T) *downable {
	d := &downable{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "fetch_page"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the page"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	d.hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.down.Load() {
			http.Error(w, "upstream stderr: token=s3cr3t-value", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(d.hs.Close)
	return d
}

// TestServeHTTPHeals (issue 36, 8): strata serve --http in front of a
// remote server that is down at its first start: /health says degraded,
// naming the server and why (none of its secrets, none of what it
// answered); a call of its tool says the server is down and when it is
// tried again, not "unknown tool"; once it is up, the clients that ask
// for it have it started again, are told the tool list changed, and call
// its tool; /health says ok.
func TestServeHTTPHeals(t *testing.T) {
	t.Parallel()
	up := newDownable(t)
	up.down.Store(true)
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.web]
url = "` + up.hs.URL + `/mcp"
bearer_token_env_var = "WEB_TOKEN"
expose = "all"

[tools.'*']
run = "unattended"
`})
	s.environ = append(s.environ, "WEB_TOKEN=t0k3n-value")
	h := s.serveHTTP(t)
	health := func() map[string]any {
		b := h.get(t, "/health")
		for _, secret := range []string{"t0k3n-value", "s3cr3t"} {
			if strings.Contains(b, secret) {
				t.Errorf("/health shows %q: %s", secret, b)
			}
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(b), &got); err != nil {
			t.Fatalf("/health: %v: %s", err, b)
		}
		return got
	}
	got := health()
	servers, _ := got["servers"].([]any)
	if got["status"] != "degraded" || len(servers) != 1 {
		t.Fatalf("/health %v, want degraded with the server web", got)
	}
	web, _ := servers[0].(map[string]any)
	if web["server"] != "web" || web["state"] != "failed" || web["failed_starts"] != float64(1) || !strings.Contains(web["error"].(string), "Service Unavailable") || web["retry"] == nil {
		t.Errorf("/health's server %v, want web failed once, why (Service Unavailable) and when it is tried again", web)
	}

	changed := make(chan struct{}, 10)
	cs := h.connect(t, "2025-11-25", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch_page"})
	if err != nil {
		t.Fatalf("a call of a tool of the server that is down: %v, want a tool error that says so", err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "server web is down: ") || !strings.Contains(text, "Service Unavailable") || !strings.Contains(text, ", retrying ") || strings.Contains(text, "t0k3n-value") || strings.Contains(text, "s3cr3t") {
		t.Errorf("the call's result (error %v): %s; want that the server web is down, why, and when it is tried again", res.IsError, text)
	}

	// The server is up again: the client lists the tools (it asks for
	// those of web), and is told they changed once web has started.
	up.down.Store(false)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatalf("no tools/list_changed once the server was up; strata said:\n%s", h.stderr)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch_page"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "the page" {
		t.Fatalf("a call once the server is up: %+v, %v", res, err)
	}
	if got := health(); got["status"] != "ok" {
		t.Errorf("/health %v once the server is up, want ok", got)
	}
}

// TestServeHTTPLogsOutsideCalls (issue 36, 9): over --http, a log message
// a remote server sends outside any call reaches the clients that set a
// log level it reaches; it was dropped.
func TestServeHTTPLogsOutsideCalls(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "log_later"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ss := req.Session
		go func() {
			<-release // once the call has returned
			_ = ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "warning", Data: "the index is rebuilt"})
		}()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "later"}}}, nil, nil
	})
	h, cs, logs := serveWeb(t, srv, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log_later"}); err != nil || res.IsError {
		t.Fatalf("call: %+v, %v", res, err)
	}
	close(release)
	select {
	case got := <-logs:
		if want := "web: the index is rebuilt"; got != want {
			t.Errorf("the client was given %q, want %q", got, want)
		}
	case <-ctx.Done():
		t.Fatalf("the log message sent outside any call did not reach the client; strata said:\n%s", h.stderr)
	}
}

// TestServeHTTPResumes (issue 36, 9): a remote server that closes the
// event stream of a call, asking its client to poll (SEP-1699's close
// event, with its retry time), is resumed by strata with Last-Event-ID;
// strata closes its own client's stream in turn, and the client resumes
// it from strata's event store, where the call's log messages and result
// wait for it. Without an event store, the server loses the result: the
// client resumes, and is told so.
func TestServeHTTPResumes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		store    bool
		want     string
		wantLogs string
	}{
		{name: "resumable", store: true, want: "after the poll", wantLogs: "[web: before the poll web: after the poll]"},
		{name: "not resumable", store: false, want: "request terminated without response"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
			mcp.AddTool(srv, &mcp.Tool{Name: "poll"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "before the poll"})
				req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: time.Millisecond})
				_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "after the poll"})
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "after the poll"}}}, nil, nil
			})
			opts := &mcp.StreamableHTTPOptions{}
			if tt.store {
				opts.EventStore = mcp.NewMemoryEventStore(nil)
			}
			h, cs, logs := serveWeb(t, srv, opts)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "poll"})
			if err != nil {
				t.Fatalf("call: %v; strata said:\n%s", err, h.stderr)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, tt.want) || res.IsError == tt.store {
				t.Errorf("the call's result (error %v): %s, want %q", res.IsError, got, tt.want)
			}
			if tt.wantLogs == "" {
				return
			}
			// The SDK's client may hand a message to its handler after
			// the call returned: they are waited for.
			var got []string
			for range 2 {
				select {
				case m := <-logs:
					got = append(got, m)
				case <-ctx.Done():
					t.Fatalf("log messages %v, then none; want %s", got, tt.wantLogs)
				}
			}
			if fmt.Sprint(got) != tt.wantLogs {
				t.Errorf("log messages %v, want %s", got, tt.wantLogs)
			}
		})
	}
}

// serveWeb serves srv over streamable HTTP (with opts) as the remote
// server web of a user's config, runs strata serve --http in front of it,
// and connects a client of 2025-11-25 that set the log level info: logs
// gets each log message it is sent, as "logger: data".
func serveWeb(t *testing.T, srv *mcp.Server, opts *mcp.StreamableHTTPOptions) (*httpServe, *mcp.ClientSession, <-chan string) {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts))
	t.Cleanup(hs.Close) // after strata serve has stopped (its event stream is open)
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.web]
url = "` + hs.URL + `"
expose = "all"

[tools.'*']
run = "unattended"
`})
	h := s.serveHTTP(t)
	logs := make(chan string, 10)
	cs := h.connect(t, "2025-11-25", &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
		logs <- fmt.Sprint(req.Params.Logger, ": ", req.Params.Data)
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	return h, cs, logs
}

// TestServeHTTPHealsStdio (issue 36, 8): a server strata starts, which
// exits during its first start, is started again once a client asks for
// it; neither /health nor the call's error holds what it wrote to its
// stderr, which only strata's own stderr shows.
func TestServeHTTPHealsStdio(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{
		"server.sh": "#!/bin/sh\n[ -f DIR/up ] || { echo 'stderr-secret-42' >&2; exit 3; }\nexec MCPFAKE -tools 1\n",
		"home/strata/config.toml": `
[mcp_servers.local]
command = "DIR/server.sh"
expose = "all"

[tools.'*']
run = "unattended"
`})
	h := s.serveHTTP(t)
	changed := make(chan struct{}, 10)
	cs := h.connect(t, "2025-11-25", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tool_000"})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "server local is down: ") || !strings.Contains(text, "exit status 3") {
		t.Errorf("the call's result (error %v): %s; want that the server local is down, and why", res.IsError, text)
	}
	health := h.get(t, "/health")
	if !strings.Contains(health, `"status":"degraded"`) {
		t.Errorf("/health: %s, want degraded", health)
	}
	for what, got := range map[string]string{"the call's error": text, "/health": health} {
		if strings.Contains(got, "stderr-secret-42") {
			t.Errorf("%s holds the server's stderr: %s", what, got)
		}
	}
	if err := os.WriteFile(filepath.Join(s.dir, "up"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatalf("no tools/list_changed once the server starts; strata said:\n%s", h.stderr)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "tool_000"})
	if err != nil || res.IsError {
		t.Fatalf("a call once the server starts: %+v, %v", res, err)
	}
}
