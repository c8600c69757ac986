package export

import (
	"regexp"
	"strings"
	"testing"
)

// TestNameRules holds each vendor's name check to the vendor's rule as a
// regular expression, on names at and around its bounds.
func TestNameRules(t *testing.T) {
	rules := map[Dialect]string{
		OpenAI:    `^[a-zA-Z0-9_-]{1,64}$`,
		Anthropic: `^[a-zA-Z0-9_-]{1,64}$`,
		MCP:       `^[a-zA-Z0-9_.-]{1,128}$`,
	}
	names := []string{"", "a", "Z", "9", "_", "-", ".", "a.b", "get_weather", "get-weather", "has space", "ünï", "tab\t", "a/b", "a:b",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("a", 128), strings.Repeat("a", 129),
		strings.Repeat("é", 32), strings.Repeat("a", 63) + "é"}
	for d, expr := range rules {
		re := regexp.MustCompile(expr)
		for _, name := range names {
			if got, want := nameRules[d].allows(name), re.MatchString(name); got != want {
				t.Errorf("%s allows %q = %v, want %v (%s)", d, name, got, want, expr)
			}
		}
	}
}

// TestStrataNameRule: strata's own catalog takes every name that prints
// as itself, up to 128 characters, and no other.
func TestStrataNameRule(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"read_file", true}, {"has space", true}, {"list.dir", true}, {"grüße", true}, {strings.Repeat("é", 128), true},
		{"", false}, {strings.Repeat("é", 129), false}, {"evil\x1b[2J", false}, {"a\u202eb", false}, {"a\u009bb", false},
		{"a\nb", false}, {"a\tb", false}, {"a\xffb", false}, {"a\u200bb", false},
	} {
		if got := Strata.Allows(tt.name); got != tt.want {
			t.Errorf("Strata.Allows(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !Dialect("").Allows("a") || Dialect("yaml").Allows("a") {
		t.Error("the empty dialect is strata's, an unknown one takes nothing")
	}
}
