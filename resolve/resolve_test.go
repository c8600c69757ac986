package resolve_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/resolve"
)

func errLines(err error) []string {
	var out []string
	for _, e := range diag.All(err) {
		out = append(out, e.Error())
	}
	return out
}

// found is what discovery found in these tests: a server exposing three
// tools, and a --describe tool.
func found() resolve.Found {
	tool := func(name string) resolve.Discovered {
		return resolve.Discovered{Name: name, InputSchema: resolve.MustSchema(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
	}
	return resolve.Found{
		Servers:   map[string]map[string]resolve.Discovered{"fs": {"read_file": tool("read_file"), "write_file": tool("write_file"), "list.dir": tool("list.dir")}},
		Described: map[string]resolve.Described{"word count": {Path: "/t/wc", Discovered: tool("word count")}},
	}
}

// TestRenamesAndOverrides: the behaviour a user expects of overrides and
// renames of exposed and described tools.
func TestRenamesAndOverrides(t *testing.T) {
	tests := []struct {
		name     string
		layer    string
		tools    []string // name=source
		errs     []string
		warnings []string
		check    func(t *testing.T, c *resolve.Catalog)
	}{
		{
			name:  "an exposed tool is overridden without repeating its source",
			layer: "[mcp_servers.fs]\ncommand = \"x\"\nexpose = \"all\"\n[tools.read_file]\nrun = \"unattended\"\n",
			tools: []string{"list.dir=mcp.fs", "read_file=mcp.fs", "word count=local", "write_file=mcp.fs"},
			check: func(t *testing.T, c *resolve.Catalog) {
				if d, _ := c.Tool("read_file"); d.Run.String() != "unattended" || d.Exec.Server != "fs" {
					t.Errorf("read_file: %+v", d)
				}
			},
		},
		{
			name:  "a server without expose gives all its tools, as in every client",
			layer: "[mcp_servers.fs]\ncommand = \"x\"\n",
			tools: []string{"list.dir=mcp.fs", "read_file=mcp.fs", "word count=local", "write_file=mcp.fs"},
		},
		{
			name:  "enabled_tools narrows the default",
			layer: "[mcp_servers.fs]\ncommand = \"x\"\nenabled_tools = [\"read_file\"]\n",
			tools: []string{"read_file=mcp.fs", "word count=local"},
		},
		{
			name:  "disabled_tools narrows the default",
			layer: "[mcp_servers.fs]\ncommand = \"x\"\ndisabled_tools = [\"read_file\", \"list.dir\"]\n",
			tools: []string{"word count=local", "write_file=mcp.fs"},
		},
		{
			name:  "expose = none gives only what sources name",
			layer: "[mcp_servers.fs]\ncommand = \"x\"\nexpose = \"none\"\n[tools.files_read]\nsource = \"mcp.fs.read_file\"\n",
			tools: []string{"files_read=mcp.fs.read_file", "word count=local"},
		},
		{
			name:  "a server the config does not have gives nothing",
			layer: "[tools.'*']\nrun = \"ask\"\n",
			tools: []string{"word count=local"},
		},
		{
			name:  "a renamed exposed tool appears once",
			layer: "[mcp_servers.fs]\ncommand = \"x\"\nexpose = \"all\"\n[tools.files_read]\nsource = \"mcp.fs.read_file\"\n",
			tools: []string{"files_read=mcp.fs.read_file", "list.dir=mcp.fs", "word count=local", "write_file=mcp.fs"},
		},
		{
			name:  "a described tool renamed",
			layer: "[tools.word_count]\nsource = \"local.'word count'\"\n",
			tools: []string{"word_count=local.'word count'"},
			check: func(t *testing.T, c *resolve.Catalog) {
				if d, _ := c.Tool("word_count"); d.Exec.Path != "/t/wc" {
					t.Errorf("word_count runs %q", d.Exec.Path)
				}
			},
		},
		{
			name:  "a described tool that does not exist",
			layer: "[tools.wc]\nsource = \"local.'word cont'\"\n",
			tools: []string{"word count=local"},
			errs:  []string{"tools.wc.source: no tool of the discovery directories is named word cont; did you mean word count?"},
		},
		{
			name: "allow_dash reaches the exec, not the schema",
			layer: "[tools.git_log]\ncommand = \"git log {{tool.arguments.rev}}\"\n" +
				"parameters.rev = { type = \"string\", allow_dash = true }\n" +
				"parameters.opts = { type = \"object\", properties.flag = { type = \"string\", allow_dash = true }, properties.other = { type = \"string\" } }\n" +
				"parameters.path = { type = \"string\" }\n",
			tools: []string{"git_log=local", "word count=local"},
			check: func(t *testing.T, c *resolve.Catalog) {
				d, _ := c.Tool("git_log")
				if diff := cmp.Diff([]string{"opts.flag", "rev"}, d.Exec.AllowDash); diff != "" {
					t.Errorf("AllowDash (-want +got):\n%s", diff)
				}
				if strings.Contains(d.InputSchema.String(), "allow_dash") {
					t.Errorf("the model sees allow_dash: %s", d.InputSchema)
				}
				for ref, want := range map[string]bool{
					"tool.arguments.rev": true, "tool.arguments.opts.flag": true, "tool.arguments.opts.other": false,
					"tool.arguments.opts": false, "tool.arguments.path": false, "tool.answers.rev": false, "tool.arguments.revision": false,
				} {
					if got := d.Exec.DashAllowed(ref); got != want {
						t.Errorf("DashAllowed(%s) = %v, want %v", ref, got, want)
					}
				}
			},
		},
		{
			name:     "settings for nothing",
			layer:    "[mcp_servers.fs]\ncommand = \"x\"\nexpose = [\"read_file\"]\n[tools.write_fil]\nrun = \"skip\"\n",
			tools:    []string{"read_file=mcp.fs", "word count=local"},
			warnings: []string{"skipped: tools.write_fil: no tool of this name is defined or discovered; its settings apply to nothing; did you mean write_file?"},
			check: func(t *testing.T, c *resolve.Catalog) {
				if errors.Is(c.Warnings[0], resolve.ErrAppliesToNothing) {
					t.Error("a typo's warning is one that commands may leave out")
				}
			},
		},
		{
			name:     "settings for a tool other workspaces have",
			layer:    "[tools.slugify]\nrun = \"unattended\"\n",
			tools:    []string{"word count=local"},
			warnings: []string{"skipped: tools.slugify: no tool of this name is defined or discovered; its settings apply to nothing; give it a source and a command, or put an executable that answers --describe in a discover.dirs directory"},
			check: func(t *testing.T, c *resolve.Catalog) {
				if !errors.Is(c.Warnings[0], resolve.ErrAppliesToNothing) {
					t.Error("the warning is not resolve.ErrAppliesToNothing")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := layerConfig(tt.layer)
			if err != nil {
				t.Fatal(err)
			}
			c, err := resolve.Build(cfg, found())
			if diff := cmp.Diff(tt.errs, errLines(err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			var tools []string
			for _, d := range c.Tools {
				tools = append(tools, d.Name+"="+d.Source)
			}
			if diff := cmp.Diff(tt.tools, tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, errLines(c.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

// TestRenameHint: a name a vendor refuses comes with the entry that
// renames the tool where it comes from.
func TestRenameHint(t *testing.T) {
	cfg, _ := layerConfig("[mcp_servers.fs]\ncommand = \"x\"\nexpose = \"all\"\n")
	c, err := resolve.Build(cfg, found())
	if err != nil {
		t.Fatal(err)
	}
	out, skipped, err := export.Marshal(c, export.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`skipped: tools.'list.dir': "list.dir" is not a valid tool name for openai; the tool is left out of it; an OpenAI function name is 1 to 64 letters, digits, '_' or '-'; rename it: [tools.new_name] source = "mcp.fs.'list.dir'", or let strata rename it: [budget.openai] rename = true`,
		`skipped: tools.'word count': "word count" is not a valid tool name for openai; the tool is left out of it; an OpenAI function name is 1 to 64 letters, digits, '_' or '-'; rename it: [tools.new_name] source = "local.'word count'", or let strata rename it: [budget.openai] rename = true`,
	}
	if diff := cmp.Diff(want, errLines(skipped)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The other tools are exported.
	for _, name := range []string{`"read_file"`, `"write_file"`} {
		if !strings.Contains(string(out), name) {
			t.Errorf("%s is not exported:\n%s", name, out)
		}
	}
	// The fix the hint gives works.
	cfg, _ = layerConfig("[mcp_servers.fs]\ncommand = \"x\"\nexpose = \"all\"\n[tools.list_dir]\nsource = \"mcp.fs.'list.dir'\"\n[tools.word_count]\nsource = \"local.'word count'\"\n")
	c, err = resolve.Build(cfg, found())
	if err != nil {
		t.Fatal(err)
	}
	if _, skipped, err := export.Marshal(c, export.OpenAI); err != nil || skipped != nil {
		t.Errorf("after the rename: %v, %v", err, skipped)
	}
	if b, _, _ := export.Marshal(c, export.OpenAI); strings.Contains(string(b), "list.dir\"") {
		t.Error("the original name is still exported")
	}
}

// TestFingerprintCoversServed: a tool served as its server listed it is
// served with every key of it, so a catalog whose tool differs only in
// _meta, icons or a key of the server's own is another catalog.
func TestFingerprintCoversServed(t *testing.T) {
	fp := func(upstream string) string {
		d := resolve.Definition{Name: "fetch", Description: "Fetch a URL.", InputSchema: resolve.MustSchema(`{"type":"object"}`)}
		if upstream != "" {
			d.Upstream = []byte(upstream)
		}
		return (&resolve.Catalog{Tools: []resolve.Definition{d}}).Filter(func(resolve.Definition) bool { return true }).Fingerprint
	}
	const plain = `{"name":"fetch","description":"Fetch a URL.","inputSchema":{"type":"object"}`
	seen := map[string]string{}
	for _, up := range []string{"", plain + `}`, plain + `,"_meta":{"ui":{"resourceUri":"ui://a"}}}`, plain + `,"_meta":{"ui":{"resourceUri":"ui://b"}}}`,
		plain + `,"icons":[{"src":"https://tracker.example/p.png"}]}`, plain + `,"execution":{"taskSupport":"required"}}`, plain + `,"x":1}`} {
		f := fp(up)
		if other, ok := seen[f]; ok {
			t.Errorf("%s and %s give the same fingerprint", other, up)
		}
		seen[f] = up
		if again := fp(up); again != f {
			t.Errorf("%s: fingerprint %s, then %s", up, f, again)
		}
	}
}
