package partial

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/tomltext"
)

// Path is a key path: the keys from the document root to a field, such as
// tools.grep.run. In text, keys are separated by dots and a key that is not
// made of letters, digits, '_' and '-' is quoted as in TOML:
// tools.'fs.read'.run or tools."*".run.
type Path []string

// String renders p in its text form.
func (p Path) String() string { return tomltext.Path(p) }

// Append returns p extended by keys, without sharing p's backing array.
func (p Path) Append(keys ...string) Path {
	out := make(Path, 0, len(p)+len(keys))
	return append(append(out, p...), keys...)
}

// HasPrefix reports whether p starts with q.
func (p Path) HasPrefix(q Path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// ParsePath reads a key path in its text form.
func ParsePath(s string) (Path, error) {
	var p Path
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return nil, fmt.Errorf("key path %q: expected a key after %q", s, s[:i])
		}
		var key string
		switch s[i] {
		case '"', '\'':
			k, n, err := unquoteKey(s[i:])
			if err != nil {
				return nil, fmt.Errorf("key path %q: %v", s, err)
			}
			key, i = k, i+n
		default:
			j := i
			for j < len(s) && isBareChar(s[j]) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("key path %q: unexpected %q at offset %d; quote keys that hold other characters", s, s[i], i)
			}
			key, i = s[i:j], j
		}
		p = append(p, key)
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return p, nil
		}
		if s[i] != '.' {
			return nil, fmt.Errorf("key path %q: unexpected %q at offset %d; expected '.'", s, s[i], i)
		}
		i++
	}
}

func isBareChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// unquoteKey reads a quoted key at the start of s and returns it and the
// number of bytes it took.
func unquoteKey(s string) (string, int, error) {
	q := s[0]
	if q == '\'' {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", 0, fmt.Errorf("unterminated quoted key %s", s)
		}
		if !utf8.ValidString(s[1 : 1+end]) {
			// No document key can hold it, and String could not write it.
			return "", 0, fmt.Errorf("quoted key %s is not valid UTF-8", strconv.Quote(s[:end+2]))
		}
		return s[1 : 1+end], end + 2, nil
	}
	// A basic string: read it with the TOML reader so escapes match TOML.
	end := 1
	for end < len(s) && s[end] != '"' {
		if s[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(s) {
		return "", 0, fmt.Errorf("unterminated quoted key %s", s)
	}
	d, errs := doc.ReadTOML([]byte("k = " + s[:end+1]))
	if len(errs) > 0 || d.Root.Get("k") == nil {
		return "", 0, fmt.Errorf("invalid quoted key %s", s[:end+1])
	}
	return d.Root.Get("k").Str, end + 1, nil
}
