package partial_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-config/strata/partial"
)

// FuzzParsePath checks that the text form of a key path is faithful:
// ParsePath reads back what String writes, for paths ParsePath produced
// and for paths made of arbitrary keys.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{
		"tools.grep.run",
		"tools.'*'.run",
		`tools."*".run`,
		"tools.'fs.read'.run",
		`tools."a\"b".x`,
		`tools."\u00e9\t\n".x`,
		`"\U0001F600"`,
		"''",
		`""`,
		" a . b ",
		"a..b",
		"a.",
		".a",
		"a b",
		"'unterminated",
		`"bad \q escape"`,
		`"\\"`,
		"tools.'it''s'",
		"a-b_c.0.-1",
		"tools.'\x01'",
		"tools.'\xff'",
		"mcp.'my.server'.'read file'",
		`"""x"""`,
		"'\"'.\"'\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, err := partial.ParsePath(s); err == nil {
			if len(p) == 0 {
				t.Fatalf("ParsePath(%q) returned an empty path without error", s)
			}
			text := p.String()
			q, err := partial.ParsePath(text)
			if err != nil {
				t.Fatalf("ParsePath(%q) = %q, whose String %q does not parse: %v", s, p, text, err)
			}
			if !slices.Equal(p, q) {
				t.Fatalf("ParsePath(%q) = %q; String %q parses to %q", s, []string(p), text, []string(q))
			}
			if q.String() != text {
				t.Fatalf("String is not canonical: %q then %q", text, q.String())
			}
		}
		// Any path String writes parses back: the fuzz input, split at
		// '/', is a path of arbitrary keys. Keys that are not UTF-8
		// cannot be written in TOML; those must still parse, to keys
		// with U+FFFD in place of the bad bytes.
		p := partial.Path(strings.Split(s, "/"))
		text := p.String()
		q, err := partial.ParsePath(text)
		if err != nil {
			t.Fatalf("String of %q is %q, which ParsePath rejects: %v", []string(p), text, err)
		}
		want := p
		if !utf8.ValidString(s) {
			want = make(partial.Path, len(p))
			for i, k := range p {
				want[i] = strings.ToValidUTF8(k, "\uFFFD")
			}
			// ToValidUTF8 replaces a run of bad bytes with one U+FFFD;
			// the writer replaces each bad byte. Compare modulo that.
			for i := range q {
				if i < len(want) {
					q[i] = collapseFFFD(q[i])
					want[i] = collapseFFFD(want[i])
				}
			}
		}
		if !slices.Equal(want, q) {
			t.Fatalf("path %q is written %q, which parses to %q", []string(p), text, []string(q))
		}
	})
}

func collapseFFFD(s string) string {
	for strings.Contains(s, "\uFFFD\uFFFD") {
		s = strings.ReplaceAll(s, "\uFFFD\uFFFD", "\uFFFD")
	}
	return s
}
