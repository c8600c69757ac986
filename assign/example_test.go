package assign_test

import (
	"fmt"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
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

// A host reads variables against the tools it knows that no layer names
// yet (Known), and leaves its own variables under the same prefix alone
// (Except); a misspelt name is told the variable it most likely meant.
func ExampleEnv_hostVariables() {
	var p config.Partial
	environ := []string{
		"MYAPP_MODEL=large",              // the host's own
		"MYAPP_TOOLS_WORD_COUNT_RUN=ask", // a tool the host implements
		"MYAPP_TOOLS_WORD_COUNT_RNU=ask", // a typo
		"MYAPP_MODLE=small",              // a typo of the host's own
	}
	as, err := assign.Env(&p, "MYAPP", environ,
		assign.Known(partial.Path{"tools"}, "word_count"), assign.Except("MYAPP_MODEL"))
	for _, a := range as {
		fmt.Println(a)
	}
	for _, e := range diag.All(err) {
		fmt.Println(e)
	}
	// Output:
	// tools.word_count.run=ask
	// env MYAPP_MODLE: modle: unknown key; did you mean MYAPP_MODEL (the application's own, not a key path)?
	// env MYAPP_TOOLS_WORD_COUNT_RNU: tools.word_count.rnu: unknown key; did you mean MYAPP_TOOLS_WORD_COUNT_RUN (tools.word_count.run)?
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
