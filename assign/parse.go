// Package assign changes layers with key=value overrides, the way users
// write them on a command line (--cfg) and in the environment: JP's
// AssignKeyValue is [Parse] then [Apply].
//
// The grammar:
//
//	key=value       the text, converted to the field's type (a bool, a
//	                number, one of an enum's values, a command string...);
//	                for a list, comma-separated items replace it
//	key:=json       a JSON value; null unsets the field (the default applies
//	                again); on a table, an object replaces all its entries
//	key+=value      appends comma-separated items to a list
//	key:+=json      merges a JSON value: an array's items are appended, an
//	key+:=json      object's entries merge with the table's
//	{"key": ...}    a JSON object merged at the root, key by key
//
// Keys are dotted paths; a key that holds other characters than letters,
// digits, '_' and '-' is quoted as in TOML: tools.'fs.read'.run=ask. A
// number after a list (tools.x.command.args.1=--json) names an existing
// item. Map entries are created as needed.
//
// In the environment, PREFIX_TOOLS_GREP_RUN=ask is tools.grep.run=ask: see
// [Env].
package assign

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/partial"
)

// Op is an assignment operator.
type Op uint8

// Operators.
const (
	Set       Op = iota // key=value
	SetJSON             // key:=json
	Merge               // key+=value
	MergeJSON           // key:+=json or key+:=json
)

func (o Op) String() string {
	switch o {
	case SetJSON:
		return ":="
	case Merge:
		return "+="
	case MergeJSON:
		return ":+="
	default:
		return "="
	}
}

// Assignment is one override: a key path, an operator and a value.
type Assignment struct {
	// Source labels the assignment in messages, such as "--cfg #2" or
	// "env STRATA_TOOLS_GREP_RUN".
	Source string
	Path   partial.Path // empty for a root JSON object
	Op     Op
	Value  string // text for Set and Merge, JSON for SetJSON and MergeJSON
}

func (a Assignment) String() string {
	if len(a.Path) == 0 {
		return a.Value
	}
	return a.Path.String() + a.Op.String() + a.Value
}

// operators, longest first so that ":+=" is not read as ":" then "+=".
var operators = []struct {
	text string
	op   Op
}{{":+=", MergeJSON}, {"+:=", MergeJSON}, {":=", SetJSON}, {"+=", Merge}, {"=", Set}}

// Parse reads one assignment: key=value, key:=json, key+=value,
// key:+=json (or key+:=json), or a JSON object. A key path deeper than
// the limit (see [MaxDepth]) is an error; messages quote a prefix of a
// long input (see [MaxQuote]).
func Parse(s string, opts ...Option) (Assignment, error) {
	o := newOptions(opts)
	a, err := parse(s)
	if err != nil {
		return Assignment{}, errors.New(limits.CutQuoted(err.Error(), o.quote))
	}
	if len(a.Path) > o.depth {
		return Assignment{}, tooDeep(len(a.Path), o.depth)
	}
	return a, nil
}

// tooDeep is the problem of a key path of n keys, more than max.
func tooDeep(n, max int) error {
	return fmt.Errorf("the key path has %s keys, more than the limit of %s", diag.Count(n), diag.Count(max))
}

func parse(s string) (Assignment, error) {
	if !utf8.ValidString(s) {
		return Assignment{}, fmt.Errorf("%q is not valid UTF-8", s)
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		return Assignment{Op: MergeJSON, Value: t}, nil
	}
	end, err := keyEnd(s)
	if err != nil {
		return Assignment{}, err
	}
	key, rest := strings.TrimRight(s[:end], " \t"), s[end:]
	for _, o := range operators {
		if strings.HasPrefix(rest, o.text) {
			if strings.TrimSpace(key) == "" {
				return Assignment{}, fmt.Errorf("%q: the key is empty; write key%svalue", s, o.text)
			}
			p, err := partial.ParsePath(key)
			if err != nil {
				return Assignment{}, err
			}
			return Assignment{Path: p, Op: o.op, Value: rest[len(o.text):]}, nil
		}
	}
	if rest == "" {
		return Assignment{}, fmt.Errorf("%q has no '='; write key=value, key:=json, key+=value or key:+=json", s)
	}
	return Assignment{}, fmt.Errorf("%q: unexpected %q after the key; write key=value, key:=json, key+=value or key:+=json", s, rest[:1])
}

// keyEnd returns the offset where the key of s ends: the first ':', '+'
// or '=' outside quotes.
func keyEnd(s string) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'':
			j := i + 1
			for j < len(s) && s[j] != c {
				if c == '"' && s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return 0, fmt.Errorf("%q: unterminated quoted key", s)
			}
			i = j
		case ':', '+', '=':
			return i, nil
		}
	}
	return len(s), nil
}
