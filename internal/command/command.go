// Package command renders the command templates of local tools: a program
// and arguments whose words may hold {{tool}}, {{context}} and dotted
// references into the JP tool context.
//
// Each word is rendered on its own, so a value never splits into several
// arguments. With a shell (config.Command.Shell), the words are shell text
// joined into one line for /bin/sh -c, and every rendered value is quoted
// for the place it sits in: outside quotes, inside "…" and inside '…' each
// get the quoting that keeps the value one literal string. A value can
// therefore never run as shell code, whatever the model put in it.
package command

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/strata-config/strata/internal/suggest"
)

// Shell is the shell that runs commands with Shell set.
const Shell = "/bin/sh"

// ref matches a reference, {{name}} or {{name.key...}}. It is compiled on
// first use, not at start-up.
var ref = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}`)
})

// Render renders the words of a command (the program, then its arguments)
// with the tool context data (protocol.Context.Value): {{tool}} and
// {{context}} become JSON, {{tool.name}}, {{context.root}} and other
// scalars their raw text, objects and arrays JSON. It returns the program
// and its arguments; with shell, the words are one line of shell text run
// by [Shell] -c.
func Render(words []string, shell bool, data map[string]any) (program string, args []string, err error) {
	if len(words) == 0 {
		return "", nil, fmt.Errorf("the command is empty")
	}
	if shell {
		line, err := shellLine(strings.Join(words, " "), data)
		if err != nil {
			return "", nil, err
		}
		return Shell, []string{"-c", line}, nil
	}
	out := make([]string, len(words))
	for i, w := range words {
		if out[i], err = plain(w, data); err != nil {
			return "", nil, err
		}
	}
	return out[0], out[1:], nil
}

// Program returns the program that the words run when rendered with data,
// rendering only the program (the arguments may name a call's arguments),
// or [Shell] with a shell. A relative path with a slash is made absolute
// against dir.
func Program(words []string, shell bool, data map[string]any, dir string) (string, error) {
	if shell {
		return Shell, nil
	}
	if len(words) == 0 {
		return "", fmt.Errorf("the command is empty")
	}
	program, err := plain(words[0], data)
	if err != nil {
		return "", err
	}
	return Absolute(program, dir), nil
}

// Check finds what would make a shell command unsafe to render, before any
// call: a template inside a command substitution ($(…) or `…`), where no
// quoting can keep a value literal. Commands without a shell are always
// safe: each value is one argument.
func Check(words []string, shell bool) error {
	if !shell {
		return nil
	}
	line := strings.Join(words, " ")
	for _, loc := range ref().FindAllStringIndex(line, -1) {
		if before := line[:loc[0]]; strings.Contains(before, "$(") || strings.Contains(before, "`") {
			return fmt.Errorf("%s follows a command substitution ($(…) or `…`), where a value cannot be quoted safely; pass values as separate arguments, or use shell = false", line[loc[0]:loc[1]])
		}
	}
	return nil
}

// Absolute makes a program path that holds a slash absolute against dir; a
// bare name stays, for a PATH lookup.
func Absolute(program, dir string) string {
	if strings.ContainsRune(program, '/') && !filepath.IsAbs(program) {
		return filepath.Join(dir, program)
	}
	return program
}

// plain renders one word of a command without a shell.
func plain(w string, data map[string]any) (string, error) {
	return expand(w, data, false)
}

// shellLine renders a line of shell text, quoting each value for the
// quoting context it sits in.
func shellLine(line string, data map[string]any) (string, error) {
	if err := Check([]string{line}, true); err != nil {
		return "", err
	}
	return expand(line, data, true)
}

// expand replaces the templates of s; with shell, s is shell text and each
// value is quoted for where it sits.
func expand(s string, data map[string]any, shell bool) (string, error) {
	w := s
	locs := ref().FindAllStringSubmatchIndex(w, -1)
	if locs == nil {
		return w, nil
	}
	var b strings.Builder
	var q quoting
	last := 0
	for _, loc := range locs {
		if shell {
			q = q.scan(w[last:loc[0]])
		}
		b.WriteString(w[last:loc[0]])
		name := w[loc[2]:loc[3]]
		v, ok := lookup(data, name)
		if !ok {
			hint := ""
			if s := suggest.Closest(name, refs(data, "")); s != "" {
				hint = "; did you mean {{" + s + "}}?"
			}
			return "", fmt.Errorf("unknown template value {{%s}}%s", name, hint)
		}
		text := scalarText(v)
		if shell {
			text = q.quote(text)
		}
		b.WriteString(text)
		last = loc[1]
	}
	b.WriteString(w[last:])
	return b.String(), nil
}

// quoting is where a position in POSIX shell text stands: outside quotes,
// inside double quotes, or inside single quotes.
type quoting uint8

const (
	bare quoting = iota
	double
	single
)

// scan returns the quoting after s, starting from q.
func (q quoting) scan(s string) quoting {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch q {
		case bare:
			switch c {
			case '\\':
				i++ // the next byte is literal
			case '"':
				q = double
			case '\'':
				q = single
			}
		case double:
			switch c {
			case '\\':
				i++
			case '"':
				q = bare
			}
		case single:
			if c == '\'' {
				q = bare
			}
		}
	}
	return q
}

// quote makes s one literal string in quoting context q.
func (q quoting) quote(s string) string {
	switch q {
	case double:
		// Inside "…" only \ " $ and ` are special.
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '\\', '"', '$', '`':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
		return b.String()
	case single:
		// Inside '…' nothing is special but the closing quote.
		return strings.ReplaceAll(s, "'", `'\''`)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lookup finds a dotted reference in the context data.
func lookup(data map[string]any, name string) (any, bool) {
	var cur any = data
	for _, k := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// refs lists the references the data offers, for suggestions.
func refs(v any, prefix string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k, x := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, p)
		out = append(out, refs(x, p)...)
	}
	sort.Strings(out)
	return out
}

// scalarText is a value's text in a command: strings raw, the rest JSON.
func scalarText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
