// Package command renders the command templates of local tools: a program
// and arguments whose words may hold {{tool}}, {{context}} and dotted
// references into the JP tool context.
//
// Each word is rendered on its own, so a value never splits into several
// arguments. With a shell (config.Command.Shell), the words are shell text
// joined into one line for /bin/sh -c. That text is parsed, as POSIX sh
// and as bash, and every reference must be a plain part of a word:
// outside quotes, inside "…" or inside '…', each of which gets the
// quoting that keeps its value one literal string. A reference anywhere
// else (a comment, a here-document, a command substitution, an arithmetic
// or parameter expansion, $'…') is refused before any call, by [Check].
// A model's value therefore never runs as shell code, whatever it holds,
// and it never starts an argument with "-", where the program would read
// an option, unless the template puts -- before it or its parameter
// allows it ([DashError]).
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
// scalars their raw text. It returns the program and its arguments; with
// shell, the words are one line of shell text run by [Shell] -c.
//
// A model's value (see [Model]) that would start a word of the command
// with "-", where the program would read it as an option, is refused
// with a [*DashError], unless a literal -- argument comes before it or
// allowDash(ref) says yes for its reference ("tool.arguments.rev"); nil
// allows none.
func Render(words []string, shell bool, data map[string]any, allowDash func(ref string) bool) (program string, args []string, err error) {
	if len(words) == 0 {
		return "", nil, fmt.Errorf("the command is empty")
	}
	if shell {
		line := strings.Join(words, " ")
		locs := ref().FindAllStringSubmatchIndex(line, -1)
		sites, err := check(line, locs)
		if err != nil {
			return "", nil, err
		}
		if line, err = expand(line, locs, sites, data, allowDash); err != nil {
			return "", nil, err
		}
		return Shell, []string{"-c", line}, nil
	}
	if err := checkPlain(words); err != nil {
		return "", nil, err
	}
	out := make([]string, len(words))
	afterDashes := false
	for i, w := range words {
		locs := ref().FindAllStringSubmatchIndex(w, -1)
		if out[i], err = expand(w, locs, plainSites(w, locs, i == 0, afterDashes), data, allowDash); err != nil {
			return "", nil, err
		}
		afterDashes = afterDashes || i > 0 && w == "--"
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
	program, err := expand(words[0], ref().FindAllStringSubmatchIndex(words[0], -1), nil, data, nil)
	if err != nil {
		return "", err
	}
	return Absolute(program, dir), nil
}

// Error is a command template that cannot be rendered safely: what is
// wrong, and the fix.
type Error struct {
	Msg, Hint string
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Msg
	}
	return e.Msg + "; " + e.Hint
}

// DashError is a model's value that starts with "-" where it would start
// an argument of its own, which the program would read as an option
// (git log --output=FILE writes FILE).
type DashError struct {
	// Ref is the reference the value renders: tool.arguments.rev.
	Ref string
	// Value is the value's text.
	Value string
}

func (e *DashError) Error() string {
	return fmt.Sprintf("{{%s}} is %q, which starts with \"-\" and would be an argument of its own: the program would read it as an option", e.Ref, e.Value)
}

// Model reports whether a reference renders what the model gives: the
// call's arguments and the answers to a tool's questions (an assistant
// answers some), or the whole tool object that holds them.
func Model(ref string) bool {
	for _, p := range []string{"tool.arguments", "tool.answers"} {
		if ref == p || strings.HasPrefix(ref, p+".") {
			return true
		}
	}
	return ref == "tool"
}

// Check finds what would make a command unsafe to render, before any
// call: a model's value as the program (the model would choose what
// runs) or, with a shell, as an argument of eval, ., trap, or the command
// that exec, command or builtin run; and, with a shell, a template where
// no quoting keeps a value literal: a comment, a here-document, a command substitution ($(…) or
// `…`), an arithmetic or parameter expansion, $'…', right after a
// backslash or a $, or shell text that does not parse as both POSIX sh
// and bash. The error is an [*Error].
func Check(words []string, shell bool) error {
	if !shell {
		return checkPlain(words)
	}
	line := strings.Join(words, " ")
	_, err := check(line, ref().FindAllStringSubmatchIndex(line, -1))
	return err
}

// checkPlain refuses a model's value in the program of words run without
// a shell.
func checkPlain(words []string) error {
	if len(words) == 0 {
		return nil
	}
	for _, loc := range ref().FindAllStringSubmatchIndex(words[0], -1) {
		if name := words[0][loc[2]:loc[3]]; Model(name) {
			return commandName(words[0][loc[0]:loc[1]])
		}
	}
	return nil
}

func commandName(ref string) *Error {
	return &Error{Msg: ref + " is in the name of the program, which the model would choose", Hint: "name the program in the template, and pass the value as an argument"}
}

// check finds where the references locs of shell text line sit.
func check(line string, locs [][]int) ([]site, error) {
	if len(locs) == 0 {
		return nil, nil
	}
	sites, err := shellSites(line, locs)
	if err != nil {
		return nil, err
	}
	for i, st := range sites {
		name := line[locs[i][2]:locs[i][3]]
		switch {
		case st.command && Model(name):
			return nil, commandName(line[locs[i][0]:locs[i][1]])
		case st.code != "" && Model(name):
			return nil, &Error{Msg: fmt.Sprintf("%s is an argument of %s, which runs it as shell code or as a command", line[locs[i][0]:locs[i][1]], st.code),
				Hint: "pass the value to a program as data"}
		}
	}
	return sites, nil
}

// plainSites places the references locs of word w of a command run
// without a shell: each is part of one argument.
func plainSites(w string, locs [][]int, program, afterDashes bool) []site {
	sites := make([]site, len(locs))
	last := 0
	literal := false
	for i, loc := range locs {
		literal = literal || loc[0] > last
		sites[i] = site{q: none, start: !literal, after: afterDashes, command: program}
		for j := 0; j < i; j++ {
			sites[i].prev = append(sites[i].prev, j)
		}
		last = loc[1]
	}
	return sites
}

// Absolute makes a program path that holds a slash absolute against dir; a
// bare name stays, for a PATH lookup.
func Absolute(program, dir string) string {
	if strings.ContainsRune(program, '/') && !filepath.IsAbs(program) {
		return filepath.Join(dir, program)
	}
	return program
}

// expand replaces the references locs of s with their values, each quoted
// for its site (none: as is); a model's value that would start an
// argument with "-" is refused unless allowDash allows it. Without
// sites, values go in as they are and nothing is refused.
func expand(s string, locs [][]int, sites []site, data map[string]any, allowDash func(string) bool) (string, error) {
	if locs == nil {
		return s, nil
	}
	var b strings.Builder
	values := make([]string, len(locs))
	last := 0
	for i, loc := range locs {
		b.WriteString(s[last:loc[0]])
		name := s[loc[2]:loc[3]]
		v, ok := lookup(data, name)
		if !ok {
			hint := ""
			if s := suggest.Closest(name, refs(data, "")); s != "" {
				hint = "; did you mean {{" + s + "}}?"
			}
			return "", fmt.Errorf("unknown template value {{%s}}%s", name, hint)
		}
		text := scalarText(v)
		if strings.IndexByte(text, 0) >= 0 {
			return "", fmt.Errorf("the value of {{%s}} holds a NUL byte, which no argument can carry", name)
		}
		values[i] = text
		if sites != nil {
			st := sites[i]
			if st.start && !st.after && strings.HasPrefix(text, "-") && Model(name) && (allowDash == nil || !allowDash(name)) && empty(values, st.prev) {
				return "", &DashError{Ref: name, Value: text}
			}
			text = st.q.quote(text)
		}
		b.WriteString(text)
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// empty reports whether the values of the references refs are all empty.
func empty(values []string, refs []int) bool {
	for _, i := range refs {
		if values[i] != "" {
			return false
		}
	}
	return true
}

// quoting is where a position in POSIX shell text stands: outside quotes,
// inside double quotes, or inside single quotes; none is no shell.
type quoting uint8

const (
	bare quoting = iota
	double
	single
	none
)

// quote makes s one literal string in quoting context q.
func (q quoting) quote(s string) string {
	switch q {
	case none:
		return s
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
