package partial

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error is one problem in a layer: where it is, which key, what is wrong,
// and what might fix it.
type Error struct {
	// Source names the layer: a file path, or a label such as "--cfg #2"
	// or "env STRATA_TOOLS_GREP_RUN".
	Source string
	// Line and Column are 1-based (columns count characters); 0 when the
	// position is not known.
	Line, Column int
	// Path is the key path of the problem; empty for syntax errors.
	Path Path
	// Msg says what is wrong.
	Msg string
	// Hint suggests a fix, such as "did you mean run?"; may be empty.
	Hint string
	// Snippet is the source line of the problem, when known.
	Snippet string
}

// Error renders e on one line:
//
//	config.toml:3:1: tools.grep.rnu: unknown key; did you mean run?
func (e *Error) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString(e.Source)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
		}
		b.WriteString(": ")
	}
	if len(e.Path) > 0 {
		b.WriteString(e.Path.String())
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Render renders e for people, over several lines, with the offending
// source line and a caret under the column.
func (e *Error) Render() string {
	var b strings.Builder
	b.WriteString(e.Error())
	if e.Snippet != "" && e.Line > 0 {
		gutter := fmt.Sprintf("%d", e.Line)
		fmt.Fprintf(&b, "\n %s | %s\n %s | %s^", gutter, e.Snippet, strings.Repeat(" ", len(gutter)), caretPad(e.Snippet, e.Column))
	}
	return b.String()
}

// caretPad returns the blanks that put a caret under 1-based column col of
// line, keeping tabs so that the caret lines up.
func caretPad(line string, col int) string {
	var b strings.Builder
	for i, r := range line {
		if utf8.RuneCountInString(line[:i]) >= col-1 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// Errors is every problem found in one pass, in the order found.
type Errors []*Error

// Error renders the first problem and counts the others.
func (es Errors) Error() string {
	switch len(es) {
	case 0:
		return "no errors"
	case 1:
		return es[0].Error()
	case 2:
		return es[0].Error() + " (and 1 more problem)"
	}
	return fmt.Sprintf("%s (and %d more problems)", es[0].Error(), len(es)-1)
}

// Render renders every problem for people.
func (es Errors) Render() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Render()
	}
	return strings.Join(parts, "\n")
}

// Unwrap returns the problems, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// All returns the problems in err: the members of an [Errors], an [*Error],
// or err wrapped as a single problem without position.
func All(err error) []*Error {
	if err == nil {
		return nil
	}
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return []*Error{{Msg: err.Error()}}
}
