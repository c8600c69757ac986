package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePointer(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		err  string
	}{
		{"top-level", "/path", []string{"path"}, ""},
		{"nested", "/patterns/paths", []string{"patterns", "paths"}, ""},
		{"escapes", "/a~1b/c~0d", []string{"a/b", "c~d"}, ""},
		{"empty key", "/", []string{""}, ""},
		{"empty", "", nil, "an empty pointer"},
		{"no slash", "path", nil, "starts with /"},
		{"bad escape", "/a~2", nil, "~ is written ~0"},
		{"lone tilde", "/a~", nil, "~ is written ~0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePointer(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParsePointer(%q) error = %v, want one with %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParsePointer(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// args decodes JSON as a call's arguments are decoded: numbers as
// json.Number.
func args(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAnyWalksArrays: an array on the pointer's way, or at its end,
// stands for each of its items (JP RFD D25's example).
func TestHoldsWalksArrays(t *testing.T) {
	doc := args(t, `{"patterns": [{"old": "foo", "paths": ["src/a.rs"]}, {"old": "x", "paths": [".env"]}], "path": "a", "tags": [["deep", "x"]]}`)
	tests := []struct {
		name  string
		ptr   string
		value string
		want  bool
	}{
		{"the second pattern's path", "/patterns/paths", ".env", true},
		{"the first pattern's path", "/patterns/paths", "src/a.rs", true},
		{"no pattern has it", "/patterns/paths", "b", false},
		{"a string of each item", "/patterns/old", "x", true},
		{"a top-level argument", "/path", "a", true},
		{"a missing argument", "/nope", "a", false},
		{"past a string", "/path/x", "a", false},
		{"arrays of arrays", "/tags", "deep", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			segs, err := ParsePointer(tt.ptr)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Compile("const", tt.value, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Holds(doc, segs); got != tt.want {
				t.Errorf("Holds(%s, %q) = %v, want %v", tt.ptr, tt.value, got, tt.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name  string
		op    string
		value any
		path  bool
		arg   string // JSON
		want  bool
	}{
		{"string prefix", "prefix", "src/", false, `"src/lib.rs"`, true},
		{"string prefix is bytes", "prefix", "src", false, `"src-old/lib.rs"`, true},
		{"path prefix by components", "prefix", "src/", true, `"src/lib.rs"`, true},
		{"path prefix not of a sibling", "prefix", "src/", true, `"src-old/lib.rs"`, false},
		{"path prefix without the slash", "prefix", "src", true, `"src-old/lib.rs"`, false},
		{"path prefix of itself", "prefix", "src", true, `"src/"`, true},
		{"path made lexical", "prefix", "src/", true, `"./src/./a/../b.rs"`, true},
		{"a path that leaves the prefix", "prefix", "src/", true, `"src/../.env"`, false},
		{"what it leaves for", "const", ".env", true, `"src/../.env"`, true},
		{"a path that climbs out of everything", "prefix", ".", true, `"../secret"`, false},
		{"a prefix that names the climb", "prefix", "..", true, `"../secret"`, true},
		{"a path past the root stays there", "prefix", "/etc", true, `"/../etc/passwd"`, true},
		{"relative and absolute differ", "prefix", "etc", true, `"/etc/passwd"`, false},
		{"a backslash is part of a name", "prefix", "src/", true, `"src\\..\\.env"`, false},
		{"string suffix", "suffix", ".env", false, `"a/.env"`, true},
		{"path suffix after cleaning", "suffix", ".env", true, `"a/.env/"`, true},
		{"path suffix across components", "suffix", "a/.env", true, `"x//a/.env"`, true},
		{"glob in a component", "glob", "src/*.rs", true, `"src/lib.rs"`, true},
		{"glob star stops at a separator", "glob", "src/*.rs", true, `"src/a/lib.rs"`, false},
		{"glob double star", "glob", "src/**/*.rs", true, `"src/a/b/lib.rs"`, true},
		{"glob double star of nothing", "glob", "src/**/*.rs", true, `"src/lib.rs"`, true},
		{"glob does not climb", "glob", "**/.env", true, `"../.env"`, false},
		{"string glob", "glob", "rm *", false, `"rm -rf /"`, false},
		{"string glob in one part", "glob", "rm *", false, `"rm -rf"`, true},
		{"pattern", "pattern", `rm\s+-rf`, false, `"sudo rm  -rf /"`, true},
		{"pattern of a path after cleaning", "pattern", `^\.env$`, true, `"./.env"`, true},
		{"const string", "const", "jq", false, `"jq"`, true},
		{"const true", "const", true, false, `true`, true},
		{"const false is not true", "const", false, false, `true`, false},
		{"const number exactly", "const", int64(1), false, `1.0`, true},
		{"const number past float precision", "const", int64(9007199254740993), false, `9007199254740992`, false},
		{"const table", "const", map[string]any{"a": int64(1)}, false, `{"a": 1}`, true},
		{"enum", "enum", []any{"date", "wc"}, false, `"wc"`, true},
		{"enum without it", "enum", []any{"date", "wc"}, false, `"jq"`, false},
		{"enum of paths", "enum", []any{".env"}, true, `"./.env"`, true},
		{"minimum", "minimum", int64(1000), false, `1000`, true},
		{"minimum below", "minimum", int64(1000), false, `999.5`, false},
		{"exclusive minimum", "exclusive_minimum", int64(1000), false, `1000`, false},
		{"maximum", "maximum", 2.5, false, `2.5`, true},
		{"exclusive maximum", "exclusive_maximum", 2.5, false, `2.4`, true},
		{"a number is no string", "prefix", "1", false, `12`, false},
		{"a string is no number", "minimum", int64(1), false, `"5"`, false},
		{"a boolean is no number", "maximum", int64(1), false, `true`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Compile(tt.op, tt.value, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Match(args(t, tt.arg)); got != tt.want {
				t.Errorf("%s = %v (path %v) on %s: %v, want %v", tt.op, tt.value, tt.path, tt.arg, got, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name  string
		op    string
		value any
		err   string
	}{
		{"a prefix of a number", "prefix", int64(1), "prefix takes a string, found number 1"},
		{"a bad pattern", "pattern", "(", "is not a regular expression: missing closing )"},
		{"a bad glob", "glob", "[", "is not a glob"},
		{"an empty enum", "enum", []any{}, "an empty enum matches nothing"},
		{"an enum of one value", "enum", "x", "enum takes an array of values"},
		{"a minimum of a string", "minimum", "1", "minimum takes a number"},
		{"an unknown matcher", "starts_with", "x", `unknown matcher "starts_with"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.op, tt.value, false)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Compile(%s, %v) = %v, want an error with %q", tt.op, tt.value, err, tt.err)
			}
		})
	}
}

// TestImplies holds JP RFD D25's table of unreachable rules (each case
// found, with no false positive) and strata's additions.
func TestImplies(t *testing.T) {
	type m struct {
		op    string
		value any
	}
	tests := []struct {
		name           string
		earlier, later m
		path           bool
		want           bool
	}{
		{"D25: a shorter prefix first", m{"prefix", "src/"}, m{"prefix", "src/sensitive/"}, false, true},
		{"D25: a shorter path prefix first", m{"prefix", "src/"}, m{"prefix", "src/sensitive/"}, true, true},
		{"D25: a const with the prefix", m{"prefix", "src/"}, m{"const", "src/lib.rs"}, false, true},
		{"D25: a const in the enum", m{"enum", []any{"jq", "wc"}}, m{"const", "jq"}, false, true},
		{"D25: an enum within the enum", m{"enum", []any{"jq", "wc", "date"}}, m{"enum", []any{"jq", "wc"}}, false, true},
		{"a longer prefix first", m{"prefix", "src/sensitive/"}, m{"prefix", "src/"}, false, false},
		{"a byte prefix of a string", m{"prefix", "src"}, m{"prefix", "src-old"}, false, true},
		{"no component prefix of a path", m{"prefix", "src"}, m{"prefix", "src-old"}, true, false},
		{"a path prefix and its climb", m{"prefix", "."}, m{"prefix", ".."}, true, false},
		{"a const without the prefix", m{"prefix", "src/"}, m{"const", "lib.rs"}, false, false},
		{"an enum beyond the enum", m{"enum", []any{"jq", "wc"}}, m{"enum", []any{"jq", "date"}}, false, false},
		{"an enum with the prefix", m{"prefix", "src/"}, m{"enum", []any{"src/a", "src/b"}}, false, true},
		{"equal consts", m{"const", "a"}, m{"const", "a"}, false, true},
		{"equal paths", m{"const", "a"}, m{"const", "./a"}, true, true},
		{"equal patterns", m{"pattern", "^a"}, m{"pattern", "^a"}, false, true},
		{"patterns are not compared", m{"pattern", "^a"}, m{"pattern", "^ab"}, false, false},
		{"a const the pattern takes", m{"pattern", "^a"}, m{"const", "ab"}, false, true},
		{"a longer suffix", m{"suffix", ".env"}, m{"suffix", "prod.env"}, false, true},
		{"a shorter suffix", m{"suffix", "prod.env"}, m{"suffix", ".env"}, false, false},
		{"a higher minimum", m{"minimum", int64(1000)}, m{"minimum", int64(2000)}, false, true},
		{"a lower minimum", m{"minimum", int64(1000)}, m{"minimum", int64(10)}, false, false},
		{"an exclusive minimum at the minimum", m{"minimum", int64(10)}, m{"exclusive_minimum", int64(10)}, false, true},
		{"a minimum at the exclusive minimum", m{"exclusive_minimum", int64(10)}, m{"minimum", int64(10)}, false, false},
		{"a maximum under the maximum", m{"maximum", 5.5}, m{"exclusive_maximum", 5.5}, false, true},
		{"a minimum is no maximum", m{"minimum", int64(1)}, m{"maximum", int64(5)}, false, false},
		{"a const within the bound", m{"minimum", int64(1000)}, m{"const", int64(1500)}, false, true},
		{"a const of a string is no number", m{"minimum", int64(1000)}, m{"const", "1500"}, false, false},
		{"a prefix is no enum", m{"enum", []any{"a"}}, m{"prefix", "a"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Compile(tt.earlier.op, tt.earlier.value, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Compile(tt.later.op, tt.later.value, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := Implies(e, l); got != tt.want {
				t.Errorf("Implies(%v, %v) = %v, want %v", tt.earlier, tt.later, got, tt.want)
			}
		})
	}
}

// FuzzPathPrefix holds a path prefix to what it means: a value it takes
// is, made lexical, the prefix's components and more, never climbing out
// of them; and Implies never says a rule is shadowed when a value shows
// it is not.
func FuzzPathPrefix(f *testing.F) {
	for _, s := range [][3]string{{"src/", "src/lib.rs", "src/a/"}, {"src", "src-old/x", "src-old"}, {".", "../x", ".."}, {"/etc", "/../etc/passwd", "/etc/p"}, {"a/./b", "a/b/../b/c", "a"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, prefix, value, other string) {
		m, err := Compile("prefix", prefix, true)
		if err != nil {
			t.Fatal(err)
		}
		if m.Match(value) {
			p, v := comps(prefix), comps(value)
			if len(v) < len(p) {
				t.Fatalf("%q takes %q, which is shorter", prefix, value)
			}
			for i := range p {
				if p[i] != v[i] {
					t.Fatalf("%q takes %q, whose components differ", prefix, value)
				}
			}
			if len(v) > len(p) && v[len(p)] == ".." {
				t.Fatalf("%q takes %q, which climbs out of it", prefix, value)
			}
		}
		o, err := Compile("prefix", other, true)
		if err != nil {
			t.Fatal(err)
		}
		if Implies(m, o) && o.Match(value) && !m.Match(value) {
			t.Fatalf("prefix %q said to take every value %q takes, and %q is taken by the second alone", prefix, other, value)
		}
	})
}

// FuzzGlob: any glob and value end, and a glob that reads compiles.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"src/**/*.rs", "src/a/b.rs"}, {"**", "../x"}, {"[", "x"}, {"**/**/**", "a/b/c/d/e/f"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, value string) {
		for _, isPath := range []bool{false, true} {
			m, err := Compile("glob", glob, isPath)
			if err != nil {
				continue
			}
			_ = m.Match(value)
		}
	})
}

// FuzzPointer: a pointer that parses is its tokens, escaped back.
func FuzzPointer(f *testing.F) {
	for _, s := range []string{"/path", "/a~1b/c~0d", "/", "", "x", "/~2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := ParsePointer(s)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, seg := range segs {
			b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(seg))
		}
		if b.String() != s {
			t.Fatalf("ParsePointer(%q) = %q, which writes back as %q", s, segs, b.String())
		}
	})
}

// TestGlobIsLinear: a glob of many ** against a long value the model
// gives ends at once (a backtracking matcher took time in the length to
// the power of the stars).
func TestGlobIsLinear(t *testing.T) {
	m, err := Compile("glob", strings.Repeat("**/", 20)+"x.rs", true)
	if err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("a/", 20000) + "y.rs"
	if m.Match(value) {
		t.Fatal("matched a value without x.rs")
	}
	if !m.Match(strings.Repeat("a/", 20000) + "x.rs") {
		t.Fatal("did not match a value with x.rs")
	}
}
