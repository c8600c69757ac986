package codec_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// ptrTo returns a pointer to a copy of v.
func TestDecodeSameShapeInEveryFormat(t *testing.T) {
	tests := []struct {
		name             string
		toml, json, yaml string
		want             config.Partial
	}{
		{
			name: "empty document",
			toml: "",
			json: "{}",
			yaml: "",
			want: config.Partial{},
		},
		{
			name: "every kind of field",
			toml: `unset = ["tools.old"]

[tools.'*']
run = "ask"
enable = "explicit"

[tools.grep]
source = "mcp.fs.search"
command = { program = "rg", args = ["--json"], shell = true }
summary = "Search."
result = "edit"
options = { depth = 3, ratio = 0.5, tags = ["a", "b"], nested = { k = "v" } }
questions.apply = { target = "user", answer = true }

[tools.grep.parameters.path]
type = ["string", "null"]
required = true
enum = ["a", "b"]
default = "a"
items = { type = "string" }

[mcp_servers.fs]
command = "npx"
args = { value = ["-y"], strategy = "prepend", dedup = true }
env = { LOG = "1" }
optional = true
startup_timeout_sec = 60

[discover]
dirs = ["tools"]
`,
			json: `{
  "unset": ["tools.old"],
  "tools": {
    "*": {"run": "ask", "enable": "explicit"},
    "grep": {
      "source": "mcp.fs.search",
      "command": {"program": "rg", "args": ["--json"], "shell": true},
      "summary": "Search.",
      "result": "edit",
      "options": {"depth": 3, "ratio": 0.5, "tags": ["a", "b"], "nested": {"k": "v"}},
      "questions": {"apply": {"target": "user", "answer": true}},
      "parameters": {"path": {"type": ["string", "null"], "required": true, "enum": ["a", "b"], "default": "a", "items": {"type": "string"}}}
    }
  },
  "mcp_servers": {"fs": {"command": "npx", "args": {"value": ["-y"], "strategy": "prepend", "dedup": true}, "env": {"LOG": "1"}, "optional": true, "startup_timeout_sec": 60}},
  "discover": {"dirs": ["tools"]}
}`,
			yaml: `unset: [tools.old]
tools:
  "*": {run: ask, enable: explicit}
  grep:
    source: mcp.fs.search
    command: {program: rg, args: [--json], shell: true}
    summary: Search.
    result: edit
    options:
      depth: 3
      ratio: 0.5
      tags: [a, b]
      nested: {k: v}
    questions:
      apply: {target: user, answer: true}
    parameters:
      path:
        type: [string, "null"]
        required: true
        enum: [a, b]
        default: a
        items: {type: string}
mcp_servers:
  fs:
    command: npx
    args: {value: [-y], strategy: prepend, dedup: true}
    env: {LOG: "1"}
    optional: true
    startup_timeout_sec: 60
discover:
  dirs: [tools]
`,
			want: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
					"old": nil,
					"*": {
						Run:    partial.Replace(config.RunRule{Mode: config.RunAsk}),
						Enable: partial.NestedOf(config.EnablePartial{State: partial.Of(false), AllowToggle: partial.Of(config.ToggleIfNamed)}),
					},
					"grep": {
						Source:  partial.Of(config.Source{Kind: config.SourceMCP, Server: "fs", Tool: "search"}),
						Command: partial.Of(config.Command{Program: "rg", Args: []string{"--json"}, Shell: true}),
						Summary: partial.Of("Search."),
						Result:  partial.Replace(config.ResultRule{Mode: config.ResultEdit}),
						Options: partial.Map[partial.Any]{Entries: map[string]*partial.Any{
							"depth":  layertest.Ptr(partial.AnyOf(int64(3))),
							"ratio":  layertest.Ptr(partial.AnyOf(0.5)),
							"tags":   layertest.Ptr(partial.AnyOf([]any{"a", "b"})),
							"nested": layertest.Ptr(partial.AnyOf(map[string]any{"k": "v"})),
						}},
						Questions: partial.Map[config.QuestionPartial]{Entries: map[string]*config.QuestionPartial{
							"apply": {Target: partial.Of(config.TargetUser), Answer: partial.Of[any](true)},
						}},
						Parameters: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{
							"path": {
								Type:     partial.Of(config.Types{"string", "null"}),
								Required: partial.Of(true),
								Enum:     partial.Replace[any]("a", "b"),
								Default:  partial.Of[any]("a"),
								Items:    partial.NestedOf(config.ParameterPartial{Type: partial.Of(config.Types{"string"})}),
							},
						}},
					},
				}},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					"fs": {
						Command:           partial.Of(secret.Plain("npx")),
						Args:              partial.List[secret.String]{Items: secret.Plains("-y"), Before: 1, Dedup: true},
						Env:               partial.Map[partial.Value[secret.String]]{Entries: map[string]*partial.Value[secret.String]{"LOG": layertest.Ptr(partial.Of(secret.Plain("1")))}},
						Optional:          partial.Of(true),
						StartupTimeoutSec: partial.Of(60.0),
					},
				}},
				Discover: config.DiscoverPartial{Dirs: partial.Append("tools")},
			},
		},
		{
			name: "list forms",
			toml: `[mcp_servers.a]
args = ["x", "y"]
[mcp_servers.b]
args = { value = ["x"], strategy = "append" }
[mcp_servers.c]
args = { prepend = ["h"], append = ["t"], dedup = true }
[mcp_servers.d]
args = { value = ["x", "y", "x"], dedup = true }
[discover]
dirs = { value = ["d"], strategy = "replace" }
`,
			json: `{"mcp_servers": {
  "a": {"args": ["x", "y"]},
  "b": {"args": {"value": ["x"], "strategy": "append"}},
  "c": {"args": {"prepend": ["h"], "append": ["t"], "dedup": true}},
  "d": {"args": {"value": ["x", "y", "x"], "dedup": true}}},
 "discover": {"dirs": {"value": ["d"], "strategy": "replace"}}}`,
			yaml: `mcp_servers:
  a: {args: [x, y]}
  b: {args: {value: [x], strategy: append}}
  c: {args: {prepend: [h], append: [t], dedup: true}}
  d: {args: {value: [x, y, x], dedup: true}}
discover:
  dirs: {value: [d], strategy: replace}
`,
			want: config.Partial{
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					// args has no strategy tag: a plain array replaces.
					"a": {Args: partial.Replace(secret.Plains("x", "y")...)},
					"b": {Args: partial.Append(secret.Plain("x"))},
					"c": {Args: partial.List[secret.String]{Items: secret.Plains("h", "t"), Before: 1, Dedup: true}},
					// dedup is applied to the layer's own items right away.
					"d": {Args: partial.List[secret.String]{Base: partial.BaseEmpty, Items: secret.Plains("x", "y"), Dedup: true}},
				}},
				Discover: config.DiscoverPartial{Dirs: partial.Replace("d")},
			},
		},
		{
			name: "enable and command forms",
			toml: `[tools.a]
enable = true
command = "jp-tools {{tool}} 'two words'"
[tools.b]
enable = false
command = { program = "sh", args = ["-c", "echo hi"] }
[tools.c]
enable = { state = "always", allow_toggle = false }
`,
			json: `{"tools": {
  "a": {"enable": true, "command": "jp-tools {{tool}} 'two words'"},
  "b": {"enable": false, "command": {"program": "sh", "args": ["-c", "echo hi"]}},
  "c": {"enable": {"state": "always", "allow_toggle": false}}}}`,
			yaml: `tools:
  a:
    enable: true
    command: "jp-tools {{tool}} 'two words'"
  b:
    enable: false
    command: {program: sh, args: [-c, echo hi]}
  c:
    enable: {state: always, allow_toggle: false}
`,
			want: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
					"a": {
						Enable:  partial.NestedOf(config.EnablePartial{State: partial.Of(true), AllowToggle: partial.Of(config.ToggleAny)}),
						Command: partial.Of(config.Command{Program: "jp-tools", Args: []string{"{{tool}}", "two words"}}),
					},
					"b": {
						Enable:  partial.NestedOf(config.EnablePartial{State: partial.Of(false), AllowToggle: partial.Of(config.ToggleAny)}),
						Command: partial.Of(config.Command{Program: "sh", Args: []string{"-c", "echo hi"}}),
					},
					"c": {Enable: partial.NestedOf(config.EnablePartial{State: partial.Of(true), AllowToggle: partial.Of(config.ToggleNever)})},
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, in := range []struct {
				format partial.Format
				src    string
			}{{partial.TOML, tt.toml}, {partial.JSON, tt.json}, {partial.YAML, tt.yaml}} {
				got := layertest.MustDecode(t, "layer", in.src, in.format)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: decoded partial mismatch (-want +got):\n%s", in.format, diff)
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		format partial.Format
		src    string
		want   []layertest.Problem
	}{
		{
			name: "unknown key with did-you-mean",
			src:  "[tools.grep]\nrnu = \"ask\"\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:1: tools.grep.rnu: unknown key; did you mean run?", Line: 2, Column: 1,
				Path: partial.Path{"tools", "grep", "rnu"}, Hint: "did you mean run?", Snippet: `rnu = "ask"`,
			}},
		},
		{
			name:   "unknown key in JSON",
			src:    "{\"tools\": {\"grep\": {\n  \"rnu\": \"ask\"}}}",
			format: partial.JSON,
			want: []layertest.Problem{{
				Err: "f.toml:2:3: tools.grep.rnu: unknown key; did you mean run?", Line: 2, Column: 3,
				Path: partial.Path{"tools", "grep", "rnu"}, Hint: "did you mean run?", Snippet: `  "rnu": "ask"}}}`,
			}},
		},
		{
			name:   "unknown key in YAML",
			format: partial.YAML,
			src:    "tools:\n  grep:\n    rnu: ask\n",
			want: []layertest.Problem{{
				Err: "f.toml:3:5: tools.grep.rnu: unknown key; did you mean run?", Line: 3, Column: 5,
				Path: partial.Path{"tools", "grep", "rnu"}, Hint: "did you mean run?", Snippet: "    rnu: ask",
			}},
		},
		{
			name: "unknown root table with did-you-mean",
			src:  "[toolz.grep]\nrun = \"ask\"\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:2: toolz: unknown key; did you mean tools?", Line: 1, Column: 2,
				Path: partial.Path{"toolz"}, Hint: "did you mean tools?", Snippet: "[toolz.grep]",
			}},
		},
		{
			name: "unknown key without a near one lists the known keys",
			src:  "[discover]\npaths = [\"x\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:1: discover.paths: unknown key; known keys: dirs, timeout_sec", Line: 2, Column: 1,
				Path: partial.Path{"discover", "paths"}, Hint: "known keys: dirs, timeout_sec", Snippet: `paths = ["x"]`,
			}},
		},
		{
			name: "unknown key of a quoted tool name is quoted in the path",
			src:  "[tools.'a.b']\nsumary = \"x\"\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:1: tools.'a.b'.sumary: unknown key; did you mean summary?", Line: 2, Column: 1,
				Path: partial.Path{"tools", "a.b", "sumary"}, Hint: "did you mean summary?", Snippet: `sumary = "x"`,
			}},
		},
		{
			name: "string where a boolean is expected",
			src:  "[mcp_servers.fs]\noptional = \"yes\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:12: mcp_servers.fs.optional: expected a boolean, found string "yes"`, Line: 2, Column: 12,
				Path: partial.Path{"mcp_servers", "fs", "optional"}, Snippet: `optional = "yes"`,
			}},
		},
		{
			name: "boolean where a string is expected",
			src:  "[tools.grep]\nsummary = true\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:11: tools.grep.summary: expected a string, found boolean true", Line: 2, Column: 11,
				Path: partial.Path{"tools", "grep", "summary"}, Snippet: "summary = true",
			}},
		},
		{
			name: "string where a number is expected",
			src:  "[mcp_servers.fs]\nstartup_timeout_sec = \"ten\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:23: mcp_servers.fs.startup_timeout_sec: expected a number, found string "ten"`, Line: 2, Column: 23,
				Path: partial.Path{"mcp_servers", "fs", "startup_timeout_sec"}, Snippet: `startup_timeout_sec = "ten"`,
			}},
		},
		{
			name: "table where a string is expected",
			src:  "[tools.grep]\nsummary = { text = \"x\" }\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:11: tools.grep.summary: expected a string, found a table", Line: 2, Column: 11,
				Path: partial.Path{"tools", "grep", "summary"}, Snippet: `summary = { text = "x" }`,
			}},
		},
		{
			name: "number inside a list of strings",
			src:  "[mcp_servers.fs]\nargs = [\"-y\", 2]\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:15: mcp_servers.fs.args.1: expected a string, found integer 2", Line: 2, Column: 15,
				Path: partial.Path{"mcp_servers", "fs", "args", "1"}, Snippet: `args = ["-y", 2]`,
			}},
		},
		{
			name: "string where a list is expected",
			src:  "[mcp_servers.fs]\nargs = \"-y\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:8: mcp_servers.fs.args: expected an array or { value = [...], strategy = ... }, found string "-y"`, Line: 2, Column: 8,
				Path: partial.Path{"mcp_servers", "fs", "args"}, Snippet: `args = "-y"`,
			}},
		},
		{
			name: "value where a table of tools is expected",
			src:  "tools = [\"grep\"]\n",
			want: []layertest.Problem{{
				// An array's position is that of its opening bracket.
				Err: "f.toml:1:9: tools: expected a table, found an array", Line: 1, Column: 9,
				Path: partial.Path{"tools"}, Snippet: `tools = ["grep"]`,
			}},
		},
		{
			name: "empty array where a table is expected",
			src:  "[tools.a]\nparameters = [ ]\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:14: tools.a.parameters: expected a table, found an array", Line: 2, Column: 14,
				Path: partial.Path{"tools", "a", "parameters"}, Snippet: `parameters = [ ]`,
			}},
		},
		{
			name: "value where a tool table is expected",
			src:  "[tools]\ngrep = \"on\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:8: tools.grep: expected a table, found string "on"`, Line: 2, Column: 8,
				Path: partial.Path{"tools", "grep"}, Snippet: `grep = "on"`,
			}},
		},
		{
			name: "invalid run mode with did-you-mean",
			src:  "[tools.grep]\nrun = \"askk\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:7: tools.grep.run: expected one of ask, unattended, edit, skip, found "askk"; did you mean ask?`, Line: 2, Column: 7,
				Path: partial.Path{"tools", "grep", "run"}, Hint: "did you mean ask?", Snippet: `run = "askk"`,
			}},
		},
		{
			name: "invalid result mode without a near value",
			src:  "[tools.grep]\nresult = \"later\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:10: tools.grep.result: expected one of unattended, ask, edit, skip, found "later"`, Line: 2, Column: 10,
				Path: partial.Path{"tools", "grep", "result"}, Snippet: `result = "later"`,
			}},
		},
		{
			name: "run mode of the wrong type",
			src:  "[tools.grep]\nrun = true\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:7: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found boolean true", Line: 2, Column: 7,
				Path: partial.Path{"tools", "grep", "run"}, Snippet: "run = true",
			}},
		},
		{
			name: "invalid question target",
			src:  "[tools.grep.questions.q]\ntarget = \"usr\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:10: tools.grep.questions.q.target: expected one of user, assistant, found "usr"; did you mean user?`, Line: 2, Column: 10,
				Path: partial.Path{"tools", "grep", "questions", "q", "target"}, Hint: "did you mean user?", Snippet: `target = "usr"`,
			}},
		},
		{
			name: "invalid enable string",
			src:  "[tools.grep]\nenable = \"onn\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:10: tools.grep.enable: expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found string "onn"; did you mean on?`, Line: 2, Column: 10,
				Path: partial.Path{"tools", "grep", "enable"}, Hint: "did you mean on?", Snippet: `enable = "onn"`,
			}},
		},
		{
			name: "invalid enable state in a table points at the key",
			src:  "[tools.grep]\nenable = { state = \"explict\" }\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:12: tools.grep.enable.state: expected a boolean, or one of on, off, explicit, always, found string "explict"; did you mean explicit?`, Line: 2, Column: 12,
				Path: partial.Path{"tools", "grep", "enable", "state"}, Hint: "did you mean explicit?", Snippet: `enable = { state = "explict" }`,
			}},
		},
		{
			name: "enable of the wrong type",
			src:  "[tools.grep]\nenable = 1\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:10: tools.grep.enable: expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found number 1", Line: 2, Column: 10,
				Path: partial.Path{"tools", "grep", "enable"}, Snippet: "enable = 1",
			}},
		},
		{
			name: "invalid parameter type with did-you-mean",
			src:  "[tools.grep.parameters.p]\ntype = \"strin\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:8: tools.grep.parameters.p.type: expected one of string, number, integer, boolean, array, object, null, path, found "strin"; did you mean string?`, Line: 2, Column: 8,
				Path: partial.Path{"tools", "grep", "parameters", "p", "type"}, Hint: "did you mean string?", Snippet: `type = "strin"`,
			}},
		},
		{
			name: "invalid parameter type in a list points at the item",
			src:  "[tools.grep.parameters.p]\ntype = [\"string\", \"nul\"]\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:19: tools.grep.parameters.p.type.1: unknown type "nul"; expected one of string, number, integer, boolean, array, object, null, path; did you mean null?`, Line: 2, Column: 19,
				Path: partial.Path{"tools", "grep", "parameters", "p", "type", "1"}, Hint: "did you mean null?", Snippet: `type = ["string", "nul"]`,
			}},
		},
		{
			name: "mcp source without a server",
			src:  "[tools.grep]\nsource = \"mcp\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:10: tools.grep.source: invalid source "mcp": an mcp source needs a server; write mcp.<server> or mcp.<server>.<tool>`, Line: 2, Column: 10,
				Path: partial.Path{"tools", "grep", "source"}, Hint: "write mcp.<server> or mcp.<server>.<tool>", Snippet: `source = "mcp"`,
			}},
		},
		{
			name: "source of an unknown kind with did-you-mean",
			src:  "[tools.grep]\nsource = \"loacl\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:10: tools.grep.source: invalid source "loacl": unknown kind "loacl"; expected builtin, local or mcp; did you mean local?`, Line: 2, Column: 10,
				Path: partial.Path{"tools", "grep", "source"}, Hint: "did you mean local?", Snippet: `source = "loacl"`,
			}},
		},
		{
			name: "command with unbalanced quotes",
			src:  "[tools.grep]\ncommand = \"grep 'foo\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:11: tools.grep.command: invalid command "grep 'foo": unterminated single-quoted string; balance the quotes, or write { program = "...", args = [...] }`, Line: 2, Column: 11,
				Path: partial.Path{"tools", "grep", "command"}, Hint: `balance the quotes, or write { program = "...", args = [...] }`, Snippet: `command = "grep 'foo"`,
			}},
		},
		{
			name: "empty command",
			src:  "[tools.grep]\ncommand = \"  \"\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:11: tools.grep.command: the command is empty", Line: 2, Column: 11,
				Path: partial.Path{"tools", "grep", "command"}, Snippet: `command = "  "`,
			}},
		},
		{
			name: "command table with an unknown key points at the key",
			src:  "[tools.grep]\ncommand = { program = \"rg\", argz = [] }\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:29: tools.grep.command.argz: unknown key; did you mean args?", Line: 2, Column: 29,
				Path: partial.Path{"tools", "grep", "command", "argz"}, Hint: "did you mean args?", Snippet: `command = { program = "rg", argz = [] }`,
			}},
		},
		{
			name: "command table without a program",
			src:  "[tools.grep]\ncommand = { args = [\"x\"] }\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:11: tools.grep.command: a command table needs a program; write { program = "my-tool", args = ["--flag"] }`, Line: 2, Column: 11,
				Path: partial.Path{"tools", "grep", "command"}, Hint: `write { program = "my-tool", args = ["--flag"] }`, Snippet: `command = { args = ["x"] }`,
			}},
		},
		{
			name: "unknown list strategy with did-you-mean",
			src:  "[discover]\ndirs = { value = [\"a\"], strategy = \"apend\" }\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:36: discover.dirs.strategy: unknown list strategy "apend"; expected one of append, prepend, replace; did you mean append?`, Line: 2, Column: 36,
				Path: partial.Path{"discover", "dirs", "strategy"}, Hint: "did you mean append?", Snippet: `dirs = { value = ["a"], strategy = "apend" }`,
			}},
		},
		{
			name: "list strategy that is not a string",
			src:  "[discover]\ndirs = { value = [\"a\"], strategy = 1 }\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:36: discover.dirs.strategy: expected one of append, prepend, replace, found integer 1", Line: 2, Column: 36,
				Path: partial.Path{"discover", "dirs", "strategy"}, Snippet: `dirs = { value = ["a"], strategy = 1 }`,
			}},
		},
		{
			name: "list strategy without a value",
			src:  "[discover]\ndirs = { strategy = \"append\" }\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:10: discover.dirs.strategy: strategy needs a value; write { value = [...], strategy = "append" }`, Line: 2, Column: 10,
				Path: partial.Path{"discover", "dirs", "strategy"}, Hint: `write { value = [...], strategy = "append" }`, Snippet: `dirs = { strategy = "append" }`,
			}},
		},
		{
			name: "list with both value and append",
			src:  "[discover]\ndirs = { value = [\"a\"], append = [\"b\"] }\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:8: discover.dirs: a list has either value (with strategy) or prepend and append, not both", Line: 2, Column: 8,
				Path: partial.Path{"discover", "dirs"}, Snippet: `dirs = { value = ["a"], append = ["b"] }`,
			}},
		},
		{
			name: "list given as an empty table",
			src:  "[discover]\ndirs = {}\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:8: discover.dirs: expected an array or { value = [...], strategy = ... }, found an empty table", Line: 2, Column: 8,
				Path: partial.Path{"discover", "dirs"}, Snippet: "dirs = {}",
			}},
		},
		{
			name: "list table with a misspelt key",
			src:  "[discover]\ndirs = { valeu = [\"a\"] }\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:10: discover.dirs.valeu: unknown key; did you mean value?", Line: 2, Column: 10,
				Path: partial.Path{"discover", "dirs", "valeu"}, Hint: "did you mean value?", Snippet: `dirs = { valeu = ["a"] }`,
			}},
		},
		{
			name: "list dedup that is not a boolean",
			src:  "[discover]\ndirs = { value = [\"a\"], dedup = \"yes\" }\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:33: discover.dirs.dedup: expected a boolean, found string "yes"`, Line: 2, Column: 33,
				Path: partial.Path{"discover", "dirs", "dedup"}, Snippet: `dirs = { value = ["a"], dedup = "yes" }`,
			}},
		},
		{
			name: "unset of an unknown key with did-you-mean",
			src:  "unset = [\"tools.grep.rnu\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:10: unset.0: cannot unset tools.grep.rnu: tools.grep has no key rnu; did you mean tools.grep.run?", Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Hint: "did you mean tools.grep.run?", Snippet: `unset = ["tools.grep.rnu"]`,
			}},
		},
		{
			name: "unset of an unknown root key",
			src:  "unset = [\"discovr\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:10: unset.0: cannot unset discovr: the root has no key discovr; did you mean discover?", Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Hint: "did you mean discover?", Snippet: `unset = ["discovr"]`,
			}},
		},
		{
			name: "unset of a path into a single value",
			src:  "unset = [\"tools.grep.run.mode\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:10: unset.0: cannot unset tools.grep.run.mode: tools.grep.run is a single value; unset tools.grep.run as a whole", Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Hint: "unset tools.grep.run as a whole", Snippet: `unset = ["tools.grep.run.mode"]`,
			}},
		},
		{
			name: "unset of an item of a list",
			src:  "unset = [\"mcp_servers.fs.args.0\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:10: unset.0: cannot unset mcp_servers.fs.args.0: mcp_servers.fs.args is a single value; unset mcp_servers.fs.args as a whole", Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Hint: "unset mcp_servers.fs.args as a whole", Snippet: `unset = ["mcp_servers.fs.args.0"]`,
			}},
		},
		{
			name: "unset inside an option that is not a table",
			src:  "unset = [\"tools.grep.options.depth.max\"]\n[tools.grep.options]\ndepth = 3\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:10: unset.0: cannot unset tools.grep.options.depth.max: tools.grep.options.depth is not a table in this layer", Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Snippet: `unset = ["tools.grep.options.depth.max"]`,
			}},
		},
		{
			name: "unset inside an entry the layer removes",
			src:  "unset = [\"tools.old\", \"tools.old.run\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:23: unset.1: cannot unset tools.old.run inside tools.old, which this layer removes", Line: 1, Column: 23,
				Path: partial.Path{"unset", "1"}, Snippet: `unset = ["tools.old", "tools.old.run"]`,
			}},
		},
		{
			name: "unset inside an entry the layer removes, listed first",
			src:  "unset = [\"tools.old.run\", \"tools.old\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:10: unset.0: cannot unset tools.old.run inside tools.old, which this layer removes", Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Snippet: `unset = ["tools.old.run", "tools.old"]`,
			}},
		},
		{
			name: "unset inside nested items the layer unsets",
			src:  "unset = [\"tools.g.parameters.p.items\", \"tools.g.parameters.p.items.type\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:40: unset.1: cannot unset tools.g.parameters.p.items.type inside tools.g.parameters.p.items, which this layer removes", Line: 1, Column: 40,
				Path: partial.Path{"unset", "1"}, Snippet: `unset = ["tools.g.parameters.p.items", "tools.g.parameters.p.items.type"]`,
			}},
		},
		{
			name: "unset inside nested items the layer unsets, listed first",
			src:  "unset = [\"tools.g.parameters.p.items.type\", \"tools.g.parameters.p.items\"]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:10: unset.0: cannot unset tools.g.parameters.p.items.type inside tools.g.parameters.p.items, which this layer removes", Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Snippet: `unset = ["tools.g.parameters.p.items.type", "tools.g.parameters.p.items"]`,
			}},
		},
		{
			name:   "unset inside nested items that are null",
			format: partial.JSON,
			src:    `{"tools": {"g": {"parameters": {"p": {"items": null}}}}, "unset": ["tools.g.parameters.p.items.type"]}`,
			want: []layertest.Problem{{
				Err: "f.toml:1:68: unset.0: cannot unset tools.g.parameters.p.items.type inside tools.g.parameters.p.items, which this layer removes", Line: 1, Column: 68,
				Path: partial.Path{"unset", "0"}, Snippet: `{"tools": {"g": {"parameters": {"p": {"items": null}}}}, "unset": ["tools.g.parameters.p.items.type"]}`,
			}},
		},
		{
			name: "unset path with a syntax error",
			src:  "unset = [\"tools..run\"]\n",
			want: []layertest.Problem{{
				Err: `f.toml:1:10: unset.0: key path "tools..run": unexpected '.' at offset 6; quote keys that hold other characters`, Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Snippet: `unset = ["tools..run"]`,
			}},
		},
		{
			name: "unset path that is not a string",
			src:  "unset = [true]\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:10: unset.0: expected a key path string, found boolean true", Line: 1, Column: 10,
				Path: partial.Path{"unset", "0"}, Snippet: "unset = [true]",
			}},
		},
		{
			name: "unset that is not an array",
			src:  "unset = \"tools.grep\"\n",
			want: []layertest.Problem{{
				Err: `f.toml:1:9: unset: expected an array of key paths, found string "tools.grep"; write unset = ["tools.grep.run"]`, Line: 1, Column: 9,
				Path: partial.Path{"unset"}, Hint: `write unset = ["tools.grep.run"]`, Snippet: `unset = "tools.grep"`,
			}},
		},
		{
			name: "offset datetime in an option",
			src:  "[tools.grep.options]\nsince = 1979-05-27T07:32:00Z\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:9: tools.grep.options.since: datetime values are not supported; quote it as a string: "1979-05-27T07:32:00Z"`, Line: 2, Column: 9,
				Path: partial.Path{"tools", "grep", "options", "since"}, Hint: `quote it as a string: "1979-05-27T07:32:00Z"`, Snippet: "since = 1979-05-27T07:32:00Z",
			}},
		},
		{
			name: "local date inside an option table",
			src:  "[tools.grep.options]\nwindow = { from = 1979-05-27 }\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:19: tools.grep.options.window.from: datetime values are not supported; quote it as a string: "1979-05-27"`, Line: 2, Column: 19,
				Path: partial.Path{"tools", "grep", "options", "window", "from"}, Hint: `quote it as a string: "1979-05-27"`, Snippet: "window = { from = 1979-05-27 }",
			}},
		},
		{
			name: "local time inside an option array",
			src:  "[tools.grep.options]\nat = [07:32:00]\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:7: tools.grep.options.at.0: datetime values are not supported; quote it as a string: "07:32:00"`, Line: 2, Column: 7,
				Path: partial.Path{"tools", "grep", "options", "at", "0"}, Hint: `quote it as a string: "07:32:00"`, Snippet: "at = [07:32:00]",
			}},
		},
		{
			name: "datetime as a parameter default",
			src:  "[tools.grep.parameters.p]\ndefault = 2024-01-02T03:04:05\n",
			want: []layertest.Problem{{
				Err: `f.toml:2:11: tools.grep.parameters.p.default: datetime values are not supported; quote it as a string: "2024-01-02T03:04:05"`, Line: 2, Column: 11,
				Path: partial.Path{"tools", "grep", "parameters", "p", "default"}, Hint: `quote it as a string: "2024-01-02T03:04:05"`, Snippet: "default = 2024-01-02T03:04:05",
			}},
		},
		{
			name: "nan in an option",
			src:  "[tools.grep.options]\nratio = nan\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:9: tools.grep.options.ratio: NaN cannot be passed on as JSON", Line: 2, Column: 9,
				Path: partial.Path{"tools", "grep", "options", "ratio"}, Snippet: "ratio = nan",
			}},
		},
		{
			name: "infinite timeout",
			src:  "[mcp_servers.fs]\ntool_timeout_sec = inf\n",
			want: []layertest.Problem{{
				Err: "f.toml:2:20: mcp_servers.fs.tool_timeout_sec: +Inf is not a valid number here", Line: 2, Column: 20,
				Path: partial.Path{"mcp_servers", "fs", "tool_timeout_sec"}, Snippet: "tool_timeout_sec = inf",
			}},
		},
		{
			name:   "JSON null inside a list of strings",
			format: partial.JSON,
			src:    `{"mcp_servers": {"fs": {"args": ["-y", null]}}}`,
			want: []layertest.Problem{{
				Err: "f.toml:1:40: mcp_servers.fs.args.1: null is not allowed here; expected a string; to unset the field, unset its whole key", Line: 1, Column: 40,
				Path: partial.Path{"mcp_servers", "fs", "args", "1"}, Hint: "to unset the field, unset its whole key", Snippet: `{"mcp_servers": {"fs": {"args": ["-y", null]}}}`,
			}},
		},
		{
			name:   "YAML null inside an option value",
			format: partial.YAML,
			src:    "tools:\n  grep:\n    options:\n      list: [1, null]\n",
			want: []layertest.Problem{{
				Err: "f.toml:4:17: tools.grep.options.list.1: null is not allowed inside a value", Line: 4, Column: 17,
				Path: partial.Path{"tools", "grep", "options", "list", "1"}, Snippet: "      list: [1, null]",
			}},
		},
		{
			name: "key defined twice",
			src:  "[tools.grep]\nrun = \"ask\"\nrun = \"edit\"\n",
			want: []layertest.Problem{{
				Err: "f.toml:3:1: tools.grep.run: tools.grep.run is defined twice (first at line 2, column 1)", Line: 3, Column: 1,
				Path: partial.Path{"tools", "grep", "run"}, Snippet: `run = "edit"`,
			}},
		},
		{
			name: "TOML syntax error has no path",
			src:  "[tools.grep\nrun = \"ask\"\n",
			want: []layertest.Problem{{
				Err: "f.toml:1:12: TOML syntax: expected ']' to close table name", Line: 1, Column: 12,
				Snippet: "[tools.grep",
			}},
		},
		{
			name:   "JSON document that is not an object",
			format: partial.JSON,
			src:    `["tools"]`,
			want: []layertest.Problem{{
				Err: "f.toml:1:1: a JSON layer must be an object at the top level, found array", Line: 1, Column: 1,
				Snippet: `["tools"]`,
			}},
		},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.name] {
			t.Fatalf("duplicate test name %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			_, err := layertest.Decode(t, "f.toml", tt.src, tt.format)
			if err == nil {
				t.Fatal("Decode succeeded, want an error")
			}
			var es diag.Errors
			if !errors.As(err, &es) {
				t.Fatalf("error is a %T, want diag.Errors", err)
			}
			if diff := cmp.Diff(tt.want, layertest.Problems(err)); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
			for _, e := range es {
				if e.Source != "f.toml" {
					t.Errorf("Source = %q, want f.toml", e.Source)
				}
			}
		})
	}
}

func TestDecodeReportsEveryProblemInDocumentOrder(t *testing.T) {
	tests := []struct {
		name   string
		format partial.Format
		src    string
		want   []layertest.Problem
	}{
		{
			name: "TOML with the unset list first and a table opened twice",
			src: `unset = ["tools.grep.rnu"]

[tools.grep]
rnu = "ask"
run = "askk"
source = "mcp"

[mcp_servers.fs]
optional = "yes"

[tools.grep.parameters.p]
type = "strin"
required = 1

[discover]
dirs = { value = ["a"], strategy = "apend" }
`,
			want: []layertest.Problem{
				{Err: "f:1:10: unset.0: cannot unset tools.grep.rnu: tools.grep has no key rnu; did you mean tools.grep.run?", Line: 1, Column: 10, Path: partial.Path{"unset", "0"}, Hint: "did you mean tools.grep.run?", Snippet: `unset = ["tools.grep.rnu"]`},
				{Err: "f:4:1: tools.grep.rnu: unknown key; did you mean run?", Line: 4, Column: 1, Path: partial.Path{"tools", "grep", "rnu"}, Hint: "did you mean run?", Snippet: `rnu = "ask"`},
				{Err: `f:5:7: tools.grep.run: expected one of ask, unattended, edit, skip, found "askk"; did you mean ask?`, Line: 5, Column: 7, Path: partial.Path{"tools", "grep", "run"}, Hint: "did you mean ask?", Snippet: `run = "askk"`},
				{Err: `f:6:10: tools.grep.source: invalid source "mcp": an mcp source needs a server; write mcp.<server> or mcp.<server>.<tool>`, Line: 6, Column: 10, Path: partial.Path{"tools", "grep", "source"}, Hint: "write mcp.<server> or mcp.<server>.<tool>", Snippet: `source = "mcp"`},
				{Err: `f:9:12: mcp_servers.fs.optional: expected a boolean, found string "yes"`, Line: 9, Column: 12, Path: partial.Path{"mcp_servers", "fs", "optional"}, Snippet: `optional = "yes"`},
				{Err: `f:12:8: tools.grep.parameters.p.type: expected one of string, number, integer, boolean, array, object, null, path, found "strin"; did you mean string?`, Line: 12, Column: 8, Path: partial.Path{"tools", "grep", "parameters", "p", "type"}, Hint: "did you mean string?", Snippet: `type = "strin"`},
				{Err: "f:13:12: tools.grep.parameters.p.required: expected a boolean, found integer 1", Line: 13, Column: 12, Path: partial.Path{"tools", "grep", "parameters", "p", "required"}, Snippet: "required = 1"},
				{Err: `f:16:36: discover.dirs.strategy: unknown list strategy "apend"; expected one of append, prepend, replace; did you mean append?`, Line: 16, Column: 36, Path: partial.Path{"discover", "dirs", "strategy"}, Hint: "did you mean append?", Snippet: `dirs = { value = ["a"], strategy = "apend" }`},
			},
		},
		{
			name:   "JSON with the unset list last",
			format: partial.JSON,
			src: `{
  "tools": {"grep": {"rnu": "ask", "run": 1}},
  "discover": {"dirs": "x"},
  "unset": ["tools.grep.run.x", "mcp_servers.fs.comand"]
}`,
			want: []layertest.Problem{
				{Err: "f:2:22: tools.grep.rnu: unknown key; did you mean run?", Line: 2, Column: 22, Path: partial.Path{"tools", "grep", "rnu"}, Hint: "did you mean run?", Snippet: `  "tools": {"grep": {"rnu": "ask", "run": 1}},`},
				{Err: "f:2:43: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found number 1", Line: 2, Column: 43, Path: partial.Path{"tools", "grep", "run"}, Snippet: `  "tools": {"grep": {"rnu": "ask", "run": 1}},`},
				{Err: `f:3:24: discover.dirs: expected an array or { value = [...], strategy = ... }, found string "x"`, Line: 3, Column: 24, Path: partial.Path{"discover", "dirs"}, Snippet: `  "discover": {"dirs": "x"},`},
				{Err: "f:4:13: unset.0: cannot unset tools.grep.run.x: tools.grep.run is a single value; unset tools.grep.run as a whole", Line: 4, Column: 13, Path: partial.Path{"unset", "0"}, Hint: "unset tools.grep.run as a whole", Snippet: `  "unset": ["tools.grep.run.x", "mcp_servers.fs.comand"]`},
				{Err: "f:4:33: unset.1: cannot unset mcp_servers.fs.comand: mcp_servers.fs has no key comand; did you mean mcp_servers.fs.command?", Line: 4, Column: 33, Path: partial.Path{"unset", "1"}, Hint: "did you mean mcp_servers.fs.command?", Snippet: `  "unset": ["tools.grep.run.x", "mcp_servers.fs.comand"]`},
			},
		},
		{
			name:   "YAML with problems in nested tables",
			format: partial.YAML,
			src: `tools:
  grep:
    run: askk
    command: "rg 'x"
  other:
    enable: maybe
mcp_servers:
  fs:
    startup_timeout_sec: soon
`,
			want: []layertest.Problem{
				{Err: `f:3:10: tools.grep.run: expected one of ask, unattended, edit, skip, found "askk"; did you mean ask?`, Line: 3, Column: 10, Path: partial.Path{"tools", "grep", "run"}, Hint: "did you mean ask?", Snippet: "    run: askk"},
				{Err: `f:4:14: tools.grep.command: invalid command "rg 'x": unterminated single-quoted string; balance the quotes, or write { program = "...", args = [...] }`, Line: 4, Column: 14, Path: partial.Path{"tools", "grep", "command"}, Hint: `balance the quotes, or write { program = "...", args = [...] }`, Snippet: `    command: "rg 'x"`},
				{Err: `f:6:13: tools.other.enable: expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found string "maybe"`, Line: 6, Column: 13, Path: partial.Path{"tools", "other", "enable"}, Snippet: "    enable: maybe"},
				{Err: `f:9:26: mcp_servers.fs.startup_timeout_sec: expected a number, found string "soon"`, Line: 9, Column: 26, Path: partial.Path{"mcp_servers", "fs", "startup_timeout_sec"}, Snippet: "    startup_timeout_sec: soon"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := layertest.Decode(t, "f", tt.src, tt.format)
			if diff := cmp.Diff(tt.want, layertest.Problems(err)); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeNullUnsets(t *testing.T) {
	tests := []struct {
		name   string
		format partial.Format
		src    string
		want   config.Partial
	}{
		{
			name:   "JSON null unsets a field",
			format: partial.JSON,
			src:    `{"tools": {"grep": {"run": null, "summary": "s"}}}`,
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {Run: partial.List[config.RunRule]{Base: partial.BaseDefault}, Summary: partial.Of("s")},
			}}},
		},
		{
			name:   "JSON null removes a map entry",
			format: partial.JSON,
			src:    `{"tools": {"old": null}, "mcp_servers": {"fs": {"env": {"LOG": null}}}}`,
			want: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{"old": nil}},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					"fs": {Env: partial.Map[partial.Value[secret.String]]{Entries: map[string]*partial.Value[secret.String]{"LOG": nil}}},
				}},
			},
		},
		{
			name:   "JSON null unsets a list and a map",
			format: partial.JSON,
			src:    `{"mcp_servers": {"fs": {"args": null, "env": null}}, "tools": null}`,
			want: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Reset: true},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					"fs": {Args: partial.List[secret.String]{Base: partial.BaseDefault}, Env: partial.Map[partial.Value[secret.String]]{Reset: true}},
				}},
			},
		},
		{
			name:   "JSON null unsets a whole struct",
			format: partial.JSON,
			src:    `{"discover": null}`,
			want:   config.Partial{Discover: config.DiscoverPartial{Dirs: partial.List[string]{Base: partial.BaseDefault}, TimeoutSec: layertest.UnsetValue[float64]()}},
		},
		{
			name:   "JSON null unsets a nested schema and an option",
			format: partial.JSON,
			src:    `{"tools": {"grep": {"parameters": {"p": {"items": null, "default": null}}, "options": {"depth": null}}}}`,
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {
					Parameters: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{
						"p": {Items: partial.Nested[config.ParameterPartial]{State: partial.Unset}, Default: layertest.UnsetValue[any]()},
					}},
					Options: partial.Map[partial.Any]{Entries: map[string]*partial.Any{"depth": nil}},
				},
			}}},
		},
		{
			name:   "YAML null and tilde unset too",
			format: partial.YAML,
			src:    "tools:\n  grep:\n    run: null\n    result: ~\n    summary:\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {Run: partial.List[config.RunRule]{Base: partial.BaseDefault}, Result: partial.List[config.ResultRule]{Base: partial.BaseDefault}, Summary: layertest.UnsetValue[string]()},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := layertest.MustDecode(t, "layer", tt.src, tt.format)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded partial mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// allUnsetTool is a tool entry whose every field is unset: what an unset
// entry that the same document redefines starts from.
func TestDecodeUnsetList(t *testing.T) {
	redefined := layertest.AllUnsetTool()
	redefined.Run = partial.Replace(config.RunRule{Mode: config.RunEdit})
	tests := []struct {
		name string
		src  string
		want config.Partial
	}{
		{
			name: "field unset",
			src:  "unset = [\"tools.grep.run\"]\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {Run: partial.List[config.RunRule]{Base: partial.BaseDefault}},
			}}},
		},
		{
			name: "field unset next to fields the document sets",
			src:  "unset = [\"tools.grep.run\"]\n[tools.grep]\nsummary = \"s\"\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {Run: partial.List[config.RunRule]{Base: partial.BaseDefault}, Summary: partial.Of("s")},
			}}},
		},
		{
			name: "field the document sets is not unset by its own unset",
			src:  "unset = [\"tools.grep.run\"]\n[tools.grep]\nrun = \"skip\"\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {Run: partial.Replace(config.RunRule{Mode: config.RunSkip})},
			}}},
		},
		{
			name: "table unset unsets all of its fields",
			src:  "unset = [\"discover\"]\n",
			want: config.Partial{Discover: config.DiscoverPartial{Dirs: partial.List[string]{Base: partial.BaseDefault}, TimeoutSec: layertest.UnsetValue[float64]()}},
		},
		{
			name: "table of tools unset",
			src:  "unset = [\"tools\"]\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Reset: true}},
		},
		{
			name: "list unset with items added",
			src:  "unset = [\"discover.dirs\"]\n[discover]\ndirs = [\"a\"]\n",
			want: config.Partial{Discover: config.DiscoverPartial{Dirs: partial.List[string]{Base: partial.BaseDefault, Items: []string{"a"}}}},
		},
		{
			name: "map entry unset without a redefinition",
			src:  "unset = [\"tools.old\", \"tools.'*'\", \"mcp_servers.fs.env.LOG\"]\n",
			want: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{"old": nil, "*": nil}},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					"fs": {Env: partial.Map[partial.Value[secret.String]]{Entries: map[string]*partial.Value[secret.String]{"LOG": nil}}},
				}},
			},
		},
		{
			name: "map entry unset with a redefinition starts from the defaults",
			src:  "unset = [\"tools.grep\"]\n[tools.grep]\nrun = \"edit\"\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": &redefined,
			}}},
		},
		{
			name: "option entry unset",
			src:  "unset = [\"tools.grep.options.depth\", \"tools.grep.options.limits.max\"]\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {Options: partial.Map[partial.Any]{Entries: map[string]*partial.Any{
					"depth":  nil,
					"limits": {State: partial.Present, Table: &partial.Map[partial.Any]{Entries: map[string]*partial.Any{"max": nil}}},
				}}},
			}}},
		},
		{
			name: "nested schema field unset",
			src:  "unset = [\"tools.grep.parameters.p.items.type\"]\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {Parameters: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{
					"p": {Items: partial.NestedOf(config.ParameterPartial{Type: layertest.UnsetValue[config.Types]()})},
				}}},
			}}},
		},
		{
			name: "quoted keys in unset paths",
			src:  "unset = [\"tools.'a.b'.run\", 'tools.\"my tool\"']\n",
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"a.b":     {Run: partial.List[config.RunRule]{Base: partial.BaseDefault}},
				"my tool": nil,
			}}},
		},
		{
			name: "empty unset list",
			src:  "unset = []\n",
			want: config.Partial{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := layertest.MustDecode(t, "layer.toml", tt.src, partial.TOML)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded partial mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeNeedsAPointer(t *testing.T) {
	var p config.Partial
	tests := []struct {
		name string
		v    any
	}{
		{"struct value", p},
		{"nil pointer", (*config.Partial)(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := codec.Decode("x.toml", []byte("[tools.a]\n"), partial.TOML, tt.v)
			want := "x.toml: Decode needs a non-nil pointer to a partial struct"
			if err == nil || err.Error() != want {
				t.Errorf("Decode error = %v, want %q", err, want)
			}
		})
	}
}

const locateSrc = `[tools.grep]
summary = "Search."
options.depth = 3
questions.apply = { target = "user" }

[tools.'a.b']
run = "ask"

[tools.grep.parameters.path]
type = "string"
`

func TestDocumentLocateAndHas(t *testing.T) {
	d, err := codec.Parse("layer.toml", []byte(locateSrc), partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path      string
		line, col int
		ok, has   bool
	}{
		{"tools.grep.summary", 2, 1, true, true},
		{"tools.grep.options.depth", 3, 9, true, true},
		{"tools.grep.questions.apply.target", 4, 21, true, true},
		{"tools.'a.b'.run", 7, 1, true, true},
		{"tools.'a.b'", 6, 8, true, true},
		{"tools.grep.parameters.path.type", 10, 1, true, true},
		// A table opened by [tools.grep] is found at its header key.
		{"tools.grep", 1, 8, true, true},
		// Unknown leaves fall back to the nearest enclosing key.
		{"tools.grep.run", 1, 8, true, false},
		{"tools.grep.parameters.path.required", 9, 24, true, false},
		{"tools.other.run", 1, 2, true, false},
		{"mcp_servers.fs", 0, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p, err := partial.ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			line, col, ok := d.Locate(p)
			if line != tt.line || col != tt.col || ok != tt.ok {
				t.Errorf("Locate(%s) = %d, %d, %v; want %d, %d, %v", tt.path, line, col, ok, tt.line, tt.col, tt.ok)
			}
			if got := d.Has(p); got != tt.has {
				t.Errorf("Has(%s) = %v, want %v", tt.path, got, tt.has)
			}
		})
	}
}

func TestDocumentLocateInJSONAndYAML(t *testing.T) {
	tests := []struct {
		name      string
		format    partial.Format
		src       string
		path      partial.Path
		line, col int
	}{
		{"JSON key", partial.JSON, "{\n  \"tools\": {\n    \"grep\": {\"run\": \"ask\"}\n  }\n}", partial.Path{"tools", "grep", "run"}, 3, 14},
		{"JSON enclosing key", partial.JSON, "{\n  \"tools\": {\n    \"grep\": {\"run\": \"ask\"}\n  }\n}", partial.Path{"tools", "grep", "summary"}, 3, 5},
		{"YAML key", partial.YAML, "tools:\n  grep:\n    run: ask\n", partial.Path{"tools", "grep", "run"}, 3, 5},
		{"YAML star key", partial.YAML, "tools:\n  '*':\n    run: ask\n", partial.Path{"tools", "*"}, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := codec.Parse("layer", []byte(tt.src), tt.format)
			if err != nil {
				t.Fatal(err)
			}
			if d.Format() != tt.format {
				t.Errorf("Format() = %v, want %v", d.Format(), tt.format)
			}
			line, col, ok := d.Locate(tt.path)
			if line != tt.line || col != tt.col || !ok {
				t.Errorf("Locate(%s) = %d, %d, %v; want %d, %d, true", tt.path, line, col, ok, tt.line, tt.col)
			}
		})
	}
}

func TestDocumentErrorf(t *testing.T) {
	d, err := codec.Parse("layer.toml", []byte(locateSrc), partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		path       partial.Path
		msg, hint  string
		want       layertest.Problem
		wantRender string
	}{
		{
			name: "defined key",
			path: partial.Path{"tools", "grep", "summary"}, msg: "too long", hint: "shorten it",
			want:       layertest.Problem{Err: "layer.toml:2:1: tools.grep.summary: too long; shorten it", Line: 2, Column: 1, Path: partial.Path{"tools", "grep", "summary"}, Hint: "shorten it", Snippet: `summary = "Search."`},
			wantRender: "layer.toml:2:1: tools.grep.summary: too long; shorten it\n 2 | summary = \"Search.\"\n   | ^",
		},
		{
			name: "enclosing key",
			path: partial.Path{"tools", "a.b", "command"}, msg: "missing",
			want:       layertest.Problem{Err: "layer.toml:6:8: tools.'a.b'.command: missing", Line: 6, Column: 8, Path: partial.Path{"tools", "a.b", "command"}, Snippet: "[tools.'a.b']"},
			wantRender: "layer.toml:6:8: tools.'a.b'.command: missing\n 6 | [tools.'a.b']\n   |        ^",
		},
		{
			name: "path the document does not mention",
			path: partial.Path{"discover", "dirs"}, msg: "bad",
			want:       layertest.Problem{Err: "layer.toml: discover.dirs: bad", Path: partial.Path{"discover", "dirs"}},
			wantRender: "layer.toml: discover.dirs: bad",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := d.Problem(tt.path, tt.msg, tt.hint)
			if diff := cmp.Diff(tt.want, layertest.Problems(e)[0]); diff != "" {
				t.Errorf("Errorf mismatch (-want +got):\n%s", diff)
			}
			if e.Source != "layer.toml" || e.Msg != tt.msg {
				t.Errorf("Source, Msg = %q, %q; want layer.toml, %q", e.Source, e.Msg, tt.msg)
			}
			if got, want := e.Render(), "error: "+tt.wantRender; got != want {
				t.Errorf("Render() mismatch (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}

func TestDocumentTake(t *testing.T) {
	src := `extends = ["base.toml", "more/*.toml"]
strategy = "after"
depth = 2
ratio = 0.5
on = true
meta = { when = 1979-05-27, list = [1, "a"] }

[tools.grep]
run = "ask"
`
	d, err := codec.Parse("layer.toml", []byte(src), partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name() != "layer.toml" {
		t.Errorf("Name() = %q, want layer.toml", d.Name())
	}
	tests := []struct {
		key    string
		want   any
		wantOK bool
	}{
		{"extends", []any{"base.toml", "more/*.toml"}, true},
		{"strategy", "after", true},
		{"depth", int64(2), true},
		{"ratio", 0.5, true},
		{"on", true, true},
		// Take passes datetimes on as their text, unchecked.
		{"meta", map[string]any{"when": "1979-05-27", "list": []any{int64(1), "a"}}, true},
		{"missing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got, ok := d.Take(tt.key)
			if ok != tt.wantOK {
				t.Fatalf("Take(%q) ok = %v, want %v", tt.key, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Take(%q) mismatch (-want +got):\n%s", tt.key, diff)
			}
			if d.Has(partial.Path{tt.key}) {
				t.Errorf("Has(%q) after Take = true, want false", tt.key)
			}
			if again, ok := d.Take(tt.key); ok || again != nil {
				t.Errorf("second Take(%q) = %v, %v; want nil, false", tt.key, again, ok)
			}
		})
	}
	t.Run("decode after take", func(t *testing.T) {
		// With the directives taken, the rest decodes as a layer.
		var p config.Partial
		if err := d.Decode(&p); err != nil {
			t.Fatalf("Decode after Take: %v", err)
		}
		want := config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{"grep": {Run: partial.Replace(config.RunRule{Mode: config.RunAsk})}}}}
		if diff := cmp.Diff(want, p); diff != "" {
			t.Errorf("decoded partial mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestFormatOf(t *testing.T) {
	tests := []struct {
		name   string
		want   partial.Format
		wantOK bool
	}{
		{"config.toml", partial.TOML, true},
		{"dir.d/config.TOML", partial.TOML, true},
		{"layer.json", partial.JSON, true},
		{"Layer.Json", partial.JSON, true},
		{"layer.yaml", partial.YAML, true},
		{"layer.yml", partial.YAML, true},
		{"/etc/strata/layer.YML", partial.YAML, true},
		{"layer.txt", partial.TOML, false},
		{"toml", partial.TOML, false},
		{"layer.toml.bak", partial.TOML, false},
		{"", partial.TOML, false},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.name), func(t *testing.T) {
			got, ok := codec.FormatOf(tt.name)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("FormatOf(%q) = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.wantOK)
			}
		})
	}
	for f, want := range map[partial.Format]string{partial.TOML: "TOML", partial.JSON: "JSON", partial.YAML: "YAML"} {
		if f.String() != want {
			t.Errorf("Format(%d).String() = %q, want %q", f, f.String(), want)
		}
	}
}

func TestErrorRender(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "caret under the value",
			src:  "[tools.grep]\nrun = \"askk\"\n",
			want: "f.toml:2:7: tools.grep.run: expected one of ask, unattended, edit, skip, found \"askk\"; did you mean ask?\n" +
				" 2 | run = \"askk\"\n" +
				"   |       ^",
		},
		{
			name: "tab-indented line keeps the tab",
			src:  "[tools.grep]\n\trnu = \"ask\"\n",
			want: "f.toml:2:2: tools.grep.rnu: unknown key; did you mean run?\n" +
				" 2 | \trnu = \"ask\"\n" +
				"   | \t^",
		},
		{
			name: "tab between key and value",
			src:  "[tools.grep]\n  run =\t\"askk\"\n",
			want: "f.toml:2:9: tools.grep.run: expected one of ask, unattended, edit, skip, found \"askk\"; did you mean ask?\n" +
				" 2 |   run =\t\"askk\"\n" +
				"   |        \t^",
		},
		{
			name: "two-digit line number widens the gutter",
			src:  strings.Repeat("\n", 10) + "[tools.grep]\nrun = 2\n",
			want: "f.toml:12:7: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found number 2\n" +
				" 12 | run = 2\n" +
				"    |       ^",
		},
		{
			name: "caret after multi-byte characters",
			src:  "[tools.grep]\nsummary = \"été\"\n[tools.grep.options]\n\"ü\" = 1979-05-27\n",
			want: "f.toml:4:7: tools.grep.options.'ü': datetime values are not supported; quote it as a string: \"1979-05-27\"\n" +
				" 4 | \"ü\" = 1979-05-27\n" +
				"   |       ^",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := layertest.Decode(t, "f.toml", tt.src, partial.TOML)
			es := diag.All(err)
			if len(es) == 0 {
				t.Fatal("Decode succeeded, want an error")
			}
			if got, want := es[0].Render(), "error: "+tt.want; got != want {
				t.Errorf("Render() mismatch (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}

// withText points e at text, at byte offset off.
func withText(e *diag.Error, text string, off int) *diag.Error {
	e.SetText([]byte(text), off)
	return e
}

func TestErrorWithoutPosition(t *testing.T) {
	tests := []struct {
		name       string
		err        *diag.Error
		wantError  string
		wantRender string
	}{
		{"message only", &diag.Error{Msg: "bad"}, "bad", "bad"},
		{"path and hint", &diag.Error{Path: partial.Path{"tools", "*", "options"}, Msg: "not allowed", Hint: "move it"}, "tools.'*'.options: not allowed; move it", "tools.'*'.options: not allowed; move it"},
		{"source without line", &diag.Error{Source: "--cfg #2", Path: partial.Path{"tools"}, Msg: "bad"}, "--cfg #2: tools: bad", "--cfg #2: tools: bad"},
		{"snippet without line is not rendered", withText(&diag.Error{Source: "a.toml", Msg: "bad"}, "x = 1", 0), "a.toml: bad", "a.toml: bad"},
		{"line without snippet", &diag.Error{Source: "a.toml", Line: 3, Column: 4, Msg: "bad"}, "a.toml:3:4: bad", "a.toml:3:4: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.wantError {
				t.Errorf("Error() = %q, want %q", got, tt.wantError)
			}
			if got, want := tt.err.Render(), "error: "+tt.wantRender; got != want {
				t.Errorf("Render() = %q, want %q", got, want)
			}
		})
	}
}

func TestErrorsSummary(t *testing.T) {
	a := withText(&diag.Error{Source: "a.toml", Line: 1, Column: 1, Msg: "first"}, "x = 1\ny = 2\n", 0)
	b := withText(&diag.Error{Source: "a.toml", Line: 2, Column: 5, Msg: "second"}, "x = 1\ny = 2\n", 10)
	c := &diag.Error{Msg: "third"}
	tests := []struct {
		name       string
		errs       diag.Errors
		wantError  string
		wantRender string
	}{
		{"none", diag.Errors{}, "no errors", ""},
		{"one", diag.Errors{a}, "a.toml:1:1: first", "error: a.toml:1:1: first\n 1 | x = 1\n   | ^"},
		{"two", diag.Errors{a, b}, "a.toml:1:1: first (and 1 more problem)", "error: a.toml:1:1: first\n 1 | x = 1\n   | ^\nerror: a.toml:2:5: second\n 2 | y = 2\n   |     ^"},
		{"three", diag.Errors{a, b, c}, "a.toml:1:1: first (and 2 more problems)", "error: a.toml:1:1: first\n 1 | x = 1\n   | ^\nerror: a.toml:2:5: second\n 2 | y = 2\n   |     ^\nerror: third"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.errs.Error(); got != tt.wantError {
				t.Errorf("Error() = %q, want %q", got, tt.wantError)
			}
			if got := tt.errs.Render(); got != tt.wantRender {
				t.Errorf("Render() mismatch (-want +got):\n%s", cmp.Diff(tt.wantRender, got))
			}
			for _, e := range tt.errs {
				if !errors.Is(tt.errs, e) {
					t.Errorf("errors.Is(errs, %q) = false", e.Msg)
				}
			}
		})
	}
}

type wrapped struct {
	ctx string
	err error
}

func (w wrapped) Error() string { return w.ctx + ": " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }

func errorsJoin(ctx string, err error) error { return wrapped{ctx, err} }

// point is a plain struct leaf of a host's partial.
// hostPartial is a host application's layer that mounts the tools model
// under conversation.tools and has leaves of other kinds.
type hostPartial struct {
	Conversation struct {
		Tools config.ToolsPartial `toml:"tools"`
	} `toml:"conversation"`
	Count  partial.Value[int8]              `toml:"count"`
	Size   partial.Value[uint16]            `toml:"size"`
	Limit  partial.Value[*int]              `toml:"limit"`
	Labels partial.Value[map[string]string] `toml:"labels"`
	Origin partial.Value[layertest.Point]   `toml:"origin"`
	Tags   partial.List[string]             `toml:"tags" strata:"prepend"`
	Ratio  partial.Value[float32]           `toml:"ratio"`
}

func TestDecodeHostPartial(t *testing.T) {
	src := `count = -5
size = 65535
limit = 7
labels = { a = "x", b = "y" }
origin = { x = 1, y = -2 }
tags = ["t1", "t2"]
ratio = 2

[conversation.tools.grep]
run = "edit"
`
	var got hostPartial
	if err := codec.Decode("host.toml", []byte(src), partial.TOML, &got); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	var want hostPartial
	want.Conversation.Tools = partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{"grep": {Run: partial.Replace(config.RunRule{Mode: config.RunEdit})}}}
	want.Count = partial.Of(int8(-5))
	want.Size = partial.Of(uint16(65535))
	want.Limit = partial.Of(layertest.Ptr(7))
	want.Labels = partial.Of(map[string]string{"a": "x", "b": "y"})
	want.Origin = partial.Of(layertest.Point{X: 1, Y: -2})
	// The strata:"prepend" tag makes a plain array prepend.
	want.Tags = partial.Prepend("t1", "t2")
	want.Ratio = partial.Of(float32(2))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded host partial mismatch (-want +got):\n%s", diff)
	}
	text, err := codec.Encode(&got, partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	wantText := `count = -5
size = 65535
limit = 7
labels = { a = "x", b = "y" }
origin = { x = 1, y = -2 }
tags = ["t1", "t2"]
ratio = 2.0

[conversation.tools.grep]
run = "edit"
`
	if diff := cmp.Diff(wantText, string(text)); diff != "" {
		t.Errorf("Encode mismatch (-want +got):\n%s", diff)
	}
}

func TestDecodeHostPartialErrors(t *testing.T) {
	src := `count = 300
size = -1
limit = "none"
labels = { a = 1 }
origin = { x = 1, z = 2 }
tags = { value = ["a"], strategy = "prepend", dedup = true, extra = 1 }

[conversation.tools.grep]
rnu = "edit"
`
	var p hostPartial
	err := codec.Decode("host.toml", []byte(src), partial.TOML, &p)
	want := []layertest.Problem{
		{Err: "host.toml:1:9: count: integer 300 is out of range for int8", Line: 1, Column: 9, Path: partial.Path{"count"}, Snippet: "count = 300"},
		{Err: "host.toml:2:8: size: integer -1 is out of range for uint16", Line: 2, Column: 8, Path: partial.Path{"size"}, Snippet: "size = -1"},
		{Err: `host.toml:3:9: limit: expected an integer, found string "none"`, Line: 3, Column: 9, Path: partial.Path{"limit"}, Snippet: `limit = "none"`},
		{Err: "host.toml:4:16: labels.a: expected a string, found integer 1", Line: 4, Column: 16, Path: partial.Path{"labels", "a"}, Snippet: "labels = { a = 1 }"},
		// A one-letter key is too short for a did-you-mean.
		{Err: "host.toml:5:19: origin.z: unknown key; known keys: x, y", Line: 5, Column: 19, Path: partial.Path{"origin", "z"}, Hint: "known keys: x, y", Snippet: "origin = { x = 1, z = 2 }"},
		{Err: "host.toml:6:61: tags.extra: unknown key; known keys: value, strategy, dedup, prepend, append", Line: 6, Column: 61, Path: partial.Path{"tags", "extra"}, Hint: "known keys: value, strategy, dedup, prepend, append", Snippet: `tags = { value = ["a"], strategy = "prepend", dedup = true, extra = 1 }`},
		{Err: "host.toml:9:1: conversation.tools.grep.rnu: unknown key; did you mean run?", Line: 9, Column: 1, Path: partial.Path{"conversation", "tools", "grep", "rnu"}, Hint: "did you mean run?", Snippet: `rnu = "edit"`},
	}
	if diff := cmp.Diff(want, layertest.Problems(err)); diff != "" {
		t.Errorf("problems mismatch (-want +got):\n%s", diff)
	}
}
