package assign_test

import (
	"fmt"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
)

func ExampleApply() {
	var p config.Partial
	_ = codec.Decode("tools.toml", []byte(`
[tools.grep]
source = "local"
command = "rg --json"

[discover]
dirs = ["tools"]
`), partial.TOML, &p)

	for _, s := range []string{
		"tools.grep.run=unattended",                  // text, converted to the field's type
		"tools.grep.command.args.0=--vimgrep",        // an existing list item
		"tools.grep.options.limits:={\"lines\": 20}", // JSON
		"discover.dirs+=more,other",                  // append comma-separated items
	} {
		a, err := assign.Parse(s)
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := assign.Apply(&p, a); err != nil {
			fmt.Println(err)
			return
		}
	}
	cfg, _ := config.Finalize(&p)
	grep := cfg.Tools["grep"]
	fmt.Println(grep.Run, grep.Command, grep.Options["limits"], cfg.Discover.Dirs)
	// Output: unattended rg --vimgrep map[lines:20] [tools more other]
}

func ExampleApply_errors() {
	var p config.Partial
	a, _ := assign.Parse("tools.grep.rnu=ask")
	a.Source = "--cfg #1"
	fmt.Println(assign.Apply(&p, a))
	// Output: --cfg #1: tools.grep.rnu: unknown key; did you mean run?
}

func ExampleEnv() {
	var p config.Partial
	_ = codec.Decode("tools.toml", []byte(`
[tools.fs_modify_file]
source = "local"
`), partial.TOML, &p)

	environ := []string{
		"STRATA_TOOLS_FS_MODIFY_FILE_RUN=unattended", // '_' inside names is resolved
		"STRATA_TOOLS_FS_MODIFY_FILE_ENABLE=:false",  // ':' for JSON
		"HOME=/root", // other variables are ignored
	}
	as, err := assign.Env(&p, "STRATA", environ)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range as {
		fmt.Println(a.Source, "->", a)
	}
	_ = assign.Apply(&p, as...)
	cfg, _ := config.Finalize(&p)
	fsModify, _ := cfg.Tools.Effective("fs_modify_file")
	fmt.Println(fsModify.Run(), fsModify.Enabled())
	// Output:
	// env STRATA_TOOLS_FS_MODIFY_FILE_ENABLE -> tools.fs_modify_file.enable:=false
	// env STRATA_TOOLS_FS_MODIFY_FILE_RUN -> tools.fs_modify_file.run=unattended
	// unattended false
}

// A host application mounts the tools model in its own config, here under
// conversation.tools: overrides and its own variables (MYAPP_...) reach the
// tools by their path there.
func ExampleApply_hostApplication() {
	type ConversationPartial struct {
		Model partial.Value[string] `toml:"model"`
		Tools config.ToolsPartial   `toml:"tools"`
	}
	type HostPartial struct {
		Conversation ConversationPartial `toml:"conversation"`
	}

	var p HostPartial
	_ = codec.Decode("host.toml", []byte(`
[conversation.tools.fs_modify_file]
source = "local"
`), partial.TOML, &p)

	a, err := assign.Parse("conversation.tools.fs_modify_file.run=unattended")
	if err != nil {
		fmt.Println(err)
		return
	}
	env, err := assign.Env(&p, "MYAPP", []string{"MYAPP_CONVERSATION_MODEL=large", "MYAPP_CONVERSATION_TOOLS_FS_MODIFY_FILE_SUMMARY=Edit a file."})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := assign.Apply(&p, append([]assign.Assignment{a}, env...)...); err != nil {
		fmt.Println(err)
		return
	}
	text, _ := codec.Encode(&p, partial.TOML)
	fmt.Print(string(text))
	// Output:
	// [conversation]
	// model = "large"
	//
	// [conversation.tools.fs_modify_file]
	// source = "local"
	// summary = "Edit a file."
	// run = "unattended"
}
