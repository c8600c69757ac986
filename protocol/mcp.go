package protocol

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MCPResult is what a tools/call answered: what the bridge reads of it,
// and the whole result as the server wrote it.
type MCPResult struct {
	IsError  bool
	Contents []MCPContent
	// Raw is the result as the server sent it, every content item,
	// structured content and _meta included, for hosts that pass it on.
	Raw json.RawMessage
}

// MCPContent is one content item of a tools/call result.
type MCPContent struct {
	Type string // "text", "image", "audio", "resource", "resource_link"
	Text string // for text items
}

// ReadMCPResult reads raw, an MCP CallToolResult as JSON (what the Go
// SDK's json.Marshal of an *mcp.CallToolResult gives), as an MCPResult
// that keeps it whole.
func ReadMCPResult(raw []byte) (*MCPResult, error) {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("an MCP tool result: %w", err)
	}
	out := &MCPResult{IsError: r.IsError, Raw: append(json.RawMessage(nil), raw...)}
	for _, c := range r.Content {
		item := MCPContent{Type: c.Type}
		if c.Type == "text" {
			item.Text = c.Text
		}
		out.Contents = append(out.Contents, item)
	}
	return out, nil
}

// FromMCP reads an MCP tool result as an Outcome. When the result is
// exactly one text item holding an Outcome, that Outcome is the answer
// (bridged is true), except that MCP's isError wins over a parsed success:
// the result is then an error whose message is the text. Any other result
// is read the MCP way: the text of its items, joined by newlines (other
// items as [type]), a success unless isError.
func FromMCP(r MCPResult) (o Outcome, bridged bool) {
	if len(r.Contents) == 1 && r.Contents[0].Type == "text" {
		if parsed, err := ParseOutcome([]byte(r.Contents[0].Text)); err == nil {
			if r.IsError && parsed.Type == Success {
				return Outcome{Type: Failure, Message: r.Contents[0].Text}, false
			}
			return parsed, true
		}
	}
	parts := make([]string, 0, len(r.Contents))
	for _, c := range r.Contents {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		} else {
			parts = append(parts, "["+c.Type+"]")
		}
	}
	text := strings.Join(parts, "\n")
	if r.IsError {
		if text == "" {
			text = "the tool failed without a message"
		}
		return Outcome{Type: Failure, Message: text}, false
	}
	return Outcome{Type: Success, Content: text}, false
}
