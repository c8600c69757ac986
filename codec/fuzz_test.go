package codec_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

var partialShape = shape.MustOf(reflect.TypeFor[config.Partial]())

func equalPartials(a, b *config.Partial) bool {
	return shape.Equal(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), partialShape)
}

// tomlLayers are layer documents that decode into a config.Partial, or
// nearly do, covering every kind of field and every way of writing it.
var tomlLayers = []string{
	"",
	"[tools.'*']\nrun = \"ask\"\nresult = \"unattended\"\nenable = true\n",
	`[tools.fs_modify_file]
source = "local"
command = "jp-tools {{tool}} {{context}}"
summary = "Modify a file."
description = "Longer text; {{description}} inserts the discovered description."
examples = "..."
run = "unattended"
options.auto_approve_max_changed_lines = 10
questions.apply_changes = { target = "user", answer = true }

[tools.fs_modify_file.parameters.path]
type = "string"
required = true
enum = ["a", "b"]
default = "a"
summary = "..."
description = "..."
`,
	"[tools.grep]\ncommand = { program = \"rg\", args = [\"--json\", \"x y\"], shell = false }\nenable = { state = \"explicit\", allow_toggle = false }\n",
	"[tools.sh]\ncommand = { program = \"echo\", args = [\"a'b\"], shell = true }\nenable = \"always\"\nsource = \"local.other\"\n",
	"[tools.read]\nsource = \"mcp.fs.read_file\"\n[tools.list]\nsource = \"mcp.'my.server'\"\n[tools.b]\nsource = \"builtin\"\n",
	"[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]\nenv = { LOG = \"1\" }\noptional = false\nstartup_timeout_sec = 60\ntool_timeout_sec = 1.5\ncwd = \"/tmp\"\nchecksum = \"sha256:00\"\n",
	"[mcp_servers.fs]\nargs = { value = [\"a\", \"a\"], strategy = \"append\", dedup = true }\n",
	"[mcp_servers.fs]\nargs = { prepend = [\"p\"], append = [\"q\"] }\n",
	"[discover]\ndirs = [\"tools\"]\n",
	"[discover]\ndirs = { value = [\"x\"], strategy = \"replace\" }\n",
	"[discover]\ndirs = { value = [\"x\"], strategy = \"prepend\", dedup = true }\n",
	"discover.dirs = { dedup = true }\n",
	"unset = [\"tools.grep.run\", \"tools.old_tool\", \"discover\"]\n",
	"unset = [\"tools.x\"]\n[tools.x]\nrun = \"skip\"\n",
	"unset = [\"tools\", \"mcp_servers.fs.env.LOG\", \"tools.t.options.o.k\", \"tools.t.parameters.p.items\"]\n",
	"unset = [\"tools.'*'.enable\", 'tools.\"a.b\".summary']\n",
	"[tools.t.parameters.list]\ntype = [\"array\", \"null\"]\nitems = { type = \"string\", enum = [\"x\", 1, 2.5, true] }\nexamples = [[1], { a = 1 }]\n",
	"[tools.t.parameters.obj.properties.a.properties.b]\ntype = \"object\"\ndefault = { k = [1, 2] }\n[tools.t.parameters.obj.items.items]\nrequired = false\n",
	"[tools.t.options]\na = 'x'\nb = [1, 'two', { three = 3.0 }]\nc = { d = { e = false } }\nf = {}\n",
	"[tools.t.parameters.p]\nenum = { value = [1], strategy = \"append\" }\nexamples = { prepend = [0], append = [2] }\n",
	"[tools.t]\nrnu = \"ask\"\nrun = \"sometimes\"\nresult = 1\nenable = \"maybe\"\n",
	"[tools.t]\nsource = \"mcp\"\ncommand = \"'unbalanced\"\n[tools.u.parameters.p]\ntype = \"strin\"\n",
	"[tools.t.options]\nd = 1979-05-27T07:32:00Z\nn = nan\n[mcp_servers.s]\nstartup_timeout_sec = inf\n",
	"unset = [\"tools.nope.runn\", \"\", 3, \"tools.t.summary.x\"]\n",
	"unset = \"tools\"\n",
	"tools = 1\n",
	"[tools.t]\n[tools.t]\n",
	"a = \n",
	"[tools.'héllo']\nsummary = \"\"\"\nmulti\nline\"\"\"\nexamples = '''\nraw'''\n",
	`[tools.""]
run = "ask"
[tools."a\nb"]
summary = "\u0000\r\n'"
[tools."'"]
[tools."a.b"]
examples = "\""
`,
	`unset = ['tools."a.b".run', "tools.''", "tools.'\"'.summary"]` + "\n",
	`[tools.t.options]
"" = { "" = [] }
o = [{ a = [{}] }, [], [[]]]
"unset" = "x"
`,
	"unset = [\"tools.t.options.o\"]\n[tools.t.options.o]\nk = 1\n",
	`[tools.t.parameters.p]
enum = [1e300, -0.0, 5e-324, 0.1, 9223372036854775807, -9223372036854775808]
default = {}
examples = [[], {}]
`,
	`[tools.t.questions.q]
answer = [1, [2, { a = 3 }]]
[tools.t.questions.r]
target = "assistant"
answer = {}
`,
	"[tools.t.parameters.p.items.items.items]\ntype = \"integer\"\n[tools.t.parameters.p.properties.q.items]\n",
	`[mcp_servers."my server"]
command = ""
args = []
env = {}
startup_timeout_sec = 0
tool_timeout_sec = -1
`,
	`[tools.t]
enable = false
command = "a 'b c' \"d\""
source = "mcp.'x.y'.\"z w\""
`,
	// merge strategies inside options, at every depth, and their errors
	`[tools.t.options]
a = { value = [3, 4], strategy = "append" }
b = { value = "x", strategy = "prepend", separator = "line" }
c = { value = { k = 1, n = { value = [1], strategy = "prepend" } }, strategy = "keep" }
d = { value = { k = { value = "s", strategy = "append", separator = "space" } }, strategy = "merge" }
e = { value = { value = 1, strategy = "lru" }, strategy = "replace" }
f = { value = [1], strategy = "wrap", prepend = [0], append = [2], fill = [9] }
g = { value = 5, strategy = "fill" }
h = { value = { x = 1 }, strategy = "deep_merge", fill = { y = 2 } }
i = [{ value = [1], strategy = "append" }, { value = "v", strategy = "replace" }]
[tools.t.options.j.k]
l = { value = ["z"], strategy = "replace" }
`,
	"unset = [\"tools.t.options.a\", \"tools.t.options.b.c\"]\n[tools.t.options]\na = { value = [1], strategy = \"append\" }\nb = { value = { c = 1 }, strategy = \"replace\" }\n",
	"[tools.t.options]\na = { value = [1], strategy = \"apend\" }\nb = { value = 1, strategy = \"append\" }\nc = { value = \"s\", strategy = \"append\", separator = \"tab\" }\nd = { value = [], strategy = \"keep\", extra = 1 }\ne = { value = {}, strategy = 3 }\n",
	"[tools.t]\nenable = { allow_toggle = \"never\" }\n[tools.u]\nenable.state = true\n[tools.v]\nenable = {}\n[tools.w]\nenable = { state = \"explicit\", allow_toggle = \"if_named\" }\n",
	"[tools.t]\nenable = { state = \"always\", allow_toggle = true }\n[tools.u]\nenable = { allow_toggle = \"always\" }\n",
}

var jsonLayers = []string{
	`{}`,
	`{"tools": {"*": {"run": "edit"}, "grep": {"command": "rg -n", "options": {"a": null, "b": [1, 2.0, "x"]}}}}`,
	`{"tools": {"grep": null, "x": {"run": null, "parameters": {"p": {"items": null, "enum": [null]}}}}}`,
	`{"tools": null, "mcp_servers": {"s": {"env": {"A": null, "B": "b"}, "args": {"value": [], "strategy": "replace"}}}}`,
	`{"discover": null, "unset": ["tools.a"]}`,
	`{"tools": {"t": {"enable": {"state": "on"}, "questions": {"q": {"answer": {"x": [1e3, -0.0]}}}}}}`,
	`{"tools": {"t": {"run": "ask", "run": "skip"}}}`,
	`{"tools": {"t": {"summary": 123456789012345678901234567890}}}`,
	`[1, 2]`,
	`{"tools": `,
	`{"tools": {"t": {"options": {"o": {}, "p": [{}], "": {"": null}}}}}`,
	`{"tools": {"t": {"parameters": {"p": {"default": {"a": {}}, "enum": [], "examples": {"value": [1.5], "strategy": "prepend"}}}}}}`,
	`{"tools": {"t": {"questions": {"q": null, "r": {"answer": null}}}}, "unset": ["tools.u"]}`,
	`{"mcp_servers": {"s": {"args": {"prepend": ["a"], "append": ["b"], "dedup": true}, "startup_timeout_sec": 1}}}`,
	`{"tools": {"t.u": {"command": {"program": "p", "args": [], "shell": true}, "enable": {"state": "off", "allow_toggle": true}}}}`,
	`{"tools": {"\u0000": {"summary": "\ud83d\ude00"}, "a\"b": {}}}`,
	`{"tools": {"t": {"options": {"a": {"value": [1], "strategy": "append"}, "b": {"value": {"c": null, "d": {"value": "x", "strategy": "fill"}}, "strategy": "replace"}, "e": {"value": {"f": null}, "strategy": "keep"}}}}}`,
	`{"tools": {"t": {"enable": {"allow_toggle": "if_named_or_group"}}, "u": {"enable": {"state": null}}}}`,
}

var yamlLayers = []string{
	"",
	"tools:\n  '*':\n    run: ask\n  grep:\n    command: rg -n\n    enable: off\n    options:\n      a: 1\n      b: [1, 2.5, x]\n",
	"tools:\n  grep: ~\n  x:\n    run: null\nunset:\n  - discover.dirs\n",
	"tools:\n  a: &b\n    run: ask\n    options: &o {k: [1, 2]}\n  x: *b\n  y:\n    options: *o\n",
	"tools:\n  x:\n    <<: {run: ask}\n",
	"tools:\n  x:\n    summary: 2001-12-14t21:59:43.10-05:00\n",
	"tools:\n  x:\n    options:\n      f: .inf\n",
	"- a\n- b\n",
	"tools: {x: [}\n",
	"mcp_servers:\n  s:\n    command: npx\n    args: [a, b]\n    startup_timeout_sec: 10\n",
	"tools:\n  t:\n    options:\n      o: {}\n      p: [{}, []]\n      q: ~\n    questions:\n      q:\n        answer: [1, {a: b}]\n",
	"discover:\n  dirs:\n    value: [a, a]\n    strategy: replace\n    dedup: true\n",
	"tools:\n  \"t.u\":\n    summary: |\n      line 1\n      line 2\n    enable: explicit\n",
}

// checkErrors asserts what every decoding error must be: an Errors whose
// items name the source and, when they have a position, a line and column
// inside data.
func checkErrors(t *testing.T, err error, source string, data []byte) {
	t.Helper()
	es, ok := err.(diag.Errors)
	if !ok {
		t.Fatalf("error is a %T, not diag.Errors: %v", err, err)
	}
	if len(es) == 0 {
		t.Fatal("empty diag.Errors returned as an error")
	}
	// Positions are in the document without its byte order mark.
	lines := bytes.Split(bytes.TrimPrefix(data, []byte("\uFEFF")), []byte("\n"))
	for _, e := range es {
		if e == nil {
			t.Fatal("nil *Error in Errors")
		}
		if e.Source != source {
			t.Errorf("error %q has source %q, want %q", e.Error(), e.Source, source)
		}
		if e.Msg == "" {
			t.Errorf("error %q has no message", e.Error())
		}
		switch {
		case e.Line == 0:
			if e.Column != 0 || e.Snippet() != "" {
				t.Errorf("error %q has no line but column %d, snippet %q", e.Error(), e.Column, e.Snippet())
			}
		case e.Line < 0 || e.Line > len(lines):
			t.Errorf("error %q: line %d outside the input (%d lines)", e.Error(), e.Line, len(lines))
		default:
			// Columns count every character before the position, a
			// carriage return too; the snippet leaves out the one that
			// ends a line.
			raw := lines[e.Line-1]
			if e.Column < 1 || e.Column > utf8.RuneCount(raw)+1 {
				t.Errorf("error %q: column %d outside line %d %q", e.Error(), e.Column, e.Line, raw)
			}
			// The snippet is the line, or the part of it around the
			// column, shown safely.
			// (each bad byte a character, as columns count them).
			var line []rune
			for rest := bytes.TrimSuffix(raw, []byte("\r")); len(rest) > 0; {
				r, size := utf8.DecodeRune(rest)
				if r != '\t' && unicode.IsControl(r) {
					r = utf8.RuneError
				}
				line, rest = append(line, r), rest[size:]
			}
			snippet := []rune(e.Snippet())
			if len(snippet) > 162 || !strings.Contains(string(line), strings.Trim(string(snippet), "…")) {
				t.Errorf("error %q: snippet %q, want line %d %q or a part of it", e.Error(), e.Snippet(), e.Line, string(line))
			}
		}
		_ = e.Render()
	}
	_ = es.Render()
	if !errors.Is(err, es[0]) {
		t.Errorf("errors.Is does not find the first problem")
	}
}

// reencode writes p in format f and reads it back, requiring both steps
// to succeed and to give back the same layer.
func reencode(t *testing.T, p *config.Partial, f partial.Format, what string) []byte {
	t.Helper()
	text, err := codec.Encode(p, f)
	if err != nil {
		t.Fatalf("%s: encode as %s: %v", what, f, err)
	}
	back := new(config.Partial)
	if err := codec.Decode("reencoded", text, f, back); err != nil {
		t.Fatalf("%s: %s output does not decode: %v\n%s", what, f, err, text)
	}
	if !equalPartials(p, back) {
		again, _ := codec.Encode(back, f)
		t.Fatalf("%s: %s read back differs:\nwritten:\n%s\nread back, rewritten:\n%s", what, f, text, again)
	}
	// The output is canonical: writing what was read gives the same bytes.
	if again, err := codec.Encode(back, f); err != nil || !bytes.Equal(again, text) {
		t.Fatalf("%s: %s output is not stable (err %v):\nfirst:\n%s\nsecond:\n%s", what, f, err, text, again)
	}
	return text
}

func FuzzDecode(f *testing.F) {
	for _, s := range tomlLayers {
		f.Add([]byte(s), uint8(partial.TOML))
	}
	for _, s := range jsonLayers {
		f.Add([]byte(s), uint8(partial.JSON))
	}
	for _, s := range yamlLayers {
		f.Add([]byte(s), uint8(partial.YAML))
	}
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		ft := partial.Format(format % 3)
		p := new(config.Partial)
		err := codec.Decode("fuzz", data, ft, p)
		if err != nil {
			checkErrors(t, err, "fuzz", data)
			return
		}
		reencode(t, p, partial.TOML, "decoded "+ft.String())
		reencode(t, p, partial.JSON, "decoded "+ft.String())
		// Finalizing a layer that decoded never panics, and its result
		// goes back to an equivalent layer.
		c, _ := config.Finalize(p)
		c2, _ := config.Finalize(config.ToPartial(c))
		if diff := layertest.Diff(c, c2); diff != "" {
			t.Fatalf("finalize(toPartial(x)) differs from x (-x +again):\n%s", diff)
		}
	})
}

func decodeTOML(data []byte) (*config.Partial, bool) {
	p := new(config.Partial)
	if err := codec.Decode("layer", data, partial.TOML, p); err != nil {
		return nil, false
	}
	return p, true
}

func FuzzDeltaRoundTrip(f *testing.F) {
	seeds := []string{}
	for _, s := range tomlLayers {
		if _, ok := decodeTOML([]byte(s)); ok {
			seeds = append(seeds, s)
		}
	}
	for i, a := range seeds {
		f.Add([]byte(a), []byte(seeds[(i+1)%len(seeds)]))
		f.Add([]byte(a), []byte(""))
		f.Add([]byte(""), []byte(a))
	}
	f.Add([]byte("[tools.x]\nrun = \"ask\"\nsummary = \"s\"\n"), []byte("[tools.x]\nrun = \"edit\"\n"))
	f.Add([]byte("discover.dirs = [\"a\", \"b\"]\n"), []byte("discover.dirs = [\"b\"]\n"))
	f.Add([]byte("discover.dirs = [\"a\"]\n"), []byte("discover.dirs = { prepend = [\"z\"], append = [\"a\", \"b\"] }\n"))
	f.Add([]byte("[tools.t.options.o]\na = 1\nb = 2\n"), []byte("[tools.t.options]\no = 3\n"))
	f.Add([]byte("[tools.t.options]\no = [1]\n"), []byte("[tools.t.options.o]\nb = 2\n"))
	f.Add([]byte("[tools.t.parameters.p.items]\ntype = \"string\"\n"), []byte("[tools.t.parameters.p]\ntype = \"array\"\n"))
	f.Add([]byte("[mcp_servers.s]\ncommand = \"a\"\nenv = { A = \"1\" }\n"), []byte("unset = [\"mcp_servers.s.env\"]\n[mcp_servers.s]\ncommand = \"a\"\n"))
	f.Add([]byte("unset = [\"tools.'*'\"]\n"), []byte("[tools.'*']\nrun = \"ask\"\n"))
	f.Fuzz(func(t *testing.T, da, db []byte) {
		a, ok := decodeTOML(da)
		if !ok {
			return
		}
		b, ok := decodeTOML(db)
		if !ok {
			return
		}
		d := delta.Between(a, b)
		want, _ := partial.Finalize(b, config.Default())
		got, _ := partial.Finalize(merge.Layers(a, d), config.Default())
		if diff := layertest.Diff(want, got); diff != "" {
			text, _ := codec.Encode(d, partial.TOML)
			t.Fatalf("finalize(merge(a, delta(a, b))) differs from finalize(b) (-b +merged):\n%s\ndelta:\n%s", diff, text)
		}
		if !delta.Empty(delta.Between(a, a)) {
			text, _ := codec.Encode(delta.Between(a, a), partial.TOML)
			t.Fatalf("delta(a, a) is not empty:\n%s", text)
		}
		reencode(t, d, partial.TOML, "delta")
		reencode(t, d, partial.JSON, "delta")
	})
}
