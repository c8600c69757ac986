package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/serve"
)

// A Server serves the catalog its Load resolves, here one builtin tool of
// the host, to any MCP client; the client sees the catalog's fingerprint
// as the server's version.
func ExampleServer() {
	echo := resolve.Discovered{Name: "echo", Description: "Repeat a text.",
		InputSchema: resolve.MustSchema(`{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}`)}

	var fingerprint string // of the catalog served, to compare
	s := &serve.Server{
		Load: func(ctx context.Context) (*serve.Snapshot, error) {
			var p config.Partial
			if err := codec.Decode("config.toml", []byte("[tools.echo]\nsource = \"builtin\"\n"), partial.TOML, &p); err != nil {
				return nil, err
			}
			cfg, err := config.Finalize(&p)
			if err != nil {
				return nil, err
			}
			cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"echo": echo}})
			if err != nil {
				return nil, err
			}
			fingerprint = cat.Fingerprint
			return &serve.Snapshot{Runner: &call.Runner{
				Catalog: cat,
				// An MCP client asks its user before it calls a tool.
				Confirm: func(context.Context, string, json.RawMessage) (bool, error) { return true, nil },
				Builtin: func(_ context.Context, pc protocol.Context) (protocol.Outcome, error) {
					return protocol.Outcome{Type: protocol.Success, Content: fmt.Sprint(pc.Tool.Arguments["text"])}, nil
				},
			}}, nil
		},
	}

	// The server reads the client's messages from in and writes its own
	// to out, as over a process's stdin and stdout.
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, inR, outW); outW.Close() }()
	defer func() {
		cancel()
		inW.Close()
		if err := <-done; err != nil && ctx.Err() == nil {
			fmt.Println("Serve:", err)
		}
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name)
	}
	fmt.Println("version is the fingerprint:", cs.InitializeResult().ServerInfo.Version == fingerprint)
	fmt.Println("tools/list _meta has it:", tools.Meta[serve.MetaFingerprint] == fingerprint)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// echo
	// version is the fingerprint: true
	// tools/list _meta has it: true
	// false hello
}
