package config_test

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		"jp-tools {{tool}} {{context}}",
		"rg --json -e 'a b' \"c d\" e\\ f",
		"''",
		"'' ''",
		"a '' b",
		"echo 'it'\\''s'",
		`echo "a\"b" 'c\d' e\\f`,
		"sh -c 'echo $HOME; ls | wc -l'",
		"prog\targ\nnext",
		"  leading and trailing  ",
		"héllo wörld ✓",
		"a#b #c",
		"x=1 y:2 @z %w ^v {}",
		"'unbalanced",
		"\"unbalanced",
		"trailing\\",
		"",
		"   ",
		"a\\\nb",
		"\x00 \x7f",
		"\xff\xfe",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, shell bool) {
		c, err := config.ParseCommand(s)
		if err != nil {
			if _, ok := err.(*diag.Error); !ok {
				t.Fatalf("ParseCommand(%q) error is a %T: %v", s, err, err)
			}
			if err.Error() == "" {
				t.Fatalf("ParseCommand(%q): empty error", s)
			}
			return
		}
		if c.Shell {
			t.Fatalf("ParseCommand(%q) set Shell", s)
		}
		if len(c.Args) == 0 && c.Args != nil {
			t.Fatalf("ParseCommand(%q): empty, non-nil Args", s)
		}
		// The text form reads back as the same command, and is canonical.
		text := c.String()
		c2, err := config.ParseCommand(text)
		if err != nil {
			t.Fatalf("ParseCommand(%q) = %#v, whose String %q does not parse: %v", s, c, text, err)
		}
		if diff := cmp.Diff(c, c2); diff != "" {
			t.Fatalf("ParseCommand(%q), written %q, reads back differently (-first +second):\n%s", s, text, diff)
		}
		if c2.String() != text {
			t.Fatalf("String is not canonical: %q then %q", text, c2.String())
		}
		// The value form reads back as the same command, with and without
		// a shell.
		if c.Program == "" {
			t.Fatalf("ParseCommand(%q) accepted an empty program: %#v", s, c)
		}
		c.Shell = shell
		v, err := c.MarshalValue()
		if err != nil {
			t.Fatalf("MarshalValue(%#v): %v", c, err)
		}
		var c3 config.Command
		if err := c3.UnmarshalValue(v); err != nil {
			t.Fatalf("MarshalValue(%#v) = %#v, which UnmarshalValue rejects: %v", c, v, err)
		}
		if diff := cmp.Diff(c, c3); diff != "" {
			t.Fatalf("value %#v reads back differently (-want +got):\n%s", v, diff)
		}
		// And so does a layer holding it, in TOML and JSON. Documents hold
		// only UTF-8 text, as every string field of a layer.
		if !utf8.ValidString(s) {
			return
		}
		p := new(config.Partial)
		p.Tools.Entry("t").Command = partial.Of(c)
		for _, f := range []partial.Format{partial.TOML, partial.JSON} {
			text, err := codec.Encode(p, f)
			if err != nil {
				t.Fatalf("encode %#v as %s: %v", c, f, err)
			}
			back := new(config.Partial)
			if err := codec.Decode("layer", text, f, back); err != nil {
				t.Fatalf("%s layer does not decode: %v\n%s", f, err, text)
			}
			got, ok := back.Tools.Get("t").Command.Get()
			if back.Tools.Get("t") == nil || !ok {
				t.Fatalf("%s layer lost the command:\n%s", f, text)
			}
			if diff := cmp.Diff(c, got); diff != "" {
				t.Fatalf("%s layer reads back differently (-want +got):\n%s\n%s", f, diff, text)
			}
		}
	})
}

func FuzzParseSource(f *testing.F) {
	for _, s := range []string{
		"builtin",
		"local",
		"local.grep",
		"local.'my.tool'",
		"mcp.fs",
		"mcp.fs.read_file",
		"mcp.'my.server'.'read file'",
		`mcp."a\"b".c`,
		"mcp.''.x",
		"mcp.s.''",
		"local.''",
		"mcp",
		"mcp.a.b.c",
		"builtin.x",
		"locl",
		"",
		" local . x ",
		"local.",
		"'local'",
		"\"mcp\".s",
		"mcp.'\xff'",
		"mcp.\"\\u00e9\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src, err := config.ParseSource(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseSource(%q): empty error", s)
			}
			return
		}
		if src.IsZero() {
			t.Fatalf("ParseSource(%q) gave the zero source", s)
		}
		switch src.Kind {
		case config.SourceBuiltin:
			if src.Server != "" || src.Tool != "" {
				t.Fatalf("ParseSource(%q) = %#v: builtin with names", s, src)
			}
		case config.SourceLocal:
			if src.Server != "" {
				t.Fatalf("ParseSource(%q) = %#v: local with a server", s, src)
			}
		case config.SourceMCP:
			if src.Server == "" {
				t.Fatalf("ParseSource(%q) = %#v: mcp without a server", s, src)
			}
		default:
			t.Fatalf("ParseSource(%q) = %#v: unknown kind", s, src)
		}
		text := src.String()
		src2, err := config.ParseSource(text)
		if err != nil {
			t.Fatalf("ParseSource(%q) = %#v, whose String %q does not parse: %v", s, src, text, err)
		}
		if src2 != src {
			t.Fatalf("ParseSource(%q) = %#v, written %q, reads back as %#v", s, src, text, src2)
		}
		if src2.String() != text {
			t.Fatalf("String is not canonical: %q then %q", text, src2.String())
		}
		b, err := src.MarshalText()
		if err != nil || string(b) != text {
			t.Fatalf("MarshalText = %q, %v; want %q", b, err, text)
		}
		var src3 config.Source
		if err := src3.UnmarshalText(b); err != nil || src3 != src {
			t.Fatalf("UnmarshalText(%q) = %#v, %v; want %#v", b, src3, err, src)
		}
	})
}

// FuzzNameScheme: any scheme is checked without a panic, and a scheme
// that passes names every tool of every server so that the name gives
// back the tool.
func FuzzNameScheme(f *testing.F) {
	for _, s := range []string{"{tool}", "{server}__{tool}", "mcp__{server}__{tool}", "gh_{tool}", "{tool}.{server}", "{server}{tool}", "", "{tool", "{server}", "{tool}{tool}", "a:{tool}", "{Tool}", "\xff{tool}"} {
		f.Add(s, "gh", "create_issue")
	}
	f.Add("{server}__{tool}", "{tool}", "{server}")
	f.Add("{server}__{tool}", "a__b", "__c")
	f.Fuzz(func(t *testing.T, scheme, server, tool string) {
		s := config.NameScheme(scheme)
		var read config.NameScheme
		err := s.Check()
		if uerr := read.UnmarshalText([]byte(scheme)); (uerr == nil) != (err == nil) {
			t.Fatalf("Check(%q) = %v, UnmarshalText = %v", scheme, err, uerr)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Check(%q): empty error", scheme)
			}
			return
		}
		if tool == "" {
			return
		}
		name := s.Name(server, tool)
		if got, ok := s.Tool(server, name); !ok || got != tool {
			t.Fatalf("%q: Tool(%q, Name(%q, %q) = %q) = %q, %v", scheme, server, server, tool, name, got, ok)
		}
		if s == config.BareNames && name != tool {
			t.Fatalf("%q names %q %q", scheme, tool, name)
		}
	})
}
