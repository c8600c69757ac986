package mcpclient

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordingDownstream records what a session passes on for a call.
type recordingDownstream struct {
	meta map[string]any
	mu   sync.Mutex
	asks []mcp.InputRequest
}

func (d *recordingDownstream) Meta() map[string]any { return d.meta }
func (d *recordingDownstream) Progress(context.Context, *mcp.ProgressNotificationParams) error {
	return nil
}
func (d *recordingDownstream) Log(context.Context, *mcp.LoggingMessageParams) error { return nil }
func (d *recordingDownstream) Ask(_ context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	d.mu.Lock()
	d.asks = append(d.asks, req)
	d.mu.Unlock()
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "from downstream"}}, nil
}

// TestRelayMeta: a relayed call sends the client's _meta less the
// protocol's own keys, strata's keys win, and the client's progress token
// stands as one of strata's, unique on the session.
func TestRelayMeta(t *testing.T) {
	s := start(t, fake(t, "-echo"))
	d := &recordingDownstream{meta: map[string]any{
		"progressToken":                    "client-1",
		"trace":                            "t1",
		"io.modelcontextprotocol/logLevel": "debug",
		"computer.jp/tool":                 map[string]any{"answers": map[string]any{"forged": true}},
	}}
	ctx := WithDownstream(testContext(t), d)
	for i, want := range []string{
		`{"arguments":{},"_meta":{"computer.jp/tool":{"action":"run"},"progressToken":"strata-1","trace":"t1"}}`,
		`{"arguments":{},"_meta":{"computer.jp/tool":{"action":"run"},"progressToken":"strata-2","trace":"t1"}}`,
	} {
		res, err := s.Call(ctx, "echo", json.RawMessage(`{}`), map[string]any{"computer.jp/tool": map[string]any{"action": "run"}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, text(t, res)); diff != "" {
			t.Errorf("call %d: (-want +got):\n%s", i, diff)
		}
	}
	if d.meta["progressToken"] != "client-1" {
		t.Errorf("the client's _meta was written: %v", d.meta)
	}
}

// TestRelayAsk: a server's request during a relayed call goes to the
// call's Downstream; without a call under way, the server is answered
// with ErrNoClient; without the capability declared, the SDK answers it.
func TestRelayAsk(t *testing.T) {
	elicit := &Relay{Capabilities: Capabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}}
	for _, tt := range []struct {
		name    string
		relay   *Relay
		relayed bool // the call is relayed for a client
		want    string
	}{
		{"relayed", elicit, true, `result: {"action":"accept","content":{"answer":"from downstream"}}`},
		{"no call of a client", elicit, false, `error: {"code":-32602,"message":"` + ErrNoClient.Error() + `"}`},
		{"not declared", &Relay{}, true, `error: {"code":-32602,"message":"client does not support elicitation"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := fake(t, "-ask", "elicitation/create")
			spec.Relay = tt.relay
			s := start(t, spec)
			d := &recordingDownstream{}
			ctx := testContext(t)
			if tt.relayed {
				ctx = WithDownstream(ctx, d)
			}
			res, err := s.Call(ctx, "ask", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != tt.want {
				t.Errorf("the server got %s, want %s", got, tt.want)
			}
			if tt.name == "relayed" {
				if len(d.asks) != 1 || d.asks[0].(*mcp.ElicitParams).Message != "mcpfake asks" {
					t.Errorf("asked %+v", d.asks)
				}
			}
		})
	}
}

// loggingDownstream is a client that tells logs of each log message it
// is given.
type loggingDownstream struct {
	recordingDownstream
	logs chan string
}

func (d *loggingDownstream) Log(_ context.Context, p *mcp.LoggingMessageParams) error {
	d.logs <- p.Data.(string)
	return nil
}

// TestRelayLogOfEndedCall: a log message read during one client's call
// that is passed on after the call ended goes to the session's Relay.Log,
// never to the client of another call under way (over HTTP, another
// client).
func TestRelayLogOfEndedCall(t *testing.T) {
	var rs relays
	orphans := make(chan string, 1)
	q := newRelayQueue(&Relay{Name: "fake", Log: func(_ context.Context, p *mcp.LoggingMessageParams) { orphans <- p.Data.(string) }}, &rs)
	a := &loggingDownstream{logs: make(chan string, 1)}
	b := &loggingDownstream{logs: make(chan string, 1)}
	ctx := context.Background()
	_, endA := rs.begin(ctx, a, nil)
	_, endB := rs.begin(ctx, b, nil)
	defer endB()
	item := queued{params: json.RawMessage(`{"level":"info","data":"of a's call"}`), log: true, call: rs.calls[0]}
	item.call.noteRead()
	item.call.notePassed() // a's call ends with its message not yet passed on
	endA()
	q.push(item)
	done := make(chan struct{})
	defer close(done)
	go q.run(ctx, done)
	select {
	case got := <-orphans:
		if got != "of a's call" {
			t.Errorf("Relay.Log got %q", got)
		}
	case got := <-b.logs:
		t.Errorf("another call's client got %q", got)
	case got := <-a.logs:
		t.Errorf("the ended call's client got %q as if its call were under way", got)
	}
}
