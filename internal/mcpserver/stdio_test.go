package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/internal/proctest"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// rawSession serves a catalog of one builtin tool over pipes and returns a
// function that sends a line and one that reads the next answer. With
// osPipe, the server reads a pipe of the system, as strata serve reads its
// stdin, rather than an io.Pipe.
func rawSession(t *testing.T, osPipe bool) (send func(string), recv func() map[string]any, fingerprint string) {
	t.Helper()
	cfg := config.Default()
	cfg.Tools["echo"] = config.Tool{Source: config.Source{Kind: config.SourceBuiltin}, Run: config.Always(config.RunUnattended)}
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"echo": {Name: "echo", InputSchema: resolve.MustSchema(`{"type":"object"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) {
		return &mcpserver.Snapshot{Runner: &call.Runner{Catalog: cat}}, nil
	}}
	var inR io.Reader
	var inW io.WriteCloser
	if osPipe {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		r.Fd() // blocking, as a process inherits a pipe
		inR, inW = r, w
	} else {
		inR, inW = io.Pipe()
	}
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, inR, outW); outW.Close() }()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
	})
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send = func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv = func() map[string]any {
		if !lines.Scan() {
			t.Fatalf("the server ended: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %s", lines.Bytes())
		}
		return m
	}
	return send, recv, cat.Fingerprint
}

// TestStdioRobust: malformed lines are answered and the session goes on;
// requests before initialize are refused with a JSON-RPC code; the
// identity method is answered.
func TestStdioRobust(t *testing.T) {
	for _, osPipe := range []bool{false, true} {
		t.Run(map[bool]string{false: "io.Pipe", true: "os.Pipe"}[osPipe], func(t *testing.T) { testStdioRobust(t, osPipe) })
	}
}

func testStdioRobust(t *testing.T, osPipe bool) {
	send, recv, fingerprint := rawSession(t, osPipe)
	errorOf := func(m map[string]any) (any, float64) {
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		return m["id"], code
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"`) // cut short
	if id, code := errorOf(recv()); id != nil || code != -32700 {
		t.Errorf("a line that is not JSON: id %v, code %v", id, code)
	}
	send(`not json at all`)
	if _, code := errorOf(recv()); code != -32700 {
		t.Errorf("garbage: code %v", code)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if id, code := errorOf(recv()); id != float64(2) || code != -32600 {
		t.Errorf("a request before initialize: id %v, code %v", id, code)
	}
	send(`{"jsonrpc":"2.0","id":"who","method":"server/identity"}`)
	got := recv()
	want := map[string]any{"jsonrpc": "2.0", "id": "who", "result": map[string]any{"server_id": mcpserver.UUID(fingerprint), "tools_count": float64(1), "protocol_version": "1.0"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("server/identity (-want +got):\n%s", diff)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := recv(); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	r := recv()
	if !strings.Contains(fmt.Sprint(r["result"]), "name:echo") {
		t.Errorf("tools/list after the bad lines: %v", r)
	}
}

func TestUUID(t *testing.T) {
	a, b := mcpserver.UUID("sha256:a"), mcpserver.UUID("sha256:b")
	if len(a) != 36 || a[14] != '8' || !strings.ContainsRune("89ab", rune(a[19])) || a == b || mcpserver.UUID("sha256:a") != a {
		t.Errorf("UUID: %s, %s", a, b)
	}
}

// TestStdioAnswersBeforeEOF: input that ends right after its requests
// (`printf ... | strata serve`) still gets every answer, a call that is
// under way when the input ends included; then the server ends.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	cfg := config.Default()
	cfg.Tools["wait"] = config.Tool{Source: config.Source{Kind: config.SourceBuiltin}, Run: config.Always(config.RunUnattended)}
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"wait": {Name: "wait", InputSchema: resolve.MustSchema(`{"type":"object"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	builtin := func(context.Context, protocol.Context) (protocol.Outcome, error) {
		close(started)
		<-release
		return protocol.Outcome{Type: protocol.Success, Content: "done"}, nil
	}
	s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) {
		return &mcpserver.Snapshot{Runner: &call.Runner{Catalog: cat, Builtin: builtin}}, nil
	}}
	in := strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n")
	var out proctest.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, in, &out) }()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the call did not start")
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not end after its input did")
	}
	var ids []float64
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     *float64       `json:"id"`
			Result map[string]any `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && m.Result != nil {
			ids = append(ids, *m.ID)
		}
	}
	slices.Sort(ids)
	if diff := cmp.Diff([]float64{1, 2, 3}, ids); diff != "" {
		t.Errorf("the requests answered (-want +got):\n%s\n%s", diff, out.String())
	}
}
