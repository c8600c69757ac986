package assign_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want assign.Assignment
	}{
		{"set", "foo=bar", assign.Assignment{Path: partial.Path{"foo"}, Op: assign.Set, Value: "bar"}},
		{"merge", "foo+=bar", assign.Assignment{Path: partial.Path{"foo"}, Op: assign.Merge, Value: "bar"}},
		{"json", "foo:=42", assign.Assignment{Path: partial.Path{"foo"}, Op: assign.SetJSON, Value: "42"}},
		{"merge json", `foo+:=["bar"]`, assign.Assignment{Path: partial.Path{"foo"}, Op: assign.MergeJSON, Value: `["bar"]`}},
		{"merge json other order", `foo:+=["bar"]`, assign.Assignment{Path: partial.Path{"foo"}, Op: assign.MergeJSON, Value: `["bar"]`}},
		{"list index", "foo.bar.1=qux", assign.Assignment{Path: partial.Path{"foo", "bar", "1"}, Op: assign.Set, Value: "qux"}},
		{"value holds =", "a=b=c", assign.Assignment{Path: partial.Path{"a"}, Op: assign.Set, Value: "b=c"}},
		{"empty value", "a=", assign.Assignment{Path: partial.Path{"a"}, Op: assign.Set, Value: ""}},
		{"quoted key holds operators", `tools.'a=b:c+d'.run=ask`, assign.Assignment{Path: partial.Path{"tools", "a=b:c+d", "run"}, Op: assign.Set, Value: "ask"}},
		{"double-quoted key with dot", `tools."fs.read".run=ask`, assign.Assignment{Path: partial.Path{"tools", "fs.read", "run"}, Op: assign.Set, Value: "ask"}},
		{"star key", `tools.'*'.run=ask`, assign.Assignment{Path: partial.Path{"tools", "*", "run"}, Op: assign.Set, Value: "ask"}},
		{"root object", ` {"tools": {}} `, assign.Assignment{Op: assign.MergeJSON, Value: `{"tools": {}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := assign.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no operator", "foo", `"foo" has no '='; write key=value, key:=json, key+=value or key:+=json`},
		{"empty key", "=x", `"=x": the key is empty; write key=value`},
		{"stray colon", "foo:x", `"foo:x": unexpected ":" after the key; write key=value, key:=json, key+=value or key:+=json`},
		{"empty segment", "a..b=1", `key path "a..b": unexpected '.' at offset 2; quote keys that hold other characters`},
		{"unterminated quote", "tools.'a=1", `"tools.'a=1": unterminated quoted key`},
		{"invalid utf-8", "tools.a.summary=\xe0", `"tools.a.summary=\xe0" is not valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := assign.Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded", tt.in)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error\n got: %s\nwant: %s", tt.in, err, tt.want)
			}
		})
	}
}

const baseLayer = `
[tools.grep]
source = "local"
command = "rg --json -n"
run = "ask"
summary = "Search."
options.max = 5
options.tags = ["a"]
options.limits = { lines = 10, bytes = 100 }

[tools.grep.parameters.path]
type = "string"

[tools.'fs.read']
source = "mcp.fs"

[mcp_servers.fs]
command = "npx"
args = ["-y", "server"]

[discover]
dirs = ["one", "two"]
`

// applied applies one assignment over the base layer and returns the
// finalized config.
func applied(t *testing.T, s string) (config.Config, error) {
	t.Helper()
	p := layertest.MustDecode(t, "base.toml", baseLayer, partial.TOML)
	a, err := assign.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	a.Source = "--cfg"
	if err := assign.Apply(&p, a); err != nil {
		return config.Config{}, err
	}
	c, _ := partial.Finalize(&p, config.Default())
	return c, nil
}

func TestApply(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		check func(c config.Config) any // what to compare
		want  any
	}{
		{"enum value", "tools.grep.run=unattended", func(c config.Config) any { return fixed(c.Tools["grep"].Run) }, config.RunUnattended},
		{"bool text into enable", "tools.grep.enable=false", func(c config.Config) any { return c.Tools["grep"].Enable }, &config.Enable{State: layertest.Ptr(false), AllowToggle: config.ToggleAny}},
		{"string into enable", "tools.grep.enable=explicit", func(c config.Config) any { return c.Tools["grep"].Enable }, &config.Enable{State: layertest.Ptr(false), AllowToggle: config.ToggleIfNamed}},
		{"command string", "tools.grep.command=rg --vimgrep 'a b'", func(c config.Config) any { return c.Tools["grep"].Command }, config.Command{Program: "rg", Args: []string{"--vimgrep", "a b"}}},
		{"list item in a value", "tools.grep.command.args.1=-w", func(c config.Config) any { return c.Tools["grep"].Command }, config.Command{Program: "rg", Args: []string{"--json", "-w"}}},
		{"append to a list in a value", "tools.grep.command.args+=-i,--hidden", func(c config.Config) any { return c.Tools["grep"].Command.Args }, []string{"--json", "-n", "-i", "--hidden"}},
		{"program inside a command", "tools.grep.command.program=ripgrep", func(c config.Config) any { return c.Tools["grep"].Command.Program }, "ripgrep"},
		{"option text stays a string", "tools.grep.options.max=10", func(c config.Config) any { return c.Tools["grep"].Options["max"] }, "10"},
		{"option json is typed", "tools.grep.options.max:=10", func(c config.Config) any { return c.Tools["grep"].Options["max"] }, int64(10)},
		{"new option", "tools.grep.options.mode=fast", func(c config.Config) any { return c.Tools["grep"].Options["mode"] }, "fast"},
		{"nested option", "tools.grep.options.limits.lines:=20", func(c config.Config) any { return c.Tools["grep"].Options["limits"] }, map[string]any{"lines": int64(20), "bytes": int64(100)}},
		{"append to an option array", "tools.grep.options.tags+=b,c", func(c config.Config) any { return c.Tools["grep"].Options["tags"] }, []any{"a", "b", "c"}},
		{"replace all options", `tools.grep.options:={"only": true}`, func(c config.Config) any { return c.Tools["grep"].Options }, map[string]any{"only": true}},
		{"merge options", `tools.grep.options:+={"extra": 1, "limits": {"bytes": 5}}`, func(c config.Config) any { return c.Tools["grep"].Options },
			map[string]any{"max": int64(5), "tags": []any{"a"}, "limits": map[string]any{"lines": int64(10), "bytes": int64(5)}, "extra": int64(1)}},
		{"new tool on demand", "tools.new_tool.source=local", func(c config.Config) any { return c.Tools["new_tool"].Source }, config.Source{Kind: config.SourceLocal}},
		{"key with a dot", "tools.'fs.read'.run=skip", func(c config.Config) any { return fixed(c.Tools["fs.read"].Run) }, config.RunSkip},
		{"unset a value", "tools.grep.run:=null", func(c config.Config) any { return fixed(c.Tools["grep"].Run) }, config.RunMode("")},
		{"unset a tool", "tools.grep:=null", func(c config.Config) any { _, ok := c.Tools["grep"]; return ok }, false},
		{"replace a tool", `tools.grep:={"source": "builtin"}`, func(c config.Config) any { return c.Tools["grep"] }, config.Tool{Source: config.Source{Kind: config.SourceBuiltin}}},
		{"merge into a tool", `tools.grep:+={"summary": "Find."}`, func(c config.Config) any { return []any{c.Tools["grep"].Summary, fixed(c.Tools["grep"].Run)} }, []any{"Find.", config.RunAsk}},
		{"replace a list", "discover.dirs=x,y", func(c config.Config) any { return c.Discover.Dirs }, []string{"x", "y"}},
		{"append to a list", "discover.dirs+=three", func(c config.Config) any { return c.Discover.Dirs }, []string{"one", "two", "three"}},
		{"escaped comma", `discover.dirs=a\,b,c`, func(c config.Config) any { return c.Discover.Dirs }, []string{"a,b", "c"}},
		{"list item", "discover.dirs.1=deux", func(c config.Config) any { return c.Discover.Dirs }, []string{"one", "deux"}},
		{"merge a json array into a list", `discover.dirs+:=["three"]`, func(c config.Config) any { return c.Discover.Dirs }, []string{"one", "two", "three"}},
		{"set a list from json", `discover.dirs:=["only"]`, func(c config.Config) any { return c.Discover.Dirs }, []string{"only"}},
		{"unset a list", "discover.dirs:=null", func(c config.Config) any { return c.Discover.Dirs }, []string(nil)},
		{"append server args", "mcp_servers.fs.args+=--verbose", func(c config.Config) any { return c.MCPServers["fs"].Args }, secret.Plains("-y", "server", "--verbose")},
		{"number", "mcp_servers.fs.startup_timeout_sec=2.5", func(c config.Config) any { return c.MCPServers["fs"].StartupTimeoutSec }, 2.5},
		{"env entry", "mcp_servers.fs.env.LOG=debug", func(c config.Config) any { return c.MCPServers["fs"].Env }, map[string]secret.String{"LOG": secret.Plain("debug")}},
		{"bool", "tools.grep.parameters.path.required=true", func(c config.Config) any { return *c.Tools["grep"].Parameters["path"].Required }, true},
		{"enum list", "tools.grep.parameters.path.enum=a,b", func(c config.Config) any { return c.Tools["grep"].Parameters["path"].Enum }, []any{"a", "b"}},
		{"nested items", "tools.grep.parameters.path.items.type=string", func(c config.Config) any { return c.Tools["grep"].Parameters["path"].Items.Type }, config.Types{"string"}},
		{"type list from text", "tools.grep.parameters.path.type:=[\"string\",\"null\"]", func(c config.Config) any { return c.Tools["grep"].Parameters["path"].Type }, config.Types{"string", "null"}},
		{"answer", "tools.grep.questions.apply.answer:=true", func(c config.Config) any { return c.Tools["grep"].Questions["apply"].Answer }, true},
		{"root object merges key by key", `{"tools": {"grep": {"summary": "Find."}}}`, func(c config.Config) any { return []any{c.Tools["grep"].Summary, fixed(c.Tools["grep"].Run)} }, []any{"Find.", config.RunAsk}},
		{"root object with unset", `{"unset": ["tools.grep.run"], "tools": {"grep": {"summary": "Find."}}}`, func(c config.Config) any { return []any{c.Tools["grep"].Summary, fixed(c.Tools["grep"].Run)} }, []any{"Find.", config.RunMode("")}},
		{"defaults entry", "tools.'*'.run=unattended", func(c config.Config) any {
			g, _ := c.Tools.Effective("grep")
			n, _ := c.Tools.Effective("fs.read")
			return []any{g.Run(), n.Run()}
		}, []any{config.RunAsk, config.RunUnattended}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := applied(t, tt.in)
			if err != nil {
				t.Fatalf("%s: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, tt.check(c)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"unknown key", "tools.grep.rnu=ask", "--cfg: tools.grep.rnu: unknown key; did you mean run?"},
		{"unknown top key", "tool.grep.run=ask", "--cfg: tool: unknown key; did you mean tools?"},
		{"bad enum", "tools.grep.run=askk", `--cfg: tools.grep.run: expected one of ask, unattended, edit, skip, found "askk"; did you mean ask?`},
		{"bad number", "mcp_servers.fs.startup_timeout_sec=soon", `--cfg: mcp_servers.fs.startup_timeout_sec: expected a number, found string "soon"`},
		{"bad bool", "tools.grep.parameters.path.required=yes", `--cfg: tools.grep.parameters.path.required: expected a boolean, found string "yes"`},
		{"bad source", "tools.grep.source=mcp", `--cfg: tools.grep.source: invalid source "mcp": an mcp source needs a server; write mcp.<server> or mcp.<server>.<tool>`},
		{"unbalanced command", "tools.grep.command=rg 'x", `--cfg: tools.grep.command: invalid command "rg 'x": unterminated single-quoted string; balance the quotes, or write { program = "...", args = [...] }`},
		{"index past the end", "tools.grep.command.args.5=x", "--cfg: tools.grep.command.args.5: index 5 is past the end of the list (2 items)"},
		{"list index past the end", "discover.dirs.2=x", "--cfg: discover.dirs.2: index 2 is past the end of the list (2 items)"},
		{"not an index", "discover.dirs.first=x", `--cfg: discover.dirs.first: "first" is not a list index; name an item by its number, from 0`},
		{"into a value not set", "tools.'fs.read'.command.args.0=x", "--cfg: tools.'fs.read'.command: is not set, so nothing inside it can be changed; give it whole: tools.'fs.read'.command:=..."},
		{"text on a table", "tools.grep=x", "--cfg: tools.grep: is a table, not a single value; set one of its keys (tools.grep.<key>=...), or replace it: tools.grep:={...}"},
		{"append to a value", "tools.grep.summary+=x", "--cfg: tools.grep.summary: += appends to lists, and a single value is not one; use = to set it, or :+= to merge a JSON value"},
		{"invalid json", "tools.grep.options:={bad", "--cfg: tools.grep.options: invalid JSON after := at column 2: invalid character 'b' at start of value; quote strings and keys: key:='\"text\"'"},
		{"json of the wrong type", `tools.grep.run:=5`, "--cfg: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found number 5"},
		{"json object without key", `{"tools": 5}`, "--cfg: tools: expected a table, found integer 5"},
		{"root json not an object", `:=5`, `":=5": the key is empty; write key:=value`},
		{"inside a command field", "tools.grep.command.progam=x", "--cfg: tools.grep.command.progam: unknown key; did you mean program?"},
		{"empty program", "tools.grep.command.program=", `--cfg: tools.grep.command: invalid command "'' --json -n": the program name is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "base.toml", baseLayer, partial.TOML)
			before := clone(&p)
			a, err := assign.Parse(tt.in)
			if err == nil {
				a.Source = "--cfg"
				err = assign.Apply(&p, a)
			}
			if err == nil {
				t.Fatalf("%s: no error", tt.in)
			}
			if got := oneLine(err); got != tt.want {
				t.Errorf("%s:\n got: %s\nwant: %s", tt.in, got, tt.want)
			}
			if !equal(&p, before) {
				t.Errorf("%s: a failed assignment changed the layer", tt.in)
			}
		})
	}
}

func oneLine(err error) string {
	var lines []string
	for _, e := range diag.All(err) {
		lines = append(lines, e.Error())
	}
	return strings.Join(lines, "\n")
}

var partialShape = shape.MustOf(reflect.TypeFor[config.Partial]())

func clone(p *config.Partial) *config.Partial {
	return shape.Clone(reflect.ValueOf(p).Elem(), partialShape).Addr().Interface().(*config.Partial)
}

func equal(a, b *config.Partial) bool {
	return shape.Equal(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), partialShape)
}

// TestApplyKeepsGoodAssignments: the assignments that fail are reported
// together, and the others apply.
func TestApplyKeepsGoodAssignments(t *testing.T) {
	p := layertest.MustDecode(t, "base.toml", baseLayer, partial.TOML)
	var as []assign.Assignment
	for i, s := range []string{"tools.grep.run=skip", "tools.grep.rnu=ask", "tools.grep.summary=Find.", "tools.grep.result=later"} {
		a, err := assign.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		a.Source = "--cfg #" + string(rune('1'+i))
		as = append(as, a)
	}
	err := assign.Apply(&p, as...)
	want := "--cfg #2: tools.grep.rnu: unknown key; did you mean run?\n" +
		`--cfg #4: tools.grep.result: expected one of unattended, ask, edit, skip, found "later"`
	if got := oneLine(err); got != want {
		t.Errorf("errors:\n got: %s\nwant: %s", got, want)
	}
	c, _ := partial.Finalize(&p, config.Default())
	if got := []any{fixed(c.Tools["grep"].Run), c.Tools["grep"].Summary}; !reflect.DeepEqual(got, []any{config.RunSkip, "Find."}) {
		t.Errorf("good assignments did not apply: %v", got)
	}
}

// TestLayerMergesToApply: the layer an assignment makes, merged over the
// base, gives what Apply gives; and the delta from the base to the result
// holds only what the assignment changed.
func TestLayerMergesToApply(t *testing.T) {
	for _, s := range []string{
		"tools.grep.run=unattended", "tools.grep.command.args.0=--vimgrep", "discover.dirs.1=x",
		"tools.grep.options:={\"a\":1}", "tools.grep:=null", "discover.dirs+=z", `{"tools":{"x":{"source":"builtin"}}}`,
	} {
		t.Run(s, func(t *testing.T) {
			base := layertest.MustDecode(t, "base.toml", baseLayer, partial.TOML)
			a, err := assign.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			l, err := assign.Layer(&base, a)
			if err != nil {
				t.Fatal(err)
			}
			applied := clone(&base)
			if err := assign.Apply(applied, a); err != nil {
				t.Fatal(err)
			}
			merged := merge.Layers(&base, l)
			want, _ := partial.Finalize(applied, config.Default())
			got, _ := partial.Finalize(merged, config.Default())
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("merge(base, Layer) differs from Apply (-want +got):\n%s", diff)
			}
			d := delta.Between(&base, applied)
			again, _ := partial.Finalize(merge.Layers(&base, d), config.Default())
			if diff := cmp.Diff(want, again); diff != "" {
				t.Errorf("merge(base, delta(base, applied)) differs (-want +got):\n%s", diff)
			}
			text, err := codec.Encode(d, partial.TOML)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(text), "summary") {
				t.Errorf("delta holds the untouched summary:\n%s", text)
			}
		})
	}
}

// fixed is the mode of a policy that decides every call alike.
func fixed[M config.Mode](rs config.Rules[M]) M {
	m, _ := rs.Fixed()
	return m
}
