package load_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
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
	}
	res, err := app.Load(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	grep, _ := res.Config.Conversation.Tools.Effective("grep")
	fmt.Println(res.Config.Conversation.Model, grep.Run(), grep.Summary())

	ex, _ := res.Explain(partial.Path{"conversation", "tools", "grep", "run"})
	for _, s := range ex.Steps {
		fmt.Println(s.Kind, filepath.Base(s.Name), s.Line, s.Action, s.Wins)
	}
	// Output:
	// medium unattended Search the code.
	// directory .myapp.toml 3 set "unattended" true
}

// A host raises or lowers the limits every source is read within; a zero
// field keeps its default.
func ExampleLimits() {
	fmt.Printf("%+v\n", load.Limits{Depth: 5000}.WithDefaults())

	strict := load.Limits{Depth: 3}
	_, err := strict.Parse("deep.toml", []byte("a.b.c.d = 1\n"), partial.TOML)
	fmt.Println(err)
	// Output:
	// {Depth:5000 FileSize:1048576 Files:64 Problems:100 Quote:100}
	// deep.toml:1:7: tables and arrays nest deeper than 3 levels, the limit
}
