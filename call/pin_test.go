package call_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/trust"
)

// TestPinnedDescribeCall: the pin of a --describe tool is checked before
// each call: changed since, the tool is not run, and the message names
// the key to pin again.
func TestPinnedDescribeCall(t *testing.T) {
	root := workspace(t, map[string]string{"tools/echo": echoTool})
	r := runner(t, root, "[discover]\ndirs = [\"tools\"]\n")
	def, ok := r.Catalog.Tool("echo")
	if !ok {
		t.Fatal("no echo tool")
	}
	echo := filepath.Join(root, "tools", "echo")
	pin, err := trust.Launch{Program: echo, Dir: def.Exec.Dir}.Pin()
	if err != nil {
		t.Fatal(err)
	}
	r.Pins = map[string]trust.Pin{"tools.echo": pin}
	res, err := r.Call(context.Background(), "echo", json.RawMessage(`{"path":"p"}`))
	if err != nil || res.Outcome.Type != protocol.Success {
		t.Fatalf("as pinned: %+v, %v", res.Outcome, err)
	}
	if err := os.WriteFile(echo, []byte(echoTool+"\n# changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err = r.Call(context.Background(), "echo", json.RawMessage(`{"path":"p"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.Outcome{Type: protocol.Failure, Message: "echo was not run: the launch differs from the one pinned: the program " + echo + " changed on disk; check what changed, and if the change is yours, pin tools.echo again"}
	if diff := cmp.Diff(want, res.Outcome); diff != "" {
		t.Errorf("a changed executable (-want +got):\n%s", diff)
	}
}
