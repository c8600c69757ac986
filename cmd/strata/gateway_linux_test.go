//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/internal/proctest"
)

// sessionsBound is what strata serve --http may grow to while clients
// open sessions with huge client names, and more sessions than it keeps
// (about 60 MB for 1,000 sessions; on main, 100 initializes with a 1 MB
// client name took it to 354 MB, and 200 to 716 MB).
const sessionsBound = 150 << 20

// TestServeHTTPHeldConnections: connections that clients without the token
// hold open (refused ones, half a request, nothing at all) do not take
// strata's descriptors from the clients with the token: under a limit of
// 256 descriptors, with 1,000 such connections open, a client connected
// before is served, and so is one that connects after them; every one of
// them is closed by strata (refused ones at once, the others once they
// have waited too long, or sooner, the oldest first, when strata's
// connections are all taken). (On main, 245 refused connections held open
// took every descriptor, and no client was served.)
func TestServeHTTPHeldConnections(t *testing.T) {
	t.Parallel()
	const n = 1000
	root, environ, tokenFile, token := gatewayWorkspace(t, echoServer())
	cmd := exec.Command("/bin/sh", "-c", `ulimit -n 256 && exec "$0" "$@"`, strataBin, "serve", "--root", root, "--trust", "--http", "127.0.0.1:0", "--token-file", tokenFile)
	cmd.Env = environ
	url, _ := startServeHTTP(t, cmd)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", cmd.Process.Pid)); err != nil || !strings.Contains(string(b), "Max open files            256                  256") {
		t.Fatalf("strata's descriptors are not limited to 256: %v\n%s", err, b)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	deadline := time.Now().Add(2 * time.Minute) // a safety net
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	connect := func(name string) *mcp.ClientSession {
		t.Helper()
		tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: token, Base: &http.Transport{}}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("%s, with %d connections held: %v", name, n, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(who string, cs *mcp.ClientSession) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": who}})
		if err != nil || !strings.Contains(mcptest.Text(res), `"x":"`+who+`"`) {
			t.Errorf("the call of %s: %v %s", who, err, mcptest.Text(res))
		}
	}
	// A client with the token, connected before.
	before := connect("before")
	call("before", before)

	var attack []net.Conn
	defer func() {
		for _, c := range attack {
			c.Close()
		}
	}()
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(deadline)
		attack = append(attack, c)
		return c
	}
	// A third are refused (no token), and the client keeps them open.
	for i := range n / 3 {
		if res, _, err := rawPost(dial(), addr, initializeBody("refused")); err != nil || res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("refused connection %d: %v, %v (strata answered %d refused connections held open)", i+1, res, err, i)
		}
	}
	// A third send half a request, a third nothing.
	for i := range n - n/3 {
		c := dial()
		if i%2 == 0 {
			if _, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\n"); err != nil {
				t.Fatal(err)
			}
		}
	}

	// The clients with the token are served meanwhile: the one connected
	// before, and one that connects now.
	call("before", before)
	call("after", connect("after"))

	// Every connection of the attack ends.
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	for _, c := range attack {
		wg.Go(func() {
			if err := closedByServer(c, c, deadline); err != nil {
				mu.Lock()
				open++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if open > 0 {
		t.Errorf("%d of %d connections without the token were still open after %v", open, n, time.Until(deadline))
	}
}

// TestServeHTTPSessionBounds: what clients' sessions cost strata serve
// --http is bounded: an initialize whose params are huge (a client name of
// 1 MB) is refused with an error that says why, and keeps nothing; past
// mcpserver.MaxSessions sessions, the one idle the longest is closed to
// make room, and strata says so. (On main every initialize was kept 30
// minutes with all its params.)
func TestServeHTTPSessionBounds(t *testing.T) {
	t.Parallel()
	root, environ, _, _ := gatewayWorkspace(t, echoServer())
	cmd := exec.Command(strataBin, "serve", "--root", root, "--trust", "--http", "127.0.0.1:0", "--no-token")
	cmd.Env = environ
	url, stderr := startServeHTTP(t, cmd)

	huge := initializeBody(strings.Repeat("n", 1<<20))
	for i := range 100 {
		msg := sseResult(t, httpPost(t, url, "", huge))
		e, _ := msg["error"].(map[string]any)
		if text, _ := e["message"].(string); !strings.Contains(text, "strata keeps at most 16384 bytes of a client's initialize") {
			t.Fatalf("initialize %d with a client name of 1 MB: %.300v", i+1, msg)
		}
	}

	first := httpSession(t, url, "first")
	sids := make(chan string, mcpserver.MaxSessions)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range mcpserver.MaxSessions / 8 {
				sids <- httpSession(t, url, "more")
			}
		})
	}
	wg.Wait()
	close(sids)
	if !stderr.Await("closed the session "+first, time.Minute) {
		t.Errorf("strata did not say it closed the first session, idle the longest")
	}
	resp := httpPost(t, url, first, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the first session, past %d: %s, want 404", mcpserver.MaxSessions, resp.Status)
	}
	var last string
	for sid := range sids {
		last = sid
	}
	if got := callText(t, url, last, `{"name":"echo","arguments":{"x":"last"}}`); !strings.Contains(got, `"x":"last"`) {
		t.Errorf("the last session's call: %s", got)
	}
	peak, ok := proctest.PeakRSS(cmd.Process.Pid)
	if !ok {
		t.Fatal("no VmHWM for strata serve")
	}
	t.Logf("peak resident set of strata serve --http after 100 initializes with a client name of 1 MB and %d sessions: %s", mcpserver.MaxSessions+1, mb(peak))
	if peak > sessionsBound {
		t.Errorf("strata serve --http grew to %s; want at most %s", mb(peak), mb(sessionsBound))
	}
}
