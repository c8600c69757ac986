// Package diag is strata's one kind of diagnostic: a problem at a place (a
// layer, a line and column, a key path), how bad it is, what is wrong, what
// might fix it, and the error that caused it, if any.
//
// Every package of strata reports problems as an [*Error], or as [Errors]
// when one pass finds several. [Error.Error] gives one line;
// [Error.Render] adds the offending source line for people. A wrapped
// cause stays reachable: errors.Is(err, context.Canceled) holds through
// every layer.
package diag

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/strata-config/strata/internal/tomltext"
)

// Severity says how bad a problem is.
type Severity uint8

// Severities. The zero Severity is SeverityError.
const (
	// SeverityError: the operation failed, or left something out that was
	// asked for.
	SeverityError Severity = iota
	// SeverityWarning: something was left out or skipped, and the rest went
	// on.
	SeverityWarning
)

func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Error is one problem: where it is, which key, what is wrong, and what
// might fix it.
type Error struct {
	Severity Severity
	// Source names the layer or the place: a file path, or a label such as
	// "--cfg #2" or "env STRATA_TOOLS_GREP_RUN".
	Source string
	// Line and Column are 1-based (columns count characters); 0 when the
	// position is not known.
	Line, Column int
	// Path is the key path of the problem, outermost key first; empty for
	// syntax errors.
	Path []string
	// Msg says what is wrong.
	Msg string
	// Hint suggests a fix, such as "did you mean run?"; may be empty.
	Hint string
	// Snippet is the source line of the problem, when known.
	Snippet string
	// Err is the cause, when the problem comes from another error.
	Err error
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
		b.WriteString(e.Key())
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Key returns the key path as TOML writes it: tools.'fs.read'.run.
func (e *Error) Key() string { return tomltext.Path(e.Path) }

// Equal reports whether e and o say the same: the same fields, and causes
// with the same text. It lets go-cmp compare problems whatever their
// causes hold.
func (e *Error) Equal(o *Error) bool {
	if e == nil || o == nil {
		return e == o
	}
	if (e.Err == nil) != (o.Err == nil) || e.Err != nil && e.Err.Error() != o.Err.Error() {
		return false
	}
	return e.Severity == o.Severity && e.Source == o.Source && e.Line == o.Line && e.Column == o.Column &&
		slices.Equal(e.Path, o.Path) && e.Msg == o.Msg && e.Hint == o.Hint && e.Snippet == o.Snippet
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

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
// or err itself as the cause of a single problem without position.
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
	return []*Error{{Msg: err.Error(), Err: err}}
}
