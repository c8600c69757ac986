package partial_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/partial"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want partial.Path
		// text is the canonical text form String gives.
		text string
	}{
		{"bare keys", "tools.grep.run", partial.Path{"tools", "grep", "run"}, "tools.grep.run"},
		{"single key", "tools", partial.Path{"tools"}, "tools"},
		{"digits dashes and underscores are bare", "a-b_c.0.1", partial.Path{"a-b_c", "0", "1"}, "a-b_c.0.1"},
		{"literal star", "tools.'*'.run", partial.Path{"tools", "*", "run"}, "tools.'*'.run"},
		{"basic star", `tools."*".run`, partial.Path{"tools", "*", "run"}, "tools.'*'.run"},
		{"literal dotted key", "tools.'fs.read'.run", partial.Path{"tools", "fs.read", "run"}, "tools.'fs.read'.run"},
		{"basic dotted key", `tools."a.b"`, partial.Path{"tools", "a.b"}, "tools.'a.b'"},
		{"literal key with a space", "tools.'my tool'", partial.Path{"tools", "my tool"}, "tools.'my tool'"},
		{"basic key with a space", `tools."my tool".run`, partial.Path{"tools", "my tool", "run"}, "tools.'my tool'.run"},
		{"blanks around keys and dots", " tools . grep\t.\trun ", partial.Path{"tools", "grep", "run"}, "tools.grep.run"},
		{"escaped quote", `tools."a\"b"`, partial.Path{"tools", `a"b`}, `tools.'a"b'`},
		{"escaped backslash", `"a\\b"`, partial.Path{`a\b`}, `'a\b'`},
		{"escaped tab", `"tab\there"`, partial.Path{"tab\there"}, "'tab\there'"},
		{"escaped newline", `"line\nbreak"`, partial.Path{"line\nbreak"}, `"line\nbreak"`},
		{"unicode escape", `"\u00e9t\u00E9"`, partial.Path{"été"}, "'été'"},
		{"long unicode escape", `"\U0001F600"`, partial.Path{"😀"}, "'😀'"},
		{"apostrophe needs a basic string", `"it's"`, partial.Path{"it's"}, `"it's"`},
		{"apostrophe and quote", `"it's \"q\""`, partial.Path{`it's "q"`}, `"it's \"q\""`},
		{"quote inside a literal key", `'a"b'.c`, partial.Path{`a"b`, "c"}, `'a"b'.c`},
		{"backslash in a literal key is kept", `'a\nb'`, partial.Path{`a\nb`}, `'a\nb'`},
		{"empty literal key", "''", partial.Path{""}, "''"},
		{"empty basic key", `tools.""`, partial.Path{"tools", ""}, "tools.''"},
		{"control character", `"a\u0001"`, partial.Path{"a\x01"}, `"a\u0001"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := partial.ParsePath(tt.in)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParsePath(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if s := got.String(); s != tt.text {
				t.Errorf("String() = %q, want %q", s, tt.text)
			}
			back, err := partial.ParsePath(got.String())
			if err != nil {
				t.Fatalf("ParsePath(String()) of %q: %v", got.String(), err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("ParsePath(String()) round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPathStringRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		path partial.Path
		text string
	}{
		{"empty path", partial.Path{}, ""},
		{"bare", partial.Path{"tools", "grep"}, "tools.grep"},
		{"star", partial.Path{"tools", "*"}, "tools.'*'"},
		{"dots", partial.Path{"mcp", "my.server", "tool"}, "mcp.'my.server'.tool"},
		{"spaces", partial.Path{"a b", "c"}, "'a b'.c"},
		{"apostrophe", partial.Path{"it's"}, `"it's"`},
		{"apostrophe and backslash", partial.Path{`it's\`}, `"it's\\"`},
		{"newline", partial.Path{"a\nb"}, `"a\nb"`},
		{"empty key", partial.Path{"a", "", "b"}, "a.''.b"},
		{"unicode", partial.Path{"été"}, "'été'"},
		{"delete character", partial.Path{"a\x7f"}, `"a\u007F"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.path.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
			if len(tt.path) == 0 {
				return
			}
			back, err := partial.ParsePath(tt.text)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tt.text, err)
			}
			if diff := cmp.Diff(tt.path, back); diff != "" {
				t.Errorf("ParsePath(String()) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", `key path "": expected a key after ""`},
		{"blank", "  ", `key path "  ": expected a key after "  "`},
		{"trailing dot", "tools.", `key path "tools.": expected a key after "tools."`},
		{"trailing dot and blank", "tools. ", `key path "tools. ": expected a key after "tools. "`},
		{"leading dot", ".tools", `key path ".tools": unexpected '.' at offset 0; quote keys that hold other characters`},
		{"empty segment", "tools..run", `key path "tools..run": unexpected '.' at offset 6; quote keys that hold other characters`},
		{"unquoted star", "tools.*", `key path "tools.*": unexpected '*' at offset 6; quote keys that hold other characters`},
		{"space inside a bare key", "my tool", `key path "my tool": unexpected 't' at offset 3; expected '.'`},
		{"character after a bare key", "tools*", `key path "tools*": unexpected '*' at offset 5; expected '.'`},
		{"text after a quoted key", "'a'b", `key path "'a'b": unexpected 'b' at offset 3; expected '.'`},
		{"unterminated literal key", "tools.'a.b", `key path "tools.'a.b": unterminated quoted key 'a.b`},
		{"unterminated basic key", `tools."a.b`, `key path "tools.\"a.b": unterminated quoted key "a.b`},
		{"escaped closing quote", `"a\"`, `key path "\"a\\\"": unterminated quoted key "a\"`},
		{"invalid escape", `"a\q"`, `key path "\"a\\q\"": invalid quoted key "a\q"`},
		{"newline in a basic key", "\"a\nb\"", `key path "\"a\nb\"": invalid quoted key "a` + "\n" + `b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := partial.ParsePath(tt.in)
			if err == nil {
				t.Fatalf("ParsePath(%q) = %q, want an error", tt.in, got)
			}
			if err.Error() != tt.want {
				t.Errorf("ParsePath(%q) error = %q, want %q", tt.in, err.Error(), tt.want)
			}
			if got != nil {
				t.Errorf("ParsePath(%q) = %q with its error, want nil", tt.in, got)
			}
		})
	}
}

func TestPathAppendAndHasPrefix(t *testing.T) {
	base := make(partial.Path, 2, 8)
	copy(base, partial.Path{"tools", "grep"})
	a := base.Append("run")
	b := base.Append("result")
	if diff := cmp.Diff(partial.Path{"tools", "grep", "run"}, a); diff != "" {
		t.Errorf("Append mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(partial.Path{"tools", "grep", "result"}, b); diff != "" {
		t.Errorf("second Append changed the first result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(partial.Path{"tools", "grep"}, base); diff != "" {
		t.Errorf("Append changed its receiver (-want +got):\n%s", diff)
	}
	tests := []struct {
		name string
		p, q partial.Path
		want bool
	}{
		{"equal", partial.Path{"a", "b"}, partial.Path{"a", "b"}, true},
		{"proper prefix", partial.Path{"a", "b", "c"}, partial.Path{"a", "b"}, true},
		{"empty prefix", partial.Path{"a"}, nil, true},
		{"longer", partial.Path{"a"}, partial.Path{"a", "b"}, false},
		{"different key", partial.Path{"a", "b"}, partial.Path{"a", "c"}, false},
		{"key prefix is not a path prefix", partial.Path{"tools", "grep"}, partial.Path{"tools", "gr"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.HasPrefix(tt.q); got != tt.want {
				t.Errorf("%q.HasPrefix(%q) = %v, want %v", tt.p, tt.q, got, tt.want)
			}
		})
	}
}
