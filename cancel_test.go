package strata_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
)

// TestCanceledThroughEveryLayer: a context ended at any point is the cause
// of the error that comes back, however many layers wrap it.
func TestCanceledThroughEveryLayer(t *testing.T) {
	s := newSetup(t, map[string]string{
		"home/strata/config.toml": `
[tools.count_lines]
source = "local"
command = "JPTOOLS {{tool}} {{context}}"
run = "unattended"
[mcp_servers.fake]
command = "MCPFAKE"
args = ["-tools", "1"]
expose = "all"
`,
		"repo/notes.txt": "a\n",
	})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := strata.Open[config.Partial](canceled, config.Default(), strata.Dir(s.repo), strata.Environ(s.environ), strata.TrustStore(s.store)); !errors.Is(err, context.Canceled) {
		t.Errorf("Open: %v", err)
	}
	w := s.open(t)
	if _, err := w.Resolve(canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("Resolve: %v", err)
	}
	w = s.open(t)
	if _, err := w.Resolve(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"count_lines", "tool_000"} {
		if _, err := w.Call(canceled, tool, json.RawMessage(`{"path":"notes.txt"}`)); !errors.Is(err, context.Canceled) {
			t.Errorf("Call %s: %v", tool, err)
		}
	}
}
