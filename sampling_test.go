package strata_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
)

// TestSampling: a host that answers sampling (strata.Sampling) has the
// MCP servers it calls told so: server-everything lists its sampling
// tool, and a call of it reaches the host's function with the server's
// name and its request, and the host's answer reaches the server. A host
// that does not is offered no such tool, as before.
func TestSampling(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
	ctx := context.Background()

	t.Run("not answered", func(t *testing.T) {
		cat, err := s.open(t).Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cat.Tool("trigger-sampling-request"); ok {
			t.Error("trigger-sampling-request is offered to a host that cannot answer sampling")
		}
	})

	t.Run("answered", func(t *testing.T) {
		type asked struct {
			server string
			params json.RawMessage
		}
		got := make(chan asked, 1)
		w := s.open(t, strata.Sampling(func(_ context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
			got <- asked{server, params}
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Hi from the host"},"model":"host-model","stopReason":"endTurn"}`), nil
		}))
		cat, err := w.Resolve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cat.Tool("trigger-sampling-request"); !ok {
			var names []string
			for _, d := range cat.Tools {
				names = append(names, d.Name)
			}
			t.Fatalf("trigger-sampling-request is not offered: %v", names)
		}
		res, err := w.Call(ctx, "trigger-sampling-request", json.RawMessage(`{"prompt":"Say hi","maxTokens":5}`))
		if err != nil {
			t.Fatal(err)
		}
		a := <-got // buffered: the call has ended, the request came before it
		if a.server != "everything" {
			t.Errorf("asked for server %q, want everything", a.server)
		}
		var p struct {
			Messages []struct {
				Content struct{ Text string }
			}
			MaxTokens int
		}
		if err := json.Unmarshal(a.params, &p); err != nil || len(p.Messages) != 1 || p.Messages[0].Content.Text != "Resource trigger-sampling-request context: Say hi" || p.MaxTokens != 5 {
			t.Errorf("the host was asked %s (%v)", a.params, err)
		}
		if res.Type != "success" || !strings.Contains(res.Content, "Hi from the host") || !strings.Contains(res.Content, "host-model") {
			t.Errorf("the server did not get the host's answer: %+v", res.Outcome)
		}
	})

	t.Run("refused", func(t *testing.T) {
		w := s.open(t, strata.Sampling(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("the user declined")
		}))
		res, err := w.Call(ctx, "trigger-sampling-request", json.RawMessage(`{"prompt":"Say hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		if res.Type != "error" || !strings.Contains(res.Message, "the user declined") {
			t.Errorf("a refused sampling request gave %+v, want an error that says why", res.Outcome)
		}
	})

	t.Run("not a result", func(t *testing.T) {
		w := s.open(t, strata.Sampling(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"role": 5}`), nil
		}))
		res, err := w.Call(ctx, "trigger-sampling-request", json.RawMessage(`{"prompt":"Say hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		if want := "the host's answer to the sampling request of everything is not a CreateMessageResult"; res.Type != "error" || !strings.Contains(res.Message, want) {
			t.Errorf("a malformed answer gave %+v, want an error that says %q", res.Outcome, want)
		}
	})
}

// TestElicitation: a host that answers elicitation (strata.Elicitation)
// has the MCP servers it calls told so: server-everything lists its
// elicitation tool, and a call of it reaches the host's function with the
// server's name and its form, and the host's answer reaches the server.
func TestElicitation(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
	ctx := context.Background()
	if cat, err := s.open(t).Resolve(ctx); err != nil {
		t.Fatal(err)
	} else if _, ok := cat.Tool("trigger-elicitation-request"); ok {
		t.Error("trigger-elicitation-request is offered to a host that cannot answer elicitation")
	}
	got := make(chan string, 1)
	w := s.open(t, strata.Elicitation(func(_ context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
		var p struct{ Message string }
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		got <- server + ": " + p.Message
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada Lovelace","check":true}}`), nil
	}))
	res, err := w.Call(ctx, "trigger-elicitation-request", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if asked, want := <-got, "everything: Please provide inputs for the following fields:"; asked != want {
		t.Errorf("the host was asked %q, want %q", asked, want)
	}
	if res.Type != "success" || !strings.Contains(res.Content, "- Name: Ada Lovelace") || !strings.Contains(res.Content, "- Agreed to terms: true") {
		t.Errorf("the server did not get the host's answer: %+v", res.Outcome)
	}
}

// TestSamplingOutsideCalls: a server that asks for sampling outside any
// call of its tools (here once initialized, while strata lists its tools)
// gets the host's answer too.
func TestSamplingOutsideCalls(t *testing.T) {
	answered := make(chan string, 1)
	server := mcp.NewServer(&mcp.Implementation{Name: "eager", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			go func() { // the handler must return before the session can ask
				res, err := req.Session.CreateMessage(context.Background(), &mcp.CreateMessageParams{MaxTokens: 5,
					Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Ready?"}}}})
				if err != nil {
					answered <- err.Error()
					return
				}
				answered <- res.Content.(*mcp.TextContent).Text
			}()
		},
	})
	mcp.AddTool(server, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	dir := t.TempDir()
	ctx := context.Background()
	w, err := strata.Open[config.Partial](ctx, config.Default(), strata.Dir(dir), strata.Environ([]string{"HOME=" + dir}),
		strata.InProcess("eager", func(ctx context.Context) (io.ReadWriteCloser, error) {
			ours, theirs := net.Pipe()
			_, err := server.Connect(ctx, &mcp.IOTransport{Reader: theirs, Writer: theirs}, nil)
			return ours, err
		}),
		strata.Sampling(func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Ready."},"model":"host-model"}`), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Resolve(ctx); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if got := receive(t, wait, answered, "answer to the server's sampling request"); got != "Ready." {
		t.Errorf("the server's sampling request outside a call got %q, want the host's answer", got)
	}
}
