package strata_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/internal/proctest"
)

// httpServe is a strata serve --http process of a test.
type httpServe struct {
	url, token string
	stderr     *proctest.Buffer
}

// serveHTTP starts strata serve --http on a free loopback port, on the
// trusted workspace of s, with the flags args, and waits for it to say
// where it listens.
func (s *setup) serveHTTP(t *testing.T, args ...string) *httpServe {
	t.Helper()
	cmd := exec.Command(strataBin, append([]string{"serve", "--root", s.repo, "--trust", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(slices.Clone(s.environ), "XDG_CACHE_HOME="+filepath.Join(s.dir, "cache"))
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &httpServe{stderr: &proctest.Buffer{}}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("strata said:\n%s", h.stderr)
		}
	})
	lines := bufio.NewScanner(pipe)
	for h.url == "" && lines.Scan() {
		line := lines.Text()
		h.stderr.Write([]byte(line + "\n"))
		if u, ok := strings.CutPrefix(line, "strata: serving MCP on "); ok {
			h.url = u
		}
	}
	go io.Copy(h.stderr, pipe)
	if h.url == "" {
		t.Fatalf("strata did not say where it serves:\n%s", h.stderr)
	}
	b, err := os.ReadFile(filepath.Join(s.dir, "cache", "strata", "serve-token"))
	if err != nil {
		t.Fatal(err)
	}
	h.token = strings.TrimSpace(string(b))
	return h
}

// get GETs path (such as /health) of the gateway with its token, and
// returns the body of its 200 answer.
func (h *httpServe) get(t *testing.T, path string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", strings.TrimSuffix(h.url, "/mcp")+path, nil)
	req.Header.Set("Authorization", "Bearer "+h.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", path, res.StatusCode, b)
	}
	return string(b)
}

// post POSTs the JSON-RPC message body to the gateway's /mcp with its
// token, as a client of streamable HTTP does, and returns the answer.
func (h *httpServe) post(t *testing.T, body string) *http.Response {
	t.Helper()
	return h.postAs(t, "application/json", body)
}

// postAs is post with the Content-Type contentType.
func (h *httpServe) postAs(t *testing.T, contentType, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+h.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// connect connects the Go SDK's client on protocol version to h.
func (h *httpServe) connect(t *testing.T, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: h.token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, opts).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("%v; strata said:\n%s", err, h.stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// starts returns the pids of the starts mcpfake -log recorded in file.
func starts(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var pids []string
	for _, line := range strings.Fields(string(b)) {
		if line != "start" {
			pids = append(pids, line)
		}
	}
	return pids
}

// TestServeHTTP: strata serve --http serves clients of both protocols at
// once, one process of each MCP server for all of them (started once,
// started again when it ends), and refuses requests without the token,
// from a foreign origin or for a foreign host.
func TestServeHTTP(t *testing.T) {
	t.Parallel()
	// The clients declare no elicitation, so nobody could be asked: the
	// tools run unattended.
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.fake]
command = "MCPFAKE"
args = ["-echo", "-log", "DIR/starts"]
expose = "all"

[tools.'*']
run = "unattended"
`})
	callLog := filepath.Join(s.dir, "calls.jsonl")
	h := s.serveHTTP(t, "--call-log", callLog)
	log := filepath.Join(s.dir, "starts")

	t.Run("refused", func(t *testing.T) {
		tests := []struct {
			name    string
			headers map[string]string
			want    int
		}{
			{"no token", nil, http.StatusUnauthorized},
			{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", len(h.token))}, http.StatusUnauthorized},
			{"token of another scheme", map[string]string{"Authorization": "Basic " + h.token}, http.StatusUnauthorized},
			{"foreign origin", map[string]string{"Authorization": "Bearer " + h.token, "Origin": "https://evil.example"}, http.StatusForbidden},
			{"foreign origin without token", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
			{"null origin", map[string]string{"Authorization": "Bearer " + h.token, "Origin": "null"}, http.StatusForbidden},
			{"rebound host", map[string]string{"Authorization": "Bearer " + h.token, "Host": "evil.example"}, http.StatusForbidden},
			{"rebound host and its origin", map[string]string{"Authorization": "Bearer " + h.token, "Host": "evil.example", "Origin": "http://evil.example"}, http.StatusForbidden},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				req, _ := http.NewRequest("POST", h.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range tt.headers {
					req.Header.Set(k, v)
				}
				if host := tt.headers["Host"]; host != "" {
					req.Host = host
				}
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != tt.want {
					t.Errorf("status %d, want %d", res.StatusCode, tt.want)
				}
			})
		}
	})

	t.Run("clients share the servers", func(t *testing.T) {
		before := starts(t, log)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var got []string
		for i, version := range []string{"2025-11-25", "2026-07-28", "2025-11-25", "2026-07-28"} {
			wg.Go(func() {
				cs := h.connect(t, version, nil)
				for j := range 5 {
					arg := strconv.Itoa(i) + "-" + strconv.Itoa(j)
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": arg}})
					mu.Lock()
					if err != nil {
						got = append(got, err.Error())
					} else {
						got = append(got, mcptest.Text(res))
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(got) != 20 {
			t.Fatalf("%d answers", len(got))
		}
		for _, g := range got {
			if !strings.HasPrefix(g, `{"arguments":{"x":"`) {
				t.Errorf("answer %s", g)
			}
		}
		if after := starts(t, log); len(after) != 1 || !slices.Equal(before, after) {
			t.Errorf("the server started %v before the clients and %v after them, want once", before, after)
		}
	})

	t.Run("server/identity", func(t *testing.T) {
		fingerprint := h.connect(t, "2025-11-25", nil).InitializeResult().ServerInfo.Version
		res := h.post(t, `{"jsonrpc":"2.0","id":"who","method":"server/identity"}`)
		defer res.Body.Close()
		var got map[string]any
		if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"jsonrpc": "2.0", "id": "who", "result": map[string]any{"server_id": mcpserver.UUID(fingerprint), "tools_count": float64(1), "protocol_version": "1.0"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("server/identity (-want +got):\n%s", diff)
		}
	})

	t.Run("a message read two ways is refused", func(t *testing.T) {
		// The SDK would call tools/list, strata would answer
		// server/identity: neither, and serve goes on.
		res := h.post(t, `{"jsonrpc":"2.0","id":"who","method":"server/identity","method":"tools/list"}`)
		defer res.Body.Close()
		var got struct {
			ID    any
			Error struct {
				Code    int
				Message string
			}
		}
		if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusBadRequest || got.ID != nil || got.Error.Code != -32700 || !strings.Contains(got.Error.Message, `duplicate object member name "method"`) {
			t.Errorf("status %d, %+v; want 400 and a parse error that names the member given twice", res.StatusCode, got)
		}
		if _, err := h.connect(t, "2025-11-25", nil).ListTools(context.Background(), nil); err != nil {
			t.Errorf("listing the tools after: %v", err)
		}
	})

	t.Run("a POST that is not JSON is refused as the SDK refuses it", func(t *testing.T) {
		// Whatever strata would read in it first (a server/identity
		// request, a message it cannot parse): 415, in the SDK's words.
		for _, body := range []string{`{"jsonrpc":"2.0","id":"who","method":"server/identity"}`, `{"jsonrpc":`} {
			res := h.postAs(t, "text/plain", body)
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusUnsupportedMediaType || strings.TrimSpace(string(b)) != "Content-Type must be 'application/json'" {
				t.Errorf("%s as text/plain: status %d, %q; want 415 as the SDK answers", body, res.StatusCode, b)
			}
		}
	})

	t.Run("operator's view", func(t *testing.T) {
		get := func(path string) string { return h.get(t, path) }
		if got, want := get("/health"), `{"status":"ok","servers":[{"server":"fake","state":"running"}]}`+"\n"; got != want {
			t.Errorf("/health:\n%s\nwant\n%s", got, want)
		}
		metrics := get("/metrics")
		for _, want := range []string{`strata_tool_calls_total{tool="echo",server="fake",outcome="ok"} 20`, `strata_server_up{server="fake",state="running"} 1`} {
			if !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %s:\n%s", want, metrics)
			}
		}
		b, err := os.ReadFile(callLog)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 20 {
			t.Fatalf("%d lines in the call log, want 20", len(lines))
		}
		var first map[string]any
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range first {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if diff := cmp.Diff([]string{"client", "decision", "duration_ms", "outcome", "server", "time", "tool"}, keys); diff != "" {
			t.Errorf("a call log line (no arguments) (-want +got):\n%s\n%s", diff, lines[0])
		}
		decision, _ := first["decision"].(map[string]any)
		if decision["outcome"] != "run" || decision["tool"] != "echo" {
			t.Errorf("the call log's decision: %v", first["decision"])
		}
		for _, line := range lines {
			if strings.Contains(line, `"x"`) || strings.Contains(line, `-0"`) || strings.Contains(line, `-4"`) {
				t.Errorf("a call log line without --log-arguments holds an argument: %s", line)
			}
		}
	})

	t.Run("a server that ends starts again", func(t *testing.T) {
		pids := starts(t, log)
		pid, _ := strconv.Atoi(pids[len(pids)-1])
		if p, err := os.FindProcess(pid); err != nil {
			t.Fatal(err)
		} else if err := p.Kill(); err != nil {
			t.Fatal(err)
		}
		cs := h.connect(t, "2025-11-25", nil)
		var res *mcp.CallToolResult
		var err error
		// The kill lands while calls go on: a call may still be answered
		// by the old process, the one that meets the dead server fails
		// (it names it), and a later one starts it again.
		for range 1000 {
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": "again"}})
			if err == nil && !res.IsError && len(starts(t, log)) == 2 {
				break
			}
		}
		if err != nil || mcptest.Text(res) != `{"arguments":{"x":"again"},"_meta":null}` {
			t.Errorf("after the server ended: %v, %s", err, mcptest.Text(res))
		}
		if n := len(starts(t, log)); n != 2 {
			t.Errorf("%d starts, want 2", n)
		}
	})
}

// TestServeHTTPLogsBeforeResult: the log messages a server sends during a
// call, the last just before its result, all reach the client of
// strata serve --http, whose stream of the call ends with the result (the
// conformance suite's tools-call-with-logging).
func TestServeHTTPLogsBeforeResult(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.fake]
command = "MCPFAKE"
args = ["-flood", "3", "-flood-size", "10"]
expose = "all"

[tools.'*']
run = "unattended"
`})
	h := s.serveHTTP(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			logs := make(chan *mcp.LoggingMessageParams, 10)
			cs := h.connect(t, version, &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { logs <- req.Params },
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// A client of 2026-07-28 names its log level in each
			// request's _meta; before, it sets it for the session.
			var meta mcp.Meta
			if version >= "2026-07-28" {
				meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
			} else if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
			for round := range 20 {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "flood", Meta: meta})
				if err != nil || res.IsError {
					t.Fatalf("round %d: %v %s", round, err, mcptest.Text(res))
				}
				for i := range 3 {
					select {
					case <-logs:
					case <-time.After(5 * time.Second):
						t.Fatalf("round %d: %d of 3 log messages reached the client", round, i)
					}
				}
			}
		})
	}
}

// TestHealthListsEveryServer: /health gives the state of every server
// the gateway serves, one it has not started yet too (its tools came
// from the cache: it starts at its first call) as stopped, and running
// once a call started it; a server the config does not enable is not
// served, and not listed.
func TestHealthListsEveryServer(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.fake]
command = "MCPFAKE"
args = ["-echo"]
expose = "all"

[mcp_servers.off]
command = "MCPFAKE"
enabled = false

[tools.'*']
run = "unattended"
`})
	// A first gateway lists the server's tools into the cache, as a
	// gateway does.
	t.Run("first", func(t *testing.T) {
		if got, want := s.serveHTTP(t).get(t, "/health"), `{"status":"ok","servers":[{"server":"fake","state":"running"}]}`+"\n"; got != want {
			t.Errorf("/health of the first gateway:\n%s\nwant\n%s", got, want)
		}
	})
	h := s.serveHTTP(t)
	if got, want := h.get(t, "/health"), `{"status":"ok","servers":[{"server":"fake","state":"stopped"}]}`+"\n"; got != want {
		t.Errorf("/health before any call:\n%s\nwant\n%s", got, want)
	}
	cs := h.connect(t, "2025-11-25", nil)
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if got, want := h.get(t, "/health"), `{"status":"ok","servers":[{"server":"fake","state":"running"}]}`+"\n"; got != want {
		t.Errorf("/health after a call:\n%s\nwant\n%s", got, want)
	}
}
