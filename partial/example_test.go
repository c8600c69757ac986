package partial_test

import (
	"fmt"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

func ExampleFinalize() {
	var p config.Partial
	_ = codec.Decode("tools.toml", []byte(`
unset = ["tools.'*'.run"]

[tools.'*']
result = "ask"
`), partial.TOML, &p)
	cfg, _ := partial.Finalize(&p, config.Default())
	d := cfg.Tools[config.EveryTool]
	fmt.Println(d.Run, d.Result)
	// Output: ask ask
}

func ExampleFrom() {
	cfg := config.Default()
	cfg.Tools["grep"] = config.Tool{Source: config.Source{Kind: config.SourceLocal}, Run: config.Always(config.RunUnattended)}
	p, _ := partial.From[config.Partial](cfg, config.Default())
	text, _ := codec.Encode(p, partial.TOML)
	fmt.Print(string(text))
	// Output:
	// [tools.grep]
	// source = "local"
	// run = "unattended"
}

// A host application mounts the tools model in its own config, here under
// conversation.tools: Finalize fills its layer in over its defaults, and
// From gives back only what differs from them.
func ExampleFinalize_hostApplication() {
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

	var p HostPartial
	_ = codec.Decode("host.toml", []byte(`
[conversation.tools.grep]
source = "local"
command = "rg --json"
run = "unattended"
`), partial.TOML, &p)
	host, err := partial.Finalize(&p, defaults)
	if err != nil {
		fmt.Println(err)
		return
	}
	grep, _ := host.Conversation.Tools.Effective("grep")
	fmt.Println(host.Conversation.Model, grep.Tool.Command, grep.Run())

	back, _ := partial.From[HostPartial](host, defaults)
	text, _ := codec.Encode(back, partial.TOML)
	fmt.Print(string(text))
	// Output:
	// small rg --json unattended
	// [conversation.tools.grep]
	// source = "local"
	// command = "rg --json"
	// run = "unattended"
}

// A list layer wraps what the layers below give: Wrap puts its head
// before their items and its tail after them, and Head and Tail read the
// two back.
func ExampleWrap() {
	var low, high config.Partial
	low.Discover.Dirs = partial.Replace("b")
	high.Discover.Dirs = partial.Wrap([]string{"a"}, []string{"c"})
	fmt.Println(high.Discover.Dirs.Head(), high.Discover.Dirs.Tail())

	cfg, _ := partial.Finalize(merge.Layers(&low, &high), config.Default())
	fmt.Println(cfg.Discover.Dirs)
	// Output:
	// [a] [c]
	// [a b c]
}
