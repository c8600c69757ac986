package bench

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// echoSchema is the input schema of the builtin tool of the in-process
// serve benchmarks, the --describe tool's.
const echoSchema = `{"type":"object","properties":{"path":{"type":"string","description":"The file."},"limit":{"type":"integer","default":10}},"required":["path"]}`

// BenchmarkServeInProcess is a tools/call through the server of strata serve (internal/mcpserver) in one
// process, where nothing runs: a builtin tool answers. sdk-floor is a bare
// SDK server whose handler answers the same text, over the SDK's in-memory
// transport: what the SDK costs per call. strata-inmemory is that server
// over the same transport (the SDK, then validation and defaults), and
// strata-stdio the same over pipes with strata's own stdio transport,
// as strata serve runs. Allocations are the client's and the server's.
func BenchmarkServeInProcess(b *testing.B) {
	args := json.RawMessage(`{"path":"notes.txt","limit":5}`)
	const answer = "{\"ok\":true}\n"
	client := func(b *testing.B, t mcp.Transport) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), t, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	loop := func(b *testing.B, cs *mcp.ClientSession) {
		params := &mcp.CallToolParams{Name: "echo", Arguments: args}
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != answer {
				b.Fatalf("%v: %+v", err, res)
			}
		}
	}
	b.Run("sdk-floor", func(b *testing.B) {
		s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: resolve.MustSchema(echoSchema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer}}}, nil
		})
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		cs := client(b, ct)
		defer cs.Close()
		loop(b, cs)
	})
	// server serves the builtin echo, which answers answer.
	server := func(b *testing.B) *mcpserver.Server {
		root := b.TempDir()
		write(b, root+"/.strata/config.toml", "[tools.echo]\nsource = \"builtin\"\nrun = \"unattended\"\n")
		cfg := loadConfig(b, root, benchEnviron)
		echo := resolve.Discovered{Name: "echo", Description: "Echo.", InputSchema: resolve.MustSchema(echoSchema)}
		cat, err := resolveWith(&discover.Resolver{Root: root, Environ: benchEnviron, Builtins: map[string]resolve.Discovered{"echo": echo}}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		r := &call.Runner{Catalog: cat, Environ: benchEnviron, Builtin: func(context.Context, protocol.Context) (protocol.Outcome, error) {
			return protocol.Outcome{Type: protocol.Success, Content: answer}, nil
		}}
		return &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) { return &mcpserver.Snapshot{Runner: r}, nil }}
	}
	b.Run("strata-inmemory", func(b *testing.B) {
		s := server(b)
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx, st) }()
		cs := client(b, ct)
		loop(b, cs)
		cs.Close()
		cancel()
		<-done
	})
	b.Run("strata-stdio", func(b *testing.B) {
		s := server(b)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx, inR, outW) }()
		cs := client(b, &mcp.IOTransport{Reader: outR, Writer: inW})
		loop(b, cs)
		cs.Close()
		inW.Close()
		cancel()
		<-done
	})
}
