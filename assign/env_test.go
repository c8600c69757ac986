package assign_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

const envBase = `
[tools.fs_modify_file]
source = "local"
options.max_lines = 5

[tools.grep]
source = "local"
command = "rg --json"

[mcp_servers.fs]
command = "npx"
`

func TestEnv(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []assign.Assignment
	}{
		{"underscored tool name", []string{"STRATA_TOOLS_FS_MODIFY_FILE_RUN=ask"},
			[]assign.Assignment{{Source: "env STRATA_TOOLS_FS_MODIFY_FILE_RUN", Path: partial.Path{"tools", "fs_modify_file", "run"}, Op: assign.Set, Value: "ask"}}},
		{"underscored field name", []string{"STRATA_MCP_SERVERS_FS_STARTUP_TIMEOUT_SEC=30"},
			[]assign.Assignment{{Source: "env STRATA_MCP_SERVERS_FS_STARTUP_TIMEOUT_SEC", Path: partial.Path{"mcp_servers", "fs", "startup_timeout_sec"}, Op: assign.Set, Value: "30"}}},
		{"new tool", []string{"STRATA_TOOLS_NEW_TOOL_SOURCE=builtin"},
			[]assign.Assignment{{Source: "env STRATA_TOOLS_NEW_TOOL_SOURCE", Path: partial.Path{"tools", "new_tool", "source"}, Op: assign.Set, Value: "builtin"}}},
		{"existing option wins", []string{"STRATA_TOOLS_FS_MODIFY_FILE_OPTIONS_MAX_LINES=9"},
			[]assign.Assignment{{Source: "env STRATA_TOOLS_FS_MODIFY_FILE_OPTIONS_MAX_LINES", Path: partial.Path{"tools", "fs_modify_file", "options", "max_lines"}, Op: assign.Set, Value: "9"}}},
		{"explicit separators", []string{"STRATA_TOOLS__FS_MODIFY_FILE__OPTIONS__NEW_KEY=1"},
			[]assign.Assignment{{Source: "env STRATA_TOOLS__FS_MODIFY_FILE__OPTIONS__NEW_KEY", Path: partial.Path{"tools", "fs_modify_file", "options", "new_key"}, Op: assign.Set, Value: "1"}}},
		{"list item in a value", []string{"STRATA_TOOLS_GREP_COMMAND_ARGS_0=--vimgrep"},
			[]assign.Assignment{{Source: "env STRATA_TOOLS_GREP_COMMAND_ARGS_0", Path: partial.Path{"tools", "grep", "command", "args", "0"}, Op: assign.Set, Value: "--vimgrep"}}},
		{"merge prefix", []string{"STRATA_DISCOVER_DIRS=+bar"},
			[]assign.Assignment{{Source: "env STRATA_DISCOVER_DIRS", Path: partial.Path{"discover", "dirs"}, Op: assign.Merge, Value: "bar"}}},
		{"escaped plus", []string{`STRATA_TOOLS_GREP_SUMMARY=\+bar`},
			[]assign.Assignment{{Source: "env STRATA_TOOLS_GREP_SUMMARY", Path: partial.Path{"tools", "grep", "summary"}, Op: assign.Set, Value: "+bar"}}},
		{"escaped colon", []string{`STRATA_TOOLS_GREP_SUMMARY=\:bar`},
			[]assign.Assignment{{Source: "env STRATA_TOOLS_GREP_SUMMARY", Path: partial.Path{"tools", "grep", "summary"}, Op: assign.Set, Value: ":bar"}}},
		{"json prefix", []string{"STRATA_TOOLS_GREP_ENABLE=:true"},
			[]assign.Assignment{{Source: "env STRATA_TOOLS_GREP_ENABLE", Path: partial.Path{"tools", "grep", "enable"}, Op: assign.SetJSON, Value: "true"}}},
		{"merge json prefix", []string{`STRATA_MCP_SERVERS_FS_ENV=+:{"LOG_LEVEL":"warn"}`},
			[]assign.Assignment{{Source: "env STRATA_MCP_SERVERS_FS_ENV", Path: partial.Path{"mcp_servers", "fs", "env"}, Op: assign.MergeJSON, Value: `{"LOG_LEVEL":"warn"}`}}},
		{"json on a table", []string{`STRATA_TOOLS_GREP=:{"run":"ask"}`},
			[]assign.Assignment{{Source: "env STRATA_TOOLS_GREP", Path: partial.Path{"tools", "grep"}, Op: assign.SetJSON, Value: `{"run":"ask"}`}}},
		{"other prefixes and lower-case names are matched by prefix only", []string{"OTHER_TOOLS_GREP_RUN=ask", "strata_tools_grep_run=skip", "STRATA=1"},
			[]assign.Assignment{{Source: "env strata_tools_grep_run", Path: partial.Path{"tools", "grep", "run"}, Op: assign.Set, Value: "skip"}}},
		{"sorted by name", []string{"STRATA_TOOLS_GREP_RUN=ask", "STRATA_DISCOVER_DIRS=a"}, []assign.Assignment{
			{Source: "env STRATA_DISCOVER_DIRS", Path: partial.Path{"discover", "dirs"}, Op: assign.Set, Value: "a"},
			{Source: "env STRATA_TOOLS_GREP_RUN", Path: partial.Path{"tools", "grep", "run"}, Op: assign.Set, Value: "ask"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "base.toml", envBase, partial.TOML)
			got, err := assign.Env(&p, "STRATA", tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnvErrors(t *testing.T) {
	tests := []struct {
		name, env, want string
	}{
		{"typo in a field", "STRATA_TOOLS_GREP_RNU=ask", "env STRATA_TOOLS_GREP_RNU: tools.grep.rnu: unknown key; did you mean STRATA_TOOLS_GREP_RUN (tools.grep.run)?"},
		{"typo at the root", "STRATA_TOLS_GREP_RUN=ask", "env STRATA_TOLS_GREP_RUN: tols: unknown key; did you mean STRATA_TOOLS_GREP_RUN (tools.grep.run)?"},
		{"typo after a new tool of two words", "STRATA_TOOLS_WORD_COUNT_RNU=ask", "env STRATA_TOOLS_WORD_COUNT_RNU: tools.word_count.rnu: unknown key; did you mean STRATA_TOOLS_WORD_COUNT_RUN (tools.word_count.run)?"},
		{"typo of a field of two words", "STRATA_MCP_SERVERS_FS_STARTUP_TIMEOUT_SCE=5", "env STRATA_MCP_SERVERS_FS_STARTUP_TIMEOUT_SCE: mcp_servers.fs.startup_timeout_sce: unknown key; did you mean STRATA_MCP_SERVERS_FS_STARTUP_TIMEOUT_SEC (mcp_servers.fs.startup_timeout_sec)?"},
		{"typo in lower case", "strata_tools_grep_rnu=ask", "env strata_tools_grep_rnu: tools.grep.rnu: unknown key; did you mean strata_tools_grep_run (tools.grep.run)?"},
		{"typo with explicit separators", "STRATA_TOOLS__FS_MODIFY_FILE__RNU=ask", "env STRATA_TOOLS__FS_MODIFY_FILE__RNU: tools.fs_modify_file.rnu: unknown key; did you mean STRATA_TOOLS__FS_MODIFY_FILE__RUN (tools.fs_modify_file.run)?"},
		{"two typos: the first mended", "STRATA_TOLS_GREP_RNU=ask", "env STRATA_TOLS_GREP_RNU: tols: unknown key; did you mean STRATA_TOOLS_GREP_RUN (tools.grep.run)?"},
		{"too many typos to mend", "STRATA_TOLS_GERP_RNU_XYZ=ask", "env STRATA_TOLS_GERP_RNU_XYZ: tols: unknown key; did you mean tools?"},
		{"an existing tool over a new one", "STRATA_TOOLS_FS_MODIFY_FILE_XYZ=1", "env STRATA_TOOLS_FS_MODIFY_FILE_XYZ: tools.fs_modify_file.xyz: unknown key"},
		{"ambiguous new option", "STRATA_TOOLS_GREP_OPTIONS_NEW_KEY=1", "env STRATA_TOOLS_GREP_OPTIONS_NEW_KEY: the name is ambiguous: it reads as tools.grep.options.new.key or tools.grep.options.new_key; separate the keys with '__', as in TOOLS__GREP__OPTIONS__NEW__KEY"},
		{"text on a table", "STRATA_TOOLS_GREP=x", "env STRATA_TOOLS_GREP: tools.grep: a table, not a value; set one of its keys, or give a JSON object with ':'"},
		{"empty key", "STRATA_TOOLS__=x", "env STRATA_TOOLS__: the name has an empty key; separate keys with one '_', or all of them with '__'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "base.toml", envBase, partial.TOML)
			_, err := assign.Env(&p, "STRATA", []string{tt.env})
			if got := oneLine(err); got != tt.want {
				t.Errorf("\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

// TestEnvKnown reads names against the keys a host knows besides the
// layer's entries (tools it discovered or implements).
func TestEnvKnown(t *testing.T) {
	tests := []struct {
		name, env string
		known     []string
		want      string
	}{
		{"a new tool", "STRATA_TOOLS_WORD_COUNT_XYZ=1", nil, "env STRATA_TOOLS_WORD_COUNT_XYZ: tools.word.count: unknown key"},
		{"a known tool", "STRATA_TOOLS_WORD_COUNT_XYZ=1", []string{"word_count"}, "env STRATA_TOOLS_WORD_COUNT_XYZ: tools.word_count.xyz: unknown key"},
		{"a known tool in another case", "STRATA_TOOLS_WORD_COUNT_XYZ=1", []string{"Word_Count"}, "env STRATA_TOOLS_WORD_COUNT_XYZ: tools.Word_Count.xyz: unknown key"},
		{"known tools of the same start", "STRATA_TOOLS_WORD_COUNT_OPTIONS_X=1", []string{"word", "word_count"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "base.toml", envBase, partial.TOML)
			as, err := assign.Env(&p, "STRATA", []string{tt.env}, assign.Known(partial.Path{"tools"}, tt.known...))
			if got := oneLine(err); got != tt.want {
				t.Errorf("\n got: %s\nwant: %s", got, tt.want)
			}
			if tt.want == "" {
				want := []assign.Assignment{{Source: "env STRATA_TOOLS_WORD_COUNT_OPTIONS_X", Path: partial.Path{"tools", "word_count", "options", "x"}, Op: assign.Set, Value: "1"}}
				if diff := cmp.Diff(want, as); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestEnvExcept leaves a host's own variables alone, and tells a name
// close to one of them.
func TestEnvExcept(t *testing.T) {
	p := layertest.MustDecode(t, "base.toml", envBase, partial.TOML)
	as, err := assign.Env(&p, "STRATA", []string{"STRATA_MODEL=gpt", "strata_provider_url=x", "STRATA_PROVIDER_KEY=k", "STRATA_TOOLS_GREP_RUN=ask", "STRATA_MODLE=gpt", "STRATA_PROVIDER=x"},
		assign.Except("STRATA_MODEL", "STRATA_PROVIDER_*"))
	want := []assign.Assignment{{Source: "env STRATA_TOOLS_GREP_RUN", Path: partial.Path{"tools", "grep", "run"}, Op: assign.Set, Value: "ask"}}
	if diff := cmp.Diff(want, as); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	wantErr := "env STRATA_MODLE: modle: unknown key; did you mean STRATA_MODEL (the application's own, not a key path)?\n" +
		"env STRATA_PROVIDER: provider: unknown key"
	if got := oneLine(err); got != wantErr {
		t.Errorf("\n got: %s\nwant: %s", got, wantErr)
	}
}

// TestEnvApplies runs the assignments the environment makes.
func TestEnvApplies(t *testing.T) {
	p := layertest.MustDecode(t, "base.toml", envBase, partial.TOML)
	as, err := assign.Env(&p, "STRATA", []string{
		"STRATA_TOOLS_FS_MODIFY_FILE_RUN=unattended",
		"STRATA_TOOLS_GREP_ENABLE=false",
		`STRATA_MCP_SERVERS_FS_ENV=:+{"LOG_LEVEL":"warn"}`,
		"STRATA_DISCOVER_DIRS=+a,b",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := assign.Apply(&p, as...); err != nil {
		t.Fatal(err)
	}
	c, _ := partial.Finalize(&p, config.Default())
	got := []any{fixed(c.Tools["fs_modify_file"].Run), c.Tools["grep"].Enable, c.MCPServers["fs"].Env, c.Discover.Dirs}
	want := []any{config.RunUnattended, &config.Enable{State: layertest.Ptr(false), AllowToggle: config.ToggleAny}, map[string]secret.String{"LOG_LEVEL": secret.Plain("warn")}, []string{"a", "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
