package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
	writeUserFiles(t, files)
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
	t.Parallel()
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
		url, _, stop := serveHTTPStop(t, strataBin, root, environ, "--cfg", cfg, "--no-token")
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
		url, _, stop := serveHTTPStop(t, strataBin, root, environ, "--cfg", cfg, "--no-token", "--call-log", callLog)
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
		b := httpGet(t, base+path)
		checkNoSecret(t, path, string(b))
		if !strings.Contains(string(b), "leaky") {
			t.Errorf("%s does not name the server leaky:\n%s", path, b)
		}
		if path == "/health" {
			type server struct {
				Server, State, Error string
				FailedStarts         int `json:"failed_starts"`
			}
			var h struct{ Servers []server }
			if err := json.Unmarshal(b, &h); err != nil {
				t.Fatalf("/health: %v: %s", err, b)
			}
			// failed, or starting again (a client asked for it a second
			// or more after it failed) with why its start failed.
			i := slices.IndexFunc(h.Servers, func(s server) bool { return s.Server == "leaky" })
			if i < 0 || h.Servers[i].State != "failed" && h.Servers[i].State != "starting" ||
				h.Servers[i].FailedStarts < 1 || !strings.Contains(h.Servers[i].Error, "exited during its start") {
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

// writeUserFiles writes the user's files, by path, readable by the user
// alone.
func writeUserFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// httpGet returns the body of a GET of url.
func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}
