package doc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readers are the three readers, by format.
var readers = []struct {
	format Format
	read   func(Options, []byte) (*Doc, []*Error)
}{
	{TOML, Options.ReadTOML},
	{JSON, Options.ReadJSON},
	{YAML, Options.ReadYAML},
}

// problem is what the hostile tests check of an error: where it is and
// what it says.
type problem struct {
	Line, Col int
	Msg       string
	More      int
}

func problems(d *Doc, errs []*Error) []problem {
	var out []problem
	for _, e := range errs {
		line, col := d.Position(e.Off)
		out = append(out, problem{line, col, e.Msg, e.More})
	}
	return out
}

// TestEncodingProblems: every format refuses the same bytes with the same
// positioned message, and skips a UTF-8 byte order mark.
func TestEncodingProblems(t *testing.T) {
	// The same layer in each format, with a marker where bad bytes go.
	docs := map[Format]string{
		TOML: "[tools.a]\nsummary = \"x@\"\n",
		JSON: "{\"tools\": {\"a\":\n  {\"summary\": \"x@\"}}}",
		YAML: "tools:\n  a: {summary: \"x@\"}\n",
	}
	tests := []struct {
		name   string
		bad    string // replaces @
		prefix string // goes before the document
		want   func(f Format) []problem
	}{
		{
			name: "invalid UTF-8", bad: "\xff",
			want: func(f Format) []problem {
				return []problem{{2, strings.Index(strings.Split(docs[f], "\n")[1], "@") + 1, "invalid UTF-8: the byte 0xff does not start a character here; save the file as UTF-8", 0}}
			},
		},
		{
			name: "a truncated character", bad: "\xe2\x82",
			want: func(f Format) []problem {
				return []problem{{2, strings.Index(strings.Split(docs[f], "\n")[1], "@") + 1, "invalid UTF-8: the byte 0xe2 does not start a character here; save the file as UTF-8", 0}}
			},
		},
		{
			name: "NUL", bad: "\x00",
			want: func(f Format) []problem {
				return []problem{{2, strings.Index(strings.Split(docs[f], "\n")[1], "@") + 1, "a NUL byte (U+0000) is not allowed; write it escaped in a string", 0}}
			},
		},
		{
			name: "UTF-16 byte order mark", prefix: "\xff\xfe", bad: "y",
			want: func(Format) []problem {
				return []problem{{1, 1, "the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8", 0}}
			},
		},
		{
			name: "UTF-8 byte order mark is skipped", prefix: "\ufeff", bad: "y",
			want: func(Format) []problem { return nil },
		},
	}
	for _, tt := range tests {
		for _, r := range readers {
			t.Run(tt.name+"/"+r.format.String(), func(t *testing.T) {
				src := tt.prefix + strings.Replace(docs[r.format], "@", tt.bad, 1)
				d, errs := r.read(Options{}, []byte(src))
				if diff := cmp.Diff(tt.want(r.format), problems(d, errs)); diff != "" {
					t.Fatalf("problems (-want +got):\n%s", diff)
				}
				if len(errs) == 0 && d.Root.Get("tools").Get("a").Get("summary").Str != "x"+tt.bad {
					t.Errorf("summary = %q", d.Root.Get("tools").Get("a").Get("summary").Str)
				}
			})
		}
	}
}

// TestYAMLControlCharacters: the characters YAML refuses are refused at
// their place, not by the parser without one.
func TestYAMLControlCharacters(t *testing.T) {
	for _, c := range []rune{0x1b, 0x7f, 0x9b, 0xfffe} {
		src := fmt.Sprintf("a: 1\nb: x%cy\n", c)
		d, errs := ReadYAML([]byte(src))
		want := []problem{{2, 5, fmt.Sprintf(`the character U+%04X is not allowed in YAML; write it escaped in a double-quoted string (\u%04X)`, c, c), 0}}
		if diff := cmp.Diff(want, problems(d, errs)); diff != "" {
			t.Errorf("U+%04X (-want +got):\n%s", c, diff)
		}
	}
}

// TestYAMLSyntaxErrorsOnTheFirstLine: the parser names no line for its
// first one; the problem is there.
func TestYAMLSyntaxErrorsOnTheFirstLine(t *testing.T) {
	d, errs := ReadYAML([]byte("a: b: c\n"))
	if got := problems(d, errs); len(got) != 1 || got[0].Line != 1 || got[0].Col != 1 {
		t.Errorf("problems %+v, want one at 1:1", got)
	}
}

// deep returns a document in format f whose value nests depth levels deep
// in the given form, and where the level past limit begins (1-based line
// and column), when it does.
func deep(f Format, form string, depth int) string {
	var b strings.Builder
	switch f {
	case TOML:
		switch form {
		case "header":
			b.WriteString("[a")
			b.WriteString(strings.Repeat(".a", depth-2))
			b.WriteString("]\nv = 1\n")
		case "dotted":
			b.WriteString("a")
			b.WriteString(strings.Repeat(".a", depth-1))
			b.WriteString(" = 1\n")
		case "arrays":
			b.WriteString("a = ")
			b.WriteString(strings.Repeat("[", depth))
			b.WriteString(strings.Repeat("]", depth))
			b.WriteString("\n")
		case "inline":
			b.WriteString("a = ")
			b.WriteString(strings.Repeat("{a = ", depth-1))
			b.WriteString("{}")
			b.WriteString(strings.Repeat("}", depth-1))
			b.WriteString("\n")
		case "array tables":
			// [[a]] then [[a.a]]...: each part is an array and its table
			// (and an odd depth ends with a table).
			for i := 1; 2*i <= depth; i++ {
				b.WriteString("[[a" + strings.Repeat(".a", i-1) + "]]\n")
			}
			if depth%2 == 1 {
				b.WriteString("[a" + strings.Repeat(".a", depth/2) + "]\n")
			}
		}
	case JSON:
		switch form {
		case "objects":
			b.WriteString(strings.Repeat(`{"a":`, depth))
			b.WriteString("1")
			b.WriteString(strings.Repeat("}", depth))
		case "arrays":
			b.WriteString(`{"a":`)
			b.WriteString(strings.Repeat("[", depth))
			b.WriteString(strings.Repeat("]", depth))
			b.WriteString("}")
		}
	case YAML:
		switch form {
		case "flow":
			b.WriteString("a: ")
			b.WriteString(strings.Repeat("[", depth))
			b.WriteString(strings.Repeat("]", depth))
			b.WriteString("\n")
		case "sequences":
			b.WriteString("a:\n")
			b.WriteString(strings.Repeat("- ", depth-1))
			b.WriteString("x\n")
		case "block":
			for i := 0; i < depth; i++ {
				b.WriteString(strings.Repeat(" ", i) + "a:\n")
			}
		}
	}
	return b.String()
}

// TestDepth: every form of nesting in every format is accepted up to the
// limit and refused, with one positioned problem, past it; far past it
// (where the parsers' own bounds or Go's stack would give out) too.
func TestDepth(t *testing.T) {
	forms := map[Format][]string{
		TOML: {"header", "dotted", "arrays", "inline", "array tables"},
		JSON: {"objects", "arrays"},
		YAML: {"flow", "sequences", "block"},
	}
	const limit = 50
	for _, r := range readers {
		for _, form := range forms[r.format] {
			t.Run(r.format.String()+"/"+form, func(t *testing.T) {
				d, errs := r.read(Options{MaxDepth: limit}, []byte(deep(r.format, form, limit)))
				if len(errs) > 0 {
					t.Fatalf("at the limit: %v", errs)
				}
				if got := nesting(d.Root); got != limit {
					t.Fatalf("the document nests %d levels, want %d (the test's generator is wrong)", got, limit)
				}
				for _, depth := range []int{limit + 1, 3 * limit, 30_000} {
					if (form == "block" || form == "array tables") && depth > 3*limit {
						continue // quadratic in size
					}
					d, errs := r.read(Options{MaxDepth: limit}, []byte(deep(r.format, form, depth)))
					got := problems(d, errs)
					if len(got) == 0 {
						t.Fatalf("%d levels: no problem", depth)
					}
					// One problem, or one for each [header] too deep.
					for _, p := range got {
						if p.More == 0 && (p.Line < 1 || p.Msg != "tables and arrays nest deeper than 50 levels, the limit") {
							t.Errorf("%d levels: problem %+v, want a positioned one about the depth", depth, p)
						}
					}
					if len(got) > 1 && form != "array tables" {
						t.Errorf("%d levels: %d problems, want one", depth, len(got))
					}
				}
			})
		}
	}
	t.Run("dots that are not keys", func(t *testing.T) {
		dots := strings.Repeat(".", 3*limit)
		for _, src := range []string{
			`a = "` + dots + `"`, `a = '` + dots + `'`, "a = \"\"\"\n" + dots + "\n\\\"\"\"\n" + dots + "\"\"\"",
			"a = '''" + dots + "'''", "# " + dots, "a = [1.5, 2.5, 3.5]\nb = 1979-05-27T07:32:00.999Z",
			`"` + dots + `" = 1`, `a."` + dots + `".b = 1`,
		} {
			if _, errs := (Options{MaxDepth: limit}).ReadTOML([]byte(src)); len(errs) > 0 {
				t.Errorf("%.60q: %v", src, errs)
			}
		}
	})
	t.Run("default limit", func(t *testing.T) {
		for _, r := range readers {
			_, errs := r.read(Options{}, []byte(deep(r.format, forms[r.format][0], 1001)))
			if len(errs) != 1 || !strings.Contains(errs[0].Msg, "deeper than 1,000 levels") {
				t.Errorf("%s: %v, want the default limit of 1,000 levels", r.format, errs)
			}
		}
	})
}

// TestErrorFlood: a document with a problem on every key keeps MaxErrors
// of them and counts the rest.
func TestErrorFlood(t *testing.T) {
	const n = 40_000
	docs := map[Format]string{
		TOML: strings.Repeat("a = 1\n", n+1),
		JSON: "{" + strings.Repeat(`"a":1,`, n) + `"a":1}`,
		YAML: strings.Repeat("a: 1\n", n+1),
	}
	for _, r := range readers {
		t.Run(r.format.String(), func(t *testing.T) {
			_, errs := r.read(Options{MaxErrors: 7}, []byte(docs[r.format]))
			if len(errs) != 8 || errs[7].More != n-7 || errs[7].Off != -1 {
				t.Fatalf("%d problems, the last %+v; want 7 and one that counts %d more", len(errs), errs[len(errs)-1], n-7)
			}
			for _, e := range errs[:7] {
				if e.Off < 0 || !strings.Contains(e.Msg, "twice") {
					t.Errorf("problem %+v, want a positioned duplicate key", e)
				}
			}
		})
	}
}

// TestLongKeysAreCut: a message quotes a prefix of a long key or value,
// in the path and in the text.
func TestLongKeysAreCut(t *testing.T) {
	key := strings.Repeat("k", 1<<20)
	docs := map[Format]string{
		TOML: key + " = 1\n" + key + " = 2\n",
		JSON: `{"` + key + `": 1, "` + key + `": 2}`,
		YAML: "? " + key + "\n: 1\n? " + key + "\n: 2\n",
	}
	cut := strings.Repeat("k", 10) + "…"
	for _, r := range readers {
		t.Run(r.format.String(), func(t *testing.T) {
			_, errs := r.read(Options{MaxQuote: 10}, []byte(docs[r.format]))
			if len(errs) != 1 {
				t.Fatalf("problems %v, want 1", errs)
			}
			if diff := cmp.Diff([]string{cut}, errs[0].Path); diff != "" {
				t.Errorf("path (-want +got):\n%s", diff)
			}
			if len(errs[0].Msg) > 200 || !strings.Contains(errs[0].Msg, cut) {
				t.Errorf("message %.300q, want it to quote %q", errs[0].Msg, cut)
			}
		})
	}
	t.Run("a long number", func(t *testing.T) {
		_, errs := Options{MaxQuote: 10}.ReadJSON([]byte(`{"a": 1` + strings.Repeat("0", 1<<20) + `}`))
		if len(errs) != 1 || len(errs[0].Msg) > 200 {
			t.Errorf("problems %.300v, want one short one", errs)
		}
	})
}

// TestWritersDeepTrees: writing a tree far deeper than the readers allow
// by default works, in output linear in the tree's size, and reads back
// the same with a limit raised to match, as deep as the parser goes:
// TOML's headers without bound; JSON to its tokenizer's 10,000 levels,
// and past them the JSON written is whole, and reading it says which
// bound it passed (see TestJSONTokenizerNesting).
func TestWritersDeepTrees(t *testing.T) {
	const depth = 30_000
	deepTree := func(depth int) *Node {
		root := NewTable()
		n := root
		for i := 0; i < depth-1; i++ {
			c := NewTable()
			n.Set("a", c)
			n = c
		}
		n.Set("v", NewInt(1))
		return root
	}
	for _, w := range []struct {
		format   Format
		depth    int
		write    func(*Node) ([]byte, error)
		read     func(Options, []byte) (*Doc, []*Error)
		readable bool // the parser reads back a tree this deep
	}{
		{TOML, depth, WriteTOML, Options.ReadTOML, true},
		{JSON, depth, WriteJSON, Options.ReadJSON, false},
		{JSON, jsonTokenizerNesting, WriteJSON, Options.ReadJSON, true},
	} {
		out, err := w.write(deepTree(w.depth))
		if err != nil {
			t.Fatalf("%s, %d levels: %v", w.format, w.depth, err)
		}
		// Each level takes a key and two lines (JSON's opening and
		// closing), indented at most maxIndent levels: a few hundred
		// bytes, not a line indented in full (1.8 GB at 30,000 levels).
		if limit := w.depth * 2 * (2*maxIndent + 10); len(out) > limit {
			t.Errorf("%s, %d levels: wrote %d bytes, want at most %d", w.format, w.depth, len(out), limit)
		}
		if w.format == JSON {
			compact := strings.Join(strings.Fields(string(out)), "")
			want := strings.Repeat(`{"a":`, w.depth-1) + `{"v":1}` + strings.Repeat("}", w.depth-1)
			if compact != want {
				t.Errorf("%s, %d levels: the JSON written is not the tree (%d bytes without blanks, want %d)", w.format, w.depth, len(compact), len(want))
			}
		}
		d, errs := w.read(Options{MaxDepth: depth}, out)
		if !w.readable {
			if len(errs) != 1 || !strings.Contains(errs[0].Msg, "the JSON tokenizer's limit") {
				t.Errorf("%s, %d levels: reading back: %v, want one problem naming the tokenizer's limit", w.format, w.depth, errs)
			}
			continue
		}
		if len(errs) > 0 {
			t.Fatalf("%s, %d levels: reading back: %v", w.format, w.depth, errs)
		}
		if got := nesting(d.Root); got != w.depth {
			t.Errorf("%s: read back %d levels, want %d", w.format, got, w.depth)
		}
	}
}

// TestJSONTokenizerNesting: past the JSON tokenizer's own bound, the
// problem names that bound, at the value that goes past it, when a host
// raised ours above it.
func TestJSONTokenizerNesting(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  string
		off  int32
	}{
		{"objects", strings.Repeat(`{"a":`, jsonTokenizerNesting+1) + "1" + strings.Repeat("}", jsonTokenizerNesting+1), 5 * jsonTokenizerNesting},
		{"arrays", `{"a":` + strings.Repeat("[", jsonTokenizerNesting) + strings.Repeat("]", jsonTokenizerNesting) + "}", 5 + jsonTokenizerNesting - 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := Options{MaxDepth: 50_000}.ReadJSON([]byte(tt.src))
			want := []*Error{{Off: tt.off, Msg: "objects and arrays nest deeper than 10,000 levels, the JSON tokenizer's limit"}}
			if diff := cmp.Diff(want, errs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTOMLParserNesting: past go-toml's own bound on inline values, the
// problem names that bound when a host raised ours above it.
func TestTOMLParserNesting(t *testing.T) {
	src := []byte("a = " + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + "\n")
	for _, tt := range []struct {
		max  int
		want string
	}{
		{0, "tables and arrays nest deeper than 1,000 levels, the limit"},
		{50_000, "inline tables and arrays nest deeper than 10,000 levels, the TOML parser's limit"},
	} {
		d, errs := Options{MaxDepth: tt.max}.ReadTOML(src)
		if got := problems(d, errs); len(got) != 1 || got[0].Msg != tt.want || got[0].Line != 1 {
			t.Errorf("MaxDepth %d: %+v, want one problem on line 1: %s", tt.max, got, tt.want)
		}
	}
}

// TestValues: each reader counts every value (the root, tables, arrays
// and scalars, a table of a header or a dotted key too) and stops at the
// first one past the limit, with one positioned problem; the values of
// the documents before count against it.
func TestValues(t *testing.T) {
	const limit = 100
	ones := func(n int) string { return strings.TrimSuffix(strings.Repeat("1,", n), ",") }
	// Each document holds n values.
	docs := []struct {
		name   string
		format Format
		make   func(n int) string
	}{
		{"toml array", TOML, func(n int) string { return "a = [" + ones(n-2) + "]" }},
		{"toml headers", TOML, func(n int) string {
			var b strings.Builder
			for i := range n - 1 {
				fmt.Fprintf(&b, "[t%d]\n", i)
			}
			return b.String()
		}},
		{"toml dotted keys", TOML, func(n int) string {
			var b strings.Builder
			for i := range (n - 1) / 2 {
				fmt.Fprintf(&b, "t%d.v = 1\n", i)
			}
			if (n-1)%2 == 1 {
				b.WriteString("z = 1\n")
			}
			return b.String()
		}},
		{"toml inline tables", TOML, func(n int) string { return "a = [" + strings.Repeat("{},", n-2) + "]" }},
		{"json array", JSON, func(n int) string { return `{"a": [` + ones(n-2) + "]}" }},
		{"json objects", JSON, func(n int) string {
			var b strings.Builder
			b.WriteString("{")
			for i := range n - 1 {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `"k%d": {}`, i)
			}
			return b.String() + "}"
		}},
		{"yaml flow", YAML, func(n int) string { return "a: [" + ones(n-2) + "]" }},
		{"yaml block", YAML, func(n int) string { return "a:\n" + strings.Repeat("- 1\n", n-2) }},
		{"yaml aliases", YAML, func(n int) string {
			// x is five values, and so is each alias of it.
			return "x: &x [1, 1, 1, 1]\na: [" + strings.Repeat("*x,", (n-7)/5) + ones((n-7)%5) + "]"
		}},
	}
	for _, tt := range docs {
		read := map[Format]func(Options, []byte) (*Doc, []*Error){TOML: Options.ReadTOML, JSON: Options.ReadJSON, YAML: Options.ReadYAML}[tt.format]
		t.Run(tt.name, func(t *testing.T) {
			d, errs := read(Options{MaxValues: limit}, []byte(tt.make(limit)))
			if len(errs) > 0 {
				t.Fatalf("at the limit: %v", errs)
			}
			if d.Values != limit {
				t.Fatalf("the document holds %d values, want %d (the test's generator is wrong)", d.Values, limit)
			}
			for _, tc := range []struct {
				name   string
				o      Options
				values int
				msg    string
			}{
				{"one more", Options{MaxValues: limit}, limit + 1, "the file holds more than 100 values (tables, arrays and scalars), the limit"},
				{"many more", Options{MaxValues: limit}, 50 * limit, "the file holds more than 100 values (tables, arrays and scalars), the limit"},
				{"after other documents", Options{MaxValues: 3 * limit, ValuesBefore: 2*limit + 1}, limit, "the layer files of this load hold more than 300 values (tables, arrays and scalars), the limit"},
			} {
				d, errs := read(tc.o, []byte(tt.make(tc.values)))
				got := problems(d, errs)
				if len(got) != 1 || got[0].Line < 1 || got[0].Msg != tc.msg {
					t.Errorf("%s: problems %+v, want one positioned %q", tc.name, got, tc.msg)
				}
				if d.Values > tc.o.MaxValues-tc.o.ValuesBefore+1 {
					t.Errorf("%s: the reader made %d values, past the limit and one", tc.name, d.Values)
				}
			}
		})
	}
	t.Run("default limit", func(t *testing.T) {
		for _, r := range readers {
			src := map[Format]string{TOML: "a = [" + ones(320_000) + "]", JSON: `{"a": [` + ones(320_000) + "]}", YAML: "a: [" + ones(320_000) + "]"}[r.format]
			_, errs := r.read(Options{}, []byte(src))
			if len(errs) != 1 || !strings.Contains(errs[0].Msg, "more than 320,000 values") {
				t.Errorf("%s: %v, want the default limit of 320,000 values", r.format, errs)
			}
		}
	})
}
