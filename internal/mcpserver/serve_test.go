package mcpserver_test

import (
	"errors"

	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/internal/testbin"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

var jptools, mcpfake string // the built fixture binaries

func TestMain(m *testing.M) {
	testbin.Main(m, map[string]*string{testbin.JPTools: &jptools, testbin.MCPFake: &mcpfake})
}

var environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent"}

// describe is a --describe tool that describes itself with params and
// runs body.
func describe(name, description, params, body string) string {
	return "#!/bin/sh\nif [ \"$1\" = --describe ]; then echo '{\"name\":\"" + name + "\",\"description\":\"" + description + "\",\"parameters\":" + params + "}'; exit 0; fi\n" + body + "\n"
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// replace writes content to a new file renamed over path, as editors
// do: a reader sees the file before or after, never half written.
func replace(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	write(t, tmp, content, 0o644)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// demo is a workspace with a tool of each kind.
const demo = `
[discover]
dirs = ["tools"]

[tools.weather.parameters.unit]
enum = ["celsius"]

[tools.shout]
description = "{{description}} Loudly."

[tools.count]
source = "local.count_lines"
command = "JPTOOLS {{tool}} {{context}}"

[tools.fs_modify_file]
source = "local"
command = "JPTOOLS {{tool}} {{context}}"

[mcp_servers.fake]
command = "MCPFAKE"
args = ["-echo", "-tools", "1"]

[tools.remote_echo]
source = "mcp.fake.echo"
`

// warnings holds the warnings of each test's server, by test.
var warnings sync.Map // *testing.T -> chan string

func warningsOf(t *testing.T) chan string {
	c, _ := warnings.LoadOrStore(t, make(chan string, 16))
	return c.(chan string)
}

// waitWarning waits for a warning of the test's server that says want.
func waitWarning(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(time.Minute) // a safety net: the wait is for the event
	for {
		select {
		case w := <-warningsOf(t):
			if strings.Contains(w, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no warning saying %q", want)
		}
	}
}

// serveWorkspace serves the config src (JPTOOLS and MCPFAKE stand for the
// fixture programs) of a new workspace with the given tools, and returns
// a client session to it and the workspace root.
func serveWorkspace(t *testing.T, src string, tools map[string]string, opts *mcp.ClientOptions) (*mcp.ClientSession, string) {
	t.Helper()
	return serveWorkspaceWith(t, src, tools, opts, nil)
}

// serveWorkspaceWith is serveWorkspace with the server changed by adjust
// (when not nil) before it runs.
func serveWorkspaceWith(t *testing.T, src string, tools map[string]string, opts *mcp.ClientOptions, adjust func(*mcpserver.Server)) (*mcp.ClientSession, string) {
	t.Helper()
	root := t.TempDir()
	for name, body := range tools {
		write(t, filepath.Join(root, "tools", name), body, 0o755)
	}
	write(t, filepath.Join(root, "notes.txt"), "one\ntwo\nthree\n", 0o644)
	cfgFile := filepath.Join(root, ".strata", "config.toml")
	write(t, cfgFile, strings.NewReplacer("JPTOOLS", jptools, "MCPFAKE", mcpfake).Replace(src), 0o644)
	servers := &upstream.Servers{}
	s := &mcpserver.Server{
		Load: func(ctx context.Context) (*mcpserver.Snapshot, error) {
			b, err := os.ReadFile(cfgFile)
			if err != nil {
				return nil, err
			}
			var p config.Partial
			if err := codec.Decode(cfgFile, b, partial.TOML, &p); err != nil {
				return nil, err
			}
			c, err := config.Finalize(&p)
			if err != nil {
				return nil, err
			}
			r := &discover.Resolver{Root: root, Environ: environ, Servers: servers}
			found, err := r.Discover(ctx, c)
			if err != nil {
				return nil, err
			}
			cat, err := resolve.Build(c, found)
			if err != nil {
				return nil, err
			}
			if cat, err = cat.Select(c, ""); err != nil { // each tool's load, as a workspace serves it
				return nil, err
			}
			spec := func(name string) (upstream.Server, bool) {
				srv, ok := c.MCPServers[name]
				return r.Server(name, srv, root, root), ok
			}
			return &mcpserver.Snapshot{
				Runner: &call.Runner{Catalog: cat, Environ: environ, MCP: upstream.Caller{Servers: servers, Server: spec}, Timeout: time.Second,
					Confirm: func(context.Context, string, json.RawMessage) (bool, error) { return true, nil }},
				Watch: []string{cfgFile, filepath.Join(root, "tools")},
			}, nil
		},
		Warn: func(err error) {
			t.Log("warning:", err)
			select {
			case warningsOf(t) <- err.Error():
			default:
			}
		},
		Debounce: 50 * time.Millisecond,
	}
	servers.OnChange = func(string) { s.Invalidate() }
	if adjust != nil {
		adjust(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("Run: %v", err)
		}
		servers.Close()
	})
	return cs, root
}

var demoTools = map[string]string{
	"weather": describe("weather", "Get the weather.", `{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}`, `printf '%s' "$1"`),
	"shout":   describe("shout", "Repeat a word.", `{"type":"object","properties":{"word":{"type":"string"}}}`, `printf 'said %s' "$1"`),
	"hang":    describe("hang", "Never answer.", `{"type":"object"}`, "sleep 30"),
}

func TestList(t *testing.T) {
	cs, _ := serveWorkspace(t, demo, demoTools, nil)
	ctx := context.Background()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	schemas := map[string]string{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		b, _ := json.Marshal(tool.InputSchema)
		schemas[tool.Name] = string(b)
		want := map[string]string{"shout": "Repeat a word. Loudly.", "weather": "Get the weather.", "hang": "Never answer."}
		if w, ok := want[tool.Name]; ok && tool.Description != w {
			t.Errorf("%s's description: %q, want %q (the summary and the description, as --export mcp gives them)", tool.Name, tool.Description, w)
		}
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"count", "fs_modify_file", "hang", "remote_echo", "shout", "tool_000", "weather"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	var got, want any
	json.Unmarshal([]byte(schemas["weather"]), &got)
	json.Unmarshal([]byte(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius"],"default":"celsius"}},"required":["city"]}`), &want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("weather's schema (-want +got):\n%s", diff)
	}
	fp, _ := res.Meta[mcpserver.MetaFingerprint].(string)
	if !strings.HasPrefix(fp, "sha256:") || cs.InitializeResult().ServerInfo.Version != fp {
		t.Errorf("fingerprint %q in tools/list, serverInfo %+v", fp, cs.InitializeResult().ServerInfo)
	}
}

// callText calls a tool and returns its single text content.
func callText(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items", params.Name, len(res.Content))
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func TestCall(t *testing.T) {
	cs, root := serveWorkspace(t, demo, demoTools, nil)
	tests := []struct {
		name    string
		params  *mcp.CallToolParams
		want    string
		isError bool
	}{
		{name: "describe tool with a forced value", params: &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": "Oslo"}}, want: `{"city":"Oslo","unit":"celsius"}`},
		{name: "JP tool renamed", params: &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"path": "notes.txt"}}, want: "3"},
		{name: "MCP tool renamed", params: &mcp.CallToolParams{Name: "remote_echo", Arguments: map[string]any{"x": 1}}, want: `{"arguments":{"x":1},"_meta":null}`},
		{name: "invalid arguments", params: &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"unit": "kelvin"}}, isError: true,
			want: "call weather: invalid arguments: $: missing property 'city'; $.unit: value must be 'celsius'"},
		{name: "a tool that hangs", params: &mcp.CallToolParams{Name: "hang"}, isError: true,
			want: `{"type":"error","message":"hang: no answer within 1s; it was stopped","transient":true}`},
		{name: "a question", params: &mcp.CallToolParams{Name: "fs_modify_file", Arguments: map[string]any{"path": "notes.txt", "start_line": 1, "end_line": 1, "content": "ONE"}},
			want: `{"type":"needs_input","question":{"id":"apply_changes","text":"Replace lines 1-1 of notes.txt with 1 line(s), changing 1 line(s)?","answer_type":"boolean"}}`},
		{name: "the answer in _meta", params: &mcp.CallToolParams{Name: "fs_modify_file", Arguments: map[string]any{"path": "notes.txt", "start_line": 1, "end_line": 1, "content": "ONE"},
			Meta: mcp.Meta{protocol.MetaTool: map[string]any{"answers": map[string]any{"apply_changes": true}}}},
			want: `replaced lines 1-1 of notes.txt with 1 line(s)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, isError := callText(t, cs, tt.params)
			if got != tt.want || isError != tt.isError {
				t.Errorf("got %s (isError %v)\nwant %s (isError %v)", got, isError, tt.want, tt.isError)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "ONE\ntwo\nthree\n" {
		t.Errorf("notes.txt: %q", b)
	}
	t.Run("default-deny", func(t *testing.T) {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "rm"}); err == nil || !strings.Contains(err.Error(), "rm") {
			t.Errorf("calling an unknown tool: %v", err)
		}
	})
}

func TestListChanged(t *testing.T) {
	changed := make(chan struct{}, 10)
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
	cs, root := serveWorkspace(t, demo, demoTools, opts)
	ctx := context.Background()
	before, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitList := func(what string, check func([]*mcp.Tool) bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case <-changed:
				res, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if check(res.Tools) {
					if res.Meta[mcpserver.MetaFingerprint] == before.Meta[mcpserver.MetaFingerprint] {
						t.Errorf("%s: the fingerprint did not change", what)
					}
					return
				}
			case <-deadline:
				t.Fatalf("%s: no tools/list_changed", what)
			}
		}
	}
	has := func(tools []*mcp.Tool, name string) *mcp.Tool {
		for _, tool := range tools {
			if tool.Name == name {
				return tool
			}
		}
		return nil
	}
	// A new executable in a discovery directory.
	write(t, filepath.Join(root, "tools", "new"), describe("new", "A new tool.", `{"type":"object"}`, "echo new"), 0o755)
	waitList("a new tool", func(tools []*mcp.Tool) bool { return has(tools, "new") != nil })
	// The same tool, described anew: served again with its new definition.
	write(t, filepath.Join(root, "tools", "new"), describe("new", "A new tool, described anew.", `{"type":"object"}`, "echo new"), 0o755)
	waitList("a tool changed", func(tools []*mcp.Tool) bool {
		return has(tools, "new") != nil && strings.Contains(has(tools, "new").Description, "described anew")
	})
	// A config file edited the way editors do: a new file renamed over it.
	cfgFile := filepath.Join(root, ".strata", "config.toml")
	b, _ := os.ReadFile(cfgFile)
	replace(t, cfgFile, string(b)+"\n[tools.hang]\nenable = false\n")
	waitList("a tool disabled", func(tools []*mcp.Tool) bool { return has(tools, "hang") == nil && has(tools, "new") != nil })
	got, _ := callText(t, cs, &mcp.CallToolParams{Name: "new"})
	if got != "new\n" {
		t.Errorf("calling the new tool: %q", got)
	}
	// A broken config keeps the catalog served, and says why. (Renamed
	// over the file, as above: written in place, the file is empty
	// between its truncation and its write, an empty config that a reload
	// may take when the writer is held up longer than the debounce, and
	// then keep as the catalog before the broken one.)
	replace(t, cfgFile, "[tools.x\n")
	waitWarning(t, "resolving again")
	if got, _ := callText(t, cs, &mcp.CallToolParams{Name: "new"}); got != "new\n" {
		t.Errorf("after a broken config: %q", got)
	}
}

// TestRefusedHeaderAnnotation: a tool whose input schema has x-mcp-header
// annotations that MCP's Go SDK refuses (on a property that is an object)
// is not served, with a warning that says why; the server serves the
// others, where the SDK's panic took it down.
func TestRefusedHeaderAnnotation(t *testing.T) {
	tools := map[string]string{
		"good": describe("good", "A good tool.", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`, "echo good"),
		"bad":  describe("bad", "A bad tool.", `{"type":"object","properties":{"where":{"type":"object","x-mcp-header":"Where"}}}`, "echo bad"),
	}
	cs, _ := serveWorkspace(t, "[discover]\ndirs = [\"tools\"]\n", tools, nil)
	waitWarning(t, "bad is not served: its input schema's x-mcp-header annotations are refused")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"good"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestConcurrentCalls runs calls of every kind at once.
func TestConcurrentCalls(t *testing.T) {
	cs, _ := serveWorkspace(t, demo, demoTools, nil)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			params := []*mcp.CallToolParams{
				{Name: "weather", Arguments: map[string]any{"city": fmt.Sprint(i)}},
				{Name: "count", Arguments: map[string]any{"path": "notes.txt"}},
				{Name: "remote_echo", Arguments: map[string]any{"i": i}},
			}[i%3]
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				t.Errorf("%s: %v %+v", params.Name, err, res)
			}
		})
	}
	wg.Wait()
}

// TestUnservedMethods: with no MCP server behind the catalog, what
// strata cannot serve (resources, prompts, completions) is
// method-not-found, not an empty list that says there are none (issue 26).
func TestUnservedMethods(t *testing.T) {
	cs, _ := serveWorkspace(t, demo, demoTools, nil)
	ctx := context.Background()
	calls := []struct {
		name string
		call func() error
	}{
		{"resources/list", func() error { _, err := cs.ListResources(ctx, nil); return err }},
		{"resources/templates/list", func() error { _, err := cs.ListResourceTemplates(ctx, nil); return err }},
		{"resources/read", func() error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///etc/passwd"})
			return err
		}},
		{"prompts/list", func() error { _, err := cs.ListPrompts(ctx, nil); return err }},
		{"prompts/get", func() error { _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"}); return err }},
		{"completion/complete", func() error {
			_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteParamsArgument{Name: "a"}})
			return err
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			var rpc *jsonrpc.Error
			if err := c.call(); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("%s answered %v, want method-not-found", c.name, err)
			}
		})
	}
}

// TestToolNamedSearchTools: a tool of the catalog named search_tools (an
// MCP server may list one) is that tool: a call of it runs it, and the
// deferred tools cannot be found, which a warning says; strata's own
// search does not answer in its place.
func TestToolNamedSearchTools(t *testing.T) {
	tools := map[string]string{
		"search_tools": describe("search_tools", "A tool of the catalog.", `{"type":"object","properties":{"query":{"type":"string"}}}`, "echo mine"),
		"hidden":       describe("hidden", "A deferred tool.", `{"type":"object"}`, "echo hidden"),
	}
	cs, _ := serveWorkspace(t, "[discover]\ndirs = [\"tools\"]\n\n[tools.hidden]\nload = \"deferred\"\n", tools, nil)
	waitWarning(t, "deferred tools cannot be found")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "hidden"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "mine") {
		t.Errorf("search_tools answered %q, want the catalog's tool's output", got)
	}
}

// TestPanicAnswered: a request whose handling panics (here in the host's
// LogLevel, a defect of the host or of strata) is answered with an
// internal error and told to Warn with the stack, and the server goes on
// serving that client and others: the SDK handles each request in a
// goroutine of its own and recovers nothing, so a panic ended strata
// serve and every session it held.
func TestPanicAnswered(t *testing.T) {
	cs, _ := serveWorkspaceWith(t, "[tools.weather]\n", demoTools, nil, func(s *mcpserver.Server) {
		s.LogLevel = func(context.Context, mcp.LoggingLevel) { panic("a defect") }
	})
	ctx := context.Background()
	err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || !strings.Contains(rpcErr.Message, "logging/setLevel") {
		t.Errorf("setLevel: %v; want an internal error that names the method", err)
	}
	waitWarning(t, "panicked")
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Errorf("after the panic, tools/list: %v", err)
	}
}
