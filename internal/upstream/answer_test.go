package upstream_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/upstream"
)

// listed is a tool as a server lists it, as mcpclient keeps it.
func listed(raw string) mcpclient.Tool { return mcpclient.ToolOf(jsonv.MustParse(raw).JSON(), false) }

// answer is an answer of the tools listed as raw.
func answer(raws ...string) upstream.Answer {
	a := upstream.Answer{ServerInfo: &mcp.Implementation{Name: "fake", Version: "1.0.0"}}
	for _, r := range raws {
		a.Tools = append(a.Tools, listed(r))
	}
	return a
}

const (
	toolA = `{"name":"a","description":"Reads.","inputSchema":{"type":"object","properties":{"p":{"type":"string"},"n":{"type":"integer","maximum":10}}},"_meta":{"x":1}}`
	toolB = `{"name":"b","title":"B","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`
)

// TestSameTools: two listings are the same when they say the same, in
// any key order and number form, whatever identity they came with; any
// change of a tool (its schema, a key beside the fields strata reads),
// the tools' order or number, the server's info or the cut differs.
func TestSameTools(t *testing.T) {
	base := answer(toolA, toolB)
	tests := []struct {
		name string
		b    upstream.Answer
		same bool
	}{
		{name: "the same", b: answer(toolA, toolB), same: true},
		{name: "keys in another order, numbers written otherwise", b: answer(`{"description":"Reads.","name":"a","_meta":{"x":1.0},"inputSchema":{"properties":{"n":{"maximum":1e1,"type":"integer"},"p":{"type":"string"}},"type":"object"}}`, toolB), same: true},
		{name: "another identity", b: func() upstream.Answer {
			a := answer(toolA, toolB)
			a.Identity = &mcpclient.Identity{ServerID: "x", ToolsCount: 2}
			return a
		}(), same: true},
		{name: "a schema changed", b: answer(strings.Replace(toolA, `"maximum":10`, `"maximum":11`, 1), toolB)},
		{name: "a key beside the fields changed", b: answer(strings.Replace(toolA, `"x":1`, `"x":2`, 1), toolB)},
		{name: "a description changed", b: answer(strings.Replace(toolA, `Reads.`, `Writes.`, 1), toolB)},
		{name: "another order", b: answer(toolB, toolA)},
		{name: "a tool less", b: answer(toolA)},
		{name: "another version", b: func() upstream.Answer {
			a := answer(toolA, toolB)
			a.ServerInfo.Version = "1.0.1"
			return a
		}()},
		{name: "cut", b: func() upstream.Answer {
			a := answer(toolA, toolB)
			a.Cut = &mcpclient.Cut{Kept: 2, By: "tools", Bound: 2}
			return a
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upstream.SameTools(base, tt.b); got != tt.same {
				t.Errorf("SameTools = %v, want %v", got, tt.same)
			}
			if got := upstream.SameTools(tt.b, base); got != tt.same {
				t.Errorf("SameTools, the other way = %v, want %v", got, tt.same)
			}
		})
	}
}

// TestAnswerKept: an answer kept in the cache reads back the same, each
// tool written once, byte for byte as listed; an answer of tools the SDK
// decoded (no raw JSON) reads back without raw JSON.
func TestAnswerKept(t *testing.T) {
	decoded := upstream.Answer{Tools: []mcpclient.Tool{{Name: "c", Description: "C.", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	withCut := answer(toolA)
	withCut.Identity = &mcpclient.Identity{ServerID: "id", ToolsCount: 1, ProtocolVersion: "2025-11-25"}
	withCut.Cut = &mcpclient.Cut{Kept: 1, Bytes: 200, By: "bytes", Bound: 300}
	for _, tt := range []struct {
		name string
		a    upstream.Answer
	}{
		{"listed", answer(toolA, toolB)},
		{"identity and cut", withCut},
		{"decoded by the SDK", decoded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &cache.Cache{Dir: t.TempDir()}
			key := cache.Key{Protocol: "mcp", Path: "/bin/fake"}
			b, err := json.Marshal(tt.a)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tt.a.Tools {
				if tool.Raw != nil && strings.Count(string(b), string(tool.Raw)) != 1 {
					t.Errorf("the tool %s is written %d times, want once:\n%s", tool.Name, strings.Count(string(b), string(tool.Raw)), b)
				}
			}
			if err := c.Put(key, b); err != nil {
				t.Fatal(err)
			}
			got := upstream.Cached(c, upstream.Server{Key: &key})
			if got == nil {
				t.Fatalf("nothing read back of\n%s", b)
			}
			if !upstream.SameTools(tt.a, *got) {
				t.Errorf("read back, the tools differ:\n%s", b)
			}
			summary := func(a upstream.Answer) []string {
				var s []string
				for _, tool := range a.Tools {
					raw := "none"
					if tool.Raw != nil {
						raw = string(tool.Raw)
					}
					s = append(s, tool.Name+" "+tool.Title+" "+tool.Description+" "+string(tool.InputSchema)+" raw:"+raw)
				}
				id, _ := json.Marshal(a.Identity)
				cut, _ := json.Marshal(a.Cut)
				return append(s, string(id), string(cut))
			}
			if diff := cmp.Diff(summary(tt.a), summary(*got)); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnswerFieldsKept: the cache's form of an answer (Answer.MarshalJSON)
// names each field of Answer and of a tool; a field added to either must
// be kept there too, and listed here.
func TestAnswerFieldsKept(t *testing.T) {
	fields := func(v any) []string {
		var out []string
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			out = append(out, typ.Field(i).Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"ServerInfo", "Tools", "Identity", "Cut"}, fields(upstream.Answer{})); diff != "" {
		t.Errorf("Answer's fields (-kept +declared):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Name", "Title", "Description", "InputSchema", "OutputSchema", "Annotations", "Raw"}, fields(mcpclient.Tool{})); diff != "" {
		t.Errorf("a tool's fields (-kept +declared):\n%s", diff)
	}
}

// FuzzAnswer: whatever a cache file holds, reading it as an answer fails
// or gives an answer that is written and read back as the same tools.
func FuzzAnswer(f *testing.F) {
	for _, a := range []upstream.Answer{answer(toolA, toolB), {Tools: []mcpclient.Tool{{Name: "c", InputSchema: json.RawMessage(`{"type":"object"}`)}}}} {
		b, err := a.MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":null,"annotations":{"x":"<&>"}}],"decoded":true}`))
	f.Add([]byte(`{"tools":[{"name":"\u0061\ud800","x":{"name":"b"}}],"cut":{"kept":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a upstream.Answer
		if a.UnmarshalJSON(b) != nil {
			return
		}
		out, err := a.MarshalJSON()
		if err != nil {
			t.Fatalf("writing what was read: %v", err)
		}
		var back upstream.Answer
		if err := back.UnmarshalJSON(out); err != nil {
			t.Fatalf("reading back %s: %v", out, err)
		}
		if !upstream.SameTools(a, back) {
			t.Fatalf("read back other tools:\n%s\nfrom\n%s", out, b)
		}
	})
}
