package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/resolve"
)

// TestToolForTheSDK checks what the SDK's server is given of a tool: the
// schema of a tool with x-mcp-header annotations (the SDK checks them and
// reads their headers over streamable HTTP), one shared object schema for
// any other (what a client is listed is strata's own JSON), and no tool
// whose input schema is not an object. The SDK's server takes each.
func TestToolForTheSDK(t *testing.T) {
	tests := []struct {
		name, schema string
		want         any // the InputSchema the SDK is given; nil: refused
	}{
		{name: "plain", schema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`, want: objectSchema},
		{name: "header annotation", schema: `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`,
			want: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		// A name may be written with escapes: the SDK reads the annotation
		// (and so does a client, which sends its header), so it is given
		// the schema to check the header against the argument.
		{name: "header annotation escaped", schema: `{"type":"object","properties":{"region":{"type":"string","x-mcp-\u0068eader":"Region"}}}`,
			want: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-\u0068eader":"Region"}}}`)},
		{name: "not an object", schema: `{"type":"string"}`},
		// A client reads "type", not "Type" (encoding/json would take
		// either).
		{name: "type in capitals", schema: `{"Type":"object"}`},
		{name: "type in capitals beside type", schema: `{"type":"string","TYPE":"object"}`},
		{name: "type escaped", schema: `{"typ\u0065":"object"}`, want: objectSchema},
		// The SDK's server panics on a tool whose annotations it refuses:
		// a tool that lists one is not served, and the others are.
		{name: "header annotation on an object", schema: `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`},
		{name: "escaped header annotation on an object", schema: `{"type":"object","properties":{"a":{"type":"object","\u0078-mcp-header":"A"}}}`},
		{name: "header annotation twice", schema: `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}`},
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tool(resolve.Definition{Name: "t", InputSchema: resolve.MustSchema(tt.schema)})
			if tt.want == nil {
				if err == nil {
					t.Fatalf("tool() = %+v, want it refused", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch want := tt.want.(type) {
			case json.RawMessage:
				if raw, ok := got.InputSchema.(json.RawMessage); !ok || string(raw) != string(want) {
					t.Errorf("InputSchema = %v, want the tool's schema %s", got.InputSchema, want)
				}
			default:
				if got.InputSchema != want {
					t.Errorf("InputSchema = %v, want the shared object schema", got.InputSchema)
				}
			}
			s.AddTool(got, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
		})
	}
}

// TestWireListLeavesOutWhatLeft: a tools/list answer lists each tool as
// strata serves it (its JSON of the catalog served now); a tool the SDK
// listed that a reload took out in the meantime is left out (the client
// is told the list changed), never written as the SDK holds it (a name
// and a bare object schema, which would tell the client nothing of its
// arguments).
func TestWireListLeavesOutWhatLeft(t *testing.T) {
	l := &wireList{&mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "a", InputSchema: objectSchema}, {Name: "gone", InputSchema: objectSchema}}},
		map[string]json.RawMessage{"a": json.RawMessage(`{"name":"a","description":"A.","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`)}}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) != 1 || string(got.Tools[0]) != string(l.wire["a"]) {
		t.Errorf("tools/list: %s; want a's JSON alone", b)
	}
}

// TestListedWithItsFingerprint: a tools/list answer is one catalog's, its
// tools with that catalog's fingerprint, when a reload installs another
// catalog while the SDK lists the tools (a client that keeps a list by
// its fingerprint would otherwise keep the new catalog's fingerprint with
// the old catalog's tools, or the other way round).
func TestListedWithItsFingerprint(t *testing.T) {
	catalog := func(fp string, names ...string) *Snapshot {
		var c resolve.Catalog
		c.Fingerprint = fp
		for _, n := range names {
			c.Tools = append(c.Tools, resolve.Definition{Name: n, Description: fp, InputSchema: resolve.MustSchema(`{"type":"object"}`)})
		}
		return &Snapshot{Runner: &call.Runner{Catalog: &c}}
	}
	s := &Server{mcp: mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)}
	s.install(catalog("old", "a", "b"))
	listed := func() []*mcp.Tool { // what the SDK holds now, as its tools/list would give it
		var out []*mcp.Tool
		s.mu.Lock()
		for _, d := range s.current.Runner.Catalog.Tools {
			out = append(out, &mcp.Tool{Name: d.Name, InputSchema: objectSchema})
		}
		s.mu.Unlock()
		return out
	}
	calls := 0
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		calls++
		tools := listed()
		if calls == 1 {
			s.install(catalog("new", "a", "c")) // a reload, after the SDK listed the tools
		}
		return &mcp.ListToolsResult{Tools: tools}, nil
	}
	res, err := s.fingerprintMiddleware(next)(context.Background(), "tools/list", &mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Meta  map[string]string `json:"_meta"`
		Tools []struct{ Name, Description string }
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	fp := got.Meta[MetaFingerprint]
	var names []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
		if tool.Description != fp {
			t.Errorf("tool %s is the catalog %q's, listed with the fingerprint %q", tool.Name, tool.Description, fp)
		}
	}
	if want := map[string]string{"old": "a b", "new": "a c"}[fp]; strings.Join(names, " ") != want {
		t.Errorf("listed %v with the fingerprint %q, want %s", names, fp, want)
	}
}
