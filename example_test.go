package strata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/trust"
)

// HostPartial and Host are a host application's own config, with strata's
// tools model mounted at assistant: its tools, mcp_servers and discover
// keys beside the host's own model. (A host with no setting of its own
// there mounts the whole model: see Example_wholeModel.)
type HostPartial struct {
	Assistant struct {
		Model      partial.Value[string]    `toml:"model"`
		Tools      config.ToolsPartial      `toml:"tools"`
		MCPServers config.MCPServersPartial `toml:"mcp_servers"`
		Discover   config.DiscoverPartial   `toml:"discover"`
	} `toml:"assistant"`
}

type Host struct {
	Assistant struct {
		Model      string            `toml:"model"`
		Tools      config.Tools      `toml:"tools"`
		MCPServers config.MCPServers `toml:"mcp_servers"`
		Discover   config.Discover   `toml:"discover"`
	} `toml:"assistant"`
}

// A host opens its workspace with its own name, mount path and trust
// store, then resolves and calls tools (and serves them with Serve) with
// exactly the CLI's behaviour: here the workspace's own file is not
// applied until the user trusts the workspace.
func Example() {
	dir, _ := os.MkdirTemp("", "myapp")
	defer os.RemoveAll(dir)
	_ = os.MkdirAll(filepath.Join(dir, "repo", ".myapp"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "repo", ".myapp", "config.toml"), []byte(`
[assistant.tools.hello]
command = "echo hello from the workspace"
run = "unattended"
parameters.name = { type = "string" }
`), 0o644)
	store := &trust.Store{Path: filepath.Join(dir, "trusted.toml")}

	// The host's code: under 30 lines.
	open := func() (*strata.Workspace[HostPartial, Host], error) {
		var defaults Host
		defaults.Assistant.Model = "small"
		defaults.Assistant.Tools = config.Default().Tools
		return strata.Open[HostPartial](context.Background(), defaults,
			strata.Name("myapp"), strata.Mount("assistant"), strata.TrustStore(store),
			strata.Dir(filepath.Join(dir, "repo")), strata.Environ([]string{"PATH=" + os.Getenv("PATH")}))
	}
	ws, err := open()
	if err != nil {
		fmt.Println(err)
		return
	}
	cat, _ := ws.Resolve(context.Background())
	why, _, _ := strings.Cut(ws.Warnings()[0].Msg, ":")
	fmt.Println("untrusted:", len(cat.Tools), "tools;", why)
	ws.Close()

	_ = store.Update(func(l *trust.List) error { l.AddWorkspace(filepath.Join(dir, "repo")); return nil })
	ws, err = open()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	res, err := ws.Call(context.Background(), "hello", json.RawMessage(`{"name": "x"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("trusted: %s %q\n", res.Type, res.Content)
	// Output:
	// untrusted: 0 tools; workspace layers not applied
	// trusted: success "hello from the workspace\n"
}

// The simplest mount: strata's whole model (tools, mcp_servers, discover)
// as one table of the host's config, config.Partial in the partial and
// config.Config in the resolved config.
func Example_wholeModel() {
	type MyPartial struct {
		Model     partial.Value[string] `toml:"model"`
		Assistant config.Partial        `toml:"assistant"`
	}
	type My struct {
		Model     string        `toml:"model"`
		Assistant config.Config `toml:"assistant"`
	}
	dir, _ := os.MkdirTemp("", "myapp")
	defer os.RemoveAll(dir)
	// The host's own file, outside the directory it works in (a file in
	// a workspace nobody trusted would not apply).
	work := filepath.Join(dir, "work")
	_ = os.Mkdir(work, 0o755)
	_ = os.WriteFile(filepath.Join(dir, "config.toml"), []byte(`
model = "large"

[assistant.discover]
dirs = ["tools"]

[assistant.tools.grep]
run = "unattended"
`), 0o644)
	defaults := My{Model: "small", Assistant: config.Default()}
	ws, err := strata.Open[MyPartial](context.Background(), defaults, strata.Name("myapp"), strata.Mount("assistant"),
		strata.Dir(work), strata.Environ([]string{"PATH=" + os.Getenv("PATH")}), strata.Cfg(filepath.Join(dir, "config.toml")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	c := ws.Config()
	grep, _ := c.Assistant.Tools.Effective("grep")
	fmt.Println(c.Model, c.Assistant.Discover.Dirs[0] == filepath.Join(dir, "tools"), grep.Run())
	// Output: large true unattended
}

// A host names the tools of every MCP server as it always has
// (server__tool, as mcphost does): two servers with tools of the same
// names give all of them, and the user's settings name a tool so.
func ExampleToolNames() {
	dir, _ := os.MkdirTemp("", "myapp")
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "config.toml") // the user's file, outside the workspace
	_ = os.MkdirAll(filepath.Join(dir, "repo"), 0o755)
	// Two servers (strata's fake, mcpfake, for any) list tool_000 and
	// tool_001; the second tool_002 too.
	_ = os.WriteFile(cfg, []byte(strings.ReplaceAll(`
[mcp_servers.one]
command = "MCPFAKE"
args = ["-tools", "2"]

[mcp_servers.two]
command = "MCPFAKE"
args = ["-tools", "3"]

[tools.two__tool_001]
run = "unattended"
`, "MCPFAKE", mcpfake)), 0o644)
	ws, err := strata.Open[config.Partial](context.Background(), config.Default(),
		strata.ToolNames(config.ServerNames),
		strata.Dir(filepath.Join(dir, "repo")), strata.Environ([]string{"PATH=" + os.Getenv("PATH")}), strata.Cfg(cfg), strata.CacheDir(filepath.Join(dir, "cache")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	cat, err := ws.Resolve(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range cat.Tools {
		fmt.Println(d.Name, d.Source, d.Run)
	}
	// Output:
	// one__tool_000 mcp.one.tool_000 ask
	// one__tool_001 mcp.one.tool_001 ask
	// two__tool_000 mcp.two.tool_000 ask
	// two__tool_001 mcp.two.tool_001 unattended
	// two__tool_002 mcp.two.tool_002 ask
}

// A host that keeps its user's file at its own place (~/.myapp) and
// shares its variables' prefix with strata's: it says where the file is,
// which variables are its own, and that its users' servers inherit its
// environment, as the MCP client it replaces let them.
func Example_hostOwnPlaces() {
	home, _ := os.MkdirTemp("", "home")
	defer os.RemoveAll(home)
	_ = os.MkdirAll(filepath.Join(home, ".myapp"), 0o755)
	_ = os.WriteFile(filepath.Join(home, ".myapp", "config.toml"), []byte("[assistant]\nmodel = \"medium\"\n"), 0o644)
	project := filepath.Join(home, "src", "project")
	_ = os.MkdirAll(project, 0o755)

	ws, err := strata.Open[HostPartial](context.Background(), Host{},
		strata.Name("myapp"), strata.Mount("assistant"), strata.Dir(project),
		strata.ConfigHome("~/.myapp"),                       // ~/.myapp/config.toml; the home directory is no workspace
		strata.HostEnv("MYAPP_API_KEY", "MYAPP_PROVIDER_*"), // the host's own variables
		strata.InheritEnv(),                                 // every server gets the host's environment
		strata.Environ([]string{"HOME=" + home, "MYAPP_API_KEY=sk-1", "MYAPP_ASSISTANT_MODEL=large"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	fmt.Println(ws.Config().Assistant.Model, "in no workspace:", ws.Loaded().Root == "", len(ws.Warnings()), "warnings")
	_, err = strata.Open[HostPartial](context.Background(), Host{},
		strata.Name("myapp"), strata.Mount("assistant"), strata.Dir(project), strata.ConfigHome("~/.myapp"),
		strata.HostEnv("MYAPP_API_KEY"), strata.Environ([]string{"HOME=" + home, "MYAPP_API_KYE=sk-1"}))
	fmt.Println(err)
	// Output:
	// large in no workspace: true 0 warnings
	// env MYAPP_API_KYE: api: unknown key; did you mean MYAPP_API_KEY (the application's own, not a key path)?
}

// A host keeps its users' sign-ins to remote MCP servers with SignIns:
// Workspace.Login signs in (in the user's browser, as strata login does),
// a remote server is then sent its token, and SignInStatuses says how each
// remote server is signed in to, without a secret.
func ExampleSignIns() {
	dir, err := os.MkdirTemp("", "signins")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	w, err := strata.Open[config.Partial](ctx, config.Default(),
		strata.Dir(dir), strata.Environ([]string{"HOME=" + dir}),
		strata.Cfg("mcp_servers.linear.url=https://mcp.linear.app/mcp", "mcp_servers.ci.url=https://mcp.example.com/mcp", "mcp_servers.ci.bearer_token_env_var=CI_TOKEN"),
		strata.SignIns(filepath.Join(dir, "tokens.json")))
	if err != nil {
		panic(err)
	}
	defer w.Close()
	for _, s := range w.SignInStatuses(ctx) {
		fmt.Printf("%s: %s\n", s.Name, s.Status)
	}
	// Output:
	// ci: a token of its own, from $CI_TOKEN
	// linear: not signed in
}
