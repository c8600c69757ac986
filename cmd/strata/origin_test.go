package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRemoteCredentialsEndToEnd: a remote server of the user's config that
// redirects to another origin gets no credential sent there, and strata
// resolve names the server and both origins; a url of plain http to
// another machine is refused at its place in the file, before anything
// connects.
func TestRemoteCredentialsEndToEnd(t *testing.T) {
	t.Parallel()
	const token, team = "bearer-0123456789-secret", "team-0123456789-secret"
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		for name, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, token) || strings.Contains(v, team) {
					leaked = append(leaked, r.Method+" "+name+": "+v)
				}
			}
		}
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
			return mcp.NewServer(&mcp.Implementation{Name: "other", Version: "1"}, nil)
		}, nil).ServeHTTP(w, r)
	}))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer origin.Close()

	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "TOKEN=" + token}
	write := func(content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(home, "strata"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "strata", "config.toml"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	write("[mcp_servers.moved]\nurl = \"" + origin.URL + "/mcp\"\nheaders = { \"X-Team\" = \"" + team + "\" }\nbearer_token_env_var = \"TOKEN\"\nexpose = \"all\"\n")
	out, stderr, code := strataIn(t, dir, environ, "resolve")
	if code == 0 {
		t.Errorf("strata resolve succeeded:\n%s%s", out, stderr)
	}
	for _, want := range []string{"mcp_servers.moved", "redirected to another origin", origin.URL, other.URL} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	mu.Lock()
	if len(leaked) > 0 {
		t.Errorf("the other origin received:\n%s", strings.Join(leaked, "\n"))
	}
	mu.Unlock()

	write("[mcp_servers.lan]\nurl = \"http://10.1.2.3/mcp\"\nbearer_token_env_var = \"TOKEN\"\n")
	for _, cmd := range [][]string{{"config"}, {"resolve"}} {
		out, stderr, code = strataIn(t, dir, environ, cmd...)
		want := "strata: ~/strata/config.toml:2:1: mcp_servers.lan.url: plain http to 10.1.2.3, which is not this machine, sends the token, the headers and every message in clear; use https://, or set allow_http = true under [mcp_servers.lan] if the network is yours\n"
		if code != 1 || stderr != want {
			t.Errorf("strata %s: exit %d\n%s-- stderr --\n%s-- want --\n%s", cmd[0], code, out, stderr, want)
		}
	}
	// With allow_http, the server is reached (here through the proxy the
	// environment names, an MCP server that answers for any host).
	lan := mcp.NewServer(&mcp.Implementation{Name: "lan", Version: "1"}, nil)
	mcp.AddTool(lan, &mcp.Tool{Name: "on_lan"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return lan }, nil)
	var proxy string
	proxied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = strings.TrimPrefix(proxy, "http://")
		handler.ServeHTTP(w, r)
	}))
	defer proxied.Close()
	proxy = proxied.URL
	write("[mcp_servers.lan]\nurl = \"http://mcp.example.invalid/mcp\"\nallow_http = true\nexpose = \"all\"\n")
	if out, stderr, code = strataIn(t, dir, append(environ, "HTTP_PROXY="+proxy), "resolve"); code != 0 || !strings.Contains(out, `"name": "on_lan"`) {
		t.Errorf("allow_http: exit %d\n%s%s", code, out, stderr)
	}
}
