package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/internal/proctest"
)

// serveWorkspace writes a workspace with a tool of each kind, and returns
// the strata binary, the workspace root, and the environment to run
// strata in.
func serveWorkspace(t *testing.T) (strata, root string, environ []string) {
	t.Helper()
	root = t.TempDir()
	jptools := filepath.Join(repoRoot, "fixtures/workspace/bin/jptools")
	files := map[string]string{
		"tools/weather": "#!/bin/sh\nif [ \"$1\" = --describe ]; then echo '{\"name\":\"weather\",\"description\":\"Get the weather.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"unit\":{\"enum\":[\"celsius\",\"fahrenheit\"],\"type\":\"string\"},\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}'; exit 0; fi\nprintf '%s' \"$1\"\n",
		"tools/hang":    "#!/bin/sh\nif [ \"$1\" = --describe ]; then echo '{\"name\":\"hang\",\"description\":\"Hang.\",\"parameters\":{\"type\":\"object\"}}'; exit 0; fi\nsleep 30\n",
		"notes.txt":     "one\ntwo\n",
		".strata/config.toml": `[discover]
dirs = ["../tools"]

# The client, a test, asks nobody.
[tools.'*']
run = "unattended"

[tools.weather.parameters.unit]
enum = ["celsius"]

[tools.count]
source = "local.count_lines"
command = "` + jptools + ` {{tool}} {{context}}"

[tools.fs_modify_file]
source = "local"
command = "` + jptools + ` {{tool}} {{context}}"
questions.apply_changes.answer = true

[mcp_servers.fake]
command = "` + mcpfake + `"
args = ["-echo"]

[tools.remote_echo]
source = "mcp.fake.echo"
`,
	}
	for name, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasPrefix(name, "tools/") {
			mode = 0o755
		}
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	return strataBin, root, environ
}

// TestServeProcess drives strata serve, a real process, with the Go SDK's
// client.
func TestServeProcess(t *testing.T) {
	t.Parallel()
	strata, root, environ := serveWorkspace(t)
	cmd := exec.Command(strata, "serve", "--root", root, "--trust", "--timeout", "1s")
	cmd.Env = environ
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx := waitContext(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 5 || cs.InitializeResult().ServerInfo.Version != list.Meta["strata/fingerprint"] {
		t.Errorf("%d tools; serverInfo %+v, tools/list _meta %v", len(list.Tools), cs.InitializeResult().ServerInfo, list.Meta)
	}
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"weather", map[string]any{"city": "Oslo"}, `{"city":"Oslo","unit":"celsius"}`, false},
		{"count", map[string]any{"path": "notes.txt"}, "2", false},
		{"remote_echo", map[string]any{"n": 1}, `{"arguments":{"n":1},"_meta":null}`, false},
		{"weather", map[string]any{}, "call weather: invalid arguments: $: missing property 'city'", true},
		{"hang", nil, `{"type":"error","message":"hang: no answer within 1s; it was stopped","transient":true}`, true},
		{"fs_modify_file", map[string]any{"path": "notes.txt", "start_line": 2, "end_line": 2, "content": "TWO"}, "replaced lines 2-2 of notes.txt with 1 line(s)", false},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.name, Arguments: tt.args})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != tt.want || res.IsError != tt.isError {
			t.Errorf("%s: %s (isError %v), want %s (isError %v)", tt.name, got, res.IsError, tt.want, tt.isError)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rm"}); err == nil {
		t.Error("an unknown tool was called")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "one\nTWO\n" {
		t.Errorf("the question was not answered from the config: notes.txt is %q", b)
	}
}

// TestServeRawSchemas speaks JSON-RPC to strata serve by hand: the schemas
// it lists are the tools' own, key for key.
func TestServeRawSchemas(t *testing.T) {
	t.Parallel()
	strata, root, environ := serveWorkspace(t)
	line := rawToolsList(t, strata, root, environ)
	want := `"inputSchema":{"type":"object","properties":{"unit":{"enum":["celsius"],"type":"string","default":"celsius"},"city":{"type":"string"}},"required":["city"]}`
	if !strings.Contains(line, want) {
		t.Errorf("tools/list does not keep the weather tool's schema as written:\n%s\nwant it to contain\n%s", line, want)
	}
}

// rawToolsList starts strata serve in root, speaks JSON-RPC to it by hand
// (initialize, initialized, tools/list) and returns the line that answers
// tools/list, as it was written.
func rawToolsList(t *testing.T, strata, root string, environ []string) string {
	t.Helper()
	cmd := exec.Command(strata, "serve", "--root", root, "--trust")
	cmd.Env = environ
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		fmt.Fprintln(stdin, line)
	}
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal([]byte(line), &msg)
		if string(msg.ID) == "2" {
			return line
		}
	}
}

// TestServeNodeClient drives strata serve with the official TypeScript
// SDK's client, a real MCP client process.
func TestServeNodeClient(t *testing.T) {
	t.Parallel()
	requireNode(t)
	strata, root, environ := serveWorkspace(t)
	calls := `[{"name":"weather","arguments":{"city":"Lima"}},{"name":"count","arguments":{"path":"notes.txt"}},{"name":"remote_echo","arguments":{}},{"name":"nope","arguments":{}}]`
	cmd := exec.Command("node", filepath.Join(repoRoot, "fixtures/mcp/client.mjs"), calls, strata, "serve", "--root", root, "--trust")
	cmd.Env = environ
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	var got struct {
		ServerInfo struct{ Name, Version string }
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
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	resolved := exec.Command(strata, "resolve", "--root", root, "--trust")
	resolved.Env = environ
	b, err := resolved.Output()
	if err != nil {
		t.Fatal(err)
	}
	var cat struct{ Fingerprint string }
	json.Unmarshal(b, &cat)
	if got.ServerInfo.Name != "strata" || got.ServerInfo.Version != cat.Fingerprint || len(got.Tools) != 5 {
		t.Errorf("serverInfo %+v (strata resolve says %s), %d tools", got.ServerInfo, cat.Fingerprint, len(got.Tools))
	}
	want := []string{`{"city":"Lima","unit":"celsius"}`, "2", `{"arguments":{},"_meta":null}`}
	for i, w := range want {
		if c := got.Calls[i]; c.Error != "" || c.Result.IsError || len(c.Result.Content) != 1 || c.Result.Content[0].Text != w {
			t.Errorf("%s: %+v, want %s", c.Name, c, w)
		}
	}
	if c := got.Calls[3]; c.Error == "" && !c.Result.IsError {
		t.Errorf("an unknown tool was called: %+v", c)
	}
}

// upstreamTool is an MCP tool with every key a server may send: strata
// must pass it on as it is when the config changes nothing of it.
const upstreamTool = `{"name":"browse","title":"Browse","description":"Open a page. Returns its text; scripts do not run.","inputSchema":{"type":"object","properties":{"url":{"type":"string","format":"uri"}},"required":["url"],"$defs":{"x":{"type":"string"}}},"outputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"annotations":{"readOnlyHint":true,"openWorldHint":true,"x-vendor":{"cost":3}},"icons":[{"src":"https://example.com/i.png","mimeType":"image/png"}],"execution":{"taskSupport":"optional"},"_meta":{"vendor/id":"b-1"}}`

// TestUpstreamDefinitionsPassThrough: a tool the config does not change
// reaches exports and MCP clients field for field: its description not
// split and joined again, its _meta, icons, execution and unknown
// annotations kept, nothing added; renamed, only its name changes.
func TestUpstreamDefinitionsPassThrough(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	toolFile := filepath.Join(dir, "tool.json")
	if err := os.WriteFile(toolFile, []byte(upstreamTool), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(root, ".strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[mcp_servers.up]\ncommand = \"" + mcpfake + "\"\nargs = [\"-tool\", \"" + toolFile + "\"]\nexpose = \"all\"\n[tools.open_page]\nsource = \"mcp.up.browse\"\n"
	if err := os.WriteFile(filepath.Join(root, ".strata", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	renamed := strings.Replace(upstreamTool, `"name":"browse"`, `"name":"open_page"`, 1)

	out, stderr, code := strataIn(t, root, environ, "resolve", "--trust", "--export", "mcp")
	if code != 0 {
		t.Fatalf("resolve: %s", stderr)
	}
	var exported struct{ Tools []json.RawMessage }
	if err := json.Unmarshal([]byte(out), &exported); err != nil || len(exported.Tools) != 1 {
		t.Fatalf("export: %v, %s", err, out)
	}
	if got := compact(t, exported.Tools[0]); got != renamed {
		t.Errorf("--export mcp:\n got %s\nwant %s", got, renamed)
	}
	out, _, _ = strataIn(t, root, environ, "resolve", "--trust", "--export", "openai")
	if !strings.Contains(out, `"description": "Open a page. Returns its text; scripts do not run."`) {
		t.Errorf("--export openai changed the description:\n%s", out)
	}

	line := rawToolsList(t, strataBin, root, environ)
	var msg struct {
		Result struct{ Tools []json.RawMessage }
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatal(err)
	}
	if len(msg.Result.Tools) != 1 || compact(t, msg.Result.Tools[0]) != renamed {
		t.Errorf("tools/list through strata serve:\n got %s\nwant %s", line, renamed)
	}
	line = rawToolsListHTTP(t, strataBin, root, environ)
	msg.Result.Tools = nil
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	if len(msg.Result.Tools) != 1 || compact(t, msg.Result.Tools[0]) != renamed {
		t.Errorf("tools/list through strata serve --http:\n got %s\nwant %s", line, renamed)
	}
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// serveHTTPProcess starts strata serve --http on a free loopback port of
// the trusted workspace root, with the flags args, and returns where it
// serves once it says so; what it says is logged if the test fails.
func serveHTTPProcess(t *testing.T, strata, root string, environ []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	url, cmd, _ := serveHTTPStop(t, strata, root, environ, args...)
	return url, cmd
}

// serveHTTPStop is serveHTTPProcess that also returns a function that
// stops strata (SIGTERM) and returns all it wrote to stderr.
func serveHTTPStop(t *testing.T, strata, root string, environ []string, args ...string) (url string, cmd *exec.Cmd, stop func() string) {
	t.Helper()
	cmd = exec.Command(strata, append([]string{"serve", "--root", root, "--trust", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = environ
	url, _, stop = startServeHTTPStop(t, cmd)
	return url, cmd, stop
}

// startServeHTTP starts cmd, a strata serve --http, and returns where it
// serves once it says so, and what it says (logged if the test fails);
// it is stopped when the test ends.
func startServeHTTP(t *testing.T, cmd *exec.Cmd) (string, *proctest.Buffer) {
	t.Helper()
	url, stderr, _ := startServeHTTPStop(t, cmd)
	return url, stderr
}

// startServeHTTPStop is startServeHTTP that also returns a function that
// stops strata (SIGTERM) and returns all it wrote to stderr.
func startServeHTTPStop(t *testing.T, cmd *exec.Cmd) (url string, stderr *proctest.Buffer, stop func() string) {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr = &proctest.Buffer{}
	read := make(chan struct{}) // closed once stderr is read to its end
	stopped := false
	stop = func() string {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGTERM)
			<-read
			cmd.Wait()
		}
		return stderr.String()
	}
	t.Cleanup(func() {
		if s := stop(); t.Failed() {
			t.Logf("strata said:\n%s", s)
		}
	})
	lines := bufio.NewScanner(pipe)
	for url == "" && lines.Scan() {
		io.WriteString(stderr, lines.Text()+"\n")
		if u, ok := strings.CutPrefix(lines.Text(), "strata: serving MCP on "); ok {
			url = u
		}
	}
	go func() {
		defer close(read)
		for lines.Scan() {
			io.WriteString(stderr, lines.Text()+"\n")
		}
	}()
	if url == "" {
		t.Fatalf("strata did not say where it serves:\n%s", stderr.String())
	}
	return url, stderr, stop
}

// rawToolsListHTTP is rawToolsList over streamable HTTP: the result of
// tools/list, as strata serve --http sends it, of a session of protocol
// 2025-11-25.
func rawToolsListHTTP(t *testing.T, strata, root string, environ []string) string {
	t.Helper()
	url, _ := serveHTTPProcess(t, strata, root, environ, "--no-token")
	resp := httpPost(t, url, httpSession(t, url, "raw"), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	// A JSON body, or an event stream whose data line is the response
	// (after a priming event, with no data: SEP-1699).
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
			return data
		}
	}
	return string(body)
}

// httpSession opens a session of protocol 2025-11-25 of a client named
// client with strata serve --http at url (initialize, then
// notifications/initialized), and returns its id.
func httpSession(t *testing.T, url, client string) string {
	t.Helper()
	resp := httpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+client+`","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if sid == "" {
		t.Fatalf("initialize answered %s without a session", resp.Status)
	}
	resp = httpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return sid
}

// httpPost posts one JSON-RPC message to strata serve --http, in the
// session sid ("" for none), and returns the response, its body unread.
// The request, its body included, ends a quarter of a minute before go
// test's deadline at the latest (waitContext).
func httpPost(t *testing.T, url, sid, msg string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(waitContext(t), http.MethodPost, url, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
