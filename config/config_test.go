package config_test

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// errorView is what a test checks of an error: its text and, for a
// *diag.Error, its message, hint and path.
type errorView struct {
	Text  string
	Typed bool // a *diag.Error
	Msg   string
	Hint  string
	Path  partial.Path
}

func viewError(err error) errorView {
	if err == nil {
		return errorView{}
	}
	v := errorView{Text: err.Error()}
	var pe *diag.Error
	if errors.As(err, &pe) {
		v.Typed, v.Msg, v.Hint, v.Path = true, pe.Msg, pe.Hint, pe.Path
	}
	return v
}

func TestParseSource(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want config.Source
		text string // String() of the result
	}{
		{"builtin", "builtin", config.Source{Kind: config.SourceBuiltin}, "builtin"},
		{"local", "local", config.Source{Kind: config.SourceLocal}, "local"},
		{"local tool", "local.grep", config.Source{Kind: config.SourceLocal, Tool: "grep"}, "local.grep"},
		{"local tool with dots", "local.'my.tool'", config.Source{Kind: config.SourceLocal, Tool: "my.tool"}, "local.'my.tool'"},
		{"mcp server", "mcp.fs", config.Source{Kind: config.SourceMCP, Server: "fs"}, "mcp.fs"},
		{"mcp server and tool", "mcp.fs.read_file", config.Source{Kind: config.SourceMCP, Server: "fs", Tool: "read_file"}, "mcp.fs.read_file"},
		{"quoted server name", "mcp.'my.server'.tool", config.Source{Kind: config.SourceMCP, Server: "my.server", Tool: "tool"}, "mcp.'my.server'.tool"},
		{"double-quoted server name", `mcp."my server"`, config.Source{Kind: config.SourceMCP, Server: "my server"}, "mcp.'my server'"},
		{"quoted tool name with a dot", `mcp.fs."a.b"`, config.Source{Kind: config.SourceMCP, Server: "fs", Tool: "a.b"}, "mcp.fs.'a.b'"},
		{"quoted kind", "'local'", config.Source{Kind: config.SourceLocal}, "local"},
		{"blanks around dots", " local . x ", config.Source{Kind: config.SourceLocal, Tool: "x"}, "local.x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.ParseSource(tt.in)
			if err != nil {
				t.Fatalf("ParseSource(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseSource(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if s := got.String(); s != tt.text {
				t.Errorf("String() = %q, want %q", s, tt.text)
			}
			back, err := config.ParseSource(got.String())
			if err != nil {
				t.Fatalf("ParseSource(String()) of %q: %v", got.String(), err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("String round trip mismatch (-want +got):\n%s", diff)
			}
			text, err := got.MarshalText()
			if err != nil || string(text) != tt.text {
				t.Errorf("MarshalText() = %q, %v; want %q", text, err, tt.text)
			}
			var u config.Source
			if err := u.UnmarshalText([]byte(tt.in)); err != nil || u != tt.want {
				t.Errorf("UnmarshalText(%q) = %+v, %v; want %+v", tt.in, u, err, tt.want)
			}
		})
	}
}

func TestParseSourceErrors(t *testing.T) {
	const syntax = "write builtin, local, local.<tool>, mcp.<server> or mcp.<server>.<tool>"
	tests := []struct {
		name string
		in   string
		want errorView
	}{
		{"mcp without a server", "mcp", errorView{
			Text: `invalid source "mcp": an mcp source needs a server; write mcp.<server> or mcp.<server>.<tool>`, Typed: true,
			Msg: `invalid source "mcp": an mcp source needs a server`, Hint: "write mcp.<server> or mcp.<server>.<tool>",
		}},
		{"mcp with a trailing dot", "mcp.", errorView{
			Text: `invalid source "mcp.": the MCP server name is missing; an mcp source names its server: write mcp.<server> or mcp.<server>.<tool>`, Typed: true,
			Msg: `invalid source "mcp.": the MCP server name is missing`, Hint: "an mcp source names its server: write mcp.<server> or mcp.<server>.<tool>",
		}},
		{"mcp tool without a server (JP's older form)", "mcp..read_file", errorView{
			Text: `invalid source "mcp..read_file": the MCP server name is missing; an mcp source names its server: write mcp.<server> or mcp.<server>.<tool>`, Typed: true,
			Msg: `invalid source "mcp..read_file": the MCP server name is missing`, Hint: "an mcp source names its server: write mcp.<server> or mcp.<server>.<tool>",
		}},
		{"mcp server with a trailing dot", "mcp.fs.", errorView{
			Text: `invalid source "mcp.fs.": a name is missing after the last dot; ` + syntax, Typed: true,
			Msg: `invalid source "mcp.fs.": a name is missing after the last dot`, Hint: syntax,
		}},
		{"empty", "", errorView{Text: `invalid source "": ` + syntax}},
		{"unterminated quote", "mcp.'fs", errorView{Text: `invalid source "mcp.'fs": ` + syntax}},
		{"builtin with a name", "builtin.x", errorView{
			Text: `invalid source "builtin.x": builtin takes no name; write source = "builtin"`, Typed: true,
			Msg: `invalid source "builtin.x": builtin takes no name`, Hint: `write source = "builtin"`,
		}},
		{"local with two names", "local.a.b", errorView{
			Text: `invalid source "local.a.b": expected local or local.<tool>; quote a tool name that holds dots: local.'my.tool'`, Typed: true,
			Msg: `invalid source "local.a.b": expected local or local.<tool>`, Hint: "quote a tool name that holds dots: local.'my.tool'",
		}},
		{"local with an empty name", "local.''", errorView{
			Text: `invalid source "local.''": expected local or local.<tool>; quote a tool name that holds dots: local.'my.tool'`, Typed: true,
			Msg: `invalid source "local.''": expected local or local.<tool>`, Hint: "quote a tool name that holds dots: local.'my.tool'",
		}},
		{"mcp with three names", "mcp.a.b.c", errorView{
			Text: `invalid source "mcp.a.b.c": expected mcp.<server> or mcp.<server>.<tool>; quote a name that holds dots: mcp.'my.server'.tool`, Typed: true,
			Msg: `invalid source "mcp.a.b.c": expected mcp.<server> or mcp.<server>.<tool>`, Hint: "quote a name that holds dots: mcp.'my.server'.tool",
		}},
		{"mcp with an empty server", "mcp.''", errorView{
			Text: `invalid source "mcp.''": the MCP server name is missing; an mcp source names its server: write mcp.<server> or mcp.<server>.<tool>`, Typed: true,
			Msg: `invalid source "mcp.''": the MCP server name is missing`, Hint: "an mcp source names its server: write mcp.<server> or mcp.<server>.<tool>",
		}},
		{"mcp with an empty tool", "mcp.fs.''", errorView{
			Text: `invalid source "mcp.fs.''": expected mcp.<server> or mcp.<server>.<tool>; quote a name that holds dots: mcp.'my.server'.tool`, Typed: true,
			Msg: `invalid source "mcp.fs.''": expected mcp.<server> or mcp.<server>.<tool>`, Hint: "quote a name that holds dots: mcp.'my.server'.tool",
		}},
		{"misspelt kind", "loacl", errorView{
			Text: `invalid source "loacl": unknown kind "loacl"; expected builtin, local or mcp; did you mean local?`, Typed: true,
			Msg: `invalid source "loacl": unknown kind "loacl"; expected builtin, local or mcp`, Hint: "did you mean local?",
		}},
		{"misspelt kind with a name", "bultin.x", errorView{
			Text: `invalid source "bultin.x": unknown kind "bultin"; expected builtin, local or mcp; did you mean builtin?`, Typed: true,
			Msg: `invalid source "bultin.x": unknown kind "bultin"; expected builtin, local or mcp`, Hint: "did you mean builtin?",
		}},
		{"kind in capitals", "LOCAL", errorView{
			Text: `invalid source "LOCAL": unknown kind "LOCAL"; expected builtin, local or mcp; did you mean local?`, Typed: true,
			Msg: `invalid source "LOCAL": unknown kind "LOCAL"; expected builtin, local or mcp`, Hint: "did you mean local?",
		}},
		{"unknown kind", "remote", errorView{
			Text: `invalid source "remote": unknown kind "remote"; expected builtin, local or mcp`, Typed: true,
			Msg: `invalid source "remote": unknown kind "remote"; expected builtin, local or mcp`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.ParseSource(tt.in)
			if err == nil {
				t.Fatalf("ParseSource(%q) = %+v, want an error", tt.in, got)
			}
			if diff := cmp.Diff(tt.want, viewError(err)); diff != "" {
				t.Errorf("ParseSource(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
			if !got.IsZero() {
				t.Errorf("ParseSource(%q) = %+v with its error, want the zero Source", tt.in, got)
			}
			var u config.Source
			if err := u.UnmarshalText([]byte(tt.in)); err == nil || err.Error() != tt.want.Text {
				t.Errorf("UnmarshalText(%q) error = %v, want %q", tt.in, err, tt.want.Text)
			}
		})
	}
}

func TestSourceStringAndName(t *testing.T) {
	tests := []struct {
		name     string
		s        config.Source
		text     string
		upstream string // Name("key")
	}{
		{"zero", config.Source{}, "", "key"},
		{"builtin", config.Source{Kind: config.SourceBuiltin}, "builtin", "key"},
		{"local renamed", config.Source{Kind: config.SourceLocal, Tool: "a b"}, "local.'a b'", "a b"},
		{"mcp by the same name", config.Source{Kind: config.SourceMCP, Server: "my.server"}, "mcp.'my.server'", "key"},
		{"mcp renamed", config.Source{Kind: config.SourceMCP, Server: "fs", Tool: "it's"}, `mcp.fs."it's"`, "it's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
			if got := tt.s.Name("key"); got != tt.upstream {
				t.Errorf("Name(key) = %q, want %q", got, tt.upstream)
			}
			if got, want := tt.s.IsZero(), tt.s == (config.Source{}); got != want {
				t.Errorf("IsZero() = %v, want %v", got, want)
			}
			if tt.text == "" {
				return
			}
			back, err := config.ParseSource(tt.text)
			if err != nil {
				t.Fatalf("ParseSource(%q): %v", tt.text, err)
			}
			if back != tt.s {
				t.Errorf("ParseSource(String()) = %+v, want %+v", back, tt.s)
			}
		})
	}
}

func TestDefault(t *testing.T) {
	want := config.Config{Tools: config.Tools{"*": {
		Run:    config.Always(config.RunAsk),
		Result: config.Always(config.ResultUnattended),
		Enable: &config.Enable{State: ptrTo(true), AllowToggle: config.ToggleAny},
	}}}
	a := config.Default()
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("Default() mismatch (-want +got):\n%s", diff)
	}
	// Each call gives fresh maps.
	a.Tools["x"] = config.Tool{}
	if diff := cmp.Diff(want, config.Default()); diff != "" {
		t.Errorf("Default() shares its maps between calls (-want +got):\n%s", diff)
	}
	var s config.MCPServer
	s.SetDefaults()
	if diff := cmp.Diff(config.MCPServer{ToolTimeoutSec: 60}, s); diff != "" {
		t.Errorf("SetDefaults mismatch (-want +got):\n%s", diff)
	}
}

func TestToolsNames(t *testing.T) {
	tests := []struct {
		name  string
		tools config.Tools
		want  []string
	}{
		{"nil", nil, []string{}},
		{"only the defaults", config.Tools{"*": {}}, []string{}},
		{"sorted without the defaults", config.Tools{"zed": {}, "*": {}, "alpha": {}, "My Tool": {}, "a.b": {}}, []string{"My Tool", "a.b", "alpha", "zed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.tools.Names()); diff != "" {
				t.Errorf("Names() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEffectiveTool(t *testing.T) {
	withDefaults := config.Tools{
		"*":          {Run: config.Always(config.RunEdit), Result: config.Always(config.ResultAsk), Enable: &config.Enable{State: ptrTo(false), AllowToggle: config.ToggleNever}},
		"plain":      {},
		"own":        {Run: config.Always(config.RunSkip), Result: config.Always(config.ResultEdit), Enable: &config.Enable{State: ptrTo(false), AllowToggle: config.ToggleAny}},
		"always":     {Enable: &config.Enable{State: ptrTo(true), AllowToggle: config.ToggleNever}},
		"described":  {Description: "Long text."},
		"summarized": {Summary: "Short.", Description: "Long text."},
	}
	bare := config.Tools{"plain": {}}
	tests := []struct {
		name        string
		tools       config.Tools
		tool        string
		wantRun     config.RunMode
		wantResult  config.ResultMode
		wantEnable  config.Enable
		wantEnabled bool
		wantSummary string
	}{
		{"inherits from the defaults entry", withDefaults, "plain", config.RunEdit, config.ResultAsk, config.Enable{State: ptrTo(false), AllowToggle: config.ToggleNever}, false, ""},
		{"own settings win", withDefaults, "own", config.RunSkip, config.ResultEdit, config.Enable{State: ptrTo(false), AllowToggle: config.ToggleAny}, false, ""},
		{"always is enabled", withDefaults, "always", config.RunEdit, config.ResultAsk, config.Enable{State: ptrTo(true), AllowToggle: config.ToggleNever}, true, ""},
		{"summary falls back to the description", withDefaults, "described", config.RunEdit, config.ResultAsk, config.Enable{State: ptrTo(false), AllowToggle: config.ToggleNever}, false, "Long text."},
		{"own summary", withDefaults, "summarized", config.RunEdit, config.ResultAsk, config.Enable{State: ptrTo(false), AllowToggle: config.ToggleNever}, false, "Short."},
		{"built-in fallbacks without a defaults entry", bare, "plain", config.RunAsk, config.ResultUnattended, config.Enable{State: ptrTo(true), AllowToggle: config.ToggleAny}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := tt.tools.Effective(tt.tool)
			if !ok {
				t.Fatalf("Effective(%q) not found", tt.tool)
			}
			if e.Name != tt.tool {
				t.Errorf("Name = %q, want %q", e.Name, tt.tool)
			}
			if diff := cmp.Diff(tt.tools[tt.tool], e.Tool); diff != "" {
				t.Errorf("Tool mismatch (-want +got):\n%s", diff)
			}
			if got := e.Run(); got != tt.wantRun {
				t.Errorf("Run() = %q, want %q", got, tt.wantRun)
			}
			if got := e.Result(); got != tt.wantResult {
				t.Errorf("Result() = %q, want %q", got, tt.wantResult)
			}
			if diff := cmp.Diff(tt.wantEnable, e.Enable()); diff != "" {
				t.Errorf("Enable() mismatch (-want +got):\n%s", diff)
			}
			if got := e.Enabled(); got != tt.wantEnabled {
				t.Errorf("Enabled() = %v, want %v", got, tt.wantEnabled)
			}
			if got := e.Summary(); got != tt.wantSummary {
				t.Errorf("Summary() = %q, want %q", got, tt.wantSummary)
			}
		})
	}
	t.Run("no such tool", func(t *testing.T) {
		for _, name := range []string{"missing", "*"} {
			if e, ok := withDefaults.Effective(name); ok || e.Name != "" {
				t.Errorf("Effective(%q) = %+v, %v; want the zero value, false", name, e, ok)
			}
		}
	})
}

func TestEffectiveToolAnswer(t *testing.T) {
	tools := config.Tools{"t": {Questions: map[string]config.Question{
		"yes":    {Target: config.TargetUser, Answer: true},
		"no":     {Answer: false},
		"text":   {Answer: "overwrite"},
		"table":  {Answer: map[string]any{"lines": int64(3)}},
		"asking": {Target: config.TargetUser},
	}}}
	e, ok := tools.Effective("t")
	if !ok {
		t.Fatal("Effective(t) not found")
	}
	tests := []struct {
		id     string
		want   any
		wantOK bool
	}{
		{"yes", true, true},
		{"no", false, true},
		{"text", "overwrite", true},
		{"table", map[string]any{"lines": int64(3)}, true},
		{"asking", nil, false},
		{"unknown", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, ok := e.Answer(tt.id)
			if ok != tt.wantOK {
				t.Errorf("Answer(%q) ok = %v, want %v", tt.id, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Answer(%q) mismatch (-want +got):\n%s", tt.id, diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		c    config.Config
		want []string
	}{
		{"defaults are valid", config.Default(), nil},
		{
			name: "local and unsourced tools may have commands",
			c: config.Config{Tools: config.Tools{
				"a": {Source: config.Source{Kind: config.SourceLocal}, Command: config.Command{Program: "a"}},
				"b": {Command: config.Command{Program: "b"}},
				"c": {Source: config.Source{Kind: config.SourceMCP, Server: "fs"}},
			}, MCPServers: config.MCPServers{"fs": {Command: secret.Plain("npx"), StartupTimeoutSec: 1, ToolTimeoutSec: 1}}},
		},
		{
			name: "the defaults entry holds only inheritable settings",
			c: config.Config{Tools: config.Tools{"*": {
				Run: config.Always(config.RunAsk), Result: config.Always(config.ResultAsk), Enable: &config.Enable{State: ptrTo(true), AllowToggle: config.ToggleAny},
				Command:     config.Command{Program: "x"},
				Description: "d",
				Examples:    "e",
				Parameters:  map[string]config.Parameter{"p": {}},
				Questions:   map[string]config.Question{"q": {}},
			}}},
			want: []string{
				"tools.'*'.command: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set command on each tool",
				"tools.'*'.description: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set description on each tool",
				"tools.'*'.examples: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set examples on each tool",
				"tools.'*'.parameters: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set parameters on each tool",
				"tools.'*'.questions: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set questions on each tool",
			},
		},
		{
			name: "mcp tools need a configured server and no command",
			c: config.Config{Tools: config.Tools{
				"x": {Source: config.Source{Kind: config.SourceMCP, Server: "fsx"}, Command: config.Command{Args: []string{"a"}}},
			}, MCPServers: config.MCPServers{"fs": {Command: secret.Plain("npx"), StartupTimeoutSec: 1, ToolTimeoutSec: 1}}},
			want: []string{
				`tools.x.command: an MCP tool has no command; remove the command, or set source = "local"`,
				`tools.x.source: no MCP server named "fsx" is configured; did you mean fs?`,
			},
		},
		{
			// The runtime checks command templates (command.CheckTools):
			// a host that only loads config links no shell parser.
			name: "command templates are not the config's to check",
			c: config.Config{Tools: config.Tools{
				"h": {Command: config.Command{Program: "cat <<EOF\n{{tool.arguments.v}}\nEOF", Shell: true}},
				"p": {Command: config.Command{Program: "{{tool.arguments.v}}"}},
			}},
		},
		{
			name: "allow_dash belongs to parameters a command renders",
			c: config.Config{Tools: config.Tools{
				"cmd": {Command: config.Command{Program: "x"}, Parameters: map[string]config.Parameter{
					"a": {AllowDash: true, Properties: map[string]config.Parameter{"b": {AllowDash: true}}},
					"l": {Items: &config.Parameter{AllowDash: true, Properties: map[string]config.Parameter{"c": {AllowDash: true}}}},
				}},
				"mcp": {Source: config.Source{Kind: config.SourceMCP, Server: "fs"}, Parameters: map[string]config.Parameter{"p": {AllowDash: true}}},
			}, MCPServers: config.MCPServers{"fs": {Command: secret.Plain("npx"), StartupTimeoutSec: 1, ToolTimeoutSec: 1}}},
			want: []string{
				"tools.cmd.parameters.l.items.allow_dash: a command template cannot name an item of an array; set allow_dash on a parameter that a template names",
				"tools.cmd.parameters.l.items.properties.c.allow_dash: a command template cannot name an item of an array; set allow_dash on a parameter that a template names",
				"tools.mcp.parameters.p.allow_dash: only a tool run from a command template renders values as arguments; remove allow_dash: this tool has no command",
			},
		},
		{
			name: "servers need a command and positive timeouts, a startup timeout of 0 its launch's",
			c:    config.Config{MCPServers: config.MCPServers{"b": {}, "a": {Command: secret.Plain("x"), StartupTimeoutSec: 1, ToolTimeoutSec: 0}, "c": {Command: secret.Plain("x"), StartupTimeoutSec: -1, ToolTimeoutSec: 1}}},
			want: []string{
				"mcp_servers.a.tool_timeout_sec: must be positive, found 0",
				`mcp_servers.b: an MCP server needs a command (a program started over stdio) or a url (a remote server); write command = "npx" and its args, or url = "https://example.com/mcp"`,
				"mcp_servers.b.tool_timeout_sec: must be positive, found 0",
				"mcp_servers.c.startup_timeout_sec: must be positive, found -1; leave it out for the default of the server's launch (10 seconds, 60 for a launcher such as npx, 300 while it installs)",
			},
		},
		{
			name: "discovery timeouts are positive where set",
			c: config.Config{
				Tools:    config.Tools{"t": {Command: config.Command{Program: "x"}, DiscoverTimeoutSec: -1}, "u": {Command: config.Command{Program: "x"}, DiscoverTimeoutSec: 0.5}},
				Discover: config.Discover{TimeoutSec: math.Inf(1)},
			},
			want: []string{
				"tools.t.discover_timeout_sec: must be a positive number of seconds, found -1; remove it for the default (5 seconds)",
				"discover.timeout_sec: must be a positive number of seconds, found +Inf; remove it for the default (5 seconds)",
			},
		},
		{
			name: "a remote server is valid with its headers and token variable",
			c: config.Config{MCPServers: config.MCPServers{"r": {
				URL: secret.Plain("https://example.com/mcp"), Headers: map[string]secret.String{"X-Team": secret.Plain("a"), "X-Empty": secret.Plain("")},
				BearerTokenEnvVar: "EXAMPLE_TOKEN", StartupTimeoutSec: 1, ToolTimeoutSec: 1,
				Expose: config.Expose{}, EnabledTools: config.ToolNames{"a"}, DisabledTools: config.ToolNames{"b"},
			}}},
		},
		{
			name: "a server has a command or a url, not both",
			c: config.Config{MCPServers: config.MCPServers{"both": {
				Command: secret.Plain("npx"), URL: secret.Plain("https://example.com/mcp"), StartupTimeoutSec: 1, ToolTimeoutSec: 1,
			}}},
			want: []string{"mcp_servers.both.url: an MCP server has a command or a url, not both; remove url to start the command, or command to connect to the url"},
		},
		{
			name: "a started server has no remote settings",
			c: config.Config{MCPServers: config.MCPServers{"s": {
				Command: secret.Plain("npx"), Headers: map[string]secret.String{"X": secret.Plain("1")}, BearerTokenEnvVar: "T", StartupTimeoutSec: 1, ToolTimeoutSec: 1,
			}}},
			want: []string{
				"mcp_servers.s.headers: headers is for a remote server (url); this one is started with a command; remove headers",
				"mcp_servers.s.bearer_token_env_var: bearer_token_env_var is for a remote server (url); this one is started with a command; remove bearer_token_env_var",
			},
		},
		{
			name: "a remote server has no settings of a started one",
			c: config.Config{MCPServers: config.MCPServers{"r": {
				URL: secret.Plain("http://127.0.0.1:3001/mcp"), Args: secret.Plains("-y"), Env: map[string]secret.String{"A": secret.Plain("1")}, EnvVars: []string{"B"},
				Cwd: secret.Plain("/w"), StartupTimeoutSec: 1, ToolTimeoutSec: 1,
			}}},
			want: []string{
				"mcp_servers.r.args: args is for a server strata starts (command); this one is remote (url); remove args",
				"mcp_servers.r.env: env is for a server strata starts (command); this one is remote (url); remove env",
				"mcp_servers.r.env_vars: env_vars is for a server strata starts (command); this one is remote (url); remove env_vars",
				"mcp_servers.r.cwd: cwd is for a server strata starts (command); this one is remote (url); remove cwd",
			},
		},
		{
			name: "urls are http or https with a host",
			c: config.Config{MCPServers: config.MCPServers{
				"a": {URL: secret.Plain("ftp://example.com/mcp"), StartupTimeoutSec: 1, ToolTimeoutSec: 1},
				"b": {URL: secret.Plain("example.com/mcp"), StartupTimeoutSec: 1, ToolTimeoutSec: 1},
				"c": {URL: secret.Plain("https:///mcp"), StartupTimeoutSec: 1, ToolTimeoutSec: 1},
				"d": {URL: secret.Plain("http://[::1"), StartupTimeoutSec: 1, ToolTimeoutSec: 1},
				"e": {URL: secret.Plain("https://:8443/mcp"), StartupTimeoutSec: 1, ToolTimeoutSec: 1},
			}},
			want: []string{
				`mcp_servers.a.url: expected an http:// or https:// URL, found "ftp://example.com/mcp"; write url = "https://example.com/mcp"`,
				`mcp_servers.b.url: expected an http:// or https:// URL, found "example.com/mcp"; write url = "https://example.com/mcp"`,
				`mcp_servers.c.url: the URL "https:///mcp" has no host; write url = "https://example.com/mcp"`,
				`mcp_servers.d.url: not a URL: "http://[::1"; write url = "https://example.com/mcp"`,
				`mcp_servers.e.url: the URL "https://:8443/mcp" has no host; write url = "https://example.com/mcp"`,
			},
		},
		{
			name: "a remote server's sign-in settings",
			c: config.Config{MCPServers: config.MCPServers{
				"ok": {URL: secret.Plain("https://example.com/mcp"), StartupTimeoutSec: 1, ToolTimeoutSec: 1, OAuth: &config.OAuth{
					ClientID: "c", ClientSecretEnvVar: "SECRET", Scopes: []string{"read"}, ClientMetadataURL: "https://example.com/strata.json", CallbackPort: 8765,
				}},
				"machine": {URL: secret.Plain("https://example.com/mcp"), StartupTimeoutSec: 1, ToolTimeoutSec: 1, OAuth: &config.OAuth{Grant: "client_credentials", ClientID: "c"}},
				"bad": {URL: secret.Plain("https://example.com/mcp"), BearerTokenEnvVar: "T", StartupTimeoutSec: 1, ToolTimeoutSec: 1, OAuth: &config.OAuth{
					Grant: "password", ClientSecretEnvVar: "A=B", PrivateKeyFile: "/k.pem", ClientMetadataURL: "http://example.com/", CallbackPort: 70000,
				}},
				"local": {Command: secret.Plain("npx"), StartupTimeoutSec: 1, ToolTimeoutSec: 1, OAuth: &config.OAuth{ClientID: "c"}},
			}},
			want: []string{
				`mcp_servers.bad.oauth.grant: expected authorization_code or client_credentials, found "password"`,
				`mcp_servers.bad.oauth.client_secret_env_var: "A=B" is not a variable name; write the name of the variable that holds the secret`,
				"mcp_servers.bad.oauth.private_key_file: a client authenticates with a secret or a private key, not both; keep client_secret_env_var or private_key_file",
				"mcp_servers.bad.oauth.client_id: a secret or a private key needs the client_id it belongs to; write client_id",
				`mcp_servers.bad.oauth.client_metadata_url: a client ID metadata document is at an https URL with a path, found "http://example.com/"; write client_metadata_url = "https://example.com/strata/client.json"`,
				"mcp_servers.bad.oauth.callback_port: expected a port from 0 to 65535, found 70000",
				"mcp_servers.bad.oauth: oauth signs in to the server, and bearer_token_env_var gives it a token: they would both set Authorization; keep one of them",
				"mcp_servers.local.oauth: oauth is for a remote server (url); this one is started with a command; remove oauth",
				"mcp_servers.machine.oauth.grant: client_credentials needs the client's secret or private key; write client_secret_env_var or private_key_file",
			},
		},
		{
			name: "headers and variable names must be usable",
			c: config.Config{MCPServers: config.MCPServers{
				"r": {
					URL: secret.Plain("https://example.com/mcp"), Headers: map[string]secret.String{"Bad Name": secret.Plain("x"), "X-Line": secret.Plain("a\r\nInjected: 1"), "authorization": secret.Plain("Bearer x")},
					BearerTokenEnvVar: "A=B", StartupTimeoutSec: 1, ToolTimeoutSec: 1,
				},
				"s": {Command: secret.Plain("npx"), EnvVars: []string{"OK", "", "*"}, Env: map[string]secret.String{"X=Y": secret.Plain("1")}, StartupTimeoutSec: 1, ToolTimeoutSec: 1},
			}},
			want: []string{
				`mcp_servers.r.headers.'Bad Name': "Bad Name" is not a valid HTTP header name; a header name is letters, digits and !#$%&'*+-.^_` + "`" + `|~`,
				"mcp_servers.r.headers.X-Line: the value holds a line break or another control character",
				"mcp_servers.r.headers.authorization: both headers.Authorization and bearer_token_env_var set the Authorization header; keep one of them",
				`mcp_servers.r.bearer_token_env_var: "A=B" is not a variable name; write the name of the variable that holds the token, such as GITHUB_TOKEN`,
				`mcp_servers.s.env_vars.1: "" is not a variable name; name a variable, or write "*" for all of them`,
				`mcp_servers.s.env: "X=Y" is not a variable name`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			var got []string
			for _, e := range diag.All(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
			if err != nil {
				var es diag.Errors
				if !errors.As(err, &es) {
					t.Errorf("Validate() error is a %T, want diag.Errors", err)
				}
			}
		})
	}
}
