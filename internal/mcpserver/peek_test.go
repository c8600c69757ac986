package mcpserver

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPeek checks what the /mcp handler reads of a POST before the SDK
// does, from one decoding of its body: a server/identity request's id,
// and whether the request is of protocol 2026-07-28 or later (by its
// header, else, without a session, by its message's _meta).
func TestPeek(t *testing.T) {
	type got struct {
		ID        string // the identity request's id; "" when it is not one
		Stateless bool
	}
	tests := []struct {
		name, body string
		header     map[string]string
		want       got
	}{
		{name: "identity", body: `{"jsonrpc":"2.0","id":7,"method":"` + IdentityMethod + `"}`, want: got{ID: "7"}},
		{name: "identity without id is a notification", body: `{"jsonrpc":"2.0","method":"` + IdentityMethod + `"}`},
		{name: "identity with null id", body: `{"jsonrpc":"2.0","id":null,"method":"` + IdentityMethod + `"}`},
		{name: "new protocol in _meta", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, want: got{Stateless: true}},
		{name: "old protocol in _meta", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`},
		{name: "_meta version not a string", body: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}}`},
		{name: "header says new", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, header: map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, want: got{Stateless: true}},
		{name: "header says old over _meta", body: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, header: map[string]string{"Mcp-Protocol-Version": "2025-11-25"}},
		{name: "a session is the old protocol", body: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, header: map[string]string{"Mcp-Session-Id": "s"}},
		{name: "not JSON", body: `{"jsonrpc":`},
		{name: "a batch", body: `[{"jsonrpc":"2.0","id":1,"method":"` + IdentityMethod + `"}]`},
		{name: "no body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			var body []byte
			if tt.body != "" {
				body = []byte(tt.body)
			}
			p := peekRequest(body)
			id, ok := p.identity()
			if ok != (tt.want.ID != "") {
				t.Errorf("identity() ok = %v with id %s", ok, id)
			}
			if diff := cmp.Diff(tt.want, got{ID: string(id), Stateless: p.stateless(r)}); diff != "" {
				t.Errorf("peek (-want +got):\n%s", diff)
			}
		})
	}
}
