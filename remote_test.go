package strata_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/protocol"
)

// TestRemoteServer resolves, caches and calls the tools of a real remote
// server (server-everything over streamable HTTP on 127.0.0.1), as for a
// server strata starts: a warm open starts nothing and connects nowhere.
func TestRemoteServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the npm server over HTTP")
	}
	base := mcptest.Everything(t, "streamableHttp")
	s := newSetup(t, map[string]string{
		"home/strata/config.toml": `
[mcp_servers.remote]
url = "` + base + `/mcp"
headers = { "X-Team" = "a" }
bearer_token_env_var = "EVERYTHING_TOKEN"
expose = ["echo", "get-sum"]

[tools.add]
source = "mcp.remote.get-sum"
run = "unattended"
`,
	})
	s.environ = append(s.environ, "EVERYTHING_TOKEN=t0k3n")
	w := s.open(t)
	cat, err := w.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range cat.Tools {
		names = append(names, d.Name+"="+d.Source)
	}
	if got := strings.Join(names, " "); got != "add=mcp.remote.get-sum echo=mcp.remote get-sum=mcp.remote" {
		t.Errorf("tools: %s", got)
	}
	res, err := w.Call(context.Background(), "add", json.RawMessage(`{"a": 2, "b": 40}`))
	if err != nil || res.Type != protocol.Success || !strings.Contains(res.Content, "42") {
		t.Fatalf("call: %+v, %v", res, err)
	}
	warm := s.open(t)
	wcat, err := warm.Resolve(context.Background())
	if err != nil || wcat.Fingerprint != cat.Fingerprint || cat.Started != 1 || wcat.Started != 0 {
		t.Fatalf("warm: %v, same catalog %v, connections %d then %d", err, wcat.Fingerprint == cat.Fingerprint, cat.Started, wcat.Started)
	}

	// Without its token, the server is not reached, and says why.
	s.environ = s.environ[:len(s.environ)-1]
	_, err = s.open(t, strata.Refresh()).Resolve(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the variable EVERYTHING_TOKEN, which bearer_token_env_var names, is not set") {
		t.Errorf("without the token: %v", err)
	}
}

// identityServer is a real MCP server over streamable HTTP on 127.0.0.1
// (the SDK's) that also answers seed 002's server/identity, with an id
// derived from its tools, and counts the requests it is sent by method.
type identityServer struct {
	*httptest.Server
	mcp *mcp.Server

	mu     sync.Mutex
	tools  []string
	counts map[string]int
}

func newIdentityServer(t *testing.T, tools ...string) *identityServer {
	t.Helper()
	s := &identityServer{mcp: mcp.NewServer(&mcp.Implementation{Name: "identity", Version: "1"}, nil), counts: map[string]int{}}
	for _, name := range tools {
		s.add(name)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(body, &m)
			s.mu.Lock()
			s.counts[m.Method]++
			sum := sha256.Sum256([]byte(strings.Join(s.tools, "\n")))
			count := len(s.tools)
			s.mu.Unlock()
			if m.Method == "server/identity" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"server_id":"%x-%x-%x-%x-%x","tools_count":%d,"protocol_version":"1.0"}}`, m.ID, sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16], count)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// add adds a tool to the server, which changes its identity.
func (s *identityServer) add(name string) {
	s.mu.Lock()
	s.tools = append(s.tools, name)
	s.mu.Unlock()
	s.mcp.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
	})
}

// sent returns how many requests of tools/list and server/identity the
// server was sent.
func (s *identityServer) sent() (list, identity int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts["tools/list"], s.counts["server/identity"]
}

// TestRemoteIdentity: a remote server that answers server/identity is
// asked who it is on a warm resolution (reaching it costs no process):
// while it says the same, its cached tools are used and tools/list is not
// sent; when it says it changed, its tools are listed again, the cache
// takes them, and a warning says so. A remote server without an identity
// is not reached on a warm resolution at all (TestRemoteServer).
func TestRemoteIdentity(t *testing.T) {
	srv := newIdentityServer(t, "alpha")
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.remote]
url = "` + srv.URL + `"
expose = "all"
`})
	type step struct {
		Tools, Warnings  []string
		Lists, Identitys int
	}
	var got []step
	record := func() {
		r := s.resolveOnce(t)
		list, identity := srv.sent()
		got = append(got, step{r.names, r.warnings, list, identity})
	}
	record() // cold
	record() // warm, the same server
	srv.add("beta")
	record() // warm, the server changed
	record() // warm, the same server again
	want := []step{
		{Tools: []string{"alpha"}, Lists: 1, Identitys: 1},
		{Tools: []string{"alpha"}, Lists: 1, Identitys: 2},
		{Tools: []string{"alpha", "beta"}, Warnings: []string{"the server's tools differ from those cached; the cache now holds the new ones"}, Lists: 2, Identitys: 3},
		{Tools: []string{"alpha", "beta"}, Lists: 2, Identitys: 4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolutions (-want +got):\n%s", diff)
	}
}
