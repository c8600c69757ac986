package load_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// clients is the folder of the client files, shaped as each client
// documents them.
const clients = "../fixtures/clients"

func abs(t *testing.T, path string) string {
	t.Helper()
	a, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func ptr[T any](v T) *T { return &v }

// asked is one question App.Input was asked.
type asked struct {
	ID, Description string
	Password        bool
}

// asker answers App.Input from answers and records the questions.
type asker struct {
	answers map[string]string
	asked   []asked
}

func (a *asker) input(_ context.Context, id, description string, password bool) (string, error) {
	a.asked = append(a.asked, asked{id, description, password})
	return a.answers[id], nil
}

// loadClient loads the layers of cfg with client files read into
// mcp_servers, in directory dir, with only the environment given (and an
// empty user directory).
func loadClient(t *testing.T, dir string, environ []string, input func(context.Context, string, string, bool) (string, error), cfg ...string) (*load.Result[config.Partial, config.Config], error) {
	t.Helper()
	return loadClientTrusting(t, nil, dir, environ, input, cfg...)
}

// loadClientTrusting is loadClient with the workspaces trust trusts.
func loadClientTrusting(t *testing.T, trust load.Truster, dir string, environ []string, input func(context.Context, string, string, bool) (string, error), cfg ...string) (*load.Result[config.Partial, config.Config], error) {
	t.Helper()
	a := app{
		Trust:      trust,
		Name:       "strata",
		Defaults:   config.Default(),
		Dir:        dir,
		Environ:    append([]string{"STRATA_CONFIG_HOME=" + t.TempDir()}, environ...),
		Cfg:        cfg,
		MCPServers: partial.Path{"mcp_servers"},
		Input:      input,
	}
	return a.Load(context.Background())
}

func errorLines(errs []*diag.Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// remote returns a remote server as an import makes it.
func remote(url string, headers map[string]secret.String) config.MCPServer {
	return config.MCPServer{URL: secret.Plain(url), Headers: headers, ToolTimeoutSec: 60, Expose: config.Expose{}}
}

// stdio returns a started server as an import makes it.
func stdio(command string, args ...string) config.MCPServer {
	return config.MCPServer{Command: secret.Plain(command), Args: secret.Plains(args...), ToolTimeoutSec: 60, Expose: config.Expose{}}
}

// revealed compares secrets by their values and what they came from,
// and shows both in a diff.
var revealed = cmp.Transformer("secret", func(s secret.String) struct{ Value, Shown string } {
	return struct{ Value, Shown string }{s.Reveal(), s.String()}
})

// from is the value v of a setting, which the file wrote as written.
func from(v, written string) secret.String { return secret.From(v, written) }

func with(s config.MCPServer, f func(*config.MCPServer)) config.MCPServer {
	f(&s)
	return s
}

func TestForeignClientFiles(t *testing.T) {
	cursorFolder := abs(t, clients+"/cursor")
	vscodeFolder := abs(t, clients+"/vscode")
	work := tree(t, map[string]string{"w/.strata/": "", "w/sub/": ""})
	cursorHome := abs(t, clients+"/cursor-home")
	tests := []struct {
		name         string
		cfg          string
		dir          string
		environ      []string
		answers      map[string]string
		trusted      bool // the workspace is trusted
		want         config.MCPServers
		wantWarnings []string
		wantAsked    []asked
	}{
		{
			name: "Claude Desktop",
			cfg:  clients + "/claude-desktop/claude_desktop_config.json",
			want: config.MCPServers{
				"filesystem": stdio("npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop", "/Users/username/Downloads"),
				"memory": with(stdio("npx", "-y", "@modelcontextprotocol/server-memory"), func(s *config.MCPServer) {
					s.Env = map[string]secret.String{"MEMORY_FILE_PATH": secret.Plain("/Users/username/memory.json")}
				}),
				"sequential-thinking": with(stdio("npx", "-y", "@modelcontextprotocol/server-sequential-thinking"), func(s *config.MCPServer) {
					s.Enabled = ptr(false)
				}),
			},
		},
		{
			name:    "Claude Code: types, ${VAR} and ${VAR:-default} in every field",
			cfg:     clients + "/claude-code/.mcp.json",
			environ: []string{"API_KEY=k123", "GITHUB_TOKEN=ghp_x", "HOME=/home/u"},
			want: config.MCPServers{
				"api-server": with(remote("", map[string]secret.String{"Authorization": from("Bearer k123", "Bearer ${API_KEY}")}), func(s *config.MCPServer) {
					s.URL = from("https://api.example.com/mcp", "${API_BASE_URL:-https://api.example.com}/mcp")
				}),
				"legacy-events": remote("https://events.example.com/sse", map[string]secret.String{"X-Team": from("platform", "${TEAM:-platform}")}),
				"github": with(stdio("npx", "-y", "@modelcontextprotocol/server-github"), func(s *config.MCPServer) {
					s.Env = map[string]secret.String{"GITHUB_PERSONAL_ACCESS_TOKEN": from("ghp_x", "${GITHUB_TOKEN}"), "GITHUB_API_URL": from("", "${GITHUB_API_URL:-}")}
				}),
				"playwright": with(stdio("npx", "@playwright/mcp@latest", "--output-dir"), func(s *config.MCPServer) {
					s.Args = append(s.Args, from("/home/u/playwright", "${HOME}/playwright"))
				}),
			},
		},
		{
			name:    "Claude Code: a set variable wins over its default",
			cfg:     clients + "/claude-code/.mcp.json",
			environ: []string{"API_KEY=k", "GITHUB_TOKEN=g", "HOME=/h", "API_BASE_URL=http://127.0.0.1:8080", "TEAM=", "GITHUB_API_URL=https://ghe.example.com"},
			want: config.MCPServers{
				"api-server": with(remote("", map[string]secret.String{"Authorization": from("Bearer k", "Bearer ${API_KEY}")}), func(s *config.MCPServer) {
					s.URL = from("http://127.0.0.1:8080/mcp", "${API_BASE_URL:-https://api.example.com}/mcp")
				}),
				"legacy-events": remote("https://events.example.com/sse", map[string]secret.String{"X-Team": from("", "${TEAM:-platform}")}),
				"github": with(stdio("npx", "-y", "@modelcontextprotocol/server-github"), func(s *config.MCPServer) {
					s.Env = map[string]secret.String{"GITHUB_PERSONAL_ACCESS_TOKEN": from("g", "${GITHUB_TOKEN}"), "GITHUB_API_URL": from("https://ghe.example.com", "${GITHUB_API_URL:-}")}
				}),
				"playwright": with(stdio("npx", "@playwright/mcp@latest", "--output-dir"), func(s *config.MCPServer) {
					s.Args = append(s.Args, from("/h/playwright", "${HOME}/playwright"))
				}),
			},
		},
		{
			name:    "Cursor project file: its variables and envFile under env",
			cfg:     clients + "/cursor/.cursor/mcp.json",
			environ: []string{"API_KEY=from-the-environment", "MY_SERVICE_TOKEN=tok", "HOME=/home/u"},
			want: config.MCPServers{
				"local-server": with(stdio("python", cursorFolder+"/tools/mcp_server.py", "--name", "cursor"), func(s *config.MCPServer) {
					s.Env = map[string]secret.String{"API_KEY": from("from-the-environment", "${env:API_KEY}"), "CACHE_DIR": secret.Plain("/home/u/.cache/mcp"),
						"LOG_LEVEL": from("debug", "LOG_LEVEL in "+cursorFolder+"/.env"), "REGION": from("eu-west-1", "REGION in "+cursorFolder+"/.env")}
				}),
				"remote-server": remote("https://api.example.com/mcp", map[string]secret.String{"Authorization": from("Bearer tok", "Bearer ${env:MY_SERVICE_TOKEN}")}),
			},
		},
		{
			name:    "Cursor's own file: ${workspaceFolder} is the workspace strata loads",
			cfg:     cursorHome + "/.cursor/mcp.json",
			dir:     filepath.Join(work, "w", "sub"),
			environ: []string{"HOME=" + cursorHome, "CONTEXT7_API_KEY=c7"},
			trusted: true,
			want: config.MCPServers{
				"context7": remote("https://mcp.context7.com/mcp", map[string]secret.String{"CONTEXT7_API_KEY": from("c7", "${env:CONTEXT7_API_KEY}")}),
				"notes":    stdio("npx", "-y", "notes-mcp", "--dir", filepath.Join(work, "w")+"/notes"),
			},
		},
		{
			name:    "Cursor's own file in a workspace nobody trusted: the server that names ${workspaceFolder} is left out",
			cfg:     cursorHome + "/.cursor/mcp.json",
			dir:     filepath.Join(work, "w", "sub"),
			environ: []string{"HOME=" + cursorHome, "CONTEXT7_API_KEY=c7"},
			want: config.MCPServers{
				"context7": remote("https://mcp.context7.com/mcp", map[string]secret.String{"CONTEXT7_API_KEY": from("c7", "${env:CONTEXT7_API_KEY}")}),
				"notes": with(stdio("npx", "-y", "notes-mcp", "--dir", filepath.Join(work, "w")+"/notes"), func(s *config.MCPServer) {
					s.Enabled = ptr(false)
				}),
			},
			wantWarnings: []string{
				cursorHome + "/.cursor/mcp.json:11:44: mcpServers.notes.args.3: the server notes is left out: ${workspaceFolder} resolves into the workspace " +
					filepath.Join(work, "w") + ", which is not trusted; trust the workspace, or write an absolute path outside it",
			},
		},
		{
			name:    "VS Code: JSONC, inputs asked once with their descriptions, envFile, cwd",
			cfg:     clients + "/vscode/.vscode/mcp.json",
			environ: []string{"GITHUB_TOKEN=ghp_v"},
			answers: map[string]string{"perplexity-key": "pplx-secret"},
			want: config.MCPServers{
				"Perplexity": with(stdio("npx", "-y", "@modelcontextprotocol/server-perplexity-ask"), func(s *config.MCPServer) {
					s.Env = map[string]secret.String{"PERPLEXITY_API_KEY": from("pplx-secret", "${input:perplexity-key}"), "PERPLEXITY_REGION": from("eu-west-1", "${input:region}")}
				}),
				"fetch": with(stdio("uvx", "mcp-server-fetch"), func(s *config.MCPServer) {
					s.Cwd = secret.Plain(vscodeFolder)
					s.Env = map[string]secret.String{"FETCH_USER_AGENT": from("strata-test", "FETCH_USER_AGENT in "+vscodeFolder+"/.env"), "FETCH_TIMEOUT": from("30", "FETCH_TIMEOUT in "+vscodeFolder+"/.env")}
				}),
				"github":    remote("https://api.githubcopilot.com/mcp/", map[string]secret.String{"Authorization": from("Bearer ghp_v", "Bearer ${env:GITHUB_TOKEN}")}),
				"my-server": remote("http://localhost:3001/sse", nil),
			},
			wantAsked: []asked{{"perplexity-key", "Perplexity API Key", true}, {"region", "Region of the deployment", false}},
		},
		{
			name:    "Codex, named with its prefix",
			cfg:     "codex:" + clients + "/codex/.codex/config.toml",
			environ: []string{"FIGMA_TEAM=design"},
			want: config.MCPServers{
				"context7": with(stdio("npx", "-y", "@upstash/context7-mcp"), func(s *config.MCPServer) {
					s.Env = map[string]secret.String{"MY_ENV_VAR": secret.Plain("MY_ENV_VALUE")}
					s.EnvVars = []string{"CONTEXT7_API_KEY", "HTTPS_PROXY"}
					s.StartupTimeoutSec = 20
				}),
				"figma": with(remote("https://mcp.figma.com/mcp", map[string]secret.String{"X-Figma-Region": secret.Plain("us-east-1"), "X-Figma-Team": from("design", "$FIGMA_TEAM")}), func(s *config.MCPServer) {
					s.BearerTokenEnvVar = "FIGMA_OAUTH_TOKEN"
				}),
				"chrome_devtools": with(remote("http://localhost:3000/mcp", nil), func(s *config.MCPServer) {
					s.EnabledTools = config.ToolNames{"open", "screenshot"}
					s.DisabledTools = config.ToolNames{"screenshot"}
					s.StartupTimeoutSec, s.ToolTimeoutSec = 20, 45
					s.Enabled = ptr(true)
				}),
				"old": with(stdio("old-server"), func(s *config.MCPServer) { s.Enabled = ptr(false) }),
			},
			wantWarnings: []string{
				clients + "/codex/.codex/config.toml:21:53: mcp_servers.figma.env_http_headers.X-Figma-Org: the header X-Figma-Org is not sent: the variable FIGMA_ORG is not set; set FIGMA_ORG, as Codex needs it too",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			if dir == "" {
				dir = t.TempDir()
			}
			a := &asker{answers: tt.answers}
			var trust load.Truster
			if tt.trusted {
				trust = trustAll{}
			}
			res, err := loadClientTrusting(t, trust, dir, tt.environ, a.input, tt.cfg)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tt.want, res.Config.MCPServers, revealed); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, errorLines(res.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAsked, a.asked); diff != "" {
				t.Errorf("inputs asked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestForeignProblems(t *testing.T) {
	tests := []struct {
		name         string
		files        map[string]string
		cfg          string
		environ      []string
		input        bool // whether the host can ask for inputs
		want         []string
		wantWarnings []string
		wantServers  config.MCPServers // checked when set
	}{
		{
			name:  "Claude Code: an unset variable without a default names it",
			files: map[string]string{".mcp.json": `{"mcpServers": {"a": {"command": "x", "env": {"T": "${TOKEN}", "U": "${A}${B:-b}"}}}}`},
			cfg:   ".mcp.json",
			want: []string{
				".mcp.json:1:52: mcpServers.a.env.T: the variable TOKEN is not set; set it, or give a default: ${TOKEN:-value}",
				".mcp.json:1:69: mcpServers.a.env.U: the variable A is not set; set it, or give a default: ${A:-value}",
			},
		},
		{
			name:    "Claude Code: ${env:NAME} is Cursor's form",
			files:   map[string]string{".mcp.json": `{"mcpServers": {"a": {"command": "x", "args": ["${env:HOME}"]}}}`},
			cfg:     ".mcp.json",
			environ: []string{"HOME=/h"},
			want:    []string{".mcp.json:1:48: mcpServers.a.args.0: ${env:HOME} is not a variable; write ${HOME}: Claude Code expands ${NAME} and ${NAME:-default}"},
		},
		{
			name:  "Cursor: an unset ${env:NAME}",
			files: map[string]string{".cursor/mcp.json": `{"mcpServers": {"a": {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}}}`},
			cfg:   ".cursor/mcp.json",
			want:  []string{".cursor/mcp.json:1:76: mcpServers.a.headers.Authorization: the variable TOKEN is not set; set it before running strata"},
		},
		{
			name: "Cursor: JSONC is read; a reference that is not Cursor's is passed as written, with a warning",
			files: map[string]string{".cursor/mcp.json": `{
  // comment
  "mcpServers": {"a": {"command": "x", "args": ["${workspaceRoot}/s", "${HOME}"],},},
}`},
			cfg: ".cursor/mcp.json",
			wantWarnings: []string{
				".cursor/mcp.json:3:49: mcpServers.a.args.0: ${workspaceRoot} is not a Cursor variable; it is passed as written; did you mean ${workspaceFolder}?",
				".cursor/mcp.json:3:71: mcpServers.a.args.1: ${HOME} is not a Cursor variable; it is passed as written; write the value out",
			},
		},
		{
			name: "VS Code: an input without a terminal",
			files: map[string]string{".vscode/mcp.json": `{"inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": true}],
"servers": {"a": {"type": "stdio", "command": "x", "env": {"K": "${input:key}"}}}}`},
			cfg:  ".vscode/mcp.json",
			want: []string{`.vscode/mcp.json:2:65: servers.a.env.K: the input key ("API key") must be asked for on a terminal, and there is none; run strata in a terminal, or write the value out`},
		},
		{
			name: "VS Code: inputs that are not declared or cannot be asked",
			files: map[string]string{".vscode/mcp.json": `{"inputs": [
  {"type": "promptString", "id": "api-key", "description": "API key"},
  {"type": "pickString", "id": "region", "options": ["eu", "us"]},
  {"type": "command", "id": "cmd", "command": "shellCommand.execute"}
],
"servers": {"a": {"type": "stdio", "command": "x", "args": ["${input:apikey}", "${input:region}", "${input:cmd}"]}}}`},
			cfg:   ".vscode/mcp.json",
			input: true,
			want: []string{
				".vscode/mcp.json:6:61: servers.a.args.0: no input named apikey is declared in inputs; did you mean ${input:api-key}?",
				".vscode/mcp.json:6:80: servers.a.args.1: the input region is a pickString (a choice from a list), which strata does not ask for; write the chosen value out",
				".vscode/mcp.json:6:99: servers.a.args.2: the input cmd runs a VS Code command, which strata cannot do; write the value out",
			},
		},
		{
			name:  "VS Code: variables of the editor",
			files: map[string]string{".vscode/mcp.json": `{"servers": {"a": {"type": "stdio", "command": "x", "args": ["${file}", "${config:python.path}", "${workspaceFolder:api}"]}}}`},
			cfg:   ".vscode/mcp.json",
			want: []string{
				".vscode/mcp.json:1:62: servers.a.args.0: ${file} depends on VS Code and cannot be resolved outside it; write the value out",
				".vscode/mcp.json:1:73: servers.a.args.1: ${config:python.path} depends on VS Code and cannot be resolved outside it; write the value out",
				".vscode/mcp.json:1:98: servers.a.args.2: ${workspaceFolder:api} depends on VS Code and cannot be resolved outside it; write the value out",
			},
		},
		{
			name: "VS Code: a missing envFile, the sandbox, an unknown key",
			files: map[string]string{".vscode/mcp.json": `{"servers": {
  "a": {"type": "stdio", "command": "x", "envFile": "missing.env"},
  "b": {"type": "stdio", "command": "x", "sandboxEnabled": true},
  "c": {"type": "stdio", "command": "x", "arg": []}
}}`},
			cfg: ".vscode/mcp.json",
			want: []string{
				".vscode/mcp.json:2:53: servers.a.envFile: cannot read the environment file WORK/missing.env: no such file or directory; the path is relative to the workspace folder WORK",
				".vscode/mcp.json:3:42: servers.b.sandboxEnabled: VS Code's sandbox is not available in strata; the server would run without it; remove sandboxEnabled to run the server unsandboxed",
				".vscode/mcp.json:4:42: servers.c.arg: unknown key of a VS Code server; did you mean args?",
			},
		},
		{
			name:  "a file of mcpServers whose client its name does not tell: an unknown key",
			files: map[string]string{"servers.json": `{"mcpServers": {"a": {"command": "x", "arg": []}}}`},
			cfg:   "servers.json",
			want:  []string{"servers.json:1:39: mcpServers.a.arg: unknown key of an mcpServers server; did you mean args?"},
		},
		{
			name: "types: what a server has must fit its type",
			files: map[string]string{".mcp.json": `{"mcpServers": {
  "a": {"type": "http", "command": "x"},
  "b": {"type": "stdio", "url": "https://x/mcp"},
  "c": {"type": "ws", "url": "wss://x"},
  "d": {"type": "htp", "url": "https://x/mcp"},
  "e": {"type": "sse", "url": "https://x/sse", "headersHelper": "/bin/get-headers"}
}}`},
			cfg: ".mcp.json",
			want: []string{
				`.mcp.json:2:17: mcpServers.a.type: a server of type "http" needs a url; add a url, or write "type": "stdio" with a command`,
				`.mcp.json:3:17: mcpServers.b.type: a server of type "stdio" needs a command; add a command, or make it an http server with a url`,
				".mcp.json:4:17: mcpServers.c.type: WebSocket servers are not supported (the MCP Go SDK has no WebSocket transport); reach the server over http if it offers that",
				`.mcp.json:5:17: mcpServers.d.type: expected stdio, http or sse, found string "htp"; did you mean http?`,
				".mcp.json:6:48: mcpServers.e.headersHelper: headersHelper runs a command to make the headers, which strata does not do; write the headers out in headers",
			},
		},
		{
			name:  "a file whose client its name does not tell cannot have variables",
			files: map[string]string{"servers.json": `{"mcpServers": {"a": {"command": "x", "args": ["${HOME}"]}}}`},
			cfg:   "servers.json",
			want: []string{
				`servers.json:1:48: mcpServers.a.args.0: the file's variables (${HOME}) depend on the client that wrote it, which its name does not tell; name it: --cfg claude-code:PATH (${NAME}), cursor:PATH (${env:NAME}) or claude:PATH (no variables), or format = "..." in extends`,
			},
		},
		{
			name:  "Claude Desktop passes variables on as written, and says so",
			files: map[string]string{"servers.json": `{"mcpServers": {"a": {"command": "x", "args": ["${HOME}"]}}}`},
			cfg:   "claude:servers.json",
			wantWarnings: []string{
				"servers.json:1:48: mcpServers.a.args.0: Claude Desktop expands no variables: ${HOME} is passed as written; if Claude Code or Cursor wrote this file, name it: --cfg claude-code:PATH or cursor:PATH",
			},
		},
		{
			name:  "Claude Code: OAuth is not available",
			files: map[string]string{".mcp.json": `{"mcpServers": {"a": {"type": "http", "url": "https://x/mcp", "oauth": {"clientId": "c"}}}}`},
			cfg:   ".mcp.json",
			wantWarnings: []string{
				".mcp.json:1:63: mcpServers.a.oauth: this client's OAuth settings are not read; strata finds a server's sign-in by itself; sign in with strata login <server>; a client registered beforehand, or scopes, go under [mcp_servers.<server>.oauth] in a strata layer",
			},
		},
		{
			name: "Codex: settings strata cannot honour",
			files: map[string]string{"codex.toml": `[mcp_servers.a]
url = "https://x/mcp"
bearer_token = "secret"

[mcp_servers.b]
command = "x"
env_vars = [{ name = "A", source = "remote" }, { source = "local" }, 7]
startup_timeout_ms = 1.5
default_tools_approval_mode = "approve"
`},
			cfg: "codex:codex.toml",
			want: []string{
				`codex.toml:3:1: mcp_servers.a.bearer_token: a token written in the file is not accepted (Codex refuses it too); keep the token in a variable and write bearer_token_env_var = "NAME"`,
				`codex.toml:7:36: mcp_servers.b.env_vars.0.source: a variable of a remote executor is not available: strata starts servers on this machine; remove source, or write source = "local"`,
				`codex.toml:7:48: mcp_servers.b.env_vars.1: an env_vars entry needs a name; write { name = "NAME" }`,
				`codex.toml:7:70: mcp_servers.b.env_vars.2: expected a variable name, found integer 7`,
				`codex.toml:8:22: mcp_servers.b.startup_timeout_ms: expected a whole number of milliseconds, found float 1.5`,
			},
		},
		{
			name: "Codex: startup_timeout_sec wins over startup_timeout_ms, required = false makes a server optional",
			files: map[string]string{"codex.toml": `[mcp_servers.a]
command = "x"
startup_timeout_sec = 3
startup_timeout_ms = 9000
required = false
default_tools_approval_mode = "approve"
`},
			cfg: "codex:codex.toml",
			wantWarnings: []string{
				`codex.toml:6:1: mcp_servers.a.default_tools_approval_mode: approval modes are not read; set run = "unattended" on the tools in a strata layer`,
			},
			wantServers: config.MCPServers{"a": with(stdio("x"), func(s *config.MCPServer) { s.StartupTimeoutSec, s.Optional = 3, true })},
		},
		{
			name:        "a file whose client its name does not tell, without variables",
			files:       map[string]string{"servers.json": `{"mcpServers": {"a": {"command": "x", "args": ["$HOME"]}}}`},
			cfg:         "servers.json",
			wantServers: config.MCPServers{"a": stdio("x", "$HOME")},
		},
		{
			name: "extends names the client's format",
			files: map[string]string{
				"layer.toml": `extends = [{ path = "tools.json", format = "cursor" }, { path = "more.json", format = "claude-code" }]`,
				"tools.json": `{"mcpServers": {"a": {"command": "x", "args": ["${env:A}"]}}}`,
				"more.json":  `{"mcpServers": {"b": {"command": "y", "args": ["${A}"]}}}`,
			},
			cfg:     "layer.toml",
			environ: []string{"A=1"},
			wantServers: config.MCPServers{
				"a": with(stdio("x"), func(s *config.MCPServer) { s.Args = []secret.String{from("1", "${env:A}")} }),
				"b": with(stdio("y"), func(s *config.MCPServer) { s.Args = []secret.String{from("1", "${A}")} }),
			},
		},
		{
			name:  "extends with an unknown format",
			files: map[string]string{"layer.toml": `extends = [{ path = "tools.json", format = "cursr" }]`, "tools.json": "{}"},
			cfg:   "layer.toml",
			want:  []string{`layer.toml:1:44: extends.0.format: expected claude, claude-code, cursor, vscode, codex, found string "cursr"; did you mean cursor?`},
		},
		{
			name:  "Codex's file read without its prefix: one error, with the fix",
			files: map[string]string{"config.toml": "model = \"gpt-5\"\napproval_policy = \"never\"\n[mcp_servers.a]\ncommand = \"x\"\nenv_http_headers = { A = \"B\" }\n"},
			cfg:   "config.toml",
			want: []string{
				`config.toml:1:1: this is Codex's config.toml, not a strata layer; read it as Codex's: --cfg codex:config.toml, or { path = "...", format = "codex" } in extends`,
			},
		},
		{
			name:  "a Codex server table alone, read without the prefix",
			files: map[string]string{"servers.toml": "[mcp_servers.a]\nurl = \"https://x/mcp\"\nhttp_headers = { A = \"B\" }\n"},
			cfg:   "servers.toml",
			want: []string{
				`servers.toml:3:1: this is Codex's config.toml, not a strata layer; read it as Codex's: --cfg codex:servers.toml, or { path = "...", format = "codex" } in extends`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files)
			t.Chdir(root)
			var input func(context.Context, string, string, bool) (string, error)
			if tt.input {
				input = (&asker{}).input
			}
			// The files are the workspace's, which is trusted: those of a
			// workspace nobody trusted are not read at all
			// (TestUntrustedFilesByName).
			res, err := loadClientTrusting(t, trustAll{}, root, tt.environ, input, tt.cfg)
			var got []string
			for _, e := range diag.All(err) {
				got = append(got, strings.ReplaceAll(e.Error(), root, "WORK"))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.wantWarnings, errorLines(res.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if tt.wantServers != nil {
				if diff := cmp.Diff(tt.wantServers, res.Config.MCPServers); diff != "" {
					t.Errorf("servers (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestForeignInputsAsked checks how often inputs are asked for: an answer
// once in a load, whichever file uses it; a password once in each file
// that uses it, since it is kept nowhere.
func TestForeignInputsAsked(t *testing.T) {
	file := `{
  "inputs": [
    {"type": "promptString", "id": "user", "description": "User name"},
    {"type": "promptString", "id": "pass", "description": "Password", "password": true},
  ],
  "servers": {
    "a": {"type": "stdio", "command": "x", "args": ["${input:user}", "${input:pass}", "${input:pass}"]},
    "b": {"type": "stdio", "command": "y", "env": {"U": "${input:user}"}},
  },
}`
	root := tree(t, map[string]string{"one/.vscode/mcp.json": file, "two/.vscode/mcp.json": strings.ReplaceAll(file, `"a"`, `"c"`)})
	a := &asker{answers: map[string]string{"user": "ann", "pass": "s3cret"}}
	res, err := loadClientTrusting(t, trustAll{}, root, nil, a.input, root+"/one/.vscode/mcp.json", root+"/two/.vscode/mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []asked{{"user", "User name", false}, {"pass", "Password", true}, {"pass", "Password", true}}
	if diff := cmp.Diff(want, a.asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	args := []secret.String{from("ann", "${input:user}"), from("s3cret", "${input:pass}"), from("s3cret", "${input:pass}")}
	wantServers := config.MCPServers{
		"a": with(stdio("x"), func(s *config.MCPServer) { s.Args = args }),
		"b": with(stdio("y"), func(s *config.MCPServer) { s.Env = map[string]secret.String{"U": from("ann", "${input:user}")} }),
		"c": with(stdio("x"), func(s *config.MCPServer) { s.Args = args }),
	}
	if diff := cmp.Diff(wantServers, res.Config.MCPServers, revealed); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

// TestForeignInputCanceled checks that a host that stops asking (the user
// pressed Ctrl-C) ends the load with its cause.
func TestForeignInputCanceled(t *testing.T) {
	root := tree(t, map[string]string{".vscode/mcp.json": `{"inputs": [{"type": "promptString", "id": "k", "description": "Key"}],
"servers": {"a": {"type": "stdio", "command": "x", "args": ["${input:k}"]}}}`})
	_, err := loadClientTrusting(t, trustAll{}, root, nil, func(ctx context.Context, _, _ string, _ bool) (string, error) {
		return "", context.Canceled
	}, root+"/.vscode/mcp.json")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Load = %v, want an error that is context.Canceled", err)
	}
	if got := diag.All(err)[0].Msg; got != "asking for the input k: context canceled" {
		t.Errorf("message %q", got)
	}
}
