package delta_test

import (
	"fmt"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

func ExampleBetween() {
	before, after := new(config.Partial), new(config.Partial)
	_ = codec.Decode("before.toml", []byte(`
[tools.grep]
source = "local"
command = "rg"
run = "ask"

[tools.old]
source = "builtin"
`), partial.TOML, before)
	_ = codec.Decode("after.toml", []byte(`
[tools.grep]
source = "local"
command = "rg --json"
`), partial.TOML, after)

	d := delta.Between(before, after)
	text, _ := codec.Encode(d, partial.TOML)
	fmt.Print(string(text))
	// Output:
	// unset = ["tools.grep.run", "tools.old"]
	//
	// [tools.grep]
	// command = "rg --json"
}

// A host application mounts the tools model in its own config, here under
// conversation.tools, and diffs its own layers the same way.
func ExampleBetween_hostApplication() {
	type ConversationPartial struct {
		Model partial.Value[string] `toml:"model"`
		Tools config.ToolsPartial   `toml:"tools"`
	}
	type HostPartial struct {
		Conversation ConversationPartial `toml:"conversation"`
	}

	before, after := new(HostPartial), new(HostPartial)
	_ = codec.Decode("before.toml", []byte(`
[conversation]
model = "large"

[conversation.tools.grep]
source = "local"
command = "rg"
run = "ask"
`), partial.TOML, before)
	_ = codec.Decode("after.toml", []byte(`
[conversation.tools.grep]
source = "local"
command = "rg"
run = "unattended"
`), partial.TOML, after)

	d := delta.Between(before, after)
	text, _ := codec.Encode(d, partial.TOML)
	fmt.Print(string(text))
	// Output:
	// unset = ["conversation.model"]
	//
	// [conversation.tools.grep]
	// run = "unattended"
}

// The layer a workspace adds to the user's: Between(user, workspace)
// would undo what the workspace does not repeat (tools.old), so diff the
// user's layer with the workspace merged over it. Smallest also leaves out
// what the defaults give anyway (run = "ask" is every tool's default).
func ExampleBetween_overlay() {
	user, workspace := new(config.Partial), new(config.Partial)
	_ = codec.Decode("user.toml", []byte(`
[tools.grep]
command = "rg"
run = "ask"

[tools.old]
source = "builtin"
`), partial.TOML, user)
	_ = codec.Decode("workspace.toml", []byte(`
[tools.'*']
run = "ask"

[tools.grep]
command = "rg --json"
run = "ask"
`), partial.TOML, workspace)

	for _, d := range []*config.Partial{
		delta.Between(user, workspace),
		delta.Between(user, merge.Layers(user, workspace)),
		delta.Smallest(user, merge.Layers(user, workspace), config.Default()),
	} {
		text, _ := codec.Encode(d, partial.TOML)
		fmt.Printf("%s---\n", text)
	}
	// Output:
	// unset = ["tools.old"]
	//
	// [tools.'*']
	// run = "ask"
	//
	// [tools.grep]
	// command = "rg --json"
	// ---
	// [tools.'*']
	// run = "ask"
	//
	// [tools.grep]
	// command = "rg --json"
	// ---
	// [tools.grep]
	// command = "rg --json"
	// ---
}
