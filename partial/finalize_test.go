package partial_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// starTool is the "*" entry of config.Default.
var starTool = config.Tool{Run: config.Always(config.RunAsk), Result: config.Always(config.ResultUnattended), Enable: &config.Enable{State: layertest.Ptr(true), AllowToggle: config.ToggleAny}}

// configWith returns config.Default changed by edit.
func configWith(edit func(c *config.Config)) config.Config {
	c := config.Default()
	edit(&c)
	return c
}

// server returns an MCP server with the default timeouts.
func server(command string, args ...string) config.MCPServer {
	s := config.MCPServer{Command: secret.Plain(command), Args: secret.Plains(args...)}
	s.SetDefaults()
	return s
}

func TestFinalizeEmptyGivesTheDefaults(t *testing.T) {
	tests := []struct {
		name string
		p    *config.Partial
	}{
		{"nil layer", nil},
		{"empty layer", &config.Partial{}},
		{"empty maps", &config.Partial{
			Tools:      partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{}},
			MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := partial.Finalize(tt.p, config.Default())
			if err != nil {
				t.Fatalf("Finalize: %v", err)
			}
			if diff := cmp.Diff(config.Default(), got); diff != "" {
				t.Errorf("Finalize mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFinalize(t *testing.T) {
	dirsDefault := configWith(func(c *config.Config) { c.Discover.Dirs = []string{"d1", "d2"} })
	rich := configWith(func(c *config.Config) {
		c.Tools["t"] = config.Tool{
			Summary: "default summary",
			Options: map[string]any{
				"limits": map[string]any{"max": int64(1), "min": int64(0)},
				"mode":   "fast",
			},
			Parameters: map[string]config.Parameter{
				"p": {Description: "default p", Items: &config.Parameter{Type: config.Types{"string"}, Description: "default item"}},
			},
		}
		c.MCPServers = config.MCPServers{"fs": server("npx", "-y")}
	})
	tests := []struct {
		name     string
		layer    string
		defaults *config.Config // config.Default when nil
		want     config.Config
	}{
		{
			name:  "a field the layer sets",
			layer: "[tools.grep]\nrun = \"edit\"\nsummary = \"Search.\"\n",
			want: configWith(func(c *config.Config) {
				c.Tools["grep"] = config.Tool{Run: config.Always(config.RunEdit), Summary: "Search."}
			}),
		},
		{
			name:  "the defaults entry changed in place",
			layer: "[tools.'*']\nrun = \"unattended\"\n",
			want: configWith(func(c *config.Config) {
				c.Tools["*"] = config.Tool{Run: config.Always(config.RunUnattended), Result: config.Always(config.ResultUnattended), Enable: &config.Enable{State: layertest.Ptr(true), AllowToggle: config.ToggleAny}}
			}),
		},
		{
			name:  "an unset field returns to the default",
			layer: "unset = [\"tools.'*'.run\"]\n[tools.'*']\nresult = \"skip\"\n",
			want: configWith(func(c *config.Config) {
				c.Tools["*"] = config.Tool{Run: config.Always(config.RunAsk), Result: config.Always(config.ResultSkip), Enable: &config.Enable{State: layertest.Ptr(true), AllowToggle: config.ToggleAny}}
			}),
		},
		{
			name:  "an unset field of a new tool is zero",
			layer: "unset = [\"tools.grep.run\"]\n[tools.grep]\nsummary = \"s\"\n",
			want:  configWith(func(c *config.Config) { c.Tools["grep"] = config.Tool{Summary: "s"} }),
		},
		{
			name:  "unset tools.'*' restores the defaults entry",
			layer: "unset = [\"tools.'*'\"]\n",
			want:  config.Default(),
		},
		{
			name:  "unset tools.'*' redefined starts from the defaults entry",
			layer: "unset = [\"tools.'*'\"]\n[tools.'*']\nrun = \"edit\"\n",
			want: configWith(func(c *config.Config) {
				c.Tools["*"] = config.Tool{Run: config.Always(config.RunEdit), Result: config.Always(config.ResultUnattended), Enable: &config.Enable{State: layertest.Ptr(true), AllowToggle: config.ToggleAny}}
			}),
		},
		{
			name:  "an unset entry the defaults lack disappears",
			layer: "unset = [\"tools.old\", \"mcp_servers.gone\"]\n",
			want:  config.Default(),
		},
		{
			name:     "an unset entry the defaults have comes back as theirs",
			layer:    "unset = [\"tools.t\", \"mcp_servers.fs\"]\n",
			defaults: &rich,
			want:     rich,
		},
		{
			name:  "a new MCP server starts from its own defaults",
			layer: "[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"srv\"]\nenv = { LOG = \"1\" }\n",
			want: configWith(func(c *config.Config) {
				s := server("npx", "-y", "srv")
				s.Env = map[string]secret.String{"LOG": secret.Plain("1")}
				c.MCPServers = config.MCPServers{"fs": s}
			}),
		},
		{
			name:  "an unset timeout of a new server is the server default",
			layer: "unset = [\"mcp_servers.fs.startup_timeout_sec\"]\n[mcp_servers.fs]\ncommand = \"npx\"\ntool_timeout_sec = 5\n",
			want: configWith(func(c *config.Config) {
				c.MCPServers = config.MCPServers{"fs": {Command: secret.Plain("npx"), ToolTimeoutSec: 5}}
			}),
		},
		{
			name:     "a plain array appends to the default",
			layer:    "[discover]\ndirs = [\"x\"]\n",
			defaults: &dirsDefault,
			want:     configWith(func(c *config.Config) { c.Discover.Dirs = []string{"d1", "d2", "x"} }),
		},
		{
			name:     "prepend goes before the default",
			layer:    "[discover]\ndirs = { value = [\"x\", \"y\"], strategy = \"prepend\" }\n",
			defaults: &dirsDefault,
			want:     configWith(func(c *config.Config) { c.Discover.Dirs = []string{"x", "y", "d1", "d2"} }),
		},
		{
			name:     "replace drops the default",
			layer:    "[discover]\ndirs = { value = [\"x\"], strategy = \"replace\" }\n",
			defaults: &dirsDefault,
			want:     configWith(func(c *config.Config) { c.Discover.Dirs = []string{"x"} }),
		},
		{
			name:     "replace with nothing gives nil",
			layer:    "[discover]\ndirs = { value = [], strategy = \"replace\" }\n",
			defaults: &dirsDefault,
			want:     config.Default(),
		},
		{
			name:     "prepend and append around the default",
			layer:    "[discover]\ndirs = { prepend = [\"h\"], append = [\"t\"] }\n",
			defaults: &dirsDefault,
			want:     configWith(func(c *config.Config) { c.Discover.Dirs = []string{"h", "d1", "d2", "t"} }),
		},
		{
			name:     "dedup keeps the first occurrence across default and layer",
			layer:    "[discover]\ndirs = { value = [\"d2\", \"x\", \"d1\"], strategy = \"prepend\", dedup = true }\n",
			defaults: &dirsDefault,
			want:     configWith(func(c *config.Config) { c.Discover.Dirs = []string{"d2", "x", "d1"} }),
		},
		{
			name:     "dedup of appended items that repeat the default",
			layer:    "[discover]\ndirs = { value = [\"d1\", \"x\", \"x\"], strategy = \"append\", dedup = true }\n",
			defaults: &dirsDefault,
			want:     configWith(func(c *config.Config) { c.Discover.Dirs = []string{"d1", "d2", "x"} }),
		},
		{
			name:     "dedup with the field's own strategy dedups the default too",
			layer:    "[discover]\ndirs = { value = [\"d2\"], dedup = true }\n",
			defaults: &dirsDefault,
			want:     configWith(func(c *config.Config) { c.Discover.Dirs = []string{"d1", "d2"} }),
		},
		{
			name:     "an unset list with items extends the default",
			layer:    "unset = [\"discover.dirs\"]\n[discover]\ndirs = [\"x\"]\n",
			defaults: &dirsDefault,
			want:     configWith(func(c *config.Config) { c.Discover.Dirs = []string{"d1", "d2", "x"} }),
		},
		{
			name:     "an unset list is the default",
			layer:    "unset = [\"discover.dirs\"]\n",
			defaults: &dirsDefault,
			want:     dirsDefault,
		},
		{
			name:     "a server's args replace the default server's",
			layer:    "[mcp_servers.fs]\nargs = [\"--verbose\"]\n",
			defaults: &rich,
			want: configWith(func(c *config.Config) {
				c.Tools["t"] = rich.Tools["t"]
				c.MCPServers = config.MCPServers{"fs": server("npx", "--verbose")}
			}),
		},
		{
			name:     "a server's args append to the default server's",
			layer:    "[mcp_servers.fs]\nargs = { value = [\"--verbose\"], strategy = \"append\" }\n",
			defaults: &rich,
			want: configWith(func(c *config.Config) {
				c.Tools["t"] = rich.Tools["t"]
				c.MCPServers = config.MCPServers{"fs": server("npx", "-y", "--verbose")}
			}),
		},
		{
			name:  "nested items of a new parameter",
			layer: "[tools.t.parameters.p]\ntype = \"array\"\nrequired = false\n[tools.t.parameters.p.items]\ntype = \"string\"\nenum = [\"a\", 1]\n",
			want: configWith(func(c *config.Config) {
				c.Tools["t"] = config.Tool{Parameters: map[string]config.Parameter{"p": {
					Type:     config.Types{"array"},
					Required: layertest.Ptr(false),
					Items:    &config.Parameter{Type: config.Types{"string"}, Enum: []any{"a", int64(1)}},
				}}}
			}),
		},
		{
			name:     "nested items merge with the default items",
			layer:    "[tools.t.parameters.p.items]\nsummary = \"an item\"\n",
			defaults: &rich,
			want: configWith(func(c *config.Config) {
				tool := rich.Tools["t"]
				tool.Parameters = map[string]config.Parameter{"p": {
					Description: "default p",
					Items:       &config.Parameter{Type: config.Types{"string"}, Description: "default item", Summary: "an item"},
				}}
				c.Tools["t"] = tool
				c.MCPServers = rich.MCPServers
			}),
		},
		{
			name:     "unset nested items are the default items",
			layer:    "unset = [\"tools.t.parameters.p.items\"]\n[tools.t.parameters.p]\nsummary = \"s\"\n",
			defaults: &rich,
			want: configWith(func(c *config.Config) {
				tool := rich.Tools["t"]
				tool.Parameters = map[string]config.Parameter{"p": {
					Description: "default p",
					Summary:     "s",
					Items:       &config.Parameter{Type: config.Types{"string"}, Description: "default item"},
				}}
				c.Tools["t"] = tool
				c.MCPServers = rich.MCPServers
			}),
		},
		{
			name:     "option tables merge deeply",
			layer:    "[tools.t.options]\nlimits.max = 5\nlimits.extra = { deep = true }\nnew = [1, \"two\"]\n",
			defaults: &rich,
			want: configWith(func(c *config.Config) {
				tool := rich.Tools["t"]
				tool.Options = map[string]any{
					"limits": map[string]any{"max": int64(5), "min": int64(0), "extra": map[string]any{"deep": true}},
					"mode":   "fast",
					"new":    []any{int64(1), "two"},
				}
				c.Tools["t"] = tool
				c.MCPServers = rich.MCPServers
			}),
		},
		{
			name:     "an option value replaces a default table",
			layer:    "[tools.t.options]\nlimits = 3\n",
			defaults: &rich,
			want: configWith(func(c *config.Config) {
				tool := rich.Tools["t"]
				tool.Options = map[string]any{"limits": int64(3), "mode": "fast"}
				c.Tools["t"] = tool
				c.MCPServers = rich.MCPServers
			}),
		},
		{
			name:     "unset options are what the defaults give",
			layer:    "unset = [\"tools.t.options.mode\", \"tools.t.options.limits.min\", \"tools.t.options.other\"]\n",
			defaults: &rich,
			want:     rich,
		},
		{
			name:     "an unset option table redefined starts from the default table",
			layer:    "unset = [\"tools.t.options.limits\"]\n[tools.t.options]\nlimits.max = 7\n",
			defaults: &rich,
			want: configWith(func(c *config.Config) {
				tool := rich.Tools["t"]
				tool.Options = map[string]any{"limits": map[string]any{"max": int64(7), "min": int64(0)}, "mode": "fast"}
				c.Tools["t"] = tool
				c.MCPServers = rich.MCPServers
			}),
		},
		{
			name:     "an unset option table is the default table",
			layer:    "unset = [\"tools.t.options.limits\"]\n",
			defaults: &rich,
			want:     rich,
		},
		{
			name:     "unset options of a tool are its default options",
			layer:    "unset = [\"tools.t.options\"]\n[tools.t.options]\nmode = \"slow\"\n",
			defaults: &rich,
			want: configWith(func(c *config.Config) {
				tool := rich.Tools["t"]
				tool.Options = map[string]any{"limits": map[string]any{"max": int64(1), "min": int64(0)}, "mode": "slow"}
				c.Tools["t"] = tool
				c.MCPServers = rich.MCPServers
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "layer.toml", tt.layer, partial.TOML)
			defaults := config.Default()
			if tt.defaults != nil {
				defaults = *tt.defaults
			}
			before, err := codec.Encode(defaults, partial.JSON)
			if err != nil {
				t.Fatal(err)
			}
			got, err := partial.Finalize(&p, defaults)
			if err != nil {
				t.Fatalf("Finalize: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Finalize mismatch (-want +got):\n%s", diff)
			}
			after, err := codec.Encode(defaults, partial.JSON)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(before), string(after)); diff != "" {
				t.Errorf("Finalize changed the defaults (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFinalizeValidation(t *testing.T) {
	tests := []struct {
		name  string
		layer string
		want  []layertest.Problem
	}{
		{
			name:  "options on the defaults entry",
			layer: "[tools.'*'.options]\nx = 1\n",
			want: []layertest.Problem{{
				Err:  "tools.'*'.options: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set options on each tool",
				Path: partial.Path{"tools", "*", "options"}, Hint: "the '*' entry holds run, result, policy, enable and load; set options on each tool",
			}},
		},
		{
			name:  "several keys on the defaults entry in field order",
			layer: "[tools.'*']\nsummary = \"s\"\nsource = \"builtin\"\nrun = \"edit\"\n",
			want: []layertest.Problem{
				{Err: "tools.'*'.source: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set source on each tool", Path: partial.Path{"tools", "*", "source"}, Hint: "the '*' entry holds run, result, policy, enable and load; set source on each tool"},
				{Err: "tools.'*'.summary: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set summary on each tool", Path: partial.Path{"tools", "*", "summary"}, Hint: "the '*' entry holds run, result, policy, enable and load; set summary on each tool"},
			},
		},
		{
			name:  "command on an mcp tool",
			layer: "[tools.a]\nsource = \"mcp.fs\"\ncommand = \"x\"\n[mcp_servers.fs]\ncommand = \"npx\"\n",
			want: []layertest.Problem{{
				Err:  `tools.a.command: an MCP tool has no command; remove the command, or set source = "local"`,
				Path: partial.Path{"tools", "a", "command"}, Hint: `remove the command, or set source = "local"`,
			}},
		},
		{
			name:  "command on a builtin tool",
			layer: "[tools.a]\nsource = \"builtin\"\ncommand = { program = \"x\" }\n",
			want: []layertest.Problem{{
				Err:  `tools.a.command: a builtin tool has no command; remove the command, or set source = "local"`,
				Path: partial.Path{"tools", "a", "command"}, Hint: `remove the command, or set source = "local"`,
			}},
		},
		{
			name:  "mcp source naming a misspelt server",
			layer: "[tools.a]\nsource = \"mcp.gihub.issues\"\n[mcp_servers.github]\ncommand = \"gh\"\n[mcp_servers.fs]\ncommand = \"npx\"\n",
			want: []layertest.Problem{{
				Err:  `tools.a.source: no MCP server named "gihub" is configured; did you mean github?`,
				Path: partial.Path{"tools", "a", "source"}, Hint: "did you mean github?",
			}},
		},
		{
			name:  "mcp source naming an unknown server lists the configured ones",
			layer: "[tools.a]\nsource = \"mcp.zzz\"\n[mcp_servers.github]\ncommand = \"gh\"\n[mcp_servers.fs]\ncommand = \"npx\"\n",
			want: []layertest.Problem{{
				Err:  `tools.a.source: no MCP server named "zzz" is configured; add [mcp_servers.zzz]; configured servers: fs, github`,
				Path: partial.Path{"tools", "a", "source"}, Hint: "add [mcp_servers.zzz]; configured servers: fs, github",
			}},
		},
		{
			name:  "mcp source without any server configured",
			layer: "[tools.a]\nsource = \"mcp.'my.server'.tool\"\n",
			want: []layertest.Problem{{
				Err:  `tools.a.source: no MCP server named "my.server" is configured; add [mcp_servers.'my.server']`,
				Path: partial.Path{"tools", "a", "source"}, Hint: "add [mcp_servers.'my.server']",
			}},
		},
		{
			name:  "MCP server without a command",
			layer: "[mcp_servers.fs]\nargs = [\"-y\"]\n",
			want: []layertest.Problem{{
				Err:  `mcp_servers.fs: an MCP server needs a command (a program started over stdio) or a url (a remote server); write command = "npx" and its args, or url = "https://example.com/mcp"`,
				Path: partial.Path{"mcp_servers", "fs"}, Hint: `write command = "npx" and its args, or url = "https://example.com/mcp"`,
			}},
		},
		{
			name:  "MCP server timeouts must be positive",
			layer: "[mcp_servers.fs]\ncommand = \"npx\"\nstartup_timeout_sec = -2\ntool_timeout_sec = -1.5\n",
			want: []layertest.Problem{
				{Err: "mcp_servers.fs.startup_timeout_sec: must be positive, found -2; leave it out for the default of the server's launch (10 seconds, 60 for a launcher such as npx, 300 while it installs)", Path: partial.Path{"mcp_servers", "fs", "startup_timeout_sec"},
					Hint: "leave it out for the default of the server's launch (10 seconds, 60 for a launcher such as npx, 300 while it installs)"},
				{Err: "mcp_servers.fs.tool_timeout_sec: must be positive, found -1.5", Path: partial.Path{"mcp_servers", "fs", "tool_timeout_sec"}},
			},
		},
		{
			name: "every layertest.Problem, defaults entry first, then tools and servers by name",
			layer: `[tools.zed]
source = "builtin"
command = "z"
[tools.'*']
examples = "e"
[tools.alpha]
source = "mcp.nope"
[mcp_servers.b]
command = "x"
[mcp_servers.a]
optional = true
`,
			want: []layertest.Problem{
				{Err: "tools.'*'.examples: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set examples on each tool", Path: partial.Path{"tools", "*", "examples"}, Hint: "the '*' entry holds run, result, policy, enable and load; set examples on each tool"},
				{Err: `tools.alpha.source: no MCP server named "nope" is configured; add [mcp_servers.nope]; configured servers: a, b`, Path: partial.Path{"tools", "alpha", "source"}, Hint: "add [mcp_servers.nope]; configured servers: a, b"},
				{Err: `tools.zed.command: a builtin tool has no command; remove the command, or set source = "local"`, Path: partial.Path{"tools", "zed", "command"}, Hint: `remove the command, or set source = "local"`},
				{Err: `mcp_servers.a: an MCP server needs a command (a program started over stdio) or a url (a remote server); write command = "npx" and its args, or url = "https://example.com/mcp"`, Path: partial.Path{"mcp_servers", "a"}, Hint: `write command = "npx" and its args, or url = "https://example.com/mcp"`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "layer.toml", tt.layer, partial.TOML)
			got, err := config.Finalize(&p)
			if err == nil {
				t.Fatal("Finalize succeeded, want validation errors")
			}
			var es diag.Errors
			if !errors.As(err, &es) {
				t.Fatalf("error is a %T, want diag.Errors", err)
			}
			if diff := cmp.Diff(tt.want, layertest.Problems(err)); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
			// The config is still returned, for tools that show it anyway.
			if len(got.Tools[config.EveryTool].Run) == 0 {
				t.Errorf("Finalize returned no config with its errors: %+v", got)
			}
		})
	}
}

func TestLocateErrorsInOneDocument(t *testing.T) {
	src := `[tools.'*']
options.x = 1

[tools.a]
source = "mcp.gihub"
command = "x"

[mcp_servers.github]
args = ["-y"]
`
	d, err := codec.Parse("layer.toml", []byte(src), partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	var p config.Partial
	if err := d.Decode(&p); err != nil {
		t.Fatal(err)
	}
	_, err = config.Finalize(&p)
	// Finalize reports by key path (source before command is not
	// guaranteed); located, the problems come in document order.
	got := layertest.Problems(codec.LocateErrors(err, d))
	want := []layertest.Problem{
		{Err: "layer.toml:2:1: tools.'*'.options: not allowed in the '*' defaults; the '*' entry holds run, result, policy, enable and load; set options on each tool", Line: 2, Column: 1, Path: partial.Path{"tools", "*", "options"}, Hint: "the '*' entry holds run, result, policy, enable and load; set options on each tool", Snippet: "options.x = 1"},
		{Err: `layer.toml:5:1: tools.a.source: no MCP server named "gihub" is configured; did you mean github?`, Line: 5, Column: 1, Path: partial.Path{"tools", "a", "source"}, Hint: "did you mean github?", Snippet: `source = "mcp.gihub"`},
		{Err: `layer.toml:6:1: tools.a.command: an MCP tool has no command; remove the command, or set source = "local"`, Line: 6, Column: 1, Path: partial.Path{"tools", "a", "command"}, Hint: `remove the command, or set source = "local"`, Snippet: `command = "x"`},
		{Err: `layer.toml:8:14: mcp_servers.github: an MCP server needs a command (a program started over stdio) or a url (a remote server); write command = "npx" and its args, or url = "https://example.com/mcp"`, Line: 8, Column: 14, Path: partial.Path{"mcp_servers", "github"}, Hint: `write command = "npx" and its args, or url = "https://example.com/mcp"`, Snippet: "[mcp_servers.github]"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("located problems mismatch (-want +got):\n%s", diff)
	}
}

func TestLocateErrorsAcrossDocuments(t *testing.T) {
	parse := func(name, src string) *codec.Document {
		t.Helper()
		d, err := codec.Parse(name, []byte(src), partial.TOML)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	low := parse("low.toml", "[tools.a]\ncommand = \"x\"\n\n[mcp_servers.fs]\nargs = []\n")
	mid := parse("mid.toml", "[tools.a]\nsource = \"builtin\"\n")
	high := parse("high.toml", "[tools.other]\nrun = \"ask\"\n[tools.a]\ncommand = \"y\"\n")
	top := parse("top.toml", "[tools.b]\nrun = \"edit\"\n")
	tests := []struct {
		name string
		docs []*codec.Document
		in   *diag.Error
		want layertest.Problem
	}{
		{
			name: "only the lowest document defines the path",
			docs: []*codec.Document{low, mid},
			in:   &diag.Error{Path: partial.Path{"tools", "a", "command"}, Msg: "bad"},
			want: layertest.Problem{Err: "low.toml:2:1: tools.a.command: bad", Line: 2, Column: 1, Path: partial.Path{"tools", "a", "command"}, Snippet: `command = "x"`},
		},
		{
			name: "the highest document that defines the path wins",
			docs: []*codec.Document{low, mid, high},
			in:   &diag.Error{Path: partial.Path{"tools", "a", "command"}, Msg: "bad"},
			want: layertest.Problem{Err: "high.toml:4:1: tools.a.command: bad", Line: 4, Column: 1, Path: partial.Path{"tools", "a", "command"}, Snippet: `command = "y"`},
		},
		{
			name: "a higher document mentioning only an enclosing table is passed over",
			docs: []*codec.Document{low, mid, top},
			in:   &diag.Error{Path: partial.Path{"tools", "a", "command"}, Msg: "bad"},
			want: layertest.Problem{Err: "low.toml:2:1: tools.a.command: bad", Line: 2, Column: 1, Path: partial.Path{"tools", "a", "command"}, Snippet: `command = "x"`},
		},
		{
			name: "a path none defines goes to the deepest enclosing key",
			docs: []*codec.Document{low, mid, top},
			in:   &diag.Error{Path: partial.Path{"mcp_servers", "fs", "command"}, Msg: "missing"},
			want: layertest.Problem{Err: "low.toml:4:14: mcp_servers.fs.command: missing", Line: 4, Column: 14, Path: partial.Path{"mcp_servers", "fs", "command"}, Snippet: "[mcp_servers.fs]"},
		},
		{
			name: "equally deep enclosing keys go to the highest document",
			docs: []*codec.Document{low, mid, top},
			in:   &diag.Error{Path: partial.Path{"tools", "a", "summary"}, Msg: "missing"},
			want: layertest.Problem{Err: "mid.toml:1:8: tools.a.summary: missing", Line: 1, Column: 8, Path: partial.Path{"tools", "a", "summary"}, Snippet: "[tools.a]"},
		},
		{
			name: "nil documents are skipped",
			docs: []*codec.Document{low, nil},
			in:   &diag.Error{Path: partial.Path{"tools", "a"}, Msg: "bad"},
			want: layertest.Problem{Err: "low.toml:1:8: tools.a: bad", Line: 1, Column: 8, Path: partial.Path{"tools", "a"}, Snippet: "[tools.a]"},
		},
		{
			name: "a path no document mentions is left alone",
			docs: []*codec.Document{low, mid},
			in:   &diag.Error{Path: partial.Path{"discover", "dirs"}, Msg: "bad"},
			want: layertest.Problem{Err: "discover.dirs: bad", Path: partial.Path{"discover", "dirs"}},
		},
		{
			name: "a layertest.Problem with a source is kept",
			docs: []*codec.Document{low},
			in:   &diag.Error{Source: "env STRATA_X", Path: partial.Path{"tools", "a", "command"}, Msg: "bad"},
			want: layertest.Problem{Err: "env STRATA_X: tools.a.command: bad", Path: partial.Path{"tools", "a", "command"}},
		},
		{
			name: "a layertest.Problem without a path is kept",
			docs: []*codec.Document{low},
			in:   &diag.Error{Msg: "bad"},
			want: layertest.Problem{Err: "bad"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			original := *tt.in
			err := codec.LocateErrors(diag.Errors{tt.in}, tt.docs...)
			var es diag.Errors
			if !errors.As(err, &es) {
				t.Fatalf("LocateErrors returned a %T, want diag.Errors", err)
			}
			if diff := cmp.Diff([]layertest.Problem{tt.want}, layertest.Problems(err)); diff != "" {
				t.Errorf("located layertest.Problem mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(original, *tt.in); diff != "" {
				t.Errorf("LocateErrors changed its input (-want +got):\n%s", diff)
			}
			// A single *Error is located the same way.
			if diff := cmp.Diff([]layertest.Problem{tt.want}, layertest.Problems(codec.LocateErrors(tt.in, tt.docs...))); diff != "" {
				t.Errorf("single *Error: located layertest.Problem mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("document order", func(t *testing.T) {
		in := diag.Errors{
			{Path: partial.Path{"tools", "a", "summary"}, Msg: "e1"},
			{Path: partial.Path{"discover", "dirs"}, Msg: "e2"},
			{Path: partial.Path{"mcp_servers", "fs", "command"}, Msg: "e3"},
			{Source: "env STRATA_X", Msg: "e4"},
			{Path: partial.Path{"tools", "a", "command"}, Msg: "e5"},
		}
		got := layertest.Problems(codec.LocateErrors(in, low, mid))
		want := []layertest.Problem{
			{Err: "low.toml:2:1: tools.a.command: e5", Line: 2, Column: 1, Path: partial.Path{"tools", "a", "command"}, Snippet: `command = "x"`},
			{Err: "low.toml:4:14: mcp_servers.fs.command: e3", Line: 4, Column: 14, Path: partial.Path{"mcp_servers", "fs", "command"}, Snippet: "[mcp_servers.fs]"},
			{Err: "mid.toml:1:8: tools.a.summary: e1", Line: 1, Column: 8, Path: partial.Path{"tools", "a", "summary"}, Snippet: "[tools.a]"},
			{Err: "discover.dirs: e2", Path: partial.Path{"discover", "dirs"}},
			{Err: "env STRATA_X: e4"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("located problems mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("nil error", func(t *testing.T) {
		if err := codec.LocateErrors(nil, low); err != nil {
			t.Errorf("LocateErrors(nil) = %v, want nil", err)
		}
	})
	t.Run("other errors pass through", func(t *testing.T) {
		plain := errors.New("plain")
		if err := codec.LocateErrors(plain, low); err != plain {
			t.Errorf("LocateErrors(plain) = %v, want the same error", err)
		}
	})
}

func TestFromAndToPartial(t *testing.T) {
	rich := configWith(func(c *config.Config) {
		c.Tools["*"] = config.Tool{Run: config.Always(config.RunEdit), Result: config.Always(config.ResultUnattended), Enable: &config.Enable{State: layertest.Ptr(true), AllowToggle: config.ToggleAny}}
		c.Tools["grep"] = config.Tool{
			Source:      config.Source{Kind: config.SourceMCP, Server: "fs", Tool: "search"},
			Enable:      &config.Enable{State: layertest.Ptr(false), AllowToggle: config.ToggleNever},
			Summary:     "Search.",
			Description: "Searches.",
			Result:      config.Always(config.ResultAsk),
			Parameters: map[string]config.Parameter{"path": {
				Type:       config.Types{"string", "null"},
				Required:   layertest.Ptr(true),
				Default:    ".",
				Enum:       []any{".", "src"},
				Items:      &config.Parameter{Type: config.Types{"string"}},
				Properties: map[string]config.Parameter{"x": {Summary: "x"}},
			}},
			Options:   map[string]any{"depth": int64(3), "limits": map[string]any{"max": 1.5}},
			Questions: map[string]config.Question{"apply": {Target: config.TargetUser, Answer: true}},
		}
		c.Tools["sh"] = config.Tool{Command: config.Command{Program: "sh", Args: []string{"-c", "echo hi"}, Shell: true}}
		s := server("npx", "-y", "srv")
		s.Env = map[string]secret.String{"LOG": secret.Plain("1")}
		s.Optional = true
		s.ToolTimeoutSec = 5
		c.MCPServers = config.MCPServers{"fs": s}
		c.Discover.Dirs = []string{"tools"}
	})
	tests := []struct {
		name string
		x    config.Config
		want config.Partial
	}{
		{
			name: "the defaults give an empty layer",
			x:    config.Default(),
			want: config.Partial{},
		},
		{
			name: "only what differs from the defaults",
			x: configWith(func(c *config.Config) {
				c.Tools["*"] = config.Tool{Run: config.Always(config.RunSkip), Result: config.Always(config.ResultUnattended), Enable: &config.Enable{State: layertest.Ptr(true), AllowToggle: config.ToggleAny}}
			}),
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"*": {Run: partial.Replace(config.RunRule{Mode: config.RunSkip})},
			}}},
		},
		{
			name: "a new server leaves its default timeouts out",
			x: configWith(func(c *config.Config) {
				c.MCPServers = config.MCPServers{"fs": server("npx")}
			}),
			want: config.Partial{MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
				"fs": {Command: partial.Of(secret.Plain("npx"))},
			}}},
		},
		{
			name: "lists are written whole",
			x:    configWith(func(c *config.Config) { c.Discover.Dirs = []string{"a", "b"} }),
			want: config.Partial{Discover: config.DiscoverPartial{Dirs: partial.Replace("a", "b")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := config.ToPartial(tt.x)
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("ToPartial mismatch (-want +got):\n%s", diff)
			}
			back, err := config.Finalize(got)
			if err != nil {
				t.Fatalf("Finalize: %v", err)
			}
			if diff := cmp.Diff(tt.x, back); diff != "" {
				t.Errorf("Finalize(ToPartial(x)) mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("round trip of a config with every field", func(t *testing.T) {
		p := config.ToPartial(rich)
		back, err := config.Finalize(p)
		if err != nil {
			t.Fatalf("Finalize: %v", err)
		}
		if diff := cmp.Diff(rich, back); diff != "" {
			t.Errorf("Finalize(ToPartial(x)) mismatch (-want +got):\n%s", diff)
		}
		// The layer survives being written and read back.
		for _, f := range []partial.Format{partial.TOML, partial.JSON} {
			text, err := codec.Encode(p, f)
			if err != nil {
				t.Fatalf("Encode %s: %v", f, err)
			}
			q := layertest.MustDecode(t, "layer", string(text), f)
			if diff := cmp.Diff(p, &q); diff != "" {
				t.Errorf("%s: decode(encode(ToPartial(x))) mismatch (-want +got):\n%s", f, diff)
			}
		}
	})
}

func TestFromAgainstOtherDefaults(t *testing.T) {
	defaults := configWith(func(c *config.Config) {
		c.Discover.Dirs = []string{"d1"}
		c.Tools["t"] = config.Tool{
			Summary:    "s",
			Options:    map[string]any{"keep": "k", "change": map[string]any{"a": int64(1), "b": int64(2)}},
			Parameters: map[string]config.Parameter{"p": {Required: layertest.Ptr(true), Items: &config.Parameter{Summary: "item"}}},
		}
	})
	tests := []struct {
		name        string
		x           config.Config
		want        config.Partial
		noRoundTrip bool
	}{
		{
			name: "an appended list is written as what it adds",
			x: configWith(func(c *config.Config) {
				c.Discover.Dirs = []string{"d1", "x"}
				c.Tools["t"] = defaults.Tools["t"]
			}),
			want: config.Partial{Discover: config.DiscoverPartial{Dirs: partial.Append("x")}},
		},
		{
			name: "a list that does not extend the default replaces it",
			x: configWith(func(c *config.Config) {
				c.Discover.Dirs = []string{"x", "d1"}
				c.Tools["t"] = defaults.Tools["t"]
			}),
			want: config.Partial{Discover: config.DiscoverPartial{Dirs: partial.Replace("x", "d1")}},
		},
		{
			name: "an emptied list replaces the default with nothing",
			x: configWith(func(c *config.Config) {
				c.Tools["t"] = defaults.Tools["t"]
			}),
			want: config.Partial{Discover: config.DiscoverPartial{Dirs: partial.List[string]{Base: partial.BaseEmpty, Items: []string{}}}},
		},
		{
			name: "a cleared string and a changed option",
			x: configWith(func(c *config.Config) {
				c.Discover.Dirs = []string{"d1"}
				t := defaults.Tools["t"]
				t.Summary = ""
				t.Options = map[string]any{"keep": "k", "change": map[string]any{"a": int64(1), "b": int64(3)}}
				c.Tools["t"] = t
			}),
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"t": {
					Summary: partial.Of(""),
					Options: partial.Map[partial.Any]{Entries: map[string]*partial.Any{
						"change": {State: partial.Present, Table: &partial.Map[partial.Any]{Entries: map[string]*partial.Any{"b": layertest.Ptr(partial.AnyOf(int64(3)))}}},
					}},
				},
			}}},
		},
		{
			// Finalize never gives nil where the default is set (an unset
			// takes the default), so this x does not round-trip; From
			// still says the most it can.
			name: "cleared pointers are unset",
			x: configWith(func(c *config.Config) {
				c.Discover.Dirs = []string{"d1"}
				t := defaults.Tools["t"]
				t.Parameters = map[string]config.Parameter{"p": {}}
				c.Tools["t"] = t
			}),
			want: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"t": {
					Parameters: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{
						"p": {Required: layertest.UnsetValue[bool](), Items: partial.Nested[config.ParameterPartial]{State: partial.Unset}},
					}},
				},
			}}},
			noRoundTrip: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := partial.From[config.Partial](tt.x, defaults)
			if err != nil {
				t.Fatalf("From: %v", err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("From mismatch (-want +got):\n%s", diff)
			}
			if tt.noRoundTrip {
				return
			}
			back, err := partial.Finalize(got, defaults)
			if err != nil {
				t.Fatalf("Finalize: %v", err)
			}
			if diff := cmp.Diff(tt.x, back); diff != "" {
				t.Errorf("Finalize(From(x)) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// mismatched has a field the resolved config lacks.
type mismatched struct {
	Tools config.ToolsPartial   `toml:"tools"`
	Extra partial.Value[string] `toml:"extra"`
}

func TestFinalizeTypeMismatch(t *testing.T) {
	if err := partial.CheckPair[mismatched, config.Config](); err == nil {
		t.Error("Check of mismatched types found nothing")
	}
	_, err := partial.Finalize(&mismatched{}, config.Config{})
	if err == nil {
		t.Fatal("Finalize of mismatched types succeeded")
	}
	want := "strata: at extra: the partial type partial_test.mismatched has this key (its field Extra partial.Value[string]), the resolved type config.Config has not; add the field Extra string `toml:\"extra\"` to the resolved type config.Config, or remove it from the partial type"
	if err.Error() != want {
		t.Errorf("Finalize error = %q, want %q", err.Error(), want)
	}
	if _, err := partial.From[mismatched](config.Config{}, config.Config{}); err == nil || err.Error() != want {
		t.Errorf("From error = %v, want %q", err, want)
	}
}

// A host application's own model, with validators at several depths.

type hostServer struct {
	Port  int      `toml:"port"`
	Hosts []string `toml:"hosts"`
}

// Validate has a value receiver.
func (s hostServer) Validate() error {
	if s.Port == 0 {
		return &diag.Error{Path: partial.Path{"port"}, Msg: "needs a port", Hint: "write port = 8080"}
	}
	if s.Port < 0 {
		return errors.New("the port is negative")
	}
	return nil
}

type hostLimits struct {
	Max int `toml:"max"`
}

// Validate has a pointer receiver and reports several problems.
func (l *hostLimits) Validate() error {
	if l.Max > 10 {
		return diag.Errors{
			{Path: partial.Path{"max"}, Msg: "too large"},
			{Msg: "limits are off"},
		}
	}
	return nil
}

type hostConfig struct {
	Conversation struct {
		Tools config.Tools `toml:"tools"`
	} `toml:"conversation"`
	Servers map[string]hostServer `toml:"servers"`
	Limits  *hostLimits           `toml:"limits"`
}

type hostServerPartial struct {
	Port  partial.Value[int]   `toml:"port"`
	Hosts partial.List[string] `toml:"hosts" strata:"append"`
}

type hostLimitsPartial struct {
	Max partial.Value[int] `toml:"max"`
}

type hostConfigPartial struct {
	Conversation struct {
		Tools config.ToolsPartial `toml:"tools"`
	} `toml:"conversation"`
	Servers partial.Map[hostServerPartial]    `toml:"servers"`
	Limits  partial.Nested[hostLimitsPartial] `toml:"limits"`
}

func TestFinalizeHostModel(t *testing.T) {
	defaults := hostConfig{Servers: map[string]hostServer{"main": {Port: 80, Hosts: []string{"a"}}}}
	defaults.Conversation.Tools = config.Default().Tools
	tests := []struct {
		name  string
		layer string
		want  func() hostConfig
		errs  []layertest.Problem
	}{
		{
			name:  "mounted tools and host fields",
			layer: "[conversation.tools.grep]\nrun = \"edit\"\n[servers.main]\nhosts = [\"b\"]\n[servers.extra]\nport = 9\n[limits]\nmax = 3\n",
			want: func() hostConfig {
				c := hostConfig{Servers: map[string]hostServer{"main": {Port: 80, Hosts: []string{"a", "b"}}, "extra": {Port: 9}}, Limits: &hostLimits{Max: 3}}
				c.Conversation.Tools = config.Default().Tools
				c.Conversation.Tools["grep"] = config.Tool{Run: config.Always(config.RunEdit)}
				return c
			},
		},
		{
			name:  "validators report with full paths",
			layer: "[servers.b]\nhosts = [\"x\"]\n[servers.c]\nport = -1\n[limits]\nmax = 11\n",
			want: func() hostConfig {
				c := hostConfig{Servers: map[string]hostServer{"main": {Port: 80, Hosts: []string{"a"}}, "b": {Hosts: []string{"x"}}, "c": {Port: -1}}, Limits: &hostLimits{Max: 11}}
				c.Conversation.Tools = config.Default().Tools
				return c
			},
			errs: []layertest.Problem{
				{Err: "servers.b.port: needs a port; write port = 8080", Path: partial.Path{"servers", "b", "port"}, Hint: "write port = 8080"},
				{Err: "servers.c: the port is negative", Path: partial.Path{"servers", "c"}},
				{Err: "limits.max: too large", Path: partial.Path{"limits", "max"}},
				{Err: "limits: limits are off", Path: partial.Path{"limits"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p hostConfigPartial
			if err := codec.Decode("host.toml", []byte(tt.layer), partial.TOML, &p); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got, err := partial.Finalize(&p, defaults)
			if diff := cmp.Diff(tt.errs, layertest.Problems(err)); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want(), got); diff != "" {
				t.Errorf("Finalize mismatch (-want +got):\n%s", diff)
			}
			if tt.errs != nil {
				return
			}
			back, err := partial.From[hostConfigPartial](got, defaults)
			if err != nil {
				t.Fatalf("From: %v", err)
			}
			again, err := partial.Finalize(back, defaults)
			if err != nil {
				t.Fatalf("Finalize(From(x)): %v", err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("Finalize(From(x)) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFinalizeSharesALayersItems: a list whose items all come from the
// layer is the layer's items, not a copy (a catalog of many tools keeps
// one copy of its run rules); capped, so that appending to it copies and
// leaves the layer as it was. A list with the defaults' items, or
// deduplicated, is a list of its own.
func TestFinalizeSharesALayersItems(t *testing.T) {
	p := &config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
		"x": {EnvVars: partial.Append("A", "B"), Run: partial.Replace(config.RunRule{Mode: config.RunSkip})},
		"y": {EnvVars: partial.Wrap([]string{"A"}, []string{"B"})},
		"z": {EnvVars: partial.List[string]{Dedup: true, Items: []string{"A", "A"}}},
	}}}
	got, err := partial.Finalize(p, config.Default())
	if err != nil {
		t.Fatalf("Finalize: %v", err)
	}
	x := got.Tools["x"]
	if &x.EnvVars[0] != &p.Tools.Entries["x"].EnvVars.Items[0] || &x.Run[0] != &p.Tools.Entries["x"].Run.Items[0] {
		t.Errorf("x's lists are copies of the layer's items, not the items")
	}
	if cap(x.EnvVars) != len(x.EnvVars) {
		t.Errorf("cap(EnvVars) = %d, want %d: an append would write into the layer", cap(x.EnvVars), len(x.EnvVars))
	}
	_ = append(x.EnvVars, "C")
	if diff := cmp.Diff([]string{"A", "B"}, p.Tools.Entries["x"].EnvVars.Items); diff != "" {
		t.Errorf("the layer changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"A", "B"}, got.Tools["y"].EnvVars); diff != "" {
		t.Errorf("head and tail (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"A"}, got.Tools["z"].EnvVars); diff != "" {
		t.Errorf("deduplicated (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"A", "A"}, p.Tools.Entries["z"].EnvVars.Items); diff != "" {
		t.Errorf("deduplicating changed the layer (-want +got):\n%s", diff)
	}

	defaults := config.Default()
	defaults.Discover.Dirs = []string{"d"}
	got, err = partial.Finalize(&config.Partial{}, defaults)
	if err != nil {
		t.Fatalf("Finalize: %v", err)
	}
	if &got.Discover.Dirs[0] == &defaults.Discover.Dirs[0] {
		t.Errorf("the defaults' list is shared: a host that changed its config's would change its next load's defaults")
	}
}
