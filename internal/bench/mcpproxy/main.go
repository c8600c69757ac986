// Command mcpproxy is the floor of strata serve in front of one MCP
// server in the benchmarks: a bare program over the official Go SDK,
// nothing of strata's, that starts the server its arguments name (the
// program and its arguments), lists its tools, every page, gives each to
// an SDK server as it was listed (a call goes to the server), and serves
// them over stdio until its stdin ends. It is the least a program can do
// to serve another server's tools.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "mcpproxy:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpproxy", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	up, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(os.Args[1], os.Args[2:]...)}, nil)
	if err != nil {
		return err
	}
	defer up.Close()
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpproxy", Version: "1"}, nil)
	for t, err := range up.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		server.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return up.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
		})
	}
	return server.Run(ctx, &mcp.StdioTransport{})
}
