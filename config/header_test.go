package config

import (
	"testing"

	"golang.org/x/net/http/httpguts"
)

// FuzzHeaderRules holds config's header checks to net/http's rules
// (httpguts), which config does not link: it links no net package.
func FuzzHeaderRules(f *testing.F) {
	for c := range 256 {
		f.Add(string(rune(c)))
		f.Add(string([]byte{byte(c)}))
	}
	for _, s := range []string{"", "X-Team", "Authorization", "a b", "a\tb", "x\r\ny", "é", "Ä-Name", "`|~!#$%&'*+-.^_", "a:b", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validHeaderName(s), httpguts.ValidHeaderFieldName(s); got != want {
			t.Errorf("validHeaderName(%q) = %v, httpguts says %v", s, got, want)
		}
		if got, want := validHeaderValue(s), httpguts.ValidHeaderFieldValue(s); got != want {
			t.Errorf("validHeaderValue(%q) = %v, httpguts says %v", s, got, want)
		}
	})
}
