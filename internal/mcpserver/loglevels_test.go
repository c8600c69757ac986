package mcpserver

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLogLevelsLower: the servers are asked for a level only when it is
// more detailed than every level asked before; a level MCP does not
// name is never passed on.
func TestLogLevelsLower(t *testing.T) {
	type asked struct {
		Level mcp.LoggingLevel
		OK    bool
	}
	var l LogLevels
	var got []asked
	for _, level := range []mcp.LoggingLevel{"warning", "error", "warning", "verbose", "", "info", "debug", "info", "emergency"} {
		lv, ok := l.Lower(level)
		got = append(got, asked{lv, ok})
	}
	want := []asked{{"warning", true}, {"", false}, {"", false}, {"", false}, {"", false}, {"info", true}, {"debug", true}, {"", false}, {"", false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lower (-want +got):\n%s", diff)
	}
}

// TestMetaLogLevel: the log level a request of 2026-07-28 names in its
// _meta is read from the requests strata relays, and a request whose
// params are a nil pointer (notifications/initialized without params,
// which took strata serve --http down) names none.
func TestMetaLogLevel(t *testing.T) {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := (&mcp.ServerRequest[*mcp.InitializedParams]{Session: ss}).ProtocolVersion(); v != "2026-07-28" {
		t.Fatalf("the session's protocol is %q; the test needs 2026-07-28", v)
	}
	level := mcp.Meta{mcp.MetaKeyLogLevel: "info"}
	for _, tt := range []struct {
		name string
		req  mcp.Request
		want mcp.LoggingLevel
	}{
		{"call", &mcp.ServerRequest[*mcp.CallToolParamsRaw]{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "x", Meta: level}}, "info"},
		{"call, typed", &mcp.ServerRequest[*mcp.CallToolParams]{Session: ss, Params: &mcp.CallToolParams{Name: "x", Meta: level}}, "info"},
		{"read", &mcp.ServerRequest[*mcp.ReadResourceParams]{Session: ss, Params: &mcp.ReadResourceParams{URI: "x:", Meta: level}}, "info"},
		{"prompt", &mcp.ServerRequest[*mcp.GetPromptParams]{Session: ss, Params: &mcp.GetPromptParams{Name: "x", Meta: level}}, "info"},
		{"complete", &mcp.ServerRequest[*mcp.CompleteParams]{Session: ss, Params: &mcp.CompleteParams{Meta: level}}, "info"},
		{"call without a level", &mcp.ServerRequest[*mcp.CallToolParams]{Session: ss, Params: &mcp.CallToolParams{Name: "x"}}, ""},
		{"call with nil params", &mcp.ServerRequest[*mcp.CallToolParamsRaw]{Session: ss}, ""},
		{"initialized with nil params", &mcp.ServerRequest[*mcp.InitializedParams]{Session: ss}, ""},
		{"list, not relayed", &mcp.ServerRequest[*mcp.ListToolsParams]{Session: ss, Params: &mcp.ListToolsParams{Meta: level}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := metaLogLevel(tt.req); got != tt.want {
				t.Errorf("metaLogLevel = %q, want %q", got, tt.want)
			}
		})
	}
}
