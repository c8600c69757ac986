package termtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostile is what a hostile server prints: it clears the screen, sets the
// window title, writes the clipboard, starts a C1 CSI, reverses what
// follows, and writes over the line with a fake one.
const hostile = "\x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\u009b31m\u202eko\rstrata: all OK\nstrata: ok"

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, line, lines string
	}{
		{"plain", "read_file: no such file", "read_file: no such file", "read_file: no such file"},
		{"tab", "a\tb", "a\tb", "a\tb"},
		{"unicode letters and emoji", "Grüße, 世界 🙂 é", "Grüße, 世界 🙂 é", "Grüße, 世界 🙂 é"},
		{"hostile", hostile,
			`\x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\u009b31m\u202eko\rstrata: all OK strata: ok`,
			`\x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\u009b31m\u202eko\rstrata: all OK` + "\nstrata: ok"},
		{"CRLF", "one\r\ntwo", "one two", "one\\r\ntwo"},
		{"DEL and NUL", "a\x7fb\x00", `a\x7fb\x00`, `a\x7fb\x00`},
		{"not UTF-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
		{"bidi and separators", "\u061c\u200e\u200f\u2028\u2029\u202a\u2066\u2069", `\u061c\u200e\u200f\u2028\u2029\u202a\u2066\u2069`, `\u061c\u200e\u200f\u2028\u2029\u202a\u2066\u2069`},
		{"a backslash is itself", `C:\x1b`, `C:\x1b`, `C:\x1b`},
		{"zero-width joiner stays", "👩\u200d💻", "👩\u200d💻", "👩\u200d💻"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.line, Line(tt.in)); diff != "" {
				t.Errorf("Line (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.lines, Lines(tt.in)); diff != "" {
				t.Errorf("Lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriter: what goes through a Writer is escaped as Lines escapes it,
// however the writes split it, a character cut in two included.
func TestWriter(t *testing.T) {
	in := []byte("strata: " + hostile + " é\u202e\n")
	want := Lines(string(in))
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := 0; i < len(in); i += size {
			chunk := in[i:min(i+size, len(in))]
			if n, err := w.Write(chunk); n != len(chunk) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if out.String() != want {
			t.Fatalf("writes of %d bytes: %q, want %q", size, out.String(), want)
		}
	}
}

// TestJSON: escaping JSON text changes what it prints, not what it
// means.
func TestJSON(t *testing.T) {
	in, _ := json.MarshalIndent(map[string]any{"description": hostile + "\x7f\u2028 ok é", "n": []int{1, 2}}, "", "  ")
	out := JSON(in)
	for _, r := range string(out) {
		if r < 0x20 && r != '\n' || r == 0x7f || 0x80 <= r && r <= 0x9f || r == 0x202e || r == 0x2028 {
			t.Fatalf("%U left in %s", r, out)
		}
	}
	var a, b any
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("the value changed (-before +after):\n%s", diff)
	}
	if got := string(JSON([]byte("\"a\xffb\""))); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
	plain := []byte(`{"a": "b"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("ASCII JSON was copied")
	}
	if !strings.Contains(string(out), `\u001b[2J`) {
		t.Errorf("the escape of ESC is gone: %s", out)
	}
}

func TestGraphic(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"read_file", true}, {"has space", true}, {"list.dir", true}, {"grüße", true}, {"a/b:c", true},
		{"", true}, {"evil\x1b[2J", false}, {"tab\t", false}, {"line\n", false}, {"\u202eevil", false},
		{"\u009b", false}, {"a\xff", false}, {"zero\u200bwidth", false}, {"\ufffd", false},
	} {
		if got := Graphic(tt.name); got != tt.want {
			t.Errorf("Graphic(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestJSONWriter: a stream of JSON written in pieces that split its
// characters comes out as JSON escapes it whole.
func TestJSONWriter(t *testing.T) {
	msg, _ := json.Marshal(map[string]string{"text": hostile + " é\u2028"})
	stream := []byte("event: message\ndata: " + string(msg) + "\n\n")
	for size := 1; size <= 4; size++ {
		var out bytes.Buffer
		w := &JSONWriter{W: &out}
		for i := 0; i < len(stream); i += size {
			n, err := w.Write(stream[i:min(i+size, len(stream))])
			if err != nil || n != min(size, len(stream)-i) {
				t.Fatalf("Write: %d, %v", n, err)
			}
		}
		if diff := cmp.Diff(string(JSON(stream)), out.String()); diff != "" {
			t.Errorf("pieces of %d bytes (-whole +pieces):\n%s", size, diff)
		}
		data := strings.TrimSuffix(strings.TrimPrefix(out.String(), "event: message\ndata: "), "\n\n")
		var back map[string]string
		if err := json.Unmarshal([]byte(data), &back); err != nil || back["text"] != hostile+" é\u2028" {
			t.Errorf("pieces of %d bytes read back as %q, %v", size, back, err)
		}
	}
}
