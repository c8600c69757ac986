// Package secret carries the values of a configuration that did not come
// from the file itself: a variable of the user's environment
// (${env:GITHUB_TOKEN} in another client's file), an input the user typed
// (${input:api-key}), a line of an envFile, a token. Such a value is a
// [String] whose text is its reference, "<from ${env:GITHUB_TOKEN}>":
// that is what fmt, errors, JSON, TOML and every other output print, so
// that no path that prints has to remember to hide it. Only
// [String.Reveal] gives the value, and only what launches a program or
// reaches a server calls it: the program gets its arguments and
// environment, the remote server its URL, headers and token.
//
// Text that was written in a file is a plain String, printed as it is.
package secret

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unique"
)

// String is a string of a configuration that may be a secret. A secret
// String prints as its reference ("<from ${env:NAME}>") in every form:
// [String.String], every verb of fmt, [String.MarshalText] and
// [String.MarshalJSON]. Its value is not a field fmt or encoding/json can
// reach, even when a String is an unexported field of a struct that is
// printed whole. The zero String is the plain empty string.
//
// Strings are comparable: two are equal when they have the same value and
// come from the same place.
type String struct {
	v    unique.Handle[string] // the value; the zero Handle is ""
	from string                // what the value came from, as written; "" for plain text
}

// Plain returns s, written in a file: it prints as it is.
func Plain(s string) String {
	if s == "" {
		return String{}
	}
	return String{v: unique.Make(s)}
}

// From returns value, which came from from, as the user wrote it where
// the value now stands: "${env:GITHUB_TOKEN}", "--api-key=${API_KEY}",
// "GITHUB_TOKEN in ~/.cursor/secrets.env". It prints as "<from " + from
// + ">".
func From(value, from string) String {
	if from == "" {
		from = "a secret"
	}
	s := Plain(value)
	s.from = from
	return s
}

// Plains returns the plain Strings of ss.
func Plains(ss ...string) []String {
	if ss == nil {
		return nil
	}
	out := make([]String, len(ss))
	for i, s := range ss {
		out[i] = Plain(s)
	}
	return out
}

// IsSecret reports whether s came from somewhere other than the file: it
// prints as its reference.
func (s String) IsSecret() bool { return s.from != "" }

// Empty reports whether the value of s is the empty string.
func (s String) Empty() bool { return s.v == unique.Handle[string]{} }

// Reveal returns the value of s. Only a launch calls it: what starts a
// program or reaches a server, and what must check or hash the value on
// the way there (internal/floors holds the list of those who may).
func (s String) Reveal() string {
	if s.Empty() {
		return ""
	}
	return s.v.Value()
}

// Values returns the value of each of ss (see [String.Reveal]).
func Values(ss []String) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Reveal()
	}
	return out
}

// Derive returns f of the value of s, from the same place as s: a path
// made absolute stays a secret. f sees the value (see [String.Reveal]).
func (s String) Derive(f func(string) string) String {
	out := Plain(f(s.Reveal()))
	out.from = s.from
	return out
}

// String returns the text of s: its reference, "<from ${env:NAME}>", or
// the plain text.
func (s String) String() string {
	if s.from != "" {
		return "<from " + s.from + ">"
	}
	return s.Reveal()
}

// Texts returns the text of each of ss (see [String.String]).
func Texts(ss []String) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	return out
}

// Format formats the text of s with any verb: %q quotes the reference,
// %x gives its hex; %#v is the Go syntax of a String without its value.
func (s String) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, s.GoString())
		return
	}
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), s.String())
}

// GoString returns secret.Plain("text"), or secret.From(…, "from") with
// the value left out.
func (s String) GoString() string {
	if s.from != "" {
		return fmt.Sprintf("secret.From(…, %q)", s.from)
	}
	return fmt.Sprintf("secret.Plain(%q)", s.Reveal())
}

// MarshalText returns the text of s.
func (s String) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MarshalJSON returns the text of s as a JSON string.
func (s String) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalText reads plain text: text read from a file or a command line
// is never a secret.
func (s *String) UnmarshalText(b []byte) error {
	*s = Plain(string(b))
	return nil
}

// Equal reports whether s and o have the same value from the same place.
func (s String) Equal(o String) bool { return s == o }

// minHidden is the length a secret's value must have for [Redact] to
// replace it: a shorter one ("1", "on") would take words out of any text.
const minHidden = 4

// Redact returns text with the value of each secret of ss replaced by its
// reference, the longest first. It is for text made where the value is
// used, which a launch's errors and a server's stderr may quote: an
// error of net/http names the URL, a server may echo its arguments.
// Values shorter than four bytes are left: they would take words out of
// any text.
func Redact(text string, ss ...String) string {
	var pairs []string
	for _, s := range ss {
		if s.IsSecret() && len(s.Reveal()) >= minHidden && strings.Contains(text, s.Reveal()) {
			pairs = append(pairs, s.Reveal(), s.String())
		}
	}
	if pairs == nil {
		return text
	}
	// strings.Replacer tries the old strings in order at each position:
	// longest first, so that a value that holds another is replaced whole.
	for i := 2; i < len(pairs); i += 2 {
		for j := i; j >= 2 && len(pairs[j]) > len(pairs[j-2]); j -= 2 {
			pairs[j], pairs[j-2] = pairs[j-2], pairs[j]
			pairs[j+1], pairs[j-1] = pairs[j-1], pairs[j+1]
		}
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// RedactError returns err with the values of ss in its text replaced by
// their references (see [Redact]), or err itself when its text holds
// none. errors.Is and errors.As see err as before, through Unwrap.
func RedactError(err error, ss ...String) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if r := Redact(text, ss...); r != text {
		return &redacted{text: r, err: err}
	}
	return err
}

type redacted struct {
	text string
	err  error
}

func (e *redacted) Error() string { return e.text }
func (e *redacted) Unwrap() error { return e.err }
