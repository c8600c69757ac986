package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/internal/testbin"
)

// BenchmarkServeRemote calls a tool of a remote server, server-everything
// over streamable HTTP on 127.0.0.1: directly with the Go SDK's client (the
// baseline), and through strata serve, a process driven by the SDK's
// client over stdio, which validates the call and relays it over its own
// HTTP session to the server.
func BenchmarkServeRemote(b *testing.B) {
	const self = testbin.Strata
	bins, err := testbin.Build(self)
	if err != nil {
		b.Fatal(err)
	}
	url := mcptest.Everything(b, "streamableHttp") + "/mcp"
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}
	loop := func(b *testing.B, cs *mcp.ClientSession) {
		for b.Loop() {
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "Echo: hello" {
				b.Fatalf("%v: %+v", err, res)
			}
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	// Node compiles the server's code as it runs: a fresh server answers
	// its first calls several times slower, which the first of the two
	// would pay alone.
	warm, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for range 1000 {
		if _, err := warm.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
	warm.Close()
	b.Run("direct", func(b *testing.B) {
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		loop(b, cs)
	})
	b.Run("strata-serve", func(b *testing.B) {
		root := b.TempDir()
		write(b, filepath.Join(root, ".strata", "config.toml"), "[mcp_servers.everything]\nurl = \""+url+"\"\nexpose = [\"echo\"]\n\n# The client asks no user.\n[tools.\"*\"]\nrun = \"unattended\"\n")
		cmd := exec.Command(bins[self], "serve", "--root", root, "--trust")
		cmd.Env = append(append([]string{}, benchEnviron...), "XDG_CACHE_HOME="+filepath.Join(b.TempDir(), "cache"))
		cmd.Stderr = os.Stderr
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		loop(b, cs)
	})
}
