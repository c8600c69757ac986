package protocol

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromMCP(t *testing.T) {
	success := `{"type":"success","content":"done"}`
	question := `{"type":"needs_input","question":{"id":"apply_changes","text":"Apply?","answer_type":"boolean"}}`
	failure := `{"type":"error","message":"busy","transient":true,"trace":["a","b"]}`
	tests := []struct {
		name    string
		in      MCPResult
		want    Outcome
		bridged bool
	}{
		{"success envelope", MCPResult{Contents: []MCPContent{{Type: "text", Text: success}}}, Outcome{Type: Success, Content: "done"}, true},
		{"question envelope", MCPResult{Contents: []MCPContent{{Type: "text", Text: question}}},
			Outcome{Type: NeedsInput, Question: &Inquiry{ID: "apply_changes", Text: "Apply?", AnswerType: "boolean"}}, true},
		{"transient error envelope", MCPResult{Contents: []MCPContent{{Type: "text", Text: failure}}},
			Outcome{Type: Failure, Message: "busy", Transient: true, Trace: []string{"a", "b"}}, true},
		{"isError wins over a parsed success", MCPResult{IsError: true, Contents: []MCPContent{{Type: "text", Text: success}}},
			Outcome{Type: Failure, Message: success}, false},
		{"isError with a parsed error keeps it", MCPResult{IsError: true, Contents: []MCPContent{{Type: "text", Text: failure}}},
			Outcome{Type: Failure, Message: "busy", Transient: true, Trace: []string{"a", "b"}}, true},
		{"two items are read the MCP way", MCPResult{Contents: []MCPContent{{Type: "text", Text: success}, {Type: "text", Text: "more"}}},
			Outcome{Type: Success, Content: success + "\nmore"}, false},
		{"text then image", MCPResult{Contents: []MCPContent{{Type: "text", Text: success}, {Type: "image"}}},
			Outcome{Type: Success, Content: success + "\n[image]"}, false},
		{"plain text", MCPResult{Contents: []MCPContent{{Type: "text", Text: "hello"}}}, Outcome{Type: Success, Content: "hello"}, false},
		{"json that is not an outcome", MCPResult{Contents: []MCPContent{{Type: "text", Text: `{"type":"weird"}`}}}, Outcome{Type: Success, Content: `{"type":"weird"}`}, false},
		{"a question without an id is not an outcome", MCPResult{Contents: []MCPContent{{Type: "text", Text: `{"type":"needs_input"}`}}}, Outcome{Type: Success, Content: `{"type":"needs_input"}`}, false},
		{"native error", MCPResult{IsError: true, Contents: []MCPContent{{Type: "text", Text: "boom"}}}, Outcome{Type: Failure, Message: "boom"}, false},
		{"native error without text", MCPResult{IsError: true}, Outcome{Type: Failure, Message: "the tool failed without a message"}, false},
		{"a resource alone", MCPResult{Contents: []MCPContent{{Type: "resource"}}}, Outcome{Type: Success, Content: "[resource]"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, bridged := FromMCP(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if bridged != tt.bridged {
				t.Errorf("bridged = %v, want %v", bridged, tt.bridged)
			}
		})
	}
}

func TestMeta(t *testing.T) {
	if m := NewContext(ActionRun, "/w", "t", map[string]any{"a": 1}, nil, nil).Meta(); m != nil {
		t.Errorf("a first call without answers or options has _meta %v", m)
	}
	c := NewContext(ActionRun, "/w", "t", map[string]any{"a": 1}, map[string]any{"apply": true}, map[string]any{"max": 3})
	b, _ := json.Marshal(c.Meta())
	want := `{"computer.jp/context":{"action":"run","root":"/w"},"computer.jp/tool":{"answers":{"apply":true},"arguments":{"a":1},"name":"t","options":{"max":3}}}`
	if string(b) != want {
		t.Errorf("_meta\n got %s\nwant %s", b, want)
	}
	if v := NewContext(ActionSchema, "/w", "t", nil, nil, nil).Value(); v["tool"].(map[string]any)["arguments"] == nil {
		t.Error("nil arguments must be an empty object for templates")
	}
}

func TestParseOutcomeErrors(t *testing.T) {
	for _, s := range []string{`{"type":"error"}`, `{"type":"needs_input","question":{}}`, `{"type":"x"}`, `[]`, `nope`} {
		if _, err := ParseOutcome([]byte(s)); err == nil {
			t.Errorf("ParseOutcome(%s) accepted it", s)
		}
	}
}
