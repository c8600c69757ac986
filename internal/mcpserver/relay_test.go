package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/secret"
)

// relayServer serves the tools of a real server-everything (over stdio),
// relaying for the client as strata serve does.
func relayServer(t *testing.T) *mcpserver.Server {
	t.Helper()
	node, entry := mcptest.EverythingEntry(t)
	dir := t.TempDir()
	cfg := config.Default()
	cfg.MCPServers = map[string]config.MCPServer{"everything": {Command: secret.Plain(node), Args: secret.Plains(entry, "stdio"), Expose: config.Expose{}}}
	servers := &upstream.Servers{}
	t.Cleanup(func() { servers.Close() })
	r := &discover.Resolver{Root: dir, Environ: os.Environ(), Servers: servers}
	yes := func(context.Context, string, json.RawMessage) (bool, error) { return true, nil }
	return &mcpserver.Server{
		Load: func(ctx context.Context) (*mcpserver.Snapshot, error) {
			found, err := r.Discover(ctx, cfg)
			if err != nil {
				return nil, err
			}
			cat, err := resolve.Build(cfg, found)
			if cat == nil {
				return nil, err
			}
			spec := func(name string) (upstream.Server, bool) { return r.Server(name, cfg.MCPServers[name], dir, dir), true }
			return &mcpserver.Snapshot{Runner: &call.Runner{Catalog: cat, MCP: upstream.Caller{Servers: servers, Server: spec}, Confirm: yes}}, nil
		},
		Client: func(_ context.Context, client *mcp.InitializeParams, ss *mcp.ServerSession) bool {
			return servers.Serve(upstream.ClientOf(client.Capabilities, ss))
		},
		LogLevel: servers.SetLogLevel,
		Warn:     func(err error) { t.Logf("warning: %v", err) },
	}
}

// TestRelayProtocols: the requests and the progress of an upstream server
// reach a client of either side of protocol 2026-07-28: before it, as
// requests strata sends the client; from it on, where a server sends no
// requests, as the input a call's result asks for (multi round-trip
// requests), the call to the upstream server waiting for the client's
// retry.
func TestRelayProtocols(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := relayServer(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ct, st := mcp.NewInMemoryTransports()
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx, st) }()
			defer func() { cancel(); <-done }()

			progress := make(chan *mcp.ProgressNotificationParams, 100)
			var elicitations, samplings int
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { progress <- req.Params },
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					samplings++
					return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "sampled " + req.Params.Messages[0].Content.(*mcp.TextContent).Text}}, nil
				},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					elicitations++
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
				},
			})
			cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("protocol %s, want %s", got, version)
			}

			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			if !slices.Contains(names, "trigger-elicitation-request") || !slices.Contains(names, "trigger-sampling-request") {
				t.Fatalf("tools: %v", names)
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-elicitation-request"})
			if err != nil || !strings.Contains(mcptest.Text(res), "- Name: Grace") || elicitations != 1 {
				t.Errorf("elicitation: %v, %d asked: %s", err, elicitations, mcptest.Text(res))
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "p"}})
			if err != nil || !strings.Contains(mcptest.Text(res), "sampled Resource trigger-sampling-request context: p") || samplings != 1 {
				t.Errorf("sampling: %v, %d asked: %s", err, samplings, mcptest.Text(res))
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.2, "steps": 2}, Meta: mcp.Meta{"progressToken": 42}})
			if err != nil || res.IsError {
				t.Fatalf("progress: %v, %+v", err, res)
			}
			var got []string
			for range 2 {
				select {
				case p := <-progress:
					b, _ := json.Marshal(p)
					got = append(got, string(b))
				case <-ctx.Done():
					t.Fatal("no progress came")
				}
			}
			want := []string{`{"progressToken":42,"progress":1,"total":2}`, `{"progressToken":42,"progress":2,"total":2}`}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRelayUnknownState: a retry whose request state names no waiting call
// (it ended, or it is another session's) is refused, and nothing runs.
func TestRelayUnknownState(t *testing.T) {
	cfg := config.Default()
	cfg.Tools["echo"] = config.Tool{Source: config.Source{Kind: config.SourceBuiltin}, Run: config.Always(config.RunUnattended)}
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"echo": {Name: "echo", InputSchema: resolve.MustSchema(`{"type":"object"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	builtin := func(context.Context, protocol.Context) (protocol.Outcome, error) {
		ran++
		return protocol.Outcome{Type: protocol.Success, Content: "ok"}, nil
	}
	s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) {
		return &mcpserver.Snapshot{Runner: &call.Runner{Catalog: cat, Builtin: builtin}}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	defer func() { cancel(); <-done }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", RequestState: `{"strata/relay":"0123"}`})
	if err == nil || !strings.Contains(err.Error(), "the request state names no call under way") || ran != 0 {
		t.Errorf("error %v, %d runs", err, ran)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"}); err != nil || mcptest.Text(res) != "ok" || ran != 1 {
		t.Errorf("after: %v, %s", err, mcptest.Text(res))
	}
}
