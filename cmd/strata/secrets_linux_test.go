//go:build linux

package main

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/trust"
)

// The secrets of TestSecretsStayOffDisk, each a value a user keeps out of
// their files: a VS Code password input, variables other clients' files
// expand, a token bearer_token_env_var names, and a token written in
// Claude Desktop's file (the user's own file, so shown as written, but
// never copied to the trust list).
var secrets = map[string]string{
	"password input":             "pw-input-0123456789-secret",
	"${env:GH_TOKEN}":            "ghp-env-0123456789-secret",
	"${CC_TOKEN}":                "cc-env-0123456789-secret",
	"${CC_KEY} in args":          "cc-arg-0123456789-secret",
	"header ${env:API_KEY}":      "api-key-0123456789-secret",
	"bearer_token_env_var":       "bearer-0123456789-secret",
	"Cursor's envFile":           "cursor-envfile-0123456789-secret",
	"Claude Desktop, as written": "desk-literal-0123456789-secret",
}

// secretsHome writes a user's files as VS Code, Claude Code and Claude
// Desktop write them, extended by the user's strata config, and returns
// the environment strata runs with.
func secretsHome(t *testing.T) (dir string, environ []string) {
	t.Helper()
	dir = t.TempDir()
	home := filepath.Join(dir, "home")
	// A remote server on this machine, which the headers and the token
	// reach.
	remote := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "ping"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		return s
	}, nil))
	t.Cleanup(remote.Close)
	vscode := filepath.Join(home, ".config", "Code", "User", "mcp.json")
	claudeCode := filepath.Join(home, ".claude.json")
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	files := map[string]string{
		cursor: `{
  "mcpServers": {
    "cur": {
      "command": "` + mcpfake + `",
      "args": ["-tools", "3"],
      "envFile": "` + filepath.Join(home, ".cursor", "secrets.env") + `"
    }
  }
}
`,
		filepath.Join(home, ".cursor", "secrets.env"): "# Cursor's envFile\nCURSOR_TOKEN=" + secrets["Cursor's envFile"] + "\n",
		vscode: `{
	// VS Code's user mcp.json
	"inputs": [
		{
			"type": "promptString",
			"id": "github-pat",
			"description": "GitHub Personal Access Token",
			"password": true
		}
	],
	"servers": {
		"github": {
			"type": "stdio",
			"command": "` + mcpfake + `",
			"args": ["-tools", "1"],
			"env": {
				"GITHUB_PERSONAL_ACCESS_TOKEN": "${input:github-pat}",
				"GH_TOKEN": "${env:GH_TOKEN}"
			}
		},
		"api": {
			"type": "http",
			"url": "` + remote.URL + `/mcp",
			"headers": { "X-Api-Key": "${env:API_KEY}" }
		}
	}
}
`,
		claudeCode: `{
  "mcpServers": {
    "cc": {
      "type": "stdio",
      "command": "` + mcpfake + `",
      "args": ["-stderr", "${CC_KEY}"],
      "env": { "CC_TOKEN": "${CC_TOKEN}" }
    }
  }
}
`,
		desktop: `{
  "mcpServers": {
    "desk": {
      "command": "` + mcpfake + `",
      "args": ["-tools", "2"],
      "env": { "DESK_TOKEN": "` + secrets["Claude Desktop, as written"] + `" }
    }
  }
}
`,
		filepath.Join(home, "strata", "config.toml"): `extends = ["` + vscode + `", "` + claudeCode + `", "` + desktop + `", "` + cursor + `"]

# The same server as VS Code's api: its tools join under names of
# their own, where api's keep theirs.
[mcp_servers.bearer]
url = "` + remote.URL + `/mcp"
bearer_token_env_var = "BEARER"
expose = "none"

[tools.bearer_ping]
source = "mcp.bearer.ping"
`,
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	environ = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"GH_TOKEN=" + secrets["${env:GH_TOKEN}"], "CC_TOKEN=" + secrets["${CC_TOKEN}"], "CC_KEY=" + secrets["${CC_KEY} in args"],
		"API_KEY=" + secrets["header ${env:API_KEY}"], "BEARER=" + secrets["bearer_token_env_var"],
	}
	return dir, environ
}

// strataTTY runs strata in dir with a terminal as its stdin, on which the
// password input is typed.
func strataTTY(t *testing.T, dir string, environ []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	// Typed ahead: the terminal keeps the lines until strata reads them,
	// one a prompt.
	return strataTyped(t, dir, environ, strings.Repeat(secrets["password input"]+"\n", 4), args...)
}

// holds returns the names of the secrets text holds, but for those in
// except.
func holds(text string, except ...string) []string {
	var found []string
	for name, s := range secrets {
		if strings.Contains(text, s) && !slices.Contains(except, name) {
			found = append(found, name)
		}
	}
	slices.Sort(found)
	return found
}

// TestSecretsStayOffDisk is the attack on secrets at rest and in output:
// values from a VS Code password input, from variables other clients'
// files expand, and from bearer_token_env_var must reach neither the trust
// list (strata trust --pin), nor the cache (strata resolve), nor what
// strata config prints (TOML, --json, --explain), nor merge and diff.
func TestSecretsStayOffDisk(t *testing.T) {
	t.Parallel()
	dir, environ := secretsHome(t)
	home := filepath.Join(dir, "home")
	desk := "Claude Desktop, as written"

	t.Run("the trust list", func(t *testing.T) {
		for _, key := range []string{"mcp_servers.github", "mcp_servers.cc", "mcp_servers.desk", "mcp_servers.cur"} {
			if out, stderr, code := strataTTY(t, dir, environ, "trust", "--pin", key); code != 0 {
				t.Fatalf("strata trust --pin %s: exit %d\n%s%s", key, code, out, stderr)
			}
		}
		b, err := os.ReadFile(filepath.Join(home, "strata", trust.File))
		if err != nil {
			t.Fatal(err)
		}
		if found := holds(string(b)); len(found) > 0 {
			t.Errorf("%s holds %v:\n%s", trust.File, found, b)
		}
		// The pins hold: each launch is checked before it starts.
		if out, stderr, code := strataTTY(t, dir, environ, "resolve"); code != 0 {
			t.Errorf("strata resolve with the pins: exit %d\n%s%s", code, out, stderr)
		}
	})

	t.Run("the cache", func(t *testing.T) {
		out, stderr, code := strataTTY(t, dir, environ, "resolve", "--refresh")
		if code != 0 {
			t.Fatalf("strata resolve: exit %d\n%s%s", code, out, stderr)
		}
		for _, tool := range []string{`"tool_002"`, `"ping"`, `"bearer_ping"`} {
			if !strings.Contains(out, tool) {
				t.Errorf("resolve lists no %s:\n%s", tool, out)
			}
		}
		// The servers that share tool_000 were all listed: their tools of
		// the shared names are given under the servers' names, and one
		// warning says so.
		for _, server := range []string{"cc", "cur", "desk", "github"} {
			if !strings.Contains(stderr, server) {
				t.Errorf("resolve's warning of the shared names does not name %s:\n%s", server, stderr)
			}
		}
		n := 0
		err := filepath.WalkDir(filepath.Join(dir, "cache"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			n++
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if found := holds(string(b)); len(found) > 0 {
				t.Errorf("the cache file %s holds %v", p, found)
			}
			return nil
		})
		if err != nil || n == 0 {
			t.Errorf("the cache: %d files, %v", n, err)
		}
	})

	outputs := []struct {
		name  string
		args  []string
		shown []string // what stands for the secrets
	}{
		{"config", []string{"config"}, []string{`"<from ${input:github-pat}>"`, `"<from ${env:GH_TOKEN}>"`, `"<from ${CC_TOKEN}>"`, `"<from ${CC_KEY}>"`, `"<from ${env:API_KEY}>"`, `bearer_token_env_var = "BEARER"`, `"<from CURSOR_TOKEN in `, `DESK_TOKEN = "` + secrets["Claude Desktop, as written"] + `"`}},
		{"config --json", []string{"config", "--json"}, []string{`"<from ${input:github-pat}>"`, `"<from ${CC_KEY}>"`}},
		{"--explain of the variable", []string{"config", "--explain", "mcp_servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN"}, []string{`"<from ${input:github-pat}>"`}},
		{"--explain of the table", []string{"config", "--explain", "mcp_servers.github.env"}, []string{`"<from ${input:github-pat}>"`, `"<from ${env:GH_TOKEN}>"`}},
		{"--explain of the server", []string{"config", "--explain", "mcp_servers.cc"}, []string{`"<from ${CC_TOKEN}>"`, `"<from ${CC_KEY}>"`}},
		{"--explain of the arguments", []string{"config", "--explain", "mcp_servers.cc.args"}, []string{`"<from ${CC_KEY}>"`}},
		{"--explain of an argument", []string{"config", "--explain", "mcp_servers.cc.args.1"}, []string{`"<from ${CC_KEY}>"`}},
		{"--explain of the header", []string{"config", "--explain", "mcp_servers.api.headers.X-Api-Key"}, []string{`"<from ${env:API_KEY}>"`}},
		{"--explain of the envFile's variable", []string{"config", "--explain", "mcp_servers.cur.env"}, []string{`"<from CURSOR_TOKEN in ~/.cursor/secrets.env>"`}},
		// merge and diff read files with no environment and no terminal:
		// of the secrets, only an envFile's reach them.
		{"merge", []string{"merge", filepath.Join(home, ".cursor", "mcp.json")}, []string{`"<from CURSOR_TOKEN in `}},
		{"merge --final --json", []string{"merge", "--final", "--json", filepath.Join(home, ".cursor", "mcp.json")}, []string{`"<from CURSOR_TOKEN in `}},
		{"diff", []string{"diff", filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"), filepath.Join(home, ".cursor", "mcp.json")}, []string{`"<from CURSOR_TOKEN in `}},
	}
	for _, tt := range outputs {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := strataTTY(t, dir, environ, tt.args...)
			if code != 0 && !(tt.args[0] == "diff" && code == 1) {
				t.Fatalf("exit %d\n%s%s", code, out, stderr)
			}
			if found := holds(out+stderr, desk); len(found) > 0 {
				t.Errorf("the output shows %v:\n%s%s", found, out, stderr)
			}
			for _, s := range tt.shown {
				if !strings.Contains(out, s) {
					t.Errorf("the output does not show %s:\n%s", s, out)
				}
			}
		})
	}
}
