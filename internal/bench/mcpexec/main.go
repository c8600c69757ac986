// Command mcpexec is the floor of a call through strata serve in the
// benchmarks: a bare MCP server over the official Go SDK, nothing of
// strata's, whose one tool runs the program its argument names with the
// call's arguments as one JSON argument (as strata runs a --describe tool,
// with the same environment as the direct run), and answers its stdout as
// text. It validates nothing, decides nothing and bounds nothing: it is the
// least a server over the SDK can do to run a program for a client. With
// -noop the tool runs nothing and answers {"ok":true} at once: the SDK
// server's round trip alone.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "mcpexec:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: mcpexec PROGRAM | -noop")
	}
	program := os.Args[1]
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpexec", Version: "1"}, nil)
	tool := &mcp.Tool{Name: filepath.Base(program), InputSchema: map[string]any{"type": "object"}}
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if program == "-noop" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{\"ok\":true}\n"}}}, nil
		}
		cmd := exec.CommandContext(ctx, program, string(req.Params.Arguments))
		cmd.Env = os.Environ()
		out, err := cmd.Output()
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil
	})
	return server.Run(ctx, &mcp.StdioTransport{})
}
