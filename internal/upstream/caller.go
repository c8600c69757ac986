package upstream

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/protocol"
)

// Caller calls the tools of MCP servers through a Servers; it is the MCP
// of a call.Runner.
type Caller struct {
	Servers *Servers
	// Server returns how to reach the server named name; false when the
	// config has none.
	Server func(name string) (Server, bool)
}

// CallTool calls tool of the server named server.
func (c Caller) CallTool(ctx context.Context, server, tool string, args json.RawMessage, meta map[string]any) (*protocol.MCPResult, error) {
	spec, ok := c.Server(server)
	if !ok {
		return nil, fmt.Errorf("the config has no MCP server %s", server)
	}
	res, err := c.Servers.Call(ctx, spec, tool, args, meta)
	if err != nil {
		return nil, err
	}
	return Result(res), nil
}

// Result is an MCP result as package protocol mirrors it.
func Result(res *mcp.CallToolResult) *protocol.MCPResult {
	out := &protocol.MCPResult{IsError: res.IsError}
	out.Raw, _ = json.Marshal(res)
	for _, c := range res.Content {
		var item protocol.MCPContent
		switch c := c.(type) {
		case *mcp.TextContent:
			item = protocol.MCPContent{Type: "text", Text: c.Text}
		case *mcp.ImageContent:
			item.Type = "image"
		case *mcp.AudioContent:
			item.Type = "audio"
		case *mcp.EmbeddedResource:
			item.Type = "resource"
		case *mcp.ResourceLink:
			item.Type = "resource_link"
		default:
			item.Type = "content"
		}
		out.Contents = append(out.Contents, item)
	}
	return out
}
