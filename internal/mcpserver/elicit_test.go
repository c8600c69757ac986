package mcpserver_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// TestElicitation: a tool's question for the user goes to the client's
// user through MCP elicitation when the client supports it, and the call
// goes on with the answer; a client without elicitation gets the question
// back as the needs_input envelope.
func TestElicitation(t *testing.T) {
	cfg := config.Default()
	cfg.Tools["edit"] = config.Tool{Source: config.Source{Kind: config.SourceBuiltin}, Run: config.Always(config.RunUnattended),
		Questions: map[string]config.Question{"apply_changes": {Target: config.TargetUser}}}
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"edit": {Name: "edit", InputSchema: resolve.MustSchema(`{"type":"object"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(_ context.Context, pc protocol.Context) (protocol.Outcome, error) {
		a, ok := pc.Tool.Answers["apply_changes"]
		if !ok {
			return protocol.Outcome{Type: protocol.NeedsInput, Question: &protocol.Inquiry{ID: "apply_changes", Text: "Apply the changes?", AnswerType: "boolean"}}, nil
		}
		return protocol.Outcome{Type: protocol.Success, Content: fmt.Sprint("applied: ", a)}, nil
	}
	for _, tt := range []struct {
		name    string
		handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		want    string
	}{
		{"accepted", func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Message != "edit asks: Apply the changes?" {
				t.Errorf("message %q", req.Params.Message)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": true}}, nil
		}, "applied: true"},
		{"declined", func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}, `{"type":"needs_input","question":{"id":"apply_changes","text":"Apply the changes?","answer_type":"boolean"}}`},
		{"no elicitation", nil, `{"type":"needs_input","question":{"id":"apply_changes","text":"Apply the changes?","answer_type":"boolean"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) {
				return &mcpserver.Snapshot{Runner: &call.Runner{Catalog: cat, Builtin: edit}}, nil
			}}
			ctx, cancel := context.WithCancel(context.Background())
			ct, st := mcp.NewInMemoryTransports()
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx, st) }()
			defer func() { cancel(); <-done }()
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: tt.handler})
			cs, err := client.Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
