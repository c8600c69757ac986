package strata_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/protocol"
)

// methods reads the methods of the JSON-RPC messages of a log (one a line,
// as JSON or as a bare method name), split into one list per process: each
// starts with the handshake's first message, initialize (servers are asked
// for protocol 2025-11-25, mcpclient.UpstreamProtocol).
func methods(t *testing.T, path string) [][]string {
	t.Helper()
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, path)), "\n") {
		method := line
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(line), &m) == nil {
			method = m.Method
		}
		if method == "initialize" || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], method)
	}
	return out
}

// TestIdentityWarmStart: a server started for a call whose tools are
// cached is asked who it is (seed 002's server/identity) when it answered
// that before: while it says the same, tools/list is not sent; once it
// says it changed, its tools are listed again and the cache takes them. A
// server that does not answer server/identity is listed on every start.
// The server with an identity is strata serve itself, a real process,
// behind tee, which logs what it is sent; the other, mcpfake, logs what
// it reads.
func TestIdentityWarmStart(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, server, log string // the server's config, and its log
		// What each start of the server is sent: for the cold resolution,
		// a warm call, a warm call after the server's tools changed.
		want [][]string
	}{
		{
			name:   "strata serve",
			server: `command = "sh"` + "\n" + `args = ["-c", "tee -a DIR/inner.log | exec STRATABIN serve --root DIR/inner --trust"]` + "\n" + `env = { STRATA_CONFIG_HOME = "DIR/innerhome", XDG_CACHE_HOME = "DIR/innercache" }`,
			log:    "inner.log",
			want: [][]string{
				// Servers are asked for protocol 2025-11-25
				// (mcpclient.UpstreamProtocol): each start begins with
				// initialize.
				{"initialize", "notifications/initialized", "server/identity", "tools/list"},
				{"initialize", "notifications/initialized", "server/identity", "tools/call"},
				{"initialize", "notifications/initialized", "server/identity", "tools/call", "tools/list"},
			},
		},
		{
			name:   "mcpfake",
			server: `command = "MCPFAKE"` + "\n" + `args = ["-tools", "2", "-requests", "DIR/plain.log"]`,
			log:    "plain.log",
			want: [][]string{
				{"initialize", "notifications/initialized", "server/identity", "tools/list"},
				{"initialize", "notifications/initialized", "server/identity", "tools/call", "tools/list"},
				{"initialize", "notifications/initialized", "server/identity", "tools/call", "tools/list"},
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inner := func(tools string) string {
				// The client, strata, asks nobody: the tools run unattended.
				return "[tools.'*']\nrun = \"unattended\"\n[mcp_servers.fake]\ncommand = \"MCPFAKE\"\nargs = [\"-tools\", \"" + tools + "\"]\nexpose = \"all\"\n"
			}
			files := map[string]string{
				"inner/.strata/config.toml": inner("2"),
				"home/strata/config.toml": "[mcp_servers.up]\n" + strings.ReplaceAll(tt.server, "STRATABIN", strataBin) + `
expose = "all"

[tools.first]
source = "mcp.up.tool_000"
run = "unattended"
`,
			}
			s := newSetup(t, files)
			ctx := context.Background()
			tools := func() []string { return s.resolveOnce(t).names } // the server stops: the next start is another
			callFirst := func() {
				t.Helper()
				w := s.open(t)
				res, err := w.Call(ctx, "first", json.RawMessage(`{}`))
				if err != nil || res.Type != protocol.Success || res.Content != "tool_000: ok" {
					t.Fatalf("call: %+v, %v", res, err)
				}
				w.Close()
			}
			if got := tools(); !slices.Equal(got, []string{"first", "tool_001"}) {
				t.Fatalf("cold: %v", got)
			}
			callFirst()
			// The server's tools change (strata serve's, by its config); the
			// key of the cache does not.
			if err := os.WriteFile(filepath.Join(s.dir, "inner/.strata/config.toml"), []byte(strings.ReplaceAll(inner("3"), "MCPFAKE", mcpfake)), 0o644); err != nil {
				t.Fatal(err)
			}
			callFirst()
			var got [][]string
			for _, p := range methods(t, filepath.Join(s.dir, tt.log)) {
				slices.Sort(p)
				got = append(got, p)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("what each start was sent (-want +got):\n%s", diff)
			}
			want := []string{"first", "tool_001"}
			if tt.name == "strata serve" {
				want = append(want, "tool_002") // listed again at the warm start, and cached
			}
			if got := tools(); !slices.Equal(got, want) {
				t.Errorf("warm, after the change: %v, want %v", got, want)
			}
		})
	}
}

// TestIdentityRunningServer: a running server listed again (strata serve
// resolving again, here after its config changed, with --refresh, so
// that nothing comes from the cache) is asked who it is, and not asked
// for its tools while it says the same. The server is strata serve
// itself, behind tee.
func TestIdentityRunningServer(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{
		"inner/.strata/config.toml": "[mcp_servers.fake]\ncommand = \"MCPFAKE\"\nargs = [\"-tools\", \"2\"]\nexpose = \"all\"\n",
		"home/strata/config.toml": `
[mcp_servers.up]
command = "sh"
args = ["-c", "tee -a DIR/inner.log | exec ` + strataBin + ` serve --root DIR/inner --trust"]
env = { STRATA_CONFIG_HOME = "DIR/innerhome", XDG_CACHE_HOME = "DIR/innercache" }
expose = "all"
`,
	})
	changed := make(chan struct{}, 10)
	// The client declares no roots (the SDK's default does): strata
	// would declare them to the server, started again with them.
	cs := s.serveProcess(t, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}, ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}, "--refresh")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if names := toolNames(t, cs); !slices.Equal(names, []string{"tool_000", "tool_001"}) {
		t.Fatalf("tools: %v", names)
	}
	config := filepath.Join(s.home, "strata/config.toml")
	if err := os.WriteFile(config, []byte(readFile(t, config)+"\n[tools.tool_000]\ndescription = \"Changed here.\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	receive(t, ctx, changed, "tools/list_changed")
	got := methods(t, filepath.Join(s.dir, "inner.log"))
	for _, p := range got {
		slices.Sort(p)
	}
	want := [][]string{{"initialize", "notifications/initialized", "server/identity", "server/identity", "tools/list"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the server was sent (-want +got):\n%s", diff)
	}
}
