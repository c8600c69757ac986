package protocol_test

import (
	"encoding/json"
	"fmt"

	"github.com/strata-config/strata/protocol"
)

// NewContext builds what a tool receives. Over MCP it travels in _meta,
// which stays empty on a first call without answers or options.
func ExampleNewContext() {
	args := map[string]any{"path": "notes.txt"}
	first := protocol.NewContext(protocol.ActionRun, "/work", "fs_modify_file", args, nil, nil)
	b, _ := json.Marshal(first)
	fmt.Println(string(b))
	fmt.Println("first call has _meta:", first.Meta() != nil)

	// Retried with the answer to the tool's question.
	retry := protocol.NewContext(protocol.ActionRun, "/work", "fs_modify_file", args, map[string]any{"apply_changes": true}, nil)
	b, _ = json.Marshal(retry.Meta())
	fmt.Println("retry _meta:", string(b))
	// Output:
	// {"tool":{"name":"fs_modify_file","arguments":{"path":"notes.txt"},"answers":{},"options":{}},"context":{"action":"run","root":"/work"}}
	// first call has _meta: false
	// retry _meta: {"computer.jp/context":{"action":"run","root":"/work"},"computer.jp/tool":{"answers":{"apply_changes":true},"arguments":{"path":"notes.txt"},"name":"fs_modify_file","options":{}}}
}

// ParseOutcome reads a tool's answer and checks it is complete.
func ExampleParseOutcome() {
	for _, text := range []string{
		`{"type": "success", "content": "3 lines"}`,
		`{"type": "needs_input", "question": {"id": "apply_changes", "text": "Apply?", "answer_type": "boolean"}}`,
		`{"type": "error", "message": "rate limited", "transient": true}`,
		`{"type": "error"}`,
		`{"type": "done"}`,
	} {
		o, err := protocol.ParseOutcome([]byte(text))
		switch {
		case err != nil:
			fmt.Println("invalid:", err)
		case o.Type == protocol.Success:
			fmt.Println("success:", o.Content)
		case o.Type == protocol.NeedsInput:
			fmt.Println("needs input:", o.Question.ID, o.Question.AnswerType)
		case o.Type == protocol.Failure:
			fmt.Println("error:", o.Message, "transient:", o.Transient)
		}
	}
	// Output:
	// success: 3 lines
	// needs input: apply_changes boolean
	// error: rate limited transient: true
	// invalid: an error outcome needs a message
	// invalid: unknown outcome type "done"; expected success, error or needs_input
}

// FromMCP reads an MCP tools/call result: one text content holding an
// Outcome is bridged, other results are read the MCP way.
func ExampleFromMCP() {
	text := func(isError bool, texts ...string) protocol.MCPResult {
		r := protocol.MCPResult{IsError: isError}
		for _, t := range texts {
			r.Contents = append(r.Contents, protocol.MCPContent{Type: "text", Text: t})
		}
		return r
	}
	show := func(o protocol.Outcome, bridged bool) {
		fmt.Printf("bridged=%v type=%s content=%q message=%q\n", bridged, o.Type, o.Content, o.Message)
	}

	// A JP-aware server answers with the Outcome envelope.
	show(protocol.FromMCP(text(false, `{"type":"needs_input","question":{"id":"apply_changes","text":"Apply?"}}`)))
	// isError wins over an envelope that says success.
	show(protocol.FromMCP(text(true, `{"type":"success","content":"done"}`)))
	// Any other server: its text items, joined.
	show(protocol.FromMCP(text(false, "line one", "line two")))
	r := text(true, "no such file")
	r.Contents = append(r.Contents, protocol.MCPContent{Type: "image"})
	show(protocol.FromMCP(r))
	// Output:
	// bridged=true type=needs_input content="" message=""
	// bridged=false type=error content="" message="{\"type\":\"success\",\"content\":\"done\"}"
	// bridged=false type=success content="line one\nline two" message=""
	// bridged=false type=error content="" message="no such file\n[image]"
}
