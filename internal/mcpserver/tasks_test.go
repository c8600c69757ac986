package mcpserver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTasksBlockedBySDK (issue 36, 10) holds why strata serve does not
// pass on the tasks capability of its servers (server-everything declares
// tasks: list, cancel, requests.tools.call): the Go SDK it is built on
// has no tasks. Its ServerCapabilities has no tasks member (its client
// drops the server's on decoding initialize, its server cannot declare
// one), its CallToolParams no task (a client's request for a task is
// dropped), and its server answers tasks/get, tasks/result, tasks/list
// and tasks/cancel "method not found" before any middleware sees them.
// When the SDK has them, this test fails: pass the capability through
// then.
func TestTasksBlockedBySDK(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[mcp.ServerCapabilities](), reflect.TypeFor[mcp.ClientCapabilities](), reflect.TypeFor[mcp.CallToolParamsRaw]()} {
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "tasks" || name == "task" {
				t.Errorf("the Go SDK's %s has %s now: strata serve can pass its servers' tasks through (issue 36, 10)", typ.Name(), name)
			}
		}
	}
}
