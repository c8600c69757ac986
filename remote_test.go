package strata_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
