package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// Command is how a local tool is run. In a file it is a string of shell
// words (quotes group words, as in a shell, but nothing is expanded and no
// shell runs), or a table { program = "...", args = [...], shell = false }.
// With shell = true, the program and its arguments are joined into one line
// and run by /bin/sh -c.
//
// Arguments may hold templates, rendered for each call: {{tool}} and
// {{context}} become JSON, {{tool.name}}, {{context.root}} and other
// scalars their raw text.
type Command struct {
	Program string   `toml:"program"`
	Args    []string `toml:"args"`
	Shell   bool     `toml:"shell"`
}

// IsZero reports whether no command is set.
func (c Command) IsZero() bool { return c.Program == "" && len(c.Args) == 0 && !c.Shell }

// Rebase makes a relative program path (one with a slash, such as
// bin/tool or scripts/{{tool.name}}.sh) absolute against dir, the
// directory of the file that wrote it, templated or not; a bare name is
// looked up in PATH, and shell text is left as written. A program that
// starts with a template cannot be told relative before it is rendered:
// it stays as written, and is relative to the workspace root when it
// renders relative (which, in a workspace nobody trusted, is refused).
func (c *Command) Rebase(dir string) {
	p := c.Program
	if c.Shell || !strings.ContainsRune(p, '/') || filepath.IsAbs(p) || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "{{") {
		return
	}
	c.Program = filepath.Join(dir, p)
}

// ParseCommand splits a command string into words.
func ParseCommand(s string) (Command, error) {
	words, err := splitWords(s)
	if err != nil {
		return Command{}, &diag.Error{Code: diag.CodeSyntax, Msg: fmt.Sprintf("invalid command %q: %s", s, lowerFirst(err.Error())), Hint: "balance the quotes, or write { program = \"...\", args = [...] }"}
	}
	if len(words) == 0 {
		return Command{}, &diag.Error{Code: diag.CodeBadValue, Msg: "the command is empty"}
	}
	if words[0] == "" {
		return Command{}, &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("invalid command %q: the program name is empty", s)}
	}
	c := Command{Program: words[0]}
	if len(words) > 1 {
		c.Args = words[1:]
	}
	return c, nil
}

// splitWords splits s into shell words as shellquote.Split does. Words
// without quotes or backslashes, as most commands are, are split here,
// without copying them: shellquote copies every word through a buffer.
func splitWords(s string) ([]string, error) {
	if strings.ContainsAny(s, `'"\`) {
		return shellquote.Split(s)
	}
	words := make([]string, 0, 1+strings.Count(s, " "))
	for len(s) > 0 {
		i := strings.IndexAny(s, " \n\t")
		switch {
		case i < 0:
			return append(words, s), nil
		case i > 0:
			words = append(words, s[:i])
		}
		s = s[i+1:]
	}
	return words, nil
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// String writes the command as shell words.
func (c Command) String() string {
	words := make([]string, 0, 1+len(c.Args))
	for _, w := range append([]string{c.Program}, c.Args...) {
		words = append(words, quoteWord(w))
	}
	return strings.Join(words, " ")
}

// quoteWord quotes w for ParseCommand: bare when it holds only characters
// that need no quoting, single-quoted otherwise.
func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-+=:,./@%{}^", r)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// UnmarshalValue reads a command.
func (c *Command) UnmarshalValue(v any) error {
	switch v := v.(type) {
	case string:
		cmd, err := ParseCommand(v)
		if err != nil {
			return err
		}
		*c = cmd
		return nil
	case map[string]any:
		out := Command{}
		for _, k := range slices.Sorted(maps.Keys(v)) { // deterministic: the first problem by key
			x := v[k]
			switch k {
			case "program":
				s, err := asString(x, partial.Path{k}, "a string")
				if err != nil {
					return err
				}
				out.Program = s
			case "args":
				list, ok := x.([]any)
				if !ok {
					return &diag.Error{Code: diag.CodeType, Path: partial.Path{k}, Msg: "expected an array of strings, found " + describe(x)}
				}
				for i, a := range list {
					s, err := asString(a, partial.Path{k, fmt.Sprint(i)}, "a string")
					if err != nil {
						return err
					}
					out.Args = append(out.Args, s)
				}
			case "shell":
				b, err := asBool(x, partial.Path{k})
				if err != nil {
					return err
				}
				out.Shell = b
			default:
				return &diag.Error{Code: diag.CodeUnknownKey, Path: partial.Path{k}, Msg: "unknown key", Hint: didYouMean(k, []string{"program", "args", "shell"})}
			}
		}
		if out.Program == "" {
			return &diag.Error{Code: diag.CodeInvalid, Msg: "a command table needs a program", Hint: `write { program = "my-tool", args = ["--flag"] }`}
		}
		*c = out
		return nil
	}
	return fmt.Errorf("expected a command string or { program, args, shell }, found %s", describe(v))
}

// MarshalValue writes a command as a string when it needs no shell, and
// as a table otherwise.
func (c Command) MarshalValue() (any, error) {
	if !c.Shell {
		return c.String(), nil
	}
	m := map[string]any{"program": c.Program, "shell": true}
	if len(c.Args) > 0 {
		args := make([]any, len(c.Args))
		for i, a := range c.Args {
			args[i] = a
		}
		m["args"] = args
	}
	return m, nil
}
