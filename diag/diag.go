// Package diag is strata's one kind of diagnostic: a problem at a place (a
// layer, a line and column, a key path), what kind of problem it is, how
// bad it is, what is wrong, what might fix it, and the error that caused
// it, if any.
//
// Rendered, a problem is safe to print on a terminal whoever wrote the text
// it quotes: [Error.Error] and [Error.Render] escape what a terminal would
// act on.
//
// Every package of strata reports problems as an [*Error], or as [Errors]
// when one pass finds several. [Error.Error] gives one line;
// [Error.Render] adds the offending source line for people. A wrapped
// cause stays reachable: errors.Is(err, context.Canceled) holds through
// every layer.
//
// # Codes
//
// Each problem strata makes has a [Code], which says what kind of problem
// it is in words that do not change: a program branches on the code,
// never on the message, which is written for people and may be reworded.
// errors.Is(err, diag.CodeUntrusted) reports whether err holds a problem
// of that code, one of [Errors] included; the text of a problem does not
// show its code. A problem that did not come from strata (an error of a
// host's own, wrapped by [All]) has the zero Code.
//
//	Code                 The problem
//	syntax               a file or value does not read as its format (TOML, JSON, YAML, a key path, a command line)
//	unknown-key          a key, variable name or key path names nothing of the model; Hint has the did-you-mean
//	type                 a value of the wrong type: a string where a table goes
//	bad-value            a value of the right type that is not one allowed: an unknown mode, an invalid source or command
//	invalid              the config is inconsistent or incomplete: a server without a command, a key not allowed in '*'
//	not-found            a name names nothing: no MCP server, tool, builtin or discovered tool of that name
//	override             an override of a discovered schema loosens it, or names a parameter it does not have
//	name-collision       tools share a name: each is given under its server's, settings for it do not say whose, or a name is taken
//	untrusted            the workspace is not trusted: its layers are not applied, or a launch that resolves into it is left out
//	refused              strata refuses what was asked because it is not safe: trusting a home directory
//	pin-changed          a pinned launch differs from its pin (errors.Is(err, trust.ErrChanged) holds too)
//	discovery            a tool's program did not describe itself: it failed, or answered what is not a schema
//	server               an MCP server did not start or did not list its tools
//	left-out             something configured is left out on purpose: a disabled server, a name an export refuses
//	changed              what a server offers changed from what the cache held, or a name an export rewrote (a notice)
//	limit                past a bound of codec.Limits (or a fixed one): depth, size, values, a server's tool list
//	read                 a file, directory or source cannot be read: missing, not a regular file, no permission
//	write                a file cannot be written or locked: the trust list, the cache
//	foreign              another client's file where a layer was expected (Codex's config.toml)
//	usage                the host or the user asked for something strata cannot do: a source without a name, a call of no tool
//	sign-in              a remote MCP server needs a sign-in strata does not hold (none, expired, or too few scopes): strata login
//	unreachable          a policy rule can never match: an earlier rule takes every call it would (both are named)
//	example              a policy rule's example (match, not_match) does not behave as the rule is written
//	skipped              a call was not run because its run policy says skip (the rule, its place and reason are named)
//	clamped              a value outside a policy layer moved to the nearest one it allows, or a server it does not allow was left out (the policy and its reason are named)
//	omitted              closes a list of problems cut short: how many more there were (its cause is an [*Omitted])
package diag

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/strata-config/strata/internal/termtext"
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

// Code says what kind of problem an [Error] is, for programs: see the
// table in the package documentation. It is an error itself only so that
// errors.Is(err, code) finds a problem of that code in err.
type Code string

// The codes. A new one is added to the table of the package
// documentation.
const (
	CodeSyntax        Code = "syntax"
	CodeUnknownKey    Code = "unknown-key"
	CodeType          Code = "type"
	CodeBadValue      Code = "bad-value"
	CodeInvalid       Code = "invalid"
	CodeNotFound      Code = "not-found"
	CodeOverride      Code = "override"
	CodeNameCollision Code = "name-collision"
	CodeUntrusted     Code = "untrusted"
	CodeRefused       Code = "refused"
	CodePinChanged    Code = "pin-changed"
	CodeDiscovery     Code = "discovery"
	CodeServer        Code = "server"
	CodeLeftOut       Code = "left-out"
	CodeChanged       Code = "changed"
	CodeLimit         Code = "limit"
	CodeRead          Code = "read"
	CodeWrite         Code = "write"
	CodeForeign       Code = "foreign"
	CodeUsage         Code = "usage"
	CodeSignIn        Code = "sign-in"
	CodeUnreachable   Code = "unreachable"
	CodeExample       Code = "example"
	CodeSkipped       Code = "skipped"
	CodeClamped       Code = "clamped"
	CodeOmitted       Code = "omitted"
)

// Codes lists every code, in the order of the table.
func Codes() []Code {
	return []Code{CodeSyntax, CodeUnknownKey, CodeType, CodeBadValue, CodeInvalid, CodeNotFound, CodeOverride,
		CodeNameCollision, CodeUntrusted, CodeRefused, CodePinChanged, CodeDiscovery, CodeServer, CodeLeftOut,
		CodeChanged, CodeLimit, CodeRead, CodeWrite, CodeForeign, CodeUsage, CodeSignIn, CodeUnreachable, CodeExample, CodeSkipped, CodeClamped, CodeOmitted}
}

// Error returns the code, so that a Code is an error errors.Is can look
// for.
func (c Code) Error() string { return string(c) }

// Error is one problem: where it is, which key, what kind of problem,
// what is wrong, and what might fix it.
//
// An Error does not hold a copy of its source line: [Error.SetText]
// points it at the text of its source, and [Error.Snippet] cuts the line
// out of it when the problem is shown. Many problems of one document share
// its text.
type Error struct {
	// Code says what kind of problem this is, in words that do not change
	// (see [Code]); a program branches on it rather than on Msg.
	Code     Code
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
	// Err is the cause, when the problem comes from another error.
	Err error

	text []byte // the text of the source, shared; see SetText
	off  int    // the byte offset of the problem in text
}

// Error renders e on one line:
//
//	config.toml:3:1: tools.grep.rnu: unknown key; did you mean run?
//
// A problem may quote what a server, a tool or a file said: the line
// escapes what a terminal would act on rather than show (escape
// sequences, carriage returns, C1 controls, bidirectional overrides, bytes
// that are not UTF-8: \x1b, \r, \u202e), and a newline is a space.
// The fields keep the text as it was.
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
	return termtext.Line(b.String())
}

// Key returns the key path as TOML writes it: tools.'fs.read'.run.
func (e *Error) Key() string { return tomltext.Path(e.Path) }

// Equal reports whether e and o say the same: the same fields, the same
// snippet, and causes with the same text. It lets go-cmp compare problems,
// and pointers to them, whatever their causes hold.
func (e Error) Equal(o Error) bool {
	if (e.Err == nil) != (o.Err == nil) || e.Err != nil && e.Err.Error() != o.Err.Error() {
		return false
	}
	return e.Code == o.Code && e.Severity == o.Severity && e.Source == o.Source && e.Line == o.Line && e.Column == o.Column &&
		slices.Equal(e.Path, o.Path) && e.Msg == o.Msg && e.Hint == o.Hint && e.Snippet() == o.Snippet()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether e has the code target, so that errors.Is(err,
// diag.CodeUnknownKey) finds such a problem wherever it sits in err.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && c != "" && c == e.Code
}

// SetText points e at the text of its source and the byte offset of the
// problem in it, for [Error.Snippet] and [Error.Render]. The text is kept,
// not copied: it must not change afterwards. It does not set Line and
// Column, which the caller knows (a document computes them once for all
// its problems).
func (e *Error) SetText(text []byte, off int) {
	if off < 0 {
		text, off = nil, 0
	}
	e.text, e.off = text, min(off, len(text))
}

// Snippet returns the source line of the problem, cut to the characters
// around its column ("…" marks a cut) and with control characters and
// invalid UTF-8 shown as U+FFFD; "" when e has no text (see
// [Error.SetText]).
func (e *Error) Snippet() string {
	s, _ := e.snippet()
	return s
}

// snippetWidth is how many characters of a line a snippet shows at most:
// a longer line is cut around the problem's column.
const snippetWidth = 160

// snippet returns the snippet and the index, in characters, of the
// problem's column in it.
func (e *Error) snippet() (string, int) {
	if e.text == nil {
		return "", 0
	}
	text, off := e.text, e.off
	// An offset inside a multi-byte character is that character (a stray
	// continuation byte is a character of its own).
	if off < len(text) && !utf8.RuneStart(text[off]) {
		for s := off - 1; s >= 0 && s > off-utf8.UTFMax; s-- {
			if utf8.RuneStart(text[s]) {
				if _, size := utf8.DecodeRune(text[s:]); s+size > off {
					off = s
				}
				break
			}
		}
	}
	start, before := back(text, off, snippetWidth)
	end, after := forward(text, off, snippetWidth)
	if before+after > snippetWidth {
		// Half the width on each side, or more on one side when the
		// other has less.
		keep := min(before, max(snippetWidth/2, snippetWidth-after))
		start, before = back(text, off, keep)
		end, _ = forward(text, off, snippetWidth-keep)
	}
	var b strings.Builder
	caret := before
	if start > 0 && text[start-1] != '\n' {
		b.WriteString("…")
		caret++
	}
	line := text[start:end]
	if end == len(text) || text[end] == '\n' {
		line = bytes.TrimSuffix(line, []byte("\r"))
	}
	for len(line) > 0 {
		r, size := utf8.DecodeRune(line)
		switch {
		case r == utf8.RuneError && size == 1, r != '\t' && unicode.IsControl(r):
			r = utf8.RuneError
		}
		b.WriteRune(r)
		line = line[size:]
	}
	if end < len(text) && text[end] != '\n' {
		b.WriteString("…")
	}
	return b.String(), caret
}

// Render renders e for people, over several lines: its severity ("error: "
// or "warning: "), the line of [Error.Error], then the offending source
// line and a caret under the column.
//
//	error: tools.toml:2:10: tools.grep.source: invalid source "mcp"; ...
//	 2 | source = "mcp"
//	   |          ^
func (e *Error) Render() string {
	var b strings.Builder
	b.WriteString(e.Severity.String() + ": ")
	b.WriteString(e.Error())
	if s, caret := e.snippet(); s != "" && e.Line > 0 {
		gutter := strconv.Itoa(e.Line)
		fmt.Fprintf(&b, "\n %s | %s\n %s | %s^", gutter, s, strings.Repeat(" ", len(gutter)), caretPad(s, caret))
	}
	return b.String()
}

// back returns where the line of text around off starts, or the offset n
// characters before off when that is nearer, and how many characters lie
// between.
func back(text []byte, off, n int) (int, int) {
	count := 0
	for off > 0 && text[off-1] != '\n' && count < n {
		_, size := utf8.DecodeLastRune(text[:off])
		off -= size
		count++
	}
	return off, count
}

// forward returns where the line of text around off ends, or the offset n
// characters after off when that is nearer, and how many characters lie
// between.
func forward(text []byte, off, n int) (int, int) {
	count := 0
	for off < len(text) && text[off] != '\n' && count < n {
		_, size := utf8.DecodeRune(text[off:])
		off += size
		count++
	}
	return off, count
}

// caretPad returns the blanks that put a caret under the character at
// index i of line, keeping tabs so that the caret lines up.
func caretPad(line string, i int) string {
	var b strings.Builder
	for _, r := range line {
		if i == 0 {
			break
		}
		i--
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

// Error renders the first problem and counts the others, those that a
// list cut short at a limit left out included (see [Collector]).
func (es Errors) Error() string {
	if len(es) == 0 {
		return "no errors"
	}
	more := len(es) - 1
	if n := omitted(es[len(es)-1]); n > 0 && len(es) > 1 {
		more += n - 1
	}
	if more == 0 {
		return es[0].Error()
	}
	return fmt.Sprintf("%s (and %s)", es[0].Error(), Counted(more, "more problem"))
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
