package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcptest"
)

// What a client of strata serve --http may do to it, and to the other
// clients: hold connections, open sessions, resume another's call, change
// another's tools. (Issue 34: each of these reproduced on main.)

// gatewayWorkspace writes a workspace whose config is config (every tool
// run unattended: the clients of these tests ask nobody) and a token file,
// and returns the workspace's root, the environment to run strata in, the
// token file and its token.
func gatewayWorkspace(t *testing.T, config string) (root string, environ []string, tokenFile, token string) {
	t.Helper()
	root = t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".strata", "config.toml"), []byte("[tools.'*']\nrun = \"unattended\"\n\n"+config), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	token = "0123456789abcdef0123456789abcdef"
	tokenFile = filepath.Join(home, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	return root, environ, tokenFile, token
}

// echoServer is the config of mcpfake serving its tool echo.
func echoServer(args ...string) string {
	quoted := []string{`"-echo"`}
	for _, a := range args {
		quoted = append(quoted, fmt.Sprintf("%q", a))
	}
	return fmt.Sprintf("[mcp_servers.fake]\ncommand = %q\nargs = [%s]\nexpose = \"all\"\n", mcpfake, strings.Join(quoted, ", "))
}

// initializeBody is the initialize request of a client named client, of
// protocol 2025-11-25, that declares no capability.
func initializeBody(client string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + client + `","version":"1"}}}`
}

// rawPost writes a POST of body to /mcp on c by hand, with the headers
// given (each a line of "Name: value"), and reads the response.
func rawPost(c net.Conn, host, body string, headers ...string) (*http.Response, *bufio.Reader, error) {
	req := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n", len(body))
	for _, h := range headers {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"+body); err != nil {
		return nil, nil, err
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, nil, err
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res, br, err
}

// closedByServer reports whether the server closed c (the next read ends
// the stream, or the connection was reset), waiting at most until
// deadline, a safety net; what the read gave is the error otherwise.
func closedByServer(c net.Conn, r io.Reader, deadline time.Time) error {
	c.SetReadDeadline(deadline)
	n, err := r.Read(make([]byte, 1))
	switch {
	case n > 0:
		return errors.New("the server wrote more")
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return nil
	case err == nil:
		return errors.New("nothing read, no error")
	}
	return err
}

// TestServeHTTPRefusalsClose: a request strata serve --http refuses (no
// token, a foreign Origin or Host) is answered with Connection: close, and
// strata closes the connection: a client it refused holds no descriptor.
// The body of a refused request is not read, however large it says it is.
// (On main a refused client could keep its connection open for ever: 245
// of them took every descriptor of a process limited to 256.)
func TestServeHTTPRefusalsClose(t *testing.T) {
	t.Parallel()
	root, environ, tokenFile, token := gatewayWorkspace(t, "")
	url, _ := serveHTTPProcess(t, strataBin, root, environ, "--token-file", tokenFile)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	tests := []struct {
		name    string
		host    string
		body    string
		headers []string
		want    int
	}{
		{name: "no token", want: http.StatusUnauthorized},
		{name: "wrong token", headers: []string{"Authorization: Bearer " + strings.Repeat("0", len(token))}, want: http.StatusUnauthorized},
		{name: "foreign origin", headers: []string{"Authorization: Bearer " + token, "Origin: https://evil.example"}, want: http.StatusForbidden},
		{name: "foreign host", host: "evil.example", headers: []string{"Authorization: Bearer " + token}, want: http.StatusForbidden},
		// The body announced is never sent: strata answers without it.
		{name: "a gigabyte announced", body: "{", headers: []string{"Transfer-Encoding: chunked"}, want: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			deadline := time.Now().Add(time.Minute) // a safety net
			c.SetDeadline(deadline)
			host, body := tt.host, tt.body
			if host == "" {
				host = addr
			}
			var res *http.Response
			var br *bufio.Reader
			if body == "" {
				res, br, err = rawPost(c, host, initializeBody("refused"), tt.headers...)
			} else {
				// Headers that announce a body, and the first byte of it.
				_, err = io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/json\r\n"+strings.Join(tt.headers, "\r\n")+"\r\n\r\n40000000\r\n"+body)
				if err == nil {
					br = bufio.NewReader(c)
					res, err = http.ReadResponse(br, nil)
				}
				if err == nil {
					io.Copy(io.Discard, res.Body)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.want {
				t.Errorf("status %d, want %d", res.StatusCode, tt.want)
			}
			if !res.Close {
				t.Errorf("the %d has no Connection: close (headers %v)", res.StatusCode, res.Header)
			}
			if err := closedByServer(c, br, deadline); err != nil {
				t.Errorf("strata kept the connection open after its %d: %v", res.StatusCode, err)
			}
		})
	}
}

// TestServeHTTPBodyBound: the body of an admitted request is read within
// 4 MiB (the SDK's bound); a larger one is answered 413, and the client
// and strata go on.
func TestServeHTTPBodyBound(t *testing.T) {
	t.Parallel()
	root, environ, _, _ := gatewayWorkspace(t, echoServer())
	url, _ := serveHTTPProcess(t, strataBin, root, environ, "--no-token")
	sid := httpSession(t, url, "big")
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":"` + strings.Repeat("x", 4<<20) + `"}}}`
	resp := httpPost(t, url, sid, big)
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "exceeds 4194304 bytes") {
		t.Errorf("a body over 4 MiB: %s %s", resp.Status, body)
	}
	if got := callText(t, url, sid, `{"name":"echo","arguments":{"x":"small"}}`); !strings.Contains(got, `"x":"small"`) {
		t.Errorf("a call after it: %s", got)
	}
}

// sseResult reads the JSON-RPC response of an event stream (or a JSON
// body) of strata serve --http.
func sseResult(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	for _, line := range strings.Split(text, "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"id"`) {
			text = data
		}
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(text), &msg); err != nil {
		t.Fatalf("%s: %v:\n%s", resp.Status, err, body)
	}
	return msg
}

// callText calls a tool in the session sid (params is the JSON of the
// call's params) and returns the text of its result, or its error.
func callText(t *testing.T, url, sid, params string) string {
	t.Helper()
	msg := sseResult(t, httpPost(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":`+params+`}`))
	var out struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	b, _ := json.Marshal(msg)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if out.Error != nil {
		return "error: " + out.Error.Message
	}
	return mcptest.Text(out.Result)
}

// TestServeHTTPResumeIsTheSessions: a call of a client of protocol
// 2026-07-28 that waits for the client's answer (an upstream server
// asked for elicitation) is resumed by that client's session alone: the
// request state it gave, sent by another session, is refused, and the
// call is still the first session's to resume. A sessionless request
// (protocol 2026-07-28 over HTTP, with the token) may resume it only as
// a retry of the same call (the same tool and arguments). (On main,
// another session that had the request state answered the question
// itself and got the result.)
func TestServeHTTPResumeIsTheSessions(t *testing.T) {
	t.Parallel()
	root, environ, _, _ := gatewayWorkspace(t, echoServer("-ask", "elicitation/create"))
	url, _ := serveHTTPProcess(t, strataBin, root, environ, "--no-token")

	// The owner: a session of a client of 2026-07-28 that can elicit.
	resp := httpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{"elicitation":{}},"clientInfo":{"name":"owner","version":"1"}}}`)
	owner := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	httpPost(t, url, owner, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	msg := sseResult(t, httpPost(t, url, owner, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`))
	res, _ := msg["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	asks, _ := res["inputRequests"].(map[string]any)
	if state == "" || len(asks) != 1 {
		t.Fatalf("the call did not ask for input: %v", msg)
	}
	var key string
	for k := range asks {
		key = k
	}
	retry := func(state, tool, answer string) string {
		p, _ := json.Marshal(map[string]any{"name": tool, "arguments": map[string]any{}, "requestState": state,
			"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"answer": answer}}}})
		return string(p)
	}

	other := httpSession(t, url, "other")
	for _, tt := range []struct{ name, sid, params string }{
		{"another session", other, retry(state, "ask", "stolen")},
		{"another session, another tool", other, retry(state, "echo", "stolen")},
	} {
		if got := callText(t, url, tt.sid, tt.params); !strings.Contains(got, "the request state names no call under way") {
			t.Errorf("%s resuming the call: %s", tt.name, got)
		}
	}
	// Sessionless, with the token: only as a retry of the same call.
	stateless := func(params string) map[string]any {
		var p struct{ Name string }
		json.Unmarshal([]byte(params), &p)
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":`+strings.TrimSuffix(params, "}")+`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"sessionless","version":"1"}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", p.Name)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return sseResult(t, res)
	}
	refused := func(msg map[string]any) bool {
		b, _ := json.Marshal(msg)
		return strings.Contains(string(b), "the request state names no call under way")
	}
	if got := stateless(retry(state, "ask", "stolen")); !refused(got) {
		t.Errorf("a sessionless retry of the session's call: %v", got)
	}
	// The owner answers, and gets its result.
	if got := callText(t, url, owner, retry(state, "ask", "mine")); !strings.Contains(got, `"answer":"mine"`) {
		t.Errorf("the owner resuming its call: %s", got)
	}

	// A sessionless call of its own: a retry with another tool is refused;
	// the same call's is not.
	res, _ = stateless(`{"name":"ask","arguments":{}}`)["result"].(map[string]any)
	own, _ := res["requestState"].(string)
	if own == "" {
		t.Fatalf("the sessionless call did not ask for input: %v", res)
	}
	if got := stateless(retry(own, "echo", "own")); !refused(got) {
		t.Errorf("a sessionless retry of its call, with another tool: %v", got)
	}
	if got, _ := json.Marshal(stateless(retry(own, "ask", "own"))); !strings.Contains(string(got), `\"answer\":\"own\"`) {
		t.Errorf("a sessionless retry of its own call: %s", got)
	}

	// A client of 2026-07-28 without a session (the Go SDK's) resumes its
	// own calls: each retry is a request of its own.
	ctx := waitContext(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "sessionless", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "its own"}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil || !strings.Contains(mcptest.Text(res), `"answer":"its own"`) {
			t.Errorf("a sessionless client's own call: %v %s", err, mcptest.Text(res))
		}
	}
}

// TestServeHTTPSearchPerSession: what a client finds with search_tools is
// listed to that client alone: another client's list stays as it was, and
// its own search finds the same tools. Every client may call a deferred
// tool (it is in the catalog; its search keeps it out of the model's
// context, not out of reach). (On main the first search changed the list
// of every client of the gateway, and no other client could find the
// tool any more.)
func TestServeHTTPSearchPerSession(t *testing.T) {
	t.Parallel()
	root, environ, tokenFile, token := gatewayWorkspace(t, echoServer()+"load = \"deferred\"\n\n[tools.note]\ncommand = \"/bin/echo {{tool}}\"\nsummary = \"Write a note.\"\nparameters.text = { type = \"string\", required = true }\n")
	url, _ := serveHTTPProcess(t, strataBin, root, environ, "--token-file", tokenFile)
	ctx := waitContext(t)
	connect := func(name string, changed chan<- string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- name },
		})
		tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: token}}}
		cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	changed := make(chan string, 10)
	a, b := connect("a", changed), connect("b", changed)
	names := func(cs *mcp.ClientSession) []string {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		slices.Sort(out)
		return out
	}
	search := func(cs *mcp.ClientSession) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "echo"}})
		if err != nil {
			t.Fatal(err)
		}
		return mcptest.Text(res)
	}
	before := []string{"note", "search_tools"}
	if diff := cmp.Diff(before, names(a)); diff != "" {
		t.Fatalf("a's tools before a search (-want +got):\n%s", diff)
	}
	names(b)
	if got := search(a); !strings.Contains(got, `"name":"echo"`) {
		t.Fatalf("a's search: %s", got)
	}
	select {
	case who := <-changed:
		if who != "a" {
			t.Errorf("%s was told its tools changed, for a's search", who)
		}
	case <-ctx.Done():
		t.Fatal("a was not told its tools changed")
	}
	if diff := cmp.Diff([]string{"echo", "note", "search_tools"}, names(a)); diff != "" {
		t.Errorf("a's tools after its search (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, names(b)); diff != "" {
		t.Errorf("b's tools after a's search (-want +got):\n%s", diff)
	}
	if got := search(b); !strings.Contains(got, `"name":"echo"`) {
		t.Errorf("b's own search, after a's: %s", got)
	}
	res, err := b.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": "b"}})
	if err != nil || res.IsError || !strings.Contains(mcptest.Text(res), `"x":"b"`) {
		t.Errorf("b calling echo: %v %s", err, mcptest.Text(res))
	}
}
