// Package termtext makes text that others wrote safe to print on a
// terminal. A server's error message, its stderr, a tool's name or
// description may hold what a terminal acts on rather than shows: escape
// sequences that clear the screen, set the window title or write the
// clipboard (OSC 52), a carriage return that writes over a line, a C1
// control (U+009B is CSI on many terminals), a bidirectional override
// that shows text in another order than it is. Each is written as a Go
// escape instead (\x1b, \r, \u009b, \u202e), so the text stays readable
// and shows what was sent.
//
// What is escaped: the C0 controls and DEL but tab (and, where lines are
// kept, the newline), the C1 controls, the bidirectional formatting
// characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069),
// the line and paragraph separators (U+2028, U+2029), and bytes that are
// not UTF-8 (\xff). A backslash is not: text that writes "\x1b" itself
// shows as written.
package termtext

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Acts reports whether a terminal may act on r rather than show it, or
// show it out of order (see the package doc): the writers of formats
// (JSON, TOML) escape such a character inside their strings. Tab,
// newline and carriage return are among them.
func Acts(r rune) bool { return acts(r) }

// acts reports whether a terminal may act on r rather than show it, or
// show it out of order (see the package doc); tab, newline and carriage
// return are not decided here.
func acts(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true
	}
	switch r {
	case 0x061c, 0x200e, 0x200f, 0x2028, 0x2029:
		return true
	}
	return 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

// mode is what happens to newlines and tabs.
type mode uint8

const (
	oneLine   mode = iota // a newline becomes a space; a tab stays
	keepLines             // newlines and tabs stay
)

// escape appends s to b, escaped in mode m.
func escape(b *strings.Builder, s string, m mode) {
	for i := 0; i < len(s); {
		c := s[i]
		if 0x20 <= c && c < 0x7f || c == '\t' {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, c)
		case r == '\n' && m == oneLine:
			b.WriteByte(' ')
		case r == '\n':
			b.WriteByte('\n')
		case r == '\r' && m == oneLine && strings.HasPrefix(s[i+1:], "\n"):
			// A CRLF line end is a line end.
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && acts(r):
			fmt.Fprintf(b, `\x%02x`, r)
		case acts(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}

// safe reports whether s needs no escaping in mode m.
func safe(s string, m mode) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && !(c == '\n' && m == keepLines) || c >= 0x7f {
			return false
		}
	}
	return true
}

// Line returns s for one line of a terminal: what a terminal would act
// on escaped, and each line end a space.
func Line(s string) string {
	if safe(s, oneLine) {
		return s
	}
	var b strings.Builder
	escape(&b, s, oneLine)
	return b.String()
}

// Lines returns s for a terminal, its lines kept: what a terminal would
// act on escaped, newlines and tabs as they are.
func Lines(s string) string {
	if safe(s, keepLines) {
		return s
	}
	var b strings.Builder
	escape(&b, s, keepLines)
	return b.String()
}

// Writer writes to W what it is given as [Lines] escapes it. A character
// split between two writes is escaped whole. It is safe for concurrent
// use.
type Writer struct {
	W     io.Writer
	mu    sync.Mutex
	carry carry
}

// carry is the start of a character that the last write ended inside.
type carry []byte

// whole returns what the last write kept and p, up to the last whole
// character, and keeps the start of an incomplete one at the end for the
// next write.
func (c *carry) whole(p []byte) []byte {
	buf := p
	if len(*c) > 0 {
		buf = append(*c, p...)
		*c = nil
	}
	if cut := incomplete(buf); cut < len(buf) {
		*c = bytes.Clone(buf[cut:])
		buf = buf[:cut]
	}
	return buf
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{W: w} }

// Write writes p, escaped; it returns len(p) when the escaped text was
// written whole.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := w.carry.whole(p)
	var err error
	if safeBytes(buf) {
		// Most output is: written as it is, without a copy.
		_, err = w.W.Write(buf)
	} else {
		_, err = io.WriteString(w.W, Lines(string(buf)))
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// safeBytes reports whether b needs no escaping in keepLines mode.
func safeBytes(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' || c >= 0x7f {
			return false
		}
	}
	return true
}

// incomplete returns where an incomplete UTF-8 character at the end of b
// starts, or len(b).
func incomplete(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// JSON returns the JSON text b with the characters a terminal acts on
// that JSON leaves raw (DEL, the C1 controls, bidirectional formatting
// characters, the line and paragraph separators) written as \u escapes,
// and bytes that are not UTF-8 as \ufffd: the same JSON to a parser,
// safe to print. They can only stand inside strings, where an escape
// means the same character.
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case acts(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// JSONWriter writes to W the JSON text it is given as [JSON] escapes it:
// a stream of JSON messages (an event stream, JSON lines) whose writes
// may split a character, which is escaped whole. It is not safe for
// concurrent use.
type JSONWriter struct {
	W     io.Writer
	carry carry
}

// Write writes p, escaped; it returns len(p) when the escaped text was
// written whole.
func (w *JSONWriter) Write(p []byte) (int, error) {
	if _, err := w.W.Write(JSON(w.carry.whole(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Graphic reports whether every character of s shows as itself: a
// letter, mark, number, punctuation, symbol or space (Unicode's graphic
// characters), none of them one a terminal acts on.
func Graphic(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || acts(r) || !unicode.IsGraphic(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}
