package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/internal/proctest"
	"github.com/strata-config/strata/internal/testbin"
	"github.com/strata-config/strata/secret"
)

// fakeBin is the mcpfake fixture, built by TestMain; "" when there is no
// go command to build it with.
var fakeBin string

func TestMain(m *testing.M) {
	testbin.Main(m, map[string]*string{testbin.MCPFake: &fakeBin})
}

// timeout bounds every call of a test; only a broken client comes near it.
const timeout = 20 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// noGrace is a server's grace in the tests of what must not wait for it:
// waiting would take an hour, which returns fails rather than hangs on.
const noGrace = time.Hour

// returns runs f and fails the test when f has not returned after timeout,
// which only a hang comes near: a safety net, not a measure.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	proctest.Returns(t, what, timeout, f)
}

// --- In memory, against the SDK's server ---

// serve connects a client to server over in-memory transports.
func serve(t *testing.T, server *mcp.Server) *Session {
	t.Helper()
	ctx := testContext(t)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Connect(ctx, ct, 10*time.Second, nil)
	if err != nil {
		ss.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		ss.Close()
	})
	return s
}

func newServer(opts *mcp.ServerOptions) *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "sdk-server", Version: "2.0.0"}, opts)
}

// okHandler answers every call with the text "ok".
func okHandler(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

func toolName(i int) string { return fmt.Sprintf("tool_%03d", i) }

// names returns the names of tools.
func names(tools []Tool) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// countLists counts the tools/list requests server receives.
func countLists(server *mcp.Server) *atomic.Int32 {
	n := &atomic.Int32{}
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				n.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return n
}

func TestToolsPagesInMemory(t *testing.T) {
	tests := []struct {
		name      string
		tools     int
		pageSize  int
		wantPages int32
	}{
		{name: "one default page", tools: 5, pageSize: 0, wantPages: 1},
		{name: "one full page", tools: 3, pageSize: 3, wantPages: 1},
		{name: "full pages", tools: 6, pageSize: 3, wantPages: 2},
		{name: "short last page", tools: 7, pageSize: 3, wantPages: 3},
		{name: "a tool a page", tools: 4, pageSize: 1, wantPages: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := newServer(&mcp.ServerOptions{PageSize: tt.pageSize})
			var want []string
			for i := range tt.tools {
				server.AddTool(&mcp.Tool{Name: toolName(i), InputSchema: json.RawMessage(`{"type":"object"}`)}, okHandler)
				want = append(want, toolName(i))
			}
			lists := countLists(server)
			s := serve(t, server)
			tools, _, err := s.Tools(testContext(t), Budget{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, names(tools)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if got := lists.Load(); got != tt.wantPages {
				t.Errorf("%d tools/list requests, want %d", got, tt.wantPages)
			}
		})
	}
}

// flatTool is a Tool with its JSON values as text, for comparisons.
type flatTool struct {
	Name, Title, Description string
	Input, Output            string
	Annotations              string
}

func flatten(tools []Tool) []flatTool {
	var out []flatTool
	for _, t := range tools {
		f := flatTool{Name: t.Name, Title: t.Title, Description: t.Description}
		f.Input, f.Output, f.Annotations = string(t.InputSchema), string(t.OutputSchema), string(t.Annotations)
		out = append(out, f)
	}
	return out
}

// compact returns the JSON s without whitespace, nothing else changed.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return b.String()
}

// remarshaled returns the JSON s as it comes out of a map: keys sorted,
// numbers as float64. A schema test that passes must not be equal to it.
func remarshaled(t *testing.T, s string) string {
	t.Helper()
	var x any
	if err := json.Unmarshal([]byte(s), &x); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// schemaTests are input schemas whose keys are out of alphabetical order
// and whose numbers are not written as Go writes float64s.
var schemaTests = []struct {
	name   string
	schema string
}{
	{
		name: "ref and defs",
		schema: `{
			"type": "object",
			"properties": {"root": {"$ref": "#/$defs/node"}},
			"$defs": {
				"node": {
					"type": "object",
					"properties": {
						"value": {"type": "integer", "maximum": 1.50e3},
						"next": {"$ref": "#/$defs/node"}
					},
					"required": ["value"]
				}
			}
		}`,
	},
	{
		name: "anyOf",
		schema: `{
			"type": "object",
			"properties": {
				"v": {"anyOf": [
					{"type": "string", "maxLength": 10},
					{"type": "number", "minimum": -1.0E+2},
					{"type": "null"}
				]}
			}
		}`,
	},
	{
		name: "nested items",
		schema: `{
			"type": "object",
			"properties": {
				"matrix": {
					"type": "array",
					"items": {
						"type": "array",
						"items": {"type": "object", "properties": {"z": {"type": "number", "default": 0.10}, "a": {"type": "boolean"}}},
						"minItems": 2
					}
				}
			}
		}`,
	},
	{
		name: "numbers",
		schema: `{
			"type": "object",
			"properties": {
				"n": {"type": "number", "multipleOf": 1e-2, "maximum": 12345678901234567890, "minimum": -0, "default": 100.0}
			}
		}`,
	},
	{
		name:   "escapes",
		schema: `{"type": "object", "properties": {"caf\u00e9": {"type": "string", "pattern": "^\\d+\/\\d+$", "description": "\"quoted\" \u2603"}}}`,
	},
}

func TestToolsSchemasInMemory(t *testing.T) {
	for _, tt := range schemaTests {
		t.Run(tt.name, func(t *testing.T) {
			want := compact(t, tt.schema)
			if want == remarshaled(t, tt.schema) {
				t.Fatalf("the schema survives a map: it proves nothing")
			}
			server := newServer(&mcp.ServerOptions{PageSize: 1})
			server.AddTool(&mcp.Tool{Name: "a", InputSchema: json.RawMessage(tt.schema)}, okHandler)
			server.AddTool(&mcp.Tool{Name: "b", InputSchema: json.RawMessage(tt.schema)}, okHandler)
			s := serve(t, server)
			tools, _, err := s.Tools(testContext(t), Budget{})
			if err != nil {
				t.Fatal(err)
			}
			wantTools := []flatTool{{Name: "a", Input: want}, {Name: "b", Input: want}}
			if diff := cmp.Diff(wantTools, flatten(tools)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolsFieldsInMemory(t *testing.T) {
	no := false
	server := newServer(nil)
	server.AddTool(&mcp.Tool{
		Name:         "read",
		Title:        "Read a file",
		Description:  "Reads a file.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["lines"],"properties":{"lines":{"type":"integer","maximum":1e6}}}`),
		Annotations:  &mcp.ToolAnnotations{Title: "Reader", ReadOnlyHint: true, DestructiveHint: &no},
	}, okHandler)
	server.AddTool(&mcp.Tool{Name: "bare", InputSchema: json.RawMessage(`{"type":"object"}`)}, okHandler)
	s := serve(t, server)
	if s.Info == nil || s.Info.Name != "sdk-server" || s.Info.Version != "2.0.0" {
		t.Errorf("Info = %+v, want sdk-server 2.0.0", s.Info)
	}
	tools, _, err := s.Tools(testContext(t), Budget{})
	if err != nil {
		t.Fatal(err)
	}
	want := []flatTool{
		{Name: "bare", Input: `{"type":"object"}`},
		{
			Name:        "read",
			Title:       "Read a file",
			Description: "Reads a file.",
			Input:       `{"type":"object","properties":{"path":{"type":"string"}}}`,
			Output:      `{"type":"object","required":["lines"],"properties":{"lines":{"type":"integer","maximum":1e6}}}`,
			Annotations: `{"destructiveHint":false,"idempotentHint":false,"readOnlyHint":true,"title":"Reader"}`,
		},
	}
	if diff := cmp.Diff(want, flatten(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestToolsCachedInMemory lists the tools twice from a server that lets
// clients cache tools/list (SEP-2549 ttlMs). The SDK's client then answers
// the second ListTools from its cache, with no response on the connection
// for the tap to see, and the schemas must still be the server's bytes.
func TestToolsCachedInMemory(t *testing.T) {
	const schema = `{"type":"object","properties":{"z":{"type":"number","maximum":1.50e3},"a":{"type":"string"}}}`
	server := newServer(&mcp.ServerOptions{
		PageSize: 1,
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			c.TTLMs = 60_000
		},
	})
	server.AddTool(&mcp.Tool{Name: "a", InputSchema: json.RawMessage(schema)}, okHandler)
	server.AddTool(&mcp.Tool{Name: "b", InputSchema: json.RawMessage(schema)}, okHandler)
	s := serve(t, server)
	want := []flatTool{{Name: "a", Input: schema}, {Name: "b", Input: schema}}
	for i := range 2 {
		tools, _, err := s.Tools(testContext(t), Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, flatten(tools)); diff != "" {
			t.Errorf("listing %d (-want +got):\n%s", i+1, diff)
		}
	}
}

// waitChange waits for a signal on s.Changes().
func waitChange(t *testing.T, s *Session, after string) {
	t.Helper()
	select {
	case <-s.Changes():
	case <-time.After(10 * time.Second):
		t.Fatalf("no change signalled after %s", after)
	}
}

func TestChangesInMemory(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	server := newServer(nil)
	server.AddTool(&mcp.Tool{Name: "a", InputSchema: schema}, okHandler)
	s := serve(t, server)
	ctx := testContext(t)
	if _, _, err := s.Tools(ctx, Budget{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Changes():
		t.Fatal("a change is signalled before any")
	default:
	}
	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{name: "tool added", change: func() { server.AddTool(&mcp.Tool{Name: "b", InputSchema: schema}, okHandler) }, want: []string{"a", "b"}},
		{name: "tool removed", change: func() { server.RemoveTools("a") }, want: []string{"b"}},
	}
	for _, step := range steps {
		step.change()
		waitChange(t, s, step.name)
		tools, _, err := s.Tools(ctx, Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(step.want, names(tools)); diff != "" {
			t.Errorf("tools after %s (-want +got):\n%s", step.name, diff)
		}
	}
}

// sdkMetaPrefix marks the _meta keys the SDK adds to requests of the
// stateless protocol (SEP-2575).
const sdkMetaPrefix = "io.modelcontextprotocol/"

// echoed is what the echo tools return.
type echoed struct {
	Arguments map[string]any `json:"arguments"`
	Meta      map[string]any `json:"_meta"`
}

func TestCallInMemory(t *testing.T) {
	server := newServer(nil)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(map[string]any{"arguments": req.Params.Arguments, "_meta": req.Params.Meta})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
	s := serve(t, server)
	tests := []struct {
		name string
		// args and meta build the maps to pass; called twice, they give
		// equal maps, one to pass and one to compare with.
		args, meta func() map[string]any
		wantArgs   map[string]any
	}{
		{
			name:     "arguments and meta",
			args:     func() map[string]any { return map[string]any{"path": "a.txt", "n": 2.5} },
			meta:     func() map[string]any { return map[string]any{"trace": "t-1", "progressToken": "p"} },
			wantArgs: map[string]any{"path": "a.txt", "n": 2.5},
		},
		{
			name: "nested meta",
			args: func() map[string]any { return map[string]any{"deep": map[string]any{"list": []any{1.0, "x"}}} },
			meta: func() map[string]any {
				return map[string]any{"ctx": map[string]any{"user": "u", "tags": []any{"a", "b"}}}
			},
			wantArgs: map[string]any{"deep": map[string]any{"list": []any{1.0, "x"}}},
		},
		{
			name:     "empty meta",
			args:     func() map[string]any { return map[string]any{"k": true} },
			meta:     func() map[string]any { return map[string]any{} },
			wantArgs: map[string]any{"k": true},
		},
		{
			name:     "no meta",
			args:     func() map[string]any { return map[string]any{"k": "v"} },
			meta:     func() map[string]any { return nil },
			wantArgs: map[string]any{"k": "v"},
		},
		{
			name:     "no arguments",
			args:     func() map[string]any { return nil },
			meta:     func() map[string]any { return map[string]any{"m": "v"} },
			wantArgs: map[string]any{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, meta := tt.args(), tt.meta()
			res, err := s.Call(testContext(t), "echo", rawArgs(t, args), meta)
			if err != nil {
				t.Fatal(err)
			}
			var got echoed
			if err := json.Unmarshal([]byte(text(t, res)), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantArgs, got.Arguments); diff != "" {
				t.Errorf("arguments received (-want +got):\n%s", diff)
			}
			// On 2026-07-28 the SDK adds its own keys to _meta: the
			// proof that it writes into the map it is given. strata asks
			// its servers for UpstreamProtocol, where it adds none.
			if _, ok := got.Meta[sdkMetaPrefix+"protocolVersion"]; !ok && UpstreamProtocol >= "2026-07-28" {
				t.Errorf("_meta received %v has no %sprotocolVersion: the test no longer shows the SDK writing _meta", got.Meta, sdkMetaPrefix)
			}
			wantMeta := tt.meta()
			for k, v := range got.Meta {
				if strings.HasPrefix(k, sdkMetaPrefix) {
					continue
				}
				if wantMeta == nil {
					wantMeta = map[string]any{}
				}
				if _, ok := wantMeta[k]; !ok {
					t.Errorf("_meta received has %q = %v, not given", k, v)
				}
			}
			for k, v := range wantMeta {
				if diff := cmp.Diff(v, got.Meta[k]); diff != "" {
					t.Errorf("_meta[%q] received (-want +got):\n%s", k, diff)
				}
			}
			if diff := cmp.Diff(tt.args(), args); diff != "" {
				t.Errorf("the caller's arguments changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(tt.meta(), meta); diff != "" {
				t.Errorf("the caller's _meta changed (-before +after):\n%s", diff)
			}
		})
	}
}

// text returns the text of a result of one text content.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%d contents, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

// --- Real processes: the mcpfake fixture ---

// fake returns a spec running mcpfake with args, skipping the test when
// it could not be built.
func fake(t *testing.T, args ...string) Local {
	t.Helper()
	if fakeBin == "" {
		t.Skip("no go command to build mcpfake with")
	}
	return Local{Command: secret.Plain(fakeBin), Args: secret.Plains(args...), Env: secret.Plains("PATH=" + os.Getenv("PATH"))}
}

// start starts spec, closing the session when the test ends.
func start(t *testing.T, spec Local) *Session {
	t.Helper()
	s, err := Start(testContext(t), spec, 10*time.Second)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// startLogged runs mcpfake with args and -log, and returns the process
// ids it logged at start so far (read them after Start returns).
func startLogged(t *testing.T, args ...string) (Local, func() []int) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "starts.txt")
	spec := fake(t, append([]string{"-log", log}, args...)...)
	pids := func() []int {
		b, err := os.ReadFile(log)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			pid, err := strconv.Atoi(strings.TrimPrefix(line, "start "))
			if !strings.HasPrefix(line, "start ") || err != nil {
				t.Fatalf("log line %q, want start <pid>", line)
			}
			out = append(out, pid)
		}
		return out
	}
	t.Cleanup(func() {
		// Leave nothing behind, even when the test failed.
		for _, pid := range pids() {
			if len(proctest.Group(pid)) > 0 {
				proctest.KillGroup(pid)
			}
		}
	})
	return spec, pids
}

// onePid returns the only process id of the log.
func onePid(t *testing.T, pids func() []int) int {
	t.Helper()
	got := pids()
	if len(got) != 1 {
		t.Fatalf("started %d times (%v), want once", len(got), got)
	}
	return got[0]
}

func TestStartTools(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		budget    Budget
		wantTools int
		wantCut   *Cut
		wantErr   string
	}{
		{name: "one page", args: []string{"-tools", "3"}, wantTools: 3},
		{name: "no tools", args: nil, wantTools: 0},
		{name: "pages", args: []string{"-tools", "250", "-page-size", "100"}, wantTools: 250},
		// The budget counts tools and bytes, not pages.
		{name: "150 pages", args: []string{"-tools", "150", "-page-size", "1"}, wantTools: 150},
		{
			name:      "past the tools of the budget",
			args:      []string{"-tools", "12", "-page-size", "3"},
			budget:    Budget{Tools: 5},
			wantTools: 5,
			// Five tools of 80 bytes, and the first page's cursor
			// ("nextCursor" and "after-3", quoted).
			wantCut: &Cut{Kept: 5, Bytes: 5*80 + 10 + 9, By: "tools", Bound: 5},
		},
		{
			name:      "past the bytes of the budget",
			args:      []string{"-tools", "20", "-page-size", "4"},
			budget:    Budget{Bytes: 500},
			wantTools: 6,
			wantCut:   &Cut{Kept: 6, Bytes: 6*80 + 10 + 9, By: "bytes", Bound: 500},
		},
		{
			name:      "past the default budget",
			args:      []string{"-tools", "10001", "-page-size", "4000"},
			wantTools: 10_000,
			wantCut:   &Cut{Kept: 10_000, Bytes: 10*80 + 90*81 + 900*82 + 9000*84 + 2*(10+12), By: "tools", Bound: 10_000},
		},
		{
			name:    "repeated cursor",
			args:    []string{"-tools", "5", "-page-size", "2", "-repeat-cursor"},
			wantErr: `tools/list repeats the cursor "same-cursor"`,
		},
		{
			name:    "repeated cursor on one page",
			args:    []string{"-tools", "1", "-repeat-cursor"},
			wantErr: `tools/list repeats the cursor "same-cursor"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, fake(t, tt.args...))
			tools, cut, err := s.Tools(testContext(t), tt.budget)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if tools != nil {
					t.Errorf("%d tools with the error, want none", len(tools))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := []string{}
			for i := range tt.wantTools {
				want = append(want, toolName(i))
			}
			if diff := cmp.Diff(want, names(tools)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCut, cut); diff != "" {
				t.Errorf("cut (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStartRawSchema(t *testing.T) {
	file := filepath.Join("testdata", "schema.json")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := compact(t, string(raw))
	if want == remarshaled(t, string(raw)) {
		t.Fatalf("%s survives a map: it proves nothing", file)
	}
	s := start(t, fake(t, "-schema", file, "-tools", "3", "-page-size", "2", "-echo"))
	tools, _, err := s.Tools(testContext(t), Budget{})
	if err != nil {
		t.Fatal(err)
	}
	wantTools := []flatTool{
		{Name: "tool_000", Description: "Fake tool 0.", Input: want},
		{Name: "tool_001", Description: "Fake tool 1.", Input: want},
		{Name: "tool_002", Description: "Fake tool 2.", Input: want},
		{Name: "echo", Description: "Returns its arguments and _meta.", Input: want},
	}
	if diff := cmp.Diff(wantTools, flatten(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestStartInfoAndStderr(t *testing.T) {
	spec, pids := startLogged(t, "-stderr", "ready\nlistening on stdio")
	s := start(t, spec)
	onePid(t, pids)
	if s.Info == nil || s.Info.Name != "mcpfake" || s.Info.Version != "1.0.0" {
		t.Errorf("Info = %+v, want mcpfake 1.0.0", s.Info)
	}
	// Stderr is copied as the server writes it: wait for it.
	deadline := time.Now().Add(10 * time.Second)
	for s.Stderr.String() != "ready\nlistening on stdio\n" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.Stderr.String(); got != "ready\nlistening on stdio\n" {
		t.Errorf("Stderr = %q, want what the server wrote", got)
	}
	if got := s.Stderr.LastLine(); got != "listening on stdio" {
		t.Errorf("LastLine = %q, want the last line", got)
	}
}

func TestStartOutlivesContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, fake(t, "-tools", "2"), 10*time.Second)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer s.Close()
	cancel()
	tools, _, err := s.Tools(testContext(t), Budget{})
	if err != nil {
		t.Fatalf("Tools after Start's context was canceled: %v", err)
	}
	if diff := cmp.Diff([]string{"tool_000", "tool_001"}, names(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestStartFails(t *testing.T) {
	const short = 300 * time.Millisecond
	self, err := os.Executable() // a file that exists: mcpfake -fail-if exits at once
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		startup time.Duration
		want    string
		timeout bool
	}{
		{
			name:    "hangs in initialize",
			args:    []string{"-hang-init"},
			startup: short,
			want:    fmt.Sprintf("did not start within %v", short),
			timeout: true,
		},
		{
			name:    "hangs in initialize and says why",
			args:    []string{"-hang-init", "-stderr", "waiting for the database"},
			startup: short,
			want:    fmt.Sprintf("did not start within %v; its stderr ends: waiting for the database", short),
			timeout: true,
		},
		{
			name:    "exits at once and says why",
			args:    []string{"-stderr", "Error: ENOENT: no such file or directory, stat '/nope'", "-fail-if", self},
			startup: 10 * time.Second,
			want:    "exited during its start (exit status 1); its stderr ends: Error: ENOENT: no such file or directory, stat '/nope'",
		},
		{
			name:    "crashes after initialize",
			args:    []string{"-crash-after-init"},
			startup: 10 * time.Second,
			want:    "exited during its start (exit status 3)",
		},
		{
			name:    "crashes after initialize and says why",
			args:    []string{"-crash-after-init", "-stderr", "panic: out of cheese"},
			startup: 10 * time.Second,
			want:    "exited during its start (exit status 3); its stderr ends: panic: out of cheese",
		},
		{
			name:    "crashes after initialize and says it in lines",
			args:    []string{"-crash-after-init", "-stderr", "goroutine 1:\npanic: out of cheese\n\n"},
			startup: 10 * time.Second,
			want:    "exited during its start (exit status 3); its stderr ends: goroutine 1: | panic: out of cheese",
		},
		{
			name:    "a stack trace: the error, not the frames",
			args:    []string{"-stderr", "Error: Cannot find module 'x'\n    at Module._resolveFilename (node:internal/modules:1:2)\n    at Module._load (node:internal/modules:3:4)\nNode.js v20", "-fail-if", self},
			startup: 10 * time.Second,
			want:    "exited during its start (exit status 1); its stderr ends: Error: Cannot find module 'x' | Node.js v20",
		},
		{
			name:    "the last lines only, escaped",
			args:    []string{"-stderr", "1\n2\n3\n4\n5\n6\n\x1b]0;pwned\x07 7", "-fail-if", self},
			startup: 10 * time.Second,
			want:    `exited during its start (exit status 1); its stderr ends: 3 | 4 | 5 | 6 | \x1b]0;pwned\x07 7`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec, pids := startLogged(t, tt.args...)
			// The server exits by itself, or with its stdin: Start, giving
			// up, does not wait for its grace.
			spec.Grace = noGrace
			var s *Session
			var err error
			returns(t, "Start", func() { s, err = Start(testContext(t), spec, tt.startup) })
			if err == nil {
				s.Close()
				t.Fatal("Start succeeded, want an error")
			}
			// The server's stderr is not in the error's text, which a
			// gateway's clients may get: only the local user sees it.
			if strings.Contains(err.Error(), "stderr") {
				t.Errorf("the error's text holds the server's stderr: %s", err)
			}
			got := err.Error()
			if text := StderrText(StderrOf(err)); text != "" {
				got += "; " + text
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error and stderr (-want +got):\n%s", diff)
			}
			var se *StartError
			if !errors.As(err, &se) || (se.Timeout > 0) != tt.timeout {
				t.Errorf("error %#v, want a StartError (timeout %v)", err, tt.timeout)
			}
			pid := onePid(t, pids)
			if got := waitGone(pid); len(got) > 0 {
				t.Errorf("processes left of the group: %v", got)
			}
		})
	}
}

// TestStderrLastLines: the last lines of a server's stderr are those it
// wrote last, however much it wrote before.
func TestStderrLastLines(t *testing.T) {
	for _, n := range []int{5000, stderrCap - 3, stderrCap + 5, stderrCap + stderrTail/2, 3 * stderrCap} {
		var s Stderr
		for i := 0; i < n; i += 1000 {
			fmt.Fprintf(&s, "%0999d\n", i) // 1000 bytes a line
		}
		s.Write([]byte("almost\nthe end\n"))
		if diff := cmp.Diff([]string{"almost", "the end"}, s.LastLines(StderrLines)[3:]); diff != "" {
			t.Errorf("after %d bytes (-want +got):\n%s", n, diff)
		}
		if got := s.LastLines(StderrLines)[2]; len(got) != 203 || !strings.HasSuffix(got, "...") {
			t.Errorf("after %d bytes, a long line is %q, want 200 bytes and ...", n, got)
		}
	}
}

func TestStartMissingProgram(t *testing.T) {
	_, err := Start(testContext(t), Local{Command: secret.Plain(filepath.Join(t.TempDir(), "missing"))}, time.Second)
	var perr *procs.Error
	if !errors.As(err, &perr) || perr.Kind != procs.KindStart {
		t.Fatalf("error %v, want a procs.Error of KindStart", err)
	}
}

func TestClose(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// wantLive is the live processes of the group before Close, by
		// name.
		wantLive map[string]int
		// grace is the server's: noGrace for a server that exits with its
		// stdin, which Close must not wait for; a short one for a server
		// that only SIGKILL ends, which Close waits for twice.
		grace time.Duration
		// idle, when not 0, is given to SetIdle before Close: the server
		// is sent SIGTERM as its stdin closes, whatever its grace, and
		// SIGKILL after idle.
		idle time.Duration
	}{
		{name: "exits with its stdin", args: nil, wantLive: map[string]int{"mcpfake": 1}, grace: noGrace},
		{name: "ignores the end of stdin", args: []string{"-ignore-stdin-close"}, wantLive: map[string]int{"mcpfake": 1}, grace: 50 * time.Millisecond},
		{name: "leaves a child", args: []string{"-child"}, wantLive: map[string]int{"mcpfake": 1, "sleep": 1}, grace: noGrace},
		{name: "ignores the end of stdin with a child", args: []string{"-ignore-stdin-close", "-child"}, wantLive: map[string]int{"mcpfake": 1, "sleep": 1}, grace: 50 * time.Millisecond},
		// Idle: SIGTERM at once, which mcpfake ignores, then SIGKILL after
		// the idle grace: Close does not wait for the hour of the grace
		// before SIGTERM.
		{name: "ignores the end of stdin, idle", args: []string{"-ignore-stdin-close"}, wantLive: map[string]int{"mcpfake": 1}, grace: noGrace, idle: 50 * time.Millisecond},
		{name: "ignores the end of stdin with a child, idle", args: []string{"-ignore-stdin-close", "-child"}, wantLive: map[string]int{"mcpfake": 1, "sleep": 1}, grace: noGrace, idle: 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec, pids := startLogged(t, append([]string{"-tools", "1"}, tt.args...)...)
			spec.Grace = tt.grace
			s, err := Start(testContext(t), spec, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			pid := onePid(t, pids)
			if got := proctest.WaitGroup(pid, tt.wantLive, 3*time.Second); !cmp.Equal(tt.wantLive, got) {
				t.Fatalf("live processes of the group before Close: %v, want %v", got, tt.wantLive)
			}
			if _, _, err := s.Tools(testContext(t), Budget{}); err != nil {
				t.Fatal(err)
			}
			if tt.idle != 0 {
				s.SetIdle(tt.idle)
			}
			returns(t, "Close", func() { err = s.Close() })
			if err != nil {
				t.Errorf("Close: %v", err)
			}
			if got := waitGone(pid); len(got) > 0 {
				t.Errorf("processes left of the group after Close: %v", got)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			onePid(t, pids)
		})
	}
}

func TestCallFake(t *testing.T) {
	const outcome = `{"type": "success", "content": "3 lines"}`
	s := start(t, fake(t, "-echo", "-outcome", outcome, "-error", "-tools", "1"))
	tests := []struct {
		name        string
		tool        string
		args, meta  func() map[string]any
		wantText    string
		wantIsError bool
	}{
		{
			name: "echo",
			tool: "echo",
			args: func() map[string]any { return map[string]any{"b": 1, "a": "x"} },
			meta: func() map[string]any {
				return map[string]any{"trace": "t-1", "nested": map[string]any{"k": []any{1, 2}}}
			},
			wantText: `{"arguments":{"a":"x","b":1},"_meta":{"nested":{"k":[1,2]},"trace":"t-1"}}`,
		},
		{
			name:     "echo without meta",
			tool:     "echo",
			args:     func() map[string]any { return map[string]any{"k": "v"} },
			meta:     func() map[string]any { return nil },
			wantText: `{"arguments":{"k":"v"},"_meta":null}`,
		},
		{
			// The SDK sends {} for no arguments, as the protocol wants an
			// object there.
			name:     "echo without arguments",
			tool:     "echo",
			args:     func() map[string]any { return nil },
			meta:     func() map[string]any { return nil },
			wantText: `{"arguments":{},"_meta":null}`,
		},
		{
			// An empty _meta is left out (omitempty).
			name:     "echo with empty meta",
			tool:     "echo",
			args:     func() map[string]any { return map[string]any{} },
			meta:     func() map[string]any { return map[string]any{} },
			wantText: `{"arguments":{},"_meta":null}`,
		},
		{
			name:     "outcome",
			tool:     "jp",
			args:     func() map[string]any { return map[string]any{"path": "a"} },
			meta:     func() map[string]any { return nil },
			wantText: outcome,
		},
		{
			name:        "error",
			tool:        "fail",
			args:        func() map[string]any { return nil },
			meta:        func() map[string]any { return nil },
			wantText:    "fail: the tool failed on purpose",
			wantIsError: true,
		},
		{
			name:     "numbered tool",
			tool:     "tool_000",
			args:     func() map[string]any { return nil },
			meta:     func() map[string]any { return nil },
			wantText: "tool_000: ok",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, meta := tt.args(), tt.meta()
			res, err := s.Call(testContext(t), tt.tool, rawArgs(t, args), meta)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantText, text(t, res)); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if res.IsError != tt.wantIsError {
				t.Errorf("isError = %v, want %v", res.IsError, tt.wantIsError)
			}
			if diff := cmp.Diff(tt.args(), args); diff != "" {
				t.Errorf("the caller's arguments changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(tt.meta(), meta); diff != "" {
				t.Errorf("the caller's _meta changed (-before +after):\n%s", diff)
			}
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		_, err := s.Call(testContext(t), "nope", nil, nil)
		if err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) {
			t.Errorf("error %v, want the server's unknown tool", err)
		}
	})
}

// --- Process groups ---

// waitGone waits a few seconds at most for group pgid to have no live
// process, and returns those left.
func waitGone(pgid int) map[string]int {
	return proctest.WaitGroup(pgid, map[string]int{}, 3*time.Second)
}

// rawArgs marshals call arguments; nil stays nil.
func rawArgs(t *testing.T, args map[string]any) json.RawMessage {
	t.Helper()
	if args == nil {
		return nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestToolOf: a listed tool is its compact text, whole, with its schemas
// and annotations as slices of it (held once); a tool the SDK decoded
// keeps no whole text.
func TestToolOf(t *testing.T) {
	const listed = `{ "name": "read", "title": "Read", "description": "Reads\u0021",
		"inputSchema": {"type": "object", "properties": {"p": {"type": "string"}}},
		"annotations": {"readOnlyHint": true}, "_meta": {"k": 1e0} }`
	v := jsonv.MustParse(listed)
	for _, decoded := range []bool{false, true} {
		got := ToolOf(v.JSON(), decoded)
		want := Tool{Name: "read", Title: "Read", Description: "Reads!",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}}}`),
			Annotations: json.RawMessage(`{"readOnlyHint":true}`)}
		if !decoded {
			want.Raw = json.RawMessage(`{"name":"read","title":"Read","description":"Reads\u0021","inputSchema":{"type":"object","properties":{"p":{"type":"string"}}},"annotations":{"readOnlyHint":true},"_meta":{"k":1e0}}`)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ToolOf(decoded %v) (-want +got):\n%s", decoded, diff)
		}
		if !decoded {
			for _, part := range []json.RawMessage{got.InputSchema, got.Annotations} {
				if i := bytes.Index(got.Raw, part); i < 0 || &got.Raw[i] != &part[0] {
					t.Errorf("%s is a copy, not a slice of the tool's text", part)
				}
			}
		}
	}
}

// FuzzPageTools: whatever a server answers to tools/list, reading the page
// fails or keeps tools that have names, whose texts are compact JSON and
// whose schemas and annotations are slices of their text.
func FuzzPageTools(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{},"annotations":{"readOnlyHint":true}}],"nextCursor":"x"}`))
	f.Add([]byte(`{"_meta":{},"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"h":{"type":"string","x-mcp-header":"H"}}}},{"name":""},{"name":"b", "title" : "B\u00e9"}]}`))
	f.Add([]byte(`{"tools":null}`))
	f.Add([]byte(`{"tools":[{"name":"a","name":"b"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, _, _, err := pageTools(nil, 0, raw, Budget{Tools: 5, Bytes: 1 << 16}, nil)
		if err != nil {
			return
		}
		if len(out) > 5 {
			t.Fatalf("%d tools kept, past the budget's 5", len(out))
		}
		for _, tool := range out {
			var compact bytes.Buffer
			if tool.Name == "" || json.Compact(&compact, tool.Raw) != nil || !bytes.Equal(compact.Bytes(), tool.Raw) {
				t.Fatalf("tool %q: its text is not compact JSON: %s", tool.Name, tool.Raw)
			}
			for _, part := range []json.RawMessage{tool.InputSchema, tool.OutputSchema, tool.Annotations} {
				if part == nil {
					continue
				}
				if !json.Valid(part) || !sliceOf(tool.Raw, part) {
					t.Fatalf("tool %q: %s is not a JSON slice of its text %s", tool.Name, part, tool.Raw)
				}
			}
		}
	})
}

// sliceOf reports whether part is a slice of whole, not a copy of a part
// of it.
func sliceOf(whole, part []byte) bool {
	for i := range len(whole) - len(part) + 1 {
		if &whole[i] == &part[0] {
			return bytes.Equal(whole[i:i+len(part)], part)
		}
	}
	return false
}
