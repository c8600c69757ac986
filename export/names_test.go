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
