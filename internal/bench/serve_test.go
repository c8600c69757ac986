package bench

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/testbin"
)

// BenchmarkServeCall calls a --describe tool: run directly with its JSON
// argument (the baseline), and through strata serve, a process driven by
// the Go SDK's client over stdio (validation, defaults, the run, and
// JSON-RPC both ways). The same iterations call the tool through
// mcpexec, untimed: a bare SDK server that runs it with exec.Command and
// does nothing else (x-sdk-exec is strata's time over it, sdk-exec-x-direct
// its own over the direct run): what any server over the SDK costs a call
// beyond the run. strata-serve-refused is the round trip alone: a call
// with invalid arguments, refused before anything runs; sdk-server is the
// SDK's client's round trip to a server that does nothing (mcpfake, whose
// JSON-RPC is written by hand: no SDK server), and sdk-noop the same to a
// bare SDK server whose tool does nothing (mcpexec -noop): what the SDK's
// server adds to a round trip, which strata-serve-refused pays too.
func BenchmarkServeCall(b *testing.B) {
	const (
		self  = testbin.Strata
		fake  = "github.com/strata-config/strata/fixtures/mcpfake"
		floor = "github.com/strata-config/strata/internal/bench/mcpexec"
	)
	bins, err := testbin.Build(self, fake, floor)
	if err != nil {
		b.Fatal(err)
	}
	root := describeTools(b, 1, "")
	tool := filepath.Join(root, "tools", "tool_0000")
	args := `{"path":"notes.txt","limit":5}`
	direct := func(b *testing.B) {
		cmd := exec.Command(tool, args)
		cmd.Dir, cmd.Env = root, benchEnviron
		out, err := cmd.Output()
		if err != nil || string(out) != "{\"ok\":true}\n" {
			b.Fatalf("%v: %q", err, out)
		}
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			direct(b)
		}
	})
	serve := func(b *testing.B) *mcp.ClientSession {
		// The client asks no user: the tool runs unattended (the default,
		// "ask", would refuse the call, as the client cannot be asked).
		cmd := exec.Command(bins[self], "serve", "--root", root, "--trust", "--cfg", "tools.'*'.run=unattended")
		cmd.Env = append(append([]string{}, benchEnviron...), "XDG_CACHE_HOME="+filepath.Join(b.TempDir(), "cache"))
		return connect(b, cmd)
	}
	// Each iteration also runs the tool directly and calls it through
	// mcpexec, both untimed: x-direct is the call's time over the direct
	// run's in the same iterations, x-sdk-exec over mcpexec's call, so that
	// load on the machine moves them alike.
	b.Run("strata-serve", func(b *testing.B) {
		cs := serve(b)
		cmd := exec.Command(bins[floor], tool)
		cmd.Dir, cmd.Env = root, benchEnviron
		sdk := connect(b, cmd)
		params := &mcp.CallToolParams{Name: "tool_0000", Arguments: json.RawMessage(args)}
		call := func(b *testing.B, cs *mcp.ClientSession) time.Duration {
			start := time.Now()
			res, err := cs.CallTool(context.Background(), params)
			took := time.Since(start)
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "{\"ok\":true}\n" {
				b.Fatalf("%v: %+v", err, res)
			}
			return took
		}
		var took, floor, sdkFloor time.Duration
		for b.Loop() {
			b.StopTimer()
			start := time.Now()
			direct(b)
			floor += time.Since(start)
			sdkFloor += call(b, sdk)
			b.StartTimer()
			took += call(b, cs)
		}
		b.ReportMetric(float64(took)/float64(floor), "x-direct")
		b.ReportMetric(float64(took)/float64(sdkFloor), "x-sdk-exec")
		b.ReportMetric(float64(sdkFloor)/float64(floor), "sdk-exec-x-direct")
	})
	// sdk-server is the round trip without strata: the same client calls
	// a tool of mcpfake, which answers at once, with JSON-RPC written by
	// hand. Against it, strata-serve-refused is what strata's handling and
	// the SDK's server (its decoding of each request, its dispatch) add to
	// a round trip.
	b.Run("sdk-server", func(b *testing.B) {
		roundTrips(b, connect(b, exec.Command(bins[fake], "-echo")), "echo", false)
	})
	b.Run("sdk-noop", func(b *testing.B) {
		roundTrips(b, connect(b, exec.Command(bins[floor], "-noop")), "-noop", false)
	})
	b.Run("strata-serve-refused", func(b *testing.B) {
		roundTrips(b, serve(b), "tool_0000", true)
	})
}

// connect starts cmd as an MCP server and connects the SDK's client to
// it over stdio, for the rest of b.
func connect(b *testing.B, cmd *exec.Cmd) *mcp.ClientSession {
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// roundTrips calls the tool name of cs once an iteration with the
// arguments {"limit":"many"}, which tool_0000's schema refuses (its limit
// is an integer) and the floors' tools take: the result must be a tool
// error when refused is set, else a success.
func roundTrips(b *testing.B, cs *mcp.ClientSession, name string, refused bool) {
	params := &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{"limit":"many"}`)}
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError != refused {
			b.Fatalf("%v: %+v", err, res)
		}
	}
}
