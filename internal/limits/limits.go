// Package limits holds the default bounds on what strata reads, shared by
// every reader so that they cannot drift apart, and the helpers that keep
// messages short. Package load documents the values and lets a host change
// them (codec.Limits); CONTRIBUTING.md gives the reason for each.
package limits

import (
	"strings"
	"unicode/utf8"
)

// The defaults.
const (
	// Depth is how deep keys and arrays may nest: a value's key path has
	// at most Depth parts.
	Depth = 1000
	// FileSize is the largest layer file, in bytes.
	FileSize = 1 << 20
	// Files is how many files the extends of one file may read, counting
	// a file once per extends that names it.
	Files = 64
	// Problems is how many problems one pass reports; the others are
	// counted.
	Problems = 100
	// Quote is how many characters of a key or value a message quotes.
	Quote = 100
	// Total is how many bytes the layer files of one load hold together.
	Total = 8 << 20
	// Values is how many values (tables, arrays and scalars) the layer
	// files of one load hold together.
	Values = 320_000
	// ServerTools is how many tools of one MCP server are kept, all pages
	// of its tools/list together.
	ServerTools = 10_000
	// ServerListing is how many bytes of one MCP server's tools/list
	// results are read, all pages together.
	ServerListing = 4 << 20
)

// Or returns n, or def when n is zero or less.
func Or(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// Ellipsis ends a text that was cut.
const Ellipsis = "…"

// Cut returns s, or its first n characters followed by "…" when it is
// longer. An invalid byte counts as one character.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		if i >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + Ellipsis
}

// CutPath returns path with every key longer than n characters cut (see
// [Cut]); it returns path itself when no key is that long.
func CutPath(path []string, n int) []string {
	var out []string
	for i, k := range path {
		if len(k) <= n {
			continue
		}
		if c := Cut(k, n); c != k {
			if out == nil {
				out = append(make([]string, 0, len(path)), path...)
			}
			out[i] = c
		}
	}
	if out == nil {
		return path
	}
	return out
}

// CutQuoted returns msg with the text inside every double-quoted run
// longer than n characters cut (see [Cut]), as messages quote keys and
// values with %q; a message that quotes nothing so long is returned as
// it is. As a last resort, a message still longer than 8n+200 bytes (a
// long run outside quotes) is cut there.
func CutQuoted(msg string, n int) string {
	if len(msg) <= n {
		return msg
	}
	var b strings.Builder
	last, changed := 0, false
	for i := 0; i < len(msg); i++ {
		if msg[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(msg) && msg[j] != '"' {
			if msg[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(msg) {
			break // not closed: not a quotation
		}
		if inner := msg[i+1 : j]; len(inner) > n {
			if c := cutEscaped(inner, n); c != inner {
				b.WriteString(msg[last : i+1])
				b.WriteString(c)
				last, changed = j, true
			}
		}
		i = j
	}
	out := msg
	if changed {
		b.WriteString(msg[last:])
		out = b.String()
	}
	if max := 8*n + 200; len(out) > max {
		out = Cut(out, max)
	}
	return out
}

// cutEscaped is Cut for the inside of a Go-quoted string: it does not cut
// an escape sequence in two.
func cutEscaped(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		if s[i] == '\\' && i+1 < len(s) {
			i += escapeLen(s[i:])
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + Ellipsis
}

// escapeLen returns the length of the escape sequence at the start of s.
func escapeLen(s string) int {
	n := 2
	switch s[1] {
	case 'x':
		n = 4
	case 'u':
		n = 6
	case 'U':
		n = 10
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n = 4
	}
	return min(n, len(s))
}
