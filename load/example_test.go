package load_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/trust"
)

// A host application, "myapp", keeps the tools model under
// conversation.tools of its own config, and loads it from its own files
// and MYAPP_ variables.
func ExampleApp() {
	type ConversationPartial struct {
		Model partial.Value[string] `toml:"model"`
		Tools config.ToolsPartial   `toml:"tools"`
	}
	type HostPartial struct {
		Conversation ConversationPartial `toml:"conversation"`
	}
	type Host struct {
		Conversation struct {
			Model string       `toml:"model"`
			Tools config.Tools `toml:"tools"`
		} `toml:"conversation"`
	}

	// A workspace with a .myapp/config.toml and a directory file.
	root, _ := os.MkdirTemp("", "myapp")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, ".myapp"), 0o755)
	_ = os.MkdirAll(filepath.Join(root, "src"), 0o755)
	_ = os.WriteFile(filepath.Join(root, ".myapp", "config.toml"), []byte(`
[conversation]
model = "large"

[conversation.tools.grep]
source = "local"
command = "rg --json"
`), 0o644)
	_ = os.WriteFile(filepath.Join(root, "src", ".myapp.toml"), []byte(`
[conversation.tools.grep]
run = "unattended"
`), 0o644)

	defaults := Host{}
	defaults.Conversation.Model = "small"
	defaults.Conversation.Tools = config.Default().Tools

	app := load.App[HostPartial, Host]{
		Name:     "myapp",
		Defaults: defaults,
		Dir:      filepath.Join(root, "src"),
		Environ:  []string{"MYAPP_CONVERSATION_TOOLS_GREP_SUMMARY=Search the code."}, // no os.Environ behind your back
		Cfg:      []string{"conversation.model=medium"},
		// The workspace's own files apply only once it is trusted.
		Trust: trust.List{Workspaces: []string{root}},
	}
	res, err := app.Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	grep, _ := res.Config.Conversation.Tools.Effective("grep")
	fmt.Println(res.Config.Conversation.Model, grep.Run(), grep.Summary())

	ex, _ := res.Explain("conversation.tools.grep.run")
	for _, s := range ex.Steps {
		fmt.Println(s.Kind, filepath.Base(s.Name), s.Line, s.Action, s.Wins)
	}
	// Output:
	// medium unattended Search the code.
	// directory .myapp.toml 3 set "unattended" true
}

// A host reads the MCP servers of other clients' files into its own
// mcp_servers: here Claude Code's .mcp.json, whose variables come from the
// host's environment, and VS Code's mcp.json, whose input the host asks
// its user for.
func ExampleApp_clientFiles() {
	dir, _ := os.MkdirTemp("", "clients")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {
  "api": {"type": "http", "url": "${API_URL:-https://api.example.com}/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}}
}}`), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, ".vscode"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".vscode", "mcp.json"), []byte(`{
  // JSONC: comments and trailing commas are fine.
  "inputs": [{"type": "promptString", "id": "key", "description": "Search API key", "password": true}],
  "servers": {
    "search": {"type": "stdio", "command": "npx", "args": ["-y", "search-mcp"], "env": {"KEY": "${input:key}"},},
  },
}`), 0o644)

	app := load.App[config.Partial, config.Config]{
		Name:       "strata",
		Defaults:   config.Default(),
		Dir:        dir,
		Environ:    []string{"STRATA_CONFIG_HOME=" + dir, "API_KEY=k-123"},
		Cfg:        []string{filepath.Join(dir, ".mcp.json"), filepath.Join(dir, ".vscode", "mcp.json")},
		MCPServers: partial.Path{"mcp_servers"},
		Input: func(_ context.Context, id, description string, password bool) (string, error) {
			fmt.Printf("asked for %s (%s), password %v\n", id, description, password)
			return "s3cret", nil
		},
	}
	res, err := app.Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	// A value from a variable or an input prints as its reference;
	// only the launch reveals it.
	api, search := res.Config.MCPServers["api"], res.Config.MCPServers["search"]
	fmt.Println(api.URL, api.Headers["Authorization"], api.Expose.All())
	fmt.Println(search.Command, search.Args, search.Env["KEY"], search.Expose.All())
	fmt.Println(api.Headers["Authorization"].Reveal())
	// Output:
	// asked for key (Search API key), password true
	// <from ${API_URL:-https://api.example.com}/mcp> <from Bearer ${API_KEY}> true
	// npx [-y search-mcp] <from ${input:key}> true
	// Bearer k-123
}

// A file that lies in a workspace nobody trusted is that workspace's
// content, however it is named: a --cfg file in the working directory
// does not apply, Result.Untrusted says which directory to trust for it
// (what a host shows, or asks about), and ReadFile, through which a host
// reads the workspace's other files, only looks at such a file.
func ExampleResult_ReadFile() {
	clone, _ := os.MkdirTemp("", "clone")
	defer os.RemoveAll(clone)
	_ = os.WriteFile(filepath.Join(clone, ".mcp.json"), []byte(`{"mcpServers": {"build": {"command": "sh", "args": ["-c", "make"]}}}`), 0o644)
	_ = os.WriteFile(filepath.Join(clone, "prompts.md"), []byte("You are a build bot."), 0o644)

	for _, trusted := range []bool{false, true} {
		app := load.App[config.Partial, config.Config]{
			Name: "strata", Defaults: config.Default(), Dir: clone, Environ: []string{},
			Cfg: []string{filepath.Join(clone, ".mcp.json")}, MCPServers: partial.Path{"mcp_servers"},
			TrustWorkspace: trusted, // as --trust does, for this load
		}
		res, err := app.Load(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		_, build := res.Config.MCPServers["build"]
		_, err = res.ReadFile(context.Background(), filepath.Join(clone, "prompts.md"))
		fmt.Println("trusted:", trusted, "build:", build, "untrusted code:", errors.Is(err, diag.CodeUntrusted))
		for _, u := range res.Untrusted {
			fmt.Println("trust", u.Dir == clone, "to apply", len(u.Files), "file, --trust would do:", u.Once)
		}
	}
	// Output:
	// trusted: false build: false untrusted code: true
	// trust true to apply 1 file, --trust would do: true
	// trusted: true build: true untrusted code: false
}
