package config_test

import (
	"fmt"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// A tool is read through Effective, which resolves it against the '*'
// entry: what the tool does not set, it inherits.
func ExampleTools_Effective() {
	off := false
	tools := config.Tools{
		config.EveryTool: {Run: config.Always(config.RunUnattended), Enable: &config.Enable{AllowToggle: config.ToggleIfNamed}},
		"fs_modify_file": {
			Description: "Replace lines of a file.",
			Run:         config.Always(config.RunAsk),
			Enable:      &config.Enable{State: &off}, // allow_toggle comes from '*'
			Questions: map[string]config.Question{
				"apply_changes": {Target: config.TargetUser, Answer: true},
			},
		},
		"grep": {Summary: "Search the code."},
	}

	for _, name := range tools.Names() {
		t, _ := tools.Effective(name)
		fmt.Printf("%s: run=%s enabled=%v allow_toggle=%s summary=%q\n", t.Name, t.Run(), t.Enabled(), t.Enable().AllowToggle, t.Summary())
	}

	edit, _ := tools.Effective("fs_modify_file")
	answer, ok := edit.Answer("apply_changes")
	fmt.Println("apply_changes:", answer, ok)
	_, ok = edit.Answer("overwrite")
	fmt.Println("overwrite answered:", ok)

	_, ok = tools.Effective(config.EveryTool)
	fmt.Println("'*' is a tool:", ok)
	// Output:
	// fs_modify_file: run=ask enabled=false allow_toggle=if_named summary="Replace lines of a file."
	// grep: run=unattended enabled=true allow_toggle=if_named summary="Search the code."
	// apply_changes: true true
	// overwrite answered: false
	// '*' is a tool: false
}

// Finalize applies a layer to the library's defaults and validates the
// result; what the layer does not say comes from Default.
func ExampleFinalize() {
	var p config.Partial
	err := codec.Decode("user.toml", []byte(`
[tools.grep]
source = "local"
command = "rg --json {{tool.arguments.pattern}}"
options.max_results = 50

[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
`), partial.TOML, &p)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := config.Finalize(&p)
	if err != nil {
		fmt.Println(err)
		return
	}
	grep, _ := cfg.Tools.Effective("grep")
	fmt.Println(grep.Tool.Source, grep.Tool.Command.Program, grep.Run(), grep.Tool.Options["max_results"])
	fs := cfg.MCPServers["fs"]
	// No layer sets its startup timeout: 0, its launch's default (npx: 60
	// seconds, 300 when it installs first).
	fmt.Println(fs.Command, fs.StartupTimeoutSec, fs.ToolTimeoutSec)
	// Output:
	// local rg ask 50
	// npx 0 60
}

// Finalize reports what the types alone cannot check, every problem at
// its key path; codec.LocateErrors positions them in the layers that set
// them.
func ExampleFinalize_invalid() {
	doc, _ := codec.Parse("user.toml", []byte(`
[tools.'*']
command = "rg"

[tools.read]
source = "mcp.fs"
`), partial.TOML)
	var p config.Partial
	_ = doc.Decode(&p)
	_, err := config.Finalize(&p)
	for _, e := range diag.All(codec.LocateErrors(err, doc)) {
		fmt.Println(e)
	}
	// Output:
	// user.toml:3:1: tools.'*'.command: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set command on each tool
	// user.toml:6:1: tools.read.source: no MCP server named "fs" is configured; add [mcp_servers.fs]
}

// A host's run-time directives (--tool, --no-tool) ask the tool's
// allow_toggle whether they may turn it on or off; each enable field is
// inherited from '*' on its own.
func ExampleAllowToggle_Accepts() {
	var p config.Partial
	_ = codec.Decode("user.toml", []byte(`
[tools.'*']
enable = { allow_toggle = "if_named" }

[tools.web_search]
enable.state = false
`), partial.TOML, &p)
	cfg, _ := config.Finalize(&p)
	search, _ := cfg.Tools.Effective("web_search")
	e := search.Enable()
	fmt.Println(search.Enabled(), e.AllowToggle)
	fmt.Println(e.AllowToggle.Accepts(config.ScopeAll), e.AllowToggle.Accepts(config.ScopeNamed))
	// Output:
	// false if_named
	// false true
}

// A scheme names a server's tools in the catalog, and gives back the
// server's name for one; Claude Code's is one of the documented ones.
func ExampleNameScheme() {
	for _, s := range []config.NameScheme{config.BareNames, config.ServerNames, config.ClaudeCodeNames, "gh_{tool}"} {
		name := s.Name("github", "create_issue")
		tool, _ := s.Tool("github", name)
		fmt.Printf("%-22s %-27s %s\n", s, name, tool)
	}
	fmt.Println(config.NameScheme("{server}:{tool}").Check())
	// Output:
	// {tool}                 create_issue                create_issue
	// {server}__{tool}       github__create_issue        create_issue
	// mcp__{server}__{tool}  mcp__github__create_issue   create_issue
	// gh_{tool}              gh_create_issue             create_issue
	// invalid tool_names "{server}:{tool}": ':' is not in a tool name: a name is letters, digits, '_', '-' and '.' (and OpenAI and Anthropic take no '.'); write a template of {tool} (the tool's name on its server) and {server} (the server's name), such as "{server}__{tool}"; "{tool}" keeps the servers' names
}

// A tool's run policy is rules tried in order (JP RFD D25). A higher
// layer's plain array goes before the rules of the layers below it: the
// more specific rule first. Each rule keeps where it was written.
func ExampleEffectiveTool_RunRules() {
	var user, workspace config.Partial
	if err := codec.Decode("user.toml", []byte(`
[tools.edit]
run = [{ arg = "/path", prefix = "src/", mode = "unattended" }, "ask"]
`), partial.TOML, &user); err != nil {
		fmt.Println(err)
		return
	}
	if err := codec.Decode("workspace.toml", []byte(`
[tools.edit]
run = [{ arg = "/path", prefix = "src/gen/", mode = "skip", reason = "generated" }]
`), partial.TOML, &workspace); err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := config.Finalize(merge.Layers(&user, &workspace))
	if err != nil {
		fmt.Println(err)
		return
	}
	edit, _ := cfg.Tools.Effective("edit")
	rules, key := edit.RunRules()
	for i, r := range rules {
		fmt.Printf("%s.%d %s: %s\n", key, i, r.At, r)
	}
	// Output:
	// tools.edit.run.0 workspace.toml:3:8: { arg = "/path", prefix = "src/gen/", mode = "skip", reason = "generated" }
	// tools.edit.run.1 user.toml:3:8: { arg = "/path", prefix = "src/", mode = "unattended" }
	// tools.edit.run.2 user.toml:3:65: ask
}

// A rule's examples (Codex's match and not_match) are checked when the
// tool resolves; Matches and NotMatches read them, nil where the rule has
// none.
func ExampleRule_Matches() {
	var p config.Partial
	if err := codec.Decode("user.toml", []byte(`
[tools.edit]
run = [{ arg = "/path", prefix = "src/", mode = "unattended", match = [{ path = "src/a.go" }], not_match = [{ path = "doc/a.md" }] }]
`), partial.TOML, &p); err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := config.Finalize(&p)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := cfg.Tools["edit"].Run[0]
	fmt.Println(r.Matches(), r.NotMatches())
	fmt.Println(cfg.Tools[config.EveryTool].Run[0].Matches() == nil)
	// Output:
	// [map[path:src/a.go]] [map[path:doc/a.md]]
	// true
}
