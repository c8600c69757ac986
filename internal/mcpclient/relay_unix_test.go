//go:build unix

package mcpclient

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowDownstream is a client that reads nothing until open is closed,
// then records what it is given.
type slowDownstream struct {
	meta map[string]any
	open chan struct{}

	mu       sync.Mutex
	logs     []string // the loggers of the log messages
	progress int
	asks     int
	notices  chan string   // the notices of strata
	read     chan struct{} // closed when mcpfake -asks's requests were read
}

func (d *slowDownstream) Meta() map[string]any { return d.meta }
func (d *slowDownstream) Progress(context.Context, *mcp.ProgressNotificationParams) error {
	<-d.open
	d.mu.Lock()
	defer d.mu.Unlock()
	d.progress++
	return nil
}
func (d *slowDownstream) Log(_ context.Context, p *mcp.LoggingMessageParams) error {
	if p.Data == "mcpfake asked" && d.read != nil {
		close(d.read) // mcpfake -asks wrote every request before it
		return nil
	}
	<-d.open
	d.record(p)
	return nil
}

func (d *slowDownstream) record(p *mcp.LoggingMessageParams) {
	if p.Logger == "strata" {
		d.notices <- fmt.Sprint(p.Data)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.logs = append(d.logs, p.Logger)
}

func (d *slowDownstream) Ask(ctx context.Context, _ mcp.InputRequest) (mcp.InputResponse, error) {
	d.mu.Lock()
	d.asks++
	d.mu.Unlock()
	select {
	case <-d.open:
		return &mcp.ElicitResult{Action: "decline"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestRelayFloodSlowClient: a server floods a relayed call with log
// messages and progress while the client reads nothing. The session
// holds at most RelayQueueMessages of them, drops the others, and tells
// the client how many, once it reads again; the call's answer comes whole.
func TestRelayFloodSlowClient(t *testing.T) {
	const n = 5000
	done := filepath.Join(t.TempDir(), "done")
	if err := syscall.Mkfifo(done, 0o600); err != nil {
		t.Fatal(err)
	}
	d := &slowDownstream{meta: map[string]any{"progressToken": "p"}, open: make(chan struct{}), notices: make(chan string, 4)}
	spec := fake(t, "-flood", strconv.Itoa(n), "-flood-size", "10", "-flood-done", done)
	spec.Relay = &Relay{Name: "flood", Log: func(_ context.Context, p *mcp.LoggingMessageParams) { d.record(p) }}
	s := start(t, spec)
	ctx := testContext(t)
	type called struct {
		text string
		err  error
	}
	calls := make(chan called, 1)
	go func() {
		res, err := s.Call(WithDownstream(ctx, d), "flood", nil, nil)
		if err != nil {
			calls <- called{err: err}
			return
		}
		calls <- called{text: res.Content[0].(*mcp.TextContent).Text}
	}()
	// The server wrote the flood, and the session read it (the pipe
	// aside), while the client read nothing.
	if b, err := os.ReadFile(done); err != nil || string(b) != "done\n" {
		t.Fatalf("the flood's pipe: %q, %v", b, err)
	}
	s.queue.mu.Lock()
	held, size := len(s.queue.items), s.queue.size
	s.queue.mu.Unlock()
	if held > RelayQueueMessages || size > RelayQueueBytes {
		t.Errorf("the queue holds %d messages of %d bytes, past its bound (%d, %d)", held, size, RelayQueueMessages, RelayQueueBytes)
	}
	close(d.open)
	c := <-calls
	if c.err != nil || c.text != fmt.Sprintf("flood: sent %d", n) {
		t.Fatalf("the call answered %q, %v", c.text, c.err)
	}
	dropped := regexp.MustCompile(`^strata dropped (\d+) (log messages|progress notifications) from the server flood: `)
	var droppedLogs, droppedProgress int
	for {
		d.mu.Lock()
		logs, progress := len(d.logs), d.progress
		d.mu.Unlock()
		if logs+droppedLogs == n && progress+droppedProgress == n {
			break
		}
		select {
		case notice := <-d.notices:
			m := dropped.FindStringSubmatch(notice)
			if m == nil {
				t.Fatalf("notice %q", notice)
			}
			k, _ := strconv.Atoi(m[1])
			if m[2] == "log messages" {
				droppedLogs += k
			} else {
				droppedProgress += k
			}
		case <-ctx.Done():
			t.Fatalf("%d log messages passed on and %d dropped, %d progress passed on and %d dropped; want %d of each in all", logs, droppedLogs, progress, droppedProgress, n)
		}
	}
	if droppedLogs == 0 || droppedProgress == 0 {
		t.Errorf("nothing dropped of a flood the client did not read: %d log messages, %d progress", droppedLogs, droppedProgress)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, logger := range d.logs {
		if logger != "flood" {
			t.Fatalf("a log message of the logger %q, want flood (the server's name)", logger)
		}
	}
}

// TestRelayServerRequestsBound: a server that sends many requests at once
// while the client does not answer gets at most MaxServerRequests to the
// client; the others are answered with an error at once.
func TestRelayServerRequestsBound(t *testing.T) {
	const n = MaxServerRequests + 8
	spec := fake(t, "-ask", "elicitation/create", "-asks", strconv.Itoa(n))
	spec.Relay = &Relay{Capabilities: Capabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}}
	s := start(t, spec)
	d := &slowDownstream{open: make(chan struct{}), notices: make(chan string, 4), read: make(chan struct{})}
	ctx := testContext(t)
	calls := make(chan string, 1)
	go func() {
		res, err := s.Call(WithDownstream(ctx, d), "ask", nil, nil)
		if err != nil {
			calls <- err.Error()
			return
		}
		calls <- res.Content[0].(*mcp.TextContent).Text
	}()
	// The requests past the bound are answered at once; the others wait
	// for the client, which answers once all have been read (the log
	// message after them has come).
	select {
	case <-d.read:
	case <-ctx.Done():
		t.Fatal("the log message after the requests never came")
	}
	close(d.open)
	text := <-calls
	var answered, refused int
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == `result: {"action":"decline"}`:
			answered++
		case strings.HasPrefix(line, `error: {"code":-32603,"message":"strata: 32 requests of this server wait for their answers already`):
			refused++
		default:
			t.Errorf("the server got %q", line)
		}
	}
	if answered != MaxServerRequests || refused != n-MaxServerRequests {
		t.Errorf("%d answered by the client and %d refused, want %d and %d", answered, refused, MaxServerRequests, n-MaxServerRequests)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.asks != MaxServerRequests {
		t.Errorf("%d requests reached the client, want %d", d.asks, MaxServerRequests)
	}
}
