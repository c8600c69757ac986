//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/proctest"
)

// TestServeHTTPSlowClientFlood: over HTTP, an MCP server floods a call of
// one client, which does not read its event stream, with log messages and
// progress. strata's memory stays bounded, and it goes on serving the other
// clients of the same server: a call of another client gets its answer,
// its log messages and its progress, while the first is still unread.
// (The relay of a server's messages was one queue for all the clients of
// the server: the slow client's stream held it, and every other client's
// log messages and progress were dropped.)
func TestServeHTTPSlowClientFlood(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: a flood of 200,000 messages; the full run has it")
	}
	const n, size = 100_000, 1000
	root, environ, done := floodWorkspace(t, n, size)
	url, cmd := serveHTTPProcess(t, strataBin, root, environ, "--cfg", "tools.'*'.run=unattended", "--no-token")

	// The slow client: its session, then the call, whose stream it does
	// not read.
	sid := httpSession(t, url, "slow")
	resp := httpPost(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	slow := httpPost(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flood","arguments":{},"_meta":{"progressToken":"p"}}}`)
	defer slow.Body.Close()
	proctest.Returns(t, "the flood", 5*time.Minute, func() {
		if b, err := os.ReadFile(done); err != nil || string(b) != "done\n" {
			t.Errorf("the flood's pipe: %q, %v", b, err)
		}
	})
	peak, ok := proctest.PeakRSS(cmd.Process.Pid)
	if !ok {
		t.Fatal("no VmHWM for strata serve")
	}
	t.Logf("peak resident set of strata serve --http after %d log messages and %d progress notifications of %d bytes, unread: %s", n, n, size, mb(peak))
	if peak > floodBound {
		t.Errorf("strata serve --http grew to %s while a client read nothing; want at most %s", mb(peak), mb(floodBound))
	}

	// Another client of the same server, meanwhile: its call's progress
	// comes, and its answer. (Not its log messages: a server's log
	// messages say nothing of the call they are for, and while the slow
	// client's call is under way too, strata cannot tell whose they are,
	// so it passes them to neither.)
	const k = 3
	progress := make(chan float64, 100)
	client := mcp.NewClient(&mcp.Implementation{Name: "other", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- r.Params.Progress
		},
	})
	ctx := waitContext(t)
	other, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	res, err := other.CallTool(ctx, &mcp.CallToolParams{Name: "flood", Arguments: map[string]any{"n": k}, Meta: mcp.Meta{"progressToken": "q"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != fmt.Sprintf("flood: sent %d", k) {
		t.Errorf("the other client's call answered %q", got)
	}
	for i := range k {
		select {
		case p := <-progress:
			if p != float64(i+1) {
				t.Errorf("the other client's progress %d was %v", i+1, p)
			}
		case <-ctx.Done():
			t.Fatalf("the other client got %d of its call's %d progress notifications while the slow client read nothing", i, k)
		}
	}

	// The slow client reads at last: its answer comes whole.
	answered := false
	proctest.Returns(t, "reading the slow client's stream", 2*time.Minute, func() {
		events := bufio.NewReaderSize(slow.Body, 1<<20)
		for !answered {
			line, err := events.ReadBytes('\n')
			if err != nil {
				t.Errorf("reading the slow client's stream: %v", err)
				return
			}
			answered = bytes.HasPrefix(line, []byte(`data: {"jsonrpc":"2.0","id":3,"result":`))
		}
	})
	if !answered {
		t.Error("the slow client's call was never answered")
	}
}
