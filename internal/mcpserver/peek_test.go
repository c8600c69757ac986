package mcpserver

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
		{name: "a batch", body: `[{"jsonrpc":"2.0","id":1,"method":"` + IdentityMethod + `"}]`},
		{name: "a batch of the new protocol", body: `[{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}]`},
		{name: "identity with escapes", body: `{"jsonrpc":"2.0","i\u0064":"a","method":"server\/identity"}`, want: got{ID: `"a"`}},
		{name: "params not an object", body: `{"jsonrpc":"2.0","id":1,"method":"` + IdentityMethod + `","params":[]}`, want: got{ID: "1"}},
		{name: "_meta not an object", body: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":"2026-07-28"}}`},
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
			p, err := peekRequest(body)
			if err != nil {
				t.Fatal(err)
			}
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

// TestPeekRefuses: a body that is not one JSON value, or names a member
// of an object twice, is refused, with where.
func TestPeekRefuses(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"not JSON", `{"jsonrpc":`, "unexpected EOF"},
		{"empty", ``, "the body is empty"},
		{"a name twice", `{"id":1,"method":"a","method":"b"}`, `duplicate object member name "method"`},
		{"a name twice in a batch", `[{"id":1,"id":2}]`, `duplicate object member name "id"`},
		{"a name twice under another spelling", `{"method":"a","m\u0065thod":"b"}`, `duplicate object member name "method"`},
		{"a second value", `{"id":1} {"id":2}`, "a second value after the message, at offset 8"},
		{"bytes after", `{"id":1}x`, "invalid character 'x'"},
		{"too deep", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), "exceeded max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := peekRequest([]byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("peekRequest(%.40q) = %v, want an error saying %q", tt.body, err, tt.want)
			}
		})
	}
}

// FuzzPeek holds what strata reads of a message before the SDK does to
// what the SDK reads of it (jsonrpc.DecodeMessage): for a body strata
// does not refuse that the SDK reads as a request, the same method, an id
// exactly when the SDK's is a call, and the same protocol version in the
// _meta of its params (read with exact names, as the SDK's decoder reads
// them).
func FuzzPeek(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/identity"}`,
		`{"jsonrpc":"2.0","id":"a","me\u0074hod":"server/identity"}`,
		`{"jsonrpc":"2.0","ID":1,"METHOD":"server/identity","method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x","params":[]}`,
		`{"jsonrpc":"2\u002e0","id":-1,"method":"x"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"x\xfe\"}",
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := peekRequest(body)
		msg, sdkErr := jsonrpc.DecodeMessage(body)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !p.object || sdkErr != nil || !ok {
			return
		}
		if p.method != req.Method {
			t.Errorf("%q: strata reads method %q, the SDK %q", body, p.method, req.Method)
		}
		if (p.id != nil) != req.IsCall() {
			t.Errorf("%q: strata reads id %s, the SDK %v (a call: %v)", body, p.id, req.ID.Raw(), req.IsCall())
		}
		var params map[string]json.RawMessage
		var meta map[string]any
		if json.Unmarshal(req.Params, &params) == nil {
			_ = json.Unmarshal(params["_meta"], &meta)
		}
		if v, _ := meta[mcp.MetaKeyProtocolVersion].(string); p.version != v {
			t.Errorf("%q: strata reads protocol version %q, the SDK %q", body, p.version, v)
		}
	})
}
