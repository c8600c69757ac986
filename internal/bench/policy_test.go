package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// policyRules are the run rules of BenchmarkPolicy's rules case: ten
// rules of every kind of matcher, on a path and an integer, the one that
// decides the call (src/) the ninth, after a pointer that walks an array.
const policyRules = `run = [
  { arg = "/path", prefix = ".env", mode = "skip", reason = "secrets" },
  { arg = "/path", suffix = ".lock", mode = "ask" },
  { arg = "/path", glob = "**/*.key", mode = "skip" },
  { arg = "/path", pattern = '(^|/)\.git/', mode = "skip" },
  { arg = "/path", enum = ["Makefile", "go.mod", "go.sum"], mode = "ask" },
  { arg = "/path", prefix = "src/gen/", mode = "ask" },
  { arg = "/limit", minimum = 1000, mode = "ask" },
  { arg = "/tags", const = "dangerous", mode = "ask" },
  { arg = "/path", prefix = "src/", mode = "unattended", match = [{ path = "src/a.txt" }] },
  { mode = "ask" },
]
`

// BenchmarkPolicy is what a tool's run rules cost a call: a call of a
// builtin tool (nothing runs; the call is its arguments' check, its
// decision and the builtin's answer) whose run policy is run =
// "unattended" (none) against ten rules whose ninth decides (rules), in
// process through call.Runner and through the server of strata serve
// over the SDK's in-memory transport. The ratio cases call both in each
// iteration, alternately, and report x-none, the time of the calls with
// rules over the time of those without in the same iterations, so that
// other work on the machine moves both alike.
func BenchmarkPolicy(b *testing.B) {
	const schema = `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","default":10},"tags":{"type":"array","items":{"type":"string"}}},"required":["path"]}`
	args := json.RawMessage(`{"path":"src/a.txt","limit":5,"tags":["x","y"]}`)
	runner := func(b *testing.B, rules string) *call.Runner {
		root := b.TempDir()
		write(b, root+"/.strata/config.toml", "[tools.echo]\nsource = \"builtin\"\nparameters.path.type = \"path\"\n"+rules)
		cfg := loadConfig(b, root, benchEnviron)
		echo := resolve.Discovered{Name: "echo", Description: "Echo.", InputSchema: resolve.MustSchema(schema)}
		cat, err := resolveWith(&discover.Resolver{Root: root, Environ: benchEnviron, Builtins: map[string]resolve.Discovered{"echo": echo}}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		return &call.Runner{Catalog: cat, Environ: benchEnviron, Builtin: func(context.Context, protocol.Context) (protocol.Outcome, error) {
			return protocol.Outcome{Type: protocol.Success, Content: "ok"}, nil
		}}
	}
	cases := []struct{ name, rules string }{{"none", "run = \"unattended\"\n"}, {"rules", policyRules}}
	b.Run("runner", func(b *testing.B) {
		runners := make([]*call.Runner, len(cases))
		for i, c := range cases {
			runners[i] = runner(b, c.rules)
		}
		for i, c := range cases {
			b.Run(c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					res, err := runners[i].Call(context.Background(), "echo", args)
					if err != nil || res.Decision.Outcome != call.VerdictRun {
						b.Fatalf("%v: %+v", err, res)
					}
				}
			})
		}
	})
	b.Run("decide", func(b *testing.B) {
		// The rules alone: what deciding one call's run policy takes.
		def, _ := runner(b, cases[1].rules).Catalog.Tool("echo")
		var v any
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber() // as a call decodes its arguments
		if err := dec.Decode(&v); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if d := def.Policy.Run.Decide(v); d.Rule == nil || d.Rule.Key[len(d.Rule.Key)-1] != "8" {
				b.Fatalf("decided by %+v", d.Rule)
			}
		}
	})
	b.Run("runner-ratio", func(b *testing.B) {
		none, rules := runner(b, cases[0].rules), runner(b, cases[1].rules)
		var tNone, tRules time.Duration
		for b.Loop() {
			for i, r := range []*call.Runner{none, rules, rules, none} { // each first as often
				start := time.Now()
				res, err := r.Call(context.Background(), "echo", args)
				d := time.Since(start)
				if err != nil || res.Decision.Outcome != call.VerdictRun {
					b.Fatalf("%v: %+v", err, res)
				}
				if i == 0 || i == 3 {
					tNone += d
				} else {
					tRules += d
				}
			}
		}
		b.ReportMetric(float64(tRules)/float64(tNone), "x-none")
	})
	b.Run("serve-ratio", func(b *testing.B) {
		var sessions []*mcp.ClientSession
		for _, c := range cases {
			r := runner(b, c.rules)
			s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) { return &mcpserver.Snapshot{Runner: r}, nil }}
			ct, st := mcp.NewInMemoryTransports()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx, st) }()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { cs.Close(); cancel(); <-done }()
			sessions = append(sessions, cs)
		}
		params := &mcp.CallToolParams{Name: "echo", Arguments: args}
		var tNone, tRules time.Duration
		for b.Loop() {
			for i, cs := range []*mcp.ClientSession{sessions[0], sessions[1], sessions[1], sessions[0]} {
				start := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				d := time.Since(start)
				if err != nil || res.IsError {
					b.Fatalf("%v: %+v", err, res)
				}
				if i == 0 || i == 3 {
					tNone += d
				} else {
					tRules += d
				}
			}
		}
		b.ReportMetric(float64(tRules)/float64(tNone), "x-none")
	})
	b.Run("serve", func(b *testing.B) {
		for _, c := range cases {
			b.Run(c.name, func(b *testing.B) {
				r := runner(b, c.rules)
				s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) { return &mcpserver.Snapshot{Runner: r}, nil }}
				ct, st := mcp.NewInMemoryTransports()
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- s.Run(ctx, st) }()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
				if err != nil {
					b.Fatal(err)
				}
				params := &mcp.CallToolParams{Name: "echo", Arguments: args}
				b.ReportAllocs()
				for b.Loop() {
					res, err := cs.CallTool(context.Background(), params)
					if err != nil || res.IsError {
						b.Fatalf("%v: %+v", err, res)
					}
				}
				cs.Close()
				cancel()
				<-done
			})
		}
	})
}
