package merge_test

import (
	"fmt"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

func ExampleLayers() {
	user, workspace := new(config.Partial), new(config.Partial)
	_ = codec.Decode("user.toml", []byte(`
[tools.grep]
source = "local"
command = "rg --json"
run = "ask"

[discover]
dirs = ["~/tools"]
`), partial.TOML, user)
	_ = codec.Decode("workspace.toml", []byte(`
[tools.grep]
run = "unattended"

[discover]
dirs = ["tools"]   # dirs appends across layers
`), partial.TOML, workspace)

	merged := merge.Layers(user, workspace)
	cfg, _ := config.Finalize(merged)
	grep, _ := cfg.Tools.Effective("grep")
	fmt.Println(grep.Tool.Command, grep.Run())
	fmt.Println(cfg.Discover.Dirs)
	// Output:
	// rg --json unattended
	// [~/tools tools]
}

// A host application mounts the tools model in its own config, here under
// conversation.tools, and uses the same machinery on its own types.
func ExampleLayers_hostApplication() {
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

	defaults := Host{}
	defaults.Conversation.Model = "small"
	defaults.Conversation.Tools = config.Default().Tools

	base, local := new(HostPartial), new(HostPartial)
	_ = codec.Decode("host.toml", []byte(`
[conversation]
model = "large"

[conversation.tools.fs_read]
source = "mcp.fs"
`), partial.TOML, base)
	_ = codec.Decode("local.toml", []byte(`
unset = ["conversation.model"]

[conversation.tools.'*']
run = "unattended"
`), partial.TOML, local)

	host, err := partial.Finalize(merge.Layers(base, local), defaults)
	if err != nil {
		fmt.Println(err)
		return
	}
	fsRead, _ := host.Conversation.Tools.Effective("fs_read")
	fmt.Println(host.Conversation.Model, fsRead.Tool.Source, fsRead.Run())
	// Output: small mcp.fs unattended
}

// Options merge as JP's do: a { value, strategy } table says how, at any
// depth, and is spent in the merge.
func ExampleLayers_optionStrategies() {
	user, workspace := new(config.Partial), new(config.Partial)
	_ = codec.Decode("user.toml", []byte(`
[tools.grep.options]
exclude = ["*.tmp"]
limits = { lines = 100 }
`), partial.TOML, user)
	_ = codec.Decode("workspace.toml", []byte(`
[tools.grep.options]
exclude = { value = ["*.lock"], strategy = "append" }
limits = { value = { lines = 10, bytes = 4096 }, strategy = "keep" }
`), partial.TOML, workspace)
	cfg, _ := config.Finalize(merge.Layers(user, workspace))
	fmt.Println(cfg.Tools["grep"].Options["exclude"])
	fmt.Println(cfg.Tools["grep"].Options["limits"])
	// Output:
	// [*.tmp *.lock]
	// map[bytes:4096 lines:100]
}
