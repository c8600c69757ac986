// Package envfile reads the environment files that VS Code's and Cursor's
// envFile setting names (.env files), by the rules VS Code applies.
package envfile

import (
	"strings"
)

// Var is one variable a file defines.
type Var struct {
	Name, Value string
	Line        int // 1-based
}

// Skipped is a line that defines nothing although it is not blank or a
// comment; VS Code passes over such lines, and so does Parse, reporting
// them.
type Skipped struct {
	Line   int // 1-based
	Reason string
}

// Parse reads an environment file: one NAME=VALUE (or NAME: VALUE) a line,
// an optional "export " before the name, # comments on their own lines or
// after a value, values in single, double or back quotes kept as written
// except that \n and \r in double quotes are line breaks; whitespace
// around names and unquoted values is dropped. Line breaks may be \n, \r\n
// or \r. Variables are returned in file order; a name defined twice counts
// with its last value when the caller keeps the last.
func Parse(data string) ([]Var, []Skipped) {
	var vars []Var
	var skipped []Skipped
	data = strings.ReplaceAll(data, "\r\n", "\n")
	data = strings.ReplaceAll(data, "\r", "\n")
	for i, line := range strings.Split(data, "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export "); ok {
			line = strings.TrimSpace(rest)
		}
		sep := indexOutsideQuotes(line, func(c byte) bool { return c == '=' || c == ':' })
		if sep < 0 {
			skipped = append(skipped, Skipped{Line: n, Reason: "no = between a name and a value"})
			continue
		}
		name := strings.TrimSpace(line[:sep])
		switch {
		case name == "":
			skipped = append(skipped, Skipped{Line: n, Reason: "no name before the ="})
			continue
		case strings.ContainsRune(name, 0):
			skipped = append(skipped, Skipped{Line: n, Reason: "the name holds a NUL character"})
			continue
		}
		vars = append(vars, Var{Name: name, Value: value(strings.TrimSpace(line[sep+1:])), Line: n})
	}
	return vars, skipped
}

// value returns the value of a line: without a trailing comment and
// without surrounding quotes.
func value(v string) string {
	if c := indexOutsideQuotes(v, func(c byte) bool { return c == '#' }); c >= 0 {
		v = strings.TrimSpace(v[:c])
	}
	if len(v) < 2 {
		return v
	}
	q := v[0]
	if (q != '"' && q != '\'' && q != '`') || v[len(v)-1] != q {
		return v
	}
	v = v[1 : len(v)-1]
	if q == '"' {
		v = strings.NewReplacer(`\n`, "\n", `\r`, "\r").Replace(v)
	}
	return v
}

// indexOutsideQuotes returns the index of the first byte of s outside
// quotes that match reports, or -1. A quote preceded by a backslash does
// not end a quoted part.
func indexOutsideQuotes(s string, match func(byte) bool) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote && s[i-1] != '\\' {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case match(c):
			return i
		}
	}
	return -1
}
