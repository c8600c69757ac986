package strata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
)

// A host that answers its MCP servers' sampling requests with its own
// model passes Sampling: a server's tool that asks the client's model
// (here one in the host's own process) gets the host's answer.
func ExampleSampling() {
	server := mcp.NewServer(&mcp.Implementation{Name: "writer", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "haiku", Description: "Writes a haiku with the client's model."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 50,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "A haiku about layers."}}}})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{res.Content}}, nil, nil
		})
	dir, err := os.MkdirTemp("", "sampling")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	ws, err := strata.Open[config.Partial](ctx, config.Default(), strata.Dir(dir), strata.Environ([]string{"HOME=" + dir}), strata.Unattended(),
		strata.InProcess("writer", func(ctx context.Context) (io.ReadWriteCloser, error) {
			ours, theirs := net.Pipe()
			_, err := server.Connect(ctx, &mcp.IOTransport{Reader: theirs, Writer: theirs}, nil)
			return ours, err
		}),
		strata.Sampling(func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
			var p mcp.CreateMessageParams // or the types of the host's own MCP library
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			fmt.Printf("%s asks: %s\n", server, p.Messages[0].Content.(*mcp.TextContent).Text)
			return json.Marshal(&mcp.CreateMessageResult{Role: "assistant", Model: "host-model",
				Content: &mcp.TextContent{Text: "Defaults below, then you"}})
		}))
	if err != nil {
		panic(err)
	}
	defer ws.Close()
	res, err := ws.Call(ctx, "haiku", json.RawMessage(`{}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content)
	// Output:
	// writer asks: A haiku about layers.
	// Defaults below, then you
}
