package tomltext_test

import (
	"testing"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"

	"github.com/strata-config/strata/internal/termtext"
	"github.com/strata-config/strata/internal/tomltext"
)

// TestStringSafeToPrint: a string or key that holds what a terminal acts
// on (escape sequences, C1 controls, bidi overrides, line separators) is
// written with \u escapes, never raw and never as a literal string, and
// reads back the same.
func TestStringSafeToPrint(t *testing.T) {
	for _, s := range []string{
		"plain", "it's", "a\nb", "\x1b[2J\x1b]0;pwned\x07", "\u009b31m", "\u202eevil", "a\u2028b", "del\x7f", "tab\tand 'quotes'",
	} {
		for name, text := range map[string]string{"String": tomltext.String(s, '\''), "String basic": tomltext.String(s, '"'), "Key": tomltext.Key(s)} {
			for _, r := range text {
				if r != '\t' && termtext.Acts(r) || r == utf8.RuneError {
					t.Errorf("%s(%q) = %q holds %U", name, s, text, r)
				}
			}
			var back map[string]string
			doc := "k = " + text
			if name == "Key" {
				doc = text + " = 'v'"
			}
			if err := toml.Unmarshal([]byte(doc), &back); err != nil {
				t.Errorf("%s(%q) = %q does not read back: %v", name, s, text, err)
				continue
			}
			want := map[string]string{"k": s}
			if name == "Key" {
				want = map[string]string{s: "v"}
			}
			if len(back) != 1 || back["k"] != want["k"] || name == "Key" && back[s] != "v" {
				t.Errorf("%s(%q) = %q reads back as %q", name, s, text, back)
			}
		}
	}
}
