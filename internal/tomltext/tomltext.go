// Package tomltext writes keys, key paths and strings as TOML text.
package tomltext

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/strata-config/strata/internal/termtext"
)

// CanLiteralMultiline reports whether s can be written as a literal
// (multi-line) string: a literal string escapes nothing, so s may hold no
// character a terminal acts on (termtext.Acts) but newline and tab.
func CanLiteralMultiline(s string) bool {
	if strings.Contains(s, "'''") || strings.HasSuffix(s, "'") || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && termtext.Acts(r) {
			return false
		}
	}
	return true
}

// String quotes s as a TOML string; with q == '\” it prefers a literal
// string and falls back to a basic one when s cannot be written literally.
// A character a terminal acts on (a control, a C1 control, a
// bidirectional override: termtext.Acts) is written as its \u escape, so
// that TOML text is safe to print and reads back the same.
func String(s string, q byte) string {
	if q == '\'' && !strings.ContainsAny(s, "'") && CanLiteralMultiline(s) && !strings.Contains(s, "\n") {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if termtext.Acts(r) {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else if r == utf8.RuneError {
				b.WriteString(`\uFFFD`)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Path renders a key path as TOML would write it, quoting parts that are
// not bare keys.
func Path(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(Key(p))
	}
	return b.String()
}

// Key returns k as a TOML key: bare when it only holds A-Z a-z 0-9 _ -,
// and a quoted string otherwise.
func Key(k string) string {
	if IsBare(k) {
		return k
	}
	return String(k, '\'')
}

func IsBare(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
