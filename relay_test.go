package strata_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/internal/proctest"
)

// serveProcess starts strata serve, a real process, on the trusted
// workspace of s, with the flags args, and connects the Go SDK's client
// with opts to it.
func (s *setup) serveProcess(t *testing.T, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	return s.serveProcessAs(t, "relay-test", opts, args...)
}

// serveProcessAs is serveProcess for a client named client.
func (s *setup) serveProcessAs(t *testing.T, client string, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	return s.serveProcessClient(t, client, "", opts, args...)
}

// serveProcessClient is serveProcess for a client named client on
// protocol version (the SDK's latest when empty).
func (s *setup) serveProcessClient(t *testing.T, client, version string, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	return s.serveClient(t, mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, opts), version, args...)
}

// serveClient starts strata serve, a real process, on the trusted
// workspace of s, with the flags args, and connects client to it on
// protocol version (the SDK's latest when empty).
func (s *setup) serveClient(t *testing.T, client *mcp.Client, version string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(strataBin, append([]string{"serve", "--root", s.repo, "--trust"}, args...)...)
	cmd.Env = append(slices.Clone(s.environ), "XDG_CACHE_HOME="+filepath.Join(s.dir, "cache"))
	stderr := &proctest.Buffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var sopts *mcp.ClientSessionOptions
	if version != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sopts)
	if err != nil {
		t.Fatalf("%v; strata said:\n%s", err, stderr)
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("strata said:\n%s", stderr)
		}
	})
	return cs
}

// everythingServer is the config of server-everything over stdio, all its
// tools exposed, run when called (these tests are of the relay, not of
// the confirmation that run = "ask" asks for).
func everythingServer(t *testing.T) string {
	node, entry := mcptest.EverythingEntry(t)
	return "[tools.'*']\nrun = \"unattended\"\n\n[mcp_servers.everything]\ncommand = \"" + node + "\"\nargs = [\"" + entry + "\", \"stdio\"]\nexpose = \"all\"\n"
}

// resolved is what one resolution gave.
type resolved struct {
	names, warnings []string
	started         int
}

// resolveOnce opens the workspace, resolves it and closes it (which stops
// the servers it started).
func (s *setup) resolveOnce(t *testing.T) resolved {
	t.Helper()
	w := s.open(t)
	defer w.Close()
	cat, err := w.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var r resolved
	for _, d := range cat.Tools {
		r.names = append(r.names, d.Name)
	}
	for _, e := range cat.Warnings {
		r.warnings = append(r.warnings, e.Msg)
	}
	r.started = cat.Started
	return r
}

// receive waits for the next value a client handler recorded.
func receive[T any](t *testing.T, ctx context.Context, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("no %s came", what)
		var zero T
		return zero
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// TestServeRelays drives strata serve, a real process, with the Go SDK's
// client, in front of a real server that logs, reports progress and asks
// for sampling and elicitation (server-everything over stdio): what the
// server sends for the client reaches it, the client's progress token
// included, and the client's answers reach the server.
func TestServeRelays(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
	progress := make(chan *mcp.ProgressNotificationParams, 100)
	logs := make(chan *mcp.LoggingMessageParams, 100)
	sampled := make(chan *mcp.CreateMessageParams, 10)
	elicited := make(chan *mcp.ElicitParams, 10)
	cs := s.serveProcess(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { progress <- req.Params },
		LoggingMessageHandler:       func(_ context.Context, req *mcp.LoggingMessageRequest) { logs <- req.Params },
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			sampled <- req.Params
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "Hi from the client"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			elicited <- req.Params
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// server-everything lists its sampling and elicitation tools only to a
	// client that declares those capabilities: strata declared them.
	names := toolNames(t, cs)
	for _, want := range []string{"trigger-sampling-request", "trigger-elicitation-request", "trigger-long-running-operation", "toggle-simulated-logging"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not served: %v", want, names)
		}
	}

	t.Run("progress", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.3, "steps": 3}, Meta: mcp.Meta{"progressToken": "client-token-7"}})
		if err != nil || res.IsError {
			t.Fatalf("%v: %+v", err, res)
		}
		var got []string
		for range 3 {
			p := receive(t, ctx, progress, "progress notification")
			b, _ := json.Marshal(p)
			got = append(got, string(b))
		}
		want := []string{
			`{"progressToken":"client-token-7","progress":1,"total":3}`,
			`{"progressToken":"client-token-7","progress":2,"total":3}`,
			`{"progressToken":"client-token-7","progress":3,"total":3}`,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
	})

	t.Run("logging named in a call", func(t *testing.T) {
		// The client (the SDK's, on 2026-07-28) names its level in the
		// call's _meta and sets none for its session: the message the
		// server sends during the call, as it starts its simulated
		// logging, reaches it (one sent outside a call would not: the
		// client asked for none outside its requests).
		toggle := &mcp.CallToolParams{Name: "toggle-simulated-logging", Meta: mcp.Meta{mcp.MetaKeyLogLevel: "debug"}}
		res, err := cs.CallTool(ctx, toggle)
		if err != nil || !strings.HasPrefix(mcptest.Text(res), "Started simulated") {
			t.Fatalf("%v: %+v", err, res)
		}
		// The server's own message of the roots it received (logger
		// everything-server), when it falls within the call, is relayed
		// with it: a server of 2025-11-25 ties no log message to a
		// request, so the call's level covers what the server logs while
		// the call runs.
		m := receive(t, ctx, logs, "log message")
		for m.Logger == "everything-server" {
			m = receive(t, ctx, logs, "log message")
		}
		if data, _ := m.Data.(string); m.Logger != "everything" || !strings.Contains(data, "message") {
			t.Errorf("log message %+v", m)
		}
		if _, err := cs.CallTool(ctx, toggle); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("logging", func(t *testing.T) {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "toggle-simulated-logging"})
		if err != nil || !strings.HasPrefix(mcptest.Text(res), "Started simulated") {
			t.Fatalf("%v: %+v", err, res)
		}
		// The server's own log messages ("Roots updated", logger
		// everything-server), sent outside any call, reach the client too
		// (since the level is set), before or among the simulated ones.
		m := receive(t, ctx, logs, "log message")
		for m.Logger == "everything-server" {
			m = receive(t, ctx, logs, "log message")
		}
		if data, _ := m.Data.(string); m.Logger != "everything" || !strings.Contains(data, "message") {
			t.Errorf("log message %+v", m)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "toggle-simulated-logging"}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("sampling", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "Say hi", "maxTokens": 5}})
		if err != nil || res.IsError {
			t.Fatalf("%v: %+v", err, res)
		}
		p := receive(t, ctx, sampled, "sampling request")
		if text, _ := p.Messages[0].Content.(*mcp.TextContent); text == nil || text.Text != "Resource trigger-sampling-request context: Say hi" || p.MaxTokens != 5 || p.SystemPrompt != "You are a helpful test server." {
			t.Errorf("sampling request %+v", p)
		}
		if got := mcptest.Text(res); !strings.Contains(got, "Hi from the client") || !strings.Contains(got, "test-model") {
			t.Errorf("the server did not get the client's answer: %s", got)
		}
	})

	t.Run("elicitation", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-elicitation-request"})
		if err != nil || res.IsError {
			t.Fatalf("%v: %+v", err, res)
		}
		p := receive(t, ctx, elicited, "elicitation request")
		if p.Message != "Please provide inputs for the following fields:" {
			t.Errorf("elicitation request %+v", p)
		}
		if got := mcptest.Text(res); !strings.Contains(got, "- Name: Ada Lovelace") || !strings.Contains(got, "- Agreed to terms: true") {
			t.Errorf("the server did not get the client's answer: %s", got)
		}
	})
}

// TestServeRelaysOnlyWhatTheClientCan: a client without sampling and
// elicitation gets no tools that need them (strata declares neither to
// the server), and a server that asks anyway is answered with an error
// and goes on; a client with elicitation gets the request.
func TestServeRelaysOnlyWhatTheClientCan(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t) + `
[mcp_servers.asker]
command = "MCPFAKE"
args = ["-ask", "elicitation/create"]
expose = "all"
`})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("without", func(t *testing.T) {
		cs := s.serveProcess(t, nil)
		names := toolNames(t, cs)
		if slices.Contains(names, "trigger-sampling-request") || slices.Contains(names, "trigger-elicitation-request") || !slices.Contains(names, "echo") {
			t.Errorf("tools: %v", names)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := mcptest.Text(res), `error: {"code":-32602,"message":"client does not support elicitation"}`; got != want {
			t.Errorf("the server got %s, want %s", got, want)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "still here"}})
		if err != nil || mcptest.Text(res) != "Echo: still here" {
			t.Errorf("after: %v, %+v", err, res)
		}
	})
	t.Run("with", func(t *testing.T) {
		cs := s.serveProcess(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes: " + req.Params.Message}}, nil
		}})
		names := toolNames(t, cs)
		if !slices.Contains(names, "trigger-elicitation-request") || slices.Contains(names, "trigger-sampling-request") {
			t.Errorf("tools: %v", names)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := mcptest.Text(res), `result: {"action":"accept","content":{"answer":"yes: mcpfake asks"}}`; got != want {
			t.Errorf("the server got %s, want %s", got, want)
		}
	})
}

// samplingClient is a client that answers sampling and elicitation, as the
// clients of issue 26 did, and records the requests.
func samplingClient(sampled chan<- *mcp.CreateMessageParams) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			sampled <- req.Params
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "Hi from the client"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true}}, nil
		},
	}
}

// TestServeRelaysAfterTheFirstCall (issue 26, point 1): with the server's
// tools cached, strata serve starts the server at the first call; the
// server's sampling requests of later calls still reach the client, on
// protocol 2026-07-28 (the Go SDK's client) as on 2025-11-25. The
// upstream session used to keep the first call's context, whose relay had
// ended: "context canceled".
func TestServeRelaysAfterTheFirstCall(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
			sampled := make(chan *mcp.CreateMessageParams, 10)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// The first process caches the tools listed to such a client.
			warm := s.serveProcessVersion(t, samplingClient(sampled), version)
			toolNames(t, warm)
			warm.Close()

			cs := s.serveProcessVersion(t, samplingClient(sampled), version)
			if v := cs.InitializeResult().ProtocolVersion; v != version {
				t.Fatalf("protocol %s, want %s", v, version)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "first"}})
			if err != nil || mcptest.Text(res) != "Echo: first" {
				t.Fatalf("first call: %v, %+v", err, res)
			}
			for i := range 2 {
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "Say hi", "maxTokens": 5}})
				if err != nil || res.IsError || !strings.Contains(mcptest.Text(res), "Hi from the client") {
					t.Fatalf("sampling after the first call (%d): %v, %s", i, err, mcptest.Text(res))
				}
				receive(t, ctx, sampled, "sampling request")
			}
		})
	}
}

// serveProcessVersion is serveProcess with the client on protocol
// version.
func (s *setup) serveProcessVersion(t *testing.T, opts *mcp.ClientOptions, version string, args ...string) *mcp.ClientSession {
	t.Helper()
	return s.serveProcessClient(t, "relay-test", version, opts, args...)
}

// TestServeVersionIsTheFingerprint (issue 26, point 4): for a client that
// declares sampling and elicitation, the catalog is resolved with them
// before the handshake is answered, so the version in serverInfo is the
// fingerprint every tools/list carries, on both protocols.
func TestServeVersionIsTheFingerprint(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
			cs := s.serveProcessVersion(t, samplingClient(make(chan *mcp.CreateMessageParams, 10)), version)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := cs.InitializeResult().ServerInfo.Version, res.Meta["strata/fingerprint"]; got != want {
				t.Errorf("serverInfo.version %v, tools/list fingerprint %v", got, want)
			}
			if !slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "trigger-sampling-request" }) {
				t.Errorf("the catalog was not resolved with the client's capabilities: %d tools", len(res.Tools))
			}
		})
	}
}

// nodeClient runs the official TypeScript SDK's client (protocol
// 2025-11-25) against strata serve on the workspace of s, declaring caps,
// and returns what it printed.
func (s *setup) nodeClient(t *testing.T, caps, calls string) nodeClientOutput {
	t.Helper()
	node, _ := mcptest.EverythingEntry(t)
	cmd := exec.Command(node, filepath.Join("fixtures", "mcp", "client.mjs"), calls, strataBin, "serve", "--root", s.repo, "--trust")
	cmd.Env = append(slices.Clone(s.environ), "CLIENT_CAPABILITIES="+caps)
	stderr := &proctest.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr)
	}
	var got nodeClientOutput
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return got
}

type nodeClientOutput struct {
	ServerInfo struct{ Name, Version string }
	ToolsMeta  map[string]any
	Tools      []struct{ Name string }
	Calls      []struct {
		Name   string
		Error  string
		Result struct {
			IsError bool
			Content []struct{ Text string }
		}
	}
}

// TestServeNodeClientSampling (issue 26, points 1 and 4) with the
// TypeScript SDK's client on 2025-11-25, which declares sampling and
// elicitation: serverInfo.version is the fingerprint of tools/list, and
// sampling relayed after a first call that started the server works.
func TestServeNodeClientSampling(t *testing.T) {
	t.Parallel()
	// The TypeScript SDK starts strata with a few variables of its own
	// (HOME, PATH, ...): the config is the workspace's.
	s := newSetup(t, map[string]string{"repo/.strata/config.toml": everythingServer(t)})
	caps := `{"sampling":{},"elicitation":{}}`
	s.nodeClient(t, caps, `[]`) // caches the tools
	got := s.nodeClient(t, caps, `[{"name":"echo","arguments":{"message":"first"}},{"name":"trigger-sampling-request","arguments":{"prompt":"Say hi","maxTokens":5}},{"name":"trigger-sampling-request","arguments":{"prompt":"Again","maxTokens":5}}]`)
	if fp := got.ToolsMeta["strata/fingerprint"]; got.ServerInfo.Version != fp {
		t.Errorf("serverInfo.version %s, tools/list fingerprint %v", got.ServerInfo.Version, fp)
	}
	for _, c := range got.Calls[1:] {
		if c.Error != "" || c.Result.IsError || len(c.Result.Content) == 0 || !strings.Contains(c.Result.Content[0].Text, "Hi from the client") {
			t.Errorf("%s: %+v", c.Name, c)
		}
	}
}
