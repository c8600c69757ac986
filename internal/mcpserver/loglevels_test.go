package mcpserver

import (
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
