package doc

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlankJSONC(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain JSON is unchanged", `{"a": [1, 2], "b": {"c": "d"}}`, `{"a": [1, 2], "b": {"c": "d"}}`},
		{"line comment", "{\"a\": 1 // one\n}", "{\"a\": 1       \n}"},
		{"line comment at the end without a line break", `{} // end`, `{}       `},
		{"line comment ended by CR LF", "{ // c\r\n}", "{     \r\n}"},
		{"block comment keeps its line breaks", "{/* a\nb */\"a\": 1}", "{    \n    \"a\": 1}"},
		{"comment markers inside strings stay", `{"url": "https://x/*y*/", "c": "//z"}`, `{"url": "https://x/*y*/", "c": "//z"}`},
		{"escaped quotes do not end a string", `{"a": "x\"//y", "b": 1}`, `{"a": "x\"//y", "b": 1}`},
		{"escaped backslash before the closing quote", `{"a": "x\\" // c` + "\n}", `{"a": "x\\"     ` + "\n}"},
		{"trailing comma in an object", `{"a": 1,}`, `{"a": 1 }`},
		{"trailing comma in an array", `[1, 2, ]`, `[1, 2  ]`},
		{"trailing comma before a comment and the brace", "{\"a\": [1,], // x\n}", "{\"a\": [1 ]      \n}"},
		{"trailing comma before a block comment", `{"a": 1, /* x */ }`, `{"a": 1          }`},
		{"nested trailing commas", `{"a": {"b": [1, {"c": 2,},],},}`, `{"a": {"b": [1, {"c": 2 } ] } }`},
		{"a comma after { is not trailing", `{,}`, `{,}`},
		{"a comma after [ is not trailing", `[,]`, `[,]`},
		{"a second comma is not trailing", `[1,,]`, `[1,,]`},
		{"a comma after a colon is not trailing", `{"a":,}`, `{"a":,}`},
		{"byte order mark", "\xef\xbb\xbf{}", "   {}"},
		{"a lone slash is left for the JSON reader", `{"a": 1 / 2}`, `{"a": 1 / 2}`},
		{"multi-byte text in a comment keeps the length", "{} // é ✓", "{}          "},
		{"an unclosed string hides what follows", `{"a": "//`, `{"a": "//`},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BlankJSONC([]byte(tt.in))
			if err != nil {
				t.Fatalf("BlankJSONC: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("BlankJSONC (-want +got):\n%s", diff)
			}
			if len(got) != len(tt.in) {
				t.Errorf("length %d, want %d", len(got), len(tt.in))
			}
		})
	}
}

func TestBlankJSONCUnclosedComment(t *testing.T) {
	_, err := BlankJSONC([]byte("{\"a\": 1 /* open\n}"))
	if err == nil {
		t.Fatal("no error for an unclosed comment")
	}
	want := &Error{Off: 8, Msg: "JSONC syntax: a /* comment is not closed"}
	if diff := cmp.Diff(want, err); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// TestReadJSONC reads a file shaped like VS Code's mcp.json and checks the
// tree and the positions, which point into the original text.
func TestReadJSONC(t *testing.T) {
	src := `{
	// Inputs are asked for once.
	"inputs": [
		{ "type": "promptString", "id": "key", "description": "API key", "password": true, },
	],
	/* Servers,
	   by name. */
	"servers": {
		"fs": { "type": "stdio", "command": "npx", "args": ["-y", "x",], },
	},
}
`
	d, errs := ReadJSONC([]byte(src))
	if len(errs) > 0 {
		t.Fatalf("ReadJSONC: %v", errs)
	}
	if !bytes.Equal(d.Data, []byte(src)) {
		t.Error("the document does not keep the original text")
	}
	want := map[string]any{
		"inputs":  []any{map[string]any{"type": "promptString", "id": "key", "description": "API key", "password": true}},
		"servers": map[string]any{"fs": map[string]any{"type": "stdio", "command": "npx", "args": []any{"-y", "x"}}},
	}
	if diff := cmp.Diff(want, plain(d.Root)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	cmd := d.Root.Get("servers").Get("fs").Get("command")
	line, col := d.Position(cmd.Pos())
	if line != 9 || col != 28 {
		t.Errorf("servers.fs.command at %d:%d, want 9:28", line, col)
	}
	if got := d.Line(line); got != "\t\t\"fs\": { \"type\": \"stdio\", \"command\": \"npx\", \"args\": [\"-y\", \"x\",], }," {
		t.Errorf("line %d is %q", line, got)
	}
}

func TestReadJSONCErrors(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantLine int
		wantCol  int
	}{
		{"unclosed comment, at its start", "{\n  /* x\n}", 2, 3},
		{"a syntax error after a comment, at its place", "{\n  // c\n  \"a\" 1\n}", 3, 7},
		{"a key defined twice", "{\"a\": 1, // c\n \"a\": 2}", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, errs := ReadJSONC([]byte(tt.src))
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one", errs)
			}
			line, col := d.Position(errs[0].Off)
			if line != tt.wantLine || col != tt.wantCol {
				t.Errorf("error %q at %d:%d, want %d:%d", errs[0].Msg, line, col, tt.wantLine, tt.wantCol)
			}
		})
	}
}

func FuzzReadJSONC(f *testing.F) {
	for _, s := range []string{
		`{}`,
		"{\"a\": 1 // one\n}",
		"{/* a\nb */\"a\": [1, 2,],}",
		`{"url": "https://x/*y*/", "c": "//z", "e": "\"//"}`,
		`{"a": {"b": [1, {"c": 2,},],},}`,
		`{,}`,
		`[1,,]`,
		"\xef\xbb\xbf{} // x",
		"{\"a\": 1 /* open\n}",
		"{ // c\r\n \"k\": \"v\", }",
		`{"a": "x\\", // c` + "\n}",
		"/",
		"/*/",
		`,}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		clean, err := BlankJSONC(data)
		if err != nil {
			if err.Off < 0 || int(err.Off) >= len(data) || data[err.Off] != '/' {
				t.Fatalf("error %v not at a comment's start", err)
			}
			return
		}
		if len(clean) != len(data) {
			t.Fatalf("length %d, want %d", len(clean), len(data))
		}
		for i := range data {
			if clean[i] != data[i] && (clean[i] != ' ' || data[i] == '\n' || data[i] == '\r') {
				t.Fatalf("byte %d changed from %q to %q", i, data[i], clean[i])
			}
		}
		if json.Valid(data) && !bytes.Equal(clean, data) {
			t.Fatalf("JSON changed:\n%q\n%q", data, clean)
		}
		again, err := BlankJSONC(clean)
		if err != nil || !bytes.Equal(again, clean) {
			t.Fatalf("not idempotent: %q -> %q (%v)", clean, again, err)
		}
		d, errs := ReadJSONC(data)
		if !bytes.Equal(d.Data, data) {
			t.Fatal("the document does not keep the original text")
		}
		strict, strictErrs := ReadJSON(clean)
		if len(errs) != len(strictErrs) {
			t.Fatalf("ReadJSONC gives %v, ReadJSON of the blanked text %v", errs, strictErrs)
		}
		for i := range errs {
			if errs[i].Off != strictErrs[i].Off || errs[i].Msg != strictErrs[i].Msg {
				t.Fatalf("error %v, want %v", errs[i], strictErrs[i])
			}
		}
		if len(errs) == 0 {
			if diff := cmp.Diff(plain(strict.Root), plain(d.Root)); diff != "" {
				t.Fatalf("tree (-strict +jsonc):\n%s", diff)
			}
			checkJSONPositions(t, d.Root, clean)
		}
	})
}
