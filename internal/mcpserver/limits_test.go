package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/gateway"
)

// serveLimited serves h with newHTTPServer within lim on a port of
// 127.0.0.1, until the test ends, and returns its address.
func serveLimited(t *testing.T, h http.Handler, lim httpLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := newHTTPServer(context.Background(), h, &gateway.Conns{}, lim)
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// closedWithin reports whether the server closes c before deadline, a
// safety net: what the read gave otherwise.
func closedWithin(c net.Conn, r io.Reader, deadline time.Time) error {
	c.SetReadDeadline(deadline)
	if _, err := io.ReadAll(r); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		return err
	}
	return nil
}

// TestHTTPLimits: a connection that waits for its next request, or sends
// half a request, or a body slower than the server takes, is closed; an
// event stream (a handler that lifts its deadlines, as the MCP endpoint
// does) lasts past them.
func TestHTTPLimits(t *testing.T) {
	const short = 100 * time.Millisecond
	lim := httpLimits{readHeader: short, request: short, idle: short}
	release := make(chan struct{})
	addr := serveLimited(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stream":
			unbounded(w)
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: first\n\n")
			http.NewResponseController(w).Flush()
			<-release
			io.WriteString(w, "data: last\n\n")
		case "/body":
			io.ReadAll(r.Body)
		default:
			io.WriteString(w, "ok")
		}
	}), lim)
	deadline := time.Now().Add(time.Minute) // a safety net
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(deadline)
		return c
	}

	// A stream begins.
	stream := dial()
	io.WriteString(stream, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
	events := bufio.NewReader(stream)
	res, err := http.ReadResponse(events, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := bufio.NewReader(res.Body)
	if line, err := body.ReadString('\n'); err != nil || line != "data: first\n" {
		t.Fatalf("the stream began with %q, %v", line, err)
	}

	t.Run("idle", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		if err := closedWithin(c, br, deadline); err != nil {
			t.Errorf("an idle connection: %v", err)
		}
	})
	t.Run("half a request", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n")
		if err := closedWithin(c, c, deadline); err != nil {
			t.Errorf("half a request: %v", err)
		}
	})
	t.Run("a slow body", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf")
		if err := closedWithin(c, c, deadline); err != nil {
			t.Errorf("a body that does not come: %v", err)
		}
	})

	// The connections above waited longer than every limit: the stream
	// goes on.
	close(release)
	rest, err := io.ReadAll(body)
	if err != nil || string(rest) != "\ndata: last\n\n" {
		t.Errorf("the rest of the stream: %q, %v", rest, err)
	}
}

// TestSessionBound: past the bound of a token, the session of that token
// idle the longest is closed; past the bound of all, the one idle the
// longest of all; each time Warn is told; when every session has a
// request under way (an event stream), a new one is refused.
func TestSessionBound(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	sessions := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var mu sync.Mutex
	var warned []string
	b := &sessionBound{max: 3, perToken: 2, server: srv,
		warn:  func(err error) { mu.Lock(); warned = append(warned, err.Error()); mu.Unlock() },
		token: func(r *http.Request) string { return r.Header.Get("X-Token") }}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { b.serve(sessions, w, r) }))
	defer hs.Close()

	post := func(token, sid, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Token", token)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	ids := map[string]string{} // by name
	open := func(token, name string) int {
		t.Helper()
		res := post(token, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+name+`","version":"1"}}}`)
		if sid := res.Header.Get("Mcp-Session-Id"); sid != "" {
			ids[name] = sid
			post(token, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		return res.StatusCode
	}
	alive := func(token, name string) bool {
		t.Helper()
		return post(token, ids[name], `{"jsonrpc":"2.0","id":2,"method":"ping"}`).StatusCode == http.StatusOK
	}
	for _, s := range []struct{ token, name string }{{"a", "a1"}, {"a", "a2"}, {"a", "a3"}, {"b", "b1"}, {"b", "b2"}} {
		if code := open(s.token, s.name); code != http.StatusOK {
			t.Fatalf("opening %s: %d", s.name, code)
		}
	}
	got := map[string]bool{}
	for _, name := range []string{"a1", "a2", "a3", "b1", "b2"} {
		got[name] = alive(name[:1], name)
	}
	want := map[string]bool{"a1": false, "a2": false, "a3": true, "b1": true, "b2": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the sessions alive (-want +got):\n%s", diff)
	}
	wantWarned := []string{
		fmt.Sprintf("closed the session %s, idle for 0s, to open another: strata keeps at most 2 sessions of one token over HTTP, and closes the one idle the longest to make room", ids["a1"]),
		fmt.Sprintf("closed the session %s, idle for 0s, to open another: strata keeps at most 3 sessions over HTTP, and closes the one idle the longest to make room", ids["a2"]),
	}
	mu.Lock()
	if diff := cmp.Diff(wantWarned, warned); diff != "" {
		t.Errorf("warned (-want +got):\n%s", diff)
	}
	mu.Unlock()

	// Every session listens to its event stream: no room.
	for _, name := range []string{"a3", "b1", "b2"} {
		req, _ := http.NewRequest(http.MethodGet, hs.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", ids[name])
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("the event stream of %s: %v %v", name, res, err)
		}
		defer res.Body.Close()
	}
	if code := open("c", "c1"); code != http.StatusServiceUnavailable {
		t.Errorf("a session when all are busy: %d, want 503", code)
	}
}
