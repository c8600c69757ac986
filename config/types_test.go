package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
)

func ptrTo[T any](v T) *T { return &v }

const commandHint = `balance the quotes, or write { program = "...", args = [...] }`

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want config.Command
	}{
		{"program only", "ls", config.Command{Program: "ls"}},
		{"templates stay as written", "jp-tools {{tool}} {{context}}", config.Command{Program: "jp-tools", Args: []string{"{{tool}}", "{{context}}"}}},
		{"blanks around and between words", "  rg   -n\t--json  ", config.Command{Program: "rg", Args: []string{"-n", "--json"}}},
		{"single quotes group words", "grep -e 'a b' file", config.Command{Program: "grep", Args: []string{"-e", "a b", "file"}}},
		{"double quotes group words", `grep -e "a b"`, config.Command{Program: "grep", Args: []string{"-e", "a b"}}},
		{"escaped blank", `cat my\ file`, config.Command{Program: "cat", Args: []string{"my file"}}},
		{"escaped quote inside double quotes", `echo "a\"b"`, config.Command{Program: "echo", Args: []string{`a"b`}}},
		{"backslash inside single quotes is kept", `echo 'c\d'`, config.Command{Program: "echo", Args: []string{`c\d`}}},
		{"apostrophe by closing and reopening", `echo 'it'\''s'`, config.Command{Program: "echo", Args: []string{"it's"}}},
		{"empty quoted word", "echo '' x", config.Command{Program: "echo", Args: []string{"", "x"}}},
		{"nothing is expanded", "sh -c 'echo $HOME; ls | wc -l' ~ *", config.Command{Program: "sh", Args: []string{"-c", "echo $HOME; ls | wc -l", "~", "*"}}},
		{"quoted program", "'my tool' --x", config.Command{Program: "my tool", Args: []string{"--x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.ParseCommand(tt.in)
			if err != nil {
				t.Fatalf("ParseCommand(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseCommand(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			back, err := config.ParseCommand(got.String())
			if err != nil {
				t.Fatalf("ParseCommand(String()) of %q: %v", got.String(), err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("String round trip of %q mismatch (-want +got):\n%s", got.String(), diff)
			}
		})
	}
}

func TestParseCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want errorView
	}{
		{"empty", "", errorView{Text: "the command is empty", Typed: true, Msg: "the command is empty"}},
		{"blank", " \t ", errorView{Text: "the command is empty", Typed: true, Msg: "the command is empty"}},
		{"unbalanced single quote", "grep 'foo", errorView{
			Text: `invalid command "grep 'foo": unterminated single-quoted string; ` + commandHint, Typed: true,
			Msg: `invalid command "grep 'foo": unterminated single-quoted string`, Hint: commandHint,
		}},
		{"unbalanced double quote", `grep "foo`, errorView{
			Text: `invalid command "grep \"foo": unterminated double-quoted string; ` + commandHint, Typed: true,
			Msg: `invalid command "grep \"foo": unterminated double-quoted string`, Hint: commandHint,
		}},
		{"trailing backslash", `grep foo\`, errorView{
			Text: `invalid command "grep foo\\": unterminated backslash-escape; ` + commandHint, Typed: true,
			Msg: `invalid command "grep foo\\": unterminated backslash-escape`, Hint: commandHint,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.ParseCommand(tt.in)
			if err == nil {
				t.Fatalf("ParseCommand(%q) = %+v, want an error", tt.in, got)
			}
			if diff := cmp.Diff(tt.want, viewError(err)); diff != "" {
				t.Errorf("ParseCommand(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
			if !got.IsZero() {
				t.Errorf("ParseCommand(%q) = %+v with its error, want the zero Command", tt.in, got)
			}
		})
	}
}

func TestCommandString(t *testing.T) {
	tests := []struct {
		name string
		c    config.Command
		want string
	}{
		{"program only", config.Command{Program: "ls"}, "ls"},
		{"templates are bare", config.Command{Program: "jp-tools", Args: []string{"{{tool}}", "{{context.root}}"}}, "jp-tools {{tool}} {{context.root}}"},
		{"safe punctuation is bare", config.Command{Program: "x", Args: []string{"a=b", "k:v", "@f", "%s", "^", "+1", "-n", "./p/q", "a,b", "_u"}}, "x a=b k:v @f %s ^ +1 -n ./p/q a,b _u"},
		{"word with a space", config.Command{Program: "echo", Args: []string{"two words"}}, "echo 'two words'"},
		{"word with an apostrophe", config.Command{Program: "echo", Args: []string{"it's"}}, `echo 'it'\''s'`},
		{"word with double quotes", config.Command{Program: "echo", Args: []string{`say "hi"`}}, `echo 'say "hi"'`},
		{"empty word", config.Command{Program: "echo", Args: []string{""}}, "echo ''"},
		{"shell characters are quoted", config.Command{Program: "echo", Args: []string{"$HOME", "a;b", "*", "~", "#c", `back\slash`}}, `echo '$HOME' 'a;b' '*' '~' '#c' 'back\slash'`},
		{"program with a space", config.Command{Program: "my tool", Args: []string{"x"}}, "'my tool' x"},
		{"tab and newline", config.Command{Program: "printf", Args: []string{"a\tb\nc"}}, "printf 'a\tb\nc'"},
		{"non-ASCII is quoted", config.Command{Program: "echo", Args: []string{"héllo"}}, "echo 'héllo'"},
		{"template inside a quoted word", config.Command{Program: "sh", Args: []string{"-c", "run {{tool}} now"}}, "sh -c 'run {{tool}} now'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			back, err := config.ParseCommand(tt.c.String())
			if err != nil {
				t.Fatalf("ParseCommand(%q): %v", tt.c.String(), err)
			}
			if diff := cmp.Diff(tt.c, back); diff != "" {
				t.Errorf("ParseCommand(String()) mismatch (-want +got):\n%s", diff)
			}
			v, err := tt.c.MarshalValue()
			if err != nil || v != tt.want {
				t.Errorf("MarshalValue() = %#v, %v; want %q", v, err, tt.want)
			}
			var u config.Command
			if err := u.UnmarshalValue(v); err != nil {
				t.Fatalf("UnmarshalValue(%#v): %v", v, err)
			}
			if diff := cmp.Diff(tt.c, u); diff != "" {
				t.Errorf("UnmarshalValue(MarshalValue()) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandTable(t *testing.T) {
	tests := []struct {
		name      string
		in        any
		want      config.Command
		wantValue any // MarshalValue of want
	}{
		{
			name:      "program and args",
			in:        map[string]any{"program": "rg", "args": []any{"--json", "a b"}},
			want:      config.Command{Program: "rg", Args: []string{"--json", "a b"}},
			wantValue: "rg --json 'a b'",
		},
		{
			name:      "program only",
			in:        map[string]any{"program": "ls"},
			want:      config.Command{Program: "ls"},
			wantValue: "ls",
		},
		{
			name:      "shell false is the string form",
			in:        map[string]any{"program": "ls", "args": []any{}, "shell": false},
			want:      config.Command{Program: "ls"},
			wantValue: "ls",
		},
		{
			name:      "shell with args",
			in:        map[string]any{"program": "echo", "args": []any{"$HOME", "{{tool}}"}, "shell": true},
			want:      config.Command{Program: "echo", Args: []string{"$HOME", "{{tool}}"}, Shell: true},
			wantValue: map[string]any{"program": "echo", "args": []any{"$HOME", "{{tool}}"}, "shell": true},
		},
		{
			name:      "shell without args",
			in:        map[string]any{"program": "make test", "shell": true},
			want:      config.Command{Program: "make test", Shell: true},
			wantValue: map[string]any{"program": "make test", "shell": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c config.Command
			if err := c.UnmarshalValue(tt.in); err != nil {
				t.Fatalf("UnmarshalValue: %v", err)
			}
			if diff := cmp.Diff(tt.want, c); diff != "" {
				t.Errorf("UnmarshalValue mismatch (-want +got):\n%s", diff)
			}
			v, err := c.MarshalValue()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantValue, v); diff != "" {
				t.Errorf("MarshalValue mismatch (-want +got):\n%s", diff)
			}
			var back config.Command
			if err := back.UnmarshalValue(v); err != nil {
				t.Fatalf("UnmarshalValue(MarshalValue()): %v", err)
			}
			if diff := cmp.Diff(c, back); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandUnmarshalValueErrors(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want errorView
	}{
		{"unbalanced string", "x 'y", errorView{
			Text: `invalid command "x 'y": unterminated single-quoted string; ` + commandHint, Typed: true,
			Msg: `invalid command "x 'y": unterminated single-quoted string`, Hint: commandHint,
		}},
		{"empty string", "", errorView{Text: "the command is empty", Typed: true, Msg: "the command is empty"}},
		{"boolean", true, errorView{Text: "expected a command string or { program, args, shell }, found boolean true"}},
		{"array", []any{"ls"}, errorView{Text: "expected a command string or { program, args, shell }, found an array"}},
		{"program not a string", map[string]any{"program": int64(1)}, errorView{
			Text: "program: expected a string, found number 1", Typed: true, Msg: "expected a string, found number 1", Path: []string{"program"},
		}},
		{"args not an array", map[string]any{"program": "x", "args": "-n"}, errorView{
			Text: `args: expected an array of strings, found string "-n"`, Typed: true, Msg: `expected an array of strings, found string "-n"`, Path: []string{"args"},
		}},
		{"arg not a string", map[string]any{"program": "x", "args": []any{"a", false}}, errorView{
			Text: "args.1: expected a string, found boolean false", Typed: true, Msg: "expected a string, found boolean false", Path: []string{"args", "1"},
		}},
		{"shell not a boolean", map[string]any{"program": "x", "shell": "yes"}, errorView{
			Text: `shell: expected a boolean, found string "yes"`, Typed: true, Msg: `expected a boolean, found string "yes"`, Path: []string{"shell"},
		}},
		{"unknown key", map[string]any{"program": "x", "argv": []any{}}, errorView{
			Text: "argv: unknown key; did you mean args?", Typed: true, Msg: "unknown key", Hint: "did you mean args?", Path: []string{"argv"},
		}},
		{"unknown key without a near one", map[string]any{"program": "x", "environment": map[string]any{}}, errorView{
			Text: "environment: unknown key", Typed: true, Msg: "unknown key", Path: []string{"environment"},
		}},
		{"no program", map[string]any{"args": []any{"x"}}, errorView{
			Text: `a command table needs a program; write { program = "my-tool", args = ["--flag"] }`, Typed: true,
			Msg: "a command table needs a program", Hint: `write { program = "my-tool", args = ["--flag"] }`,
		}},
		{"empty program", map[string]any{"program": ""}, errorView{
			Text: `a command table needs a program; write { program = "my-tool", args = ["--flag"] }`, Typed: true,
			Msg: "a command table needs a program", Hint: `write { program = "my-tool", args = ["--flag"] }`,
		}},
		{"several problems give the first key's", map[string]any{"shell": int64(1), "program": int64(2), "args": int64(3), "zz": int64(4)}, errorView{
			Text: "args: expected an array of strings, found number 3", Typed: true, Msg: "expected an array of strings, found number 3", Path: []string{"args"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Run several times: a table's keys have no order, and the
			// problem reported must not depend on map iteration.
			for range 20 {
				c := config.Command{Program: "keep"}
				err := c.UnmarshalValue(tt.in)
				if err == nil {
					t.Fatalf("UnmarshalValue(%#v) succeeded, want an error", tt.in)
				}
				if diff := cmp.Diff(tt.want, viewError(err)); diff != "" {
					t.Fatalf("UnmarshalValue(%#v) error mismatch (-want +got):\n%s", tt.in, diff)
				}
				if c.Program != "keep" {
					t.Fatalf("UnmarshalValue changed the command on error: %+v", c)
				}
			}
		})
	}
}

func TestTypesUnmarshalValue(t *testing.T) {
	tests := []struct {
		name      string
		in        any
		want      config.Types
		wantValue any
	}{
		{"one name", "string", config.Types{"string"}, "string"},
		{"null", "null", config.Types{"null"}, "null"},
		{"list of one", []any{"integer"}, config.Types{"integer"}, "integer"},
		{"list keeps its order", []any{"string", "null", "array"}, config.Types{"string", "null", "array"}, []any{"string", "null", "array"}},
		{"every name", []any{"string", "number", "integer", "boolean", "array", "object", "null"}, config.Types{"string", "number", "integer", "boolean", "array", "object", "null"}, []any{"string", "number", "integer", "boolean", "array", "object", "null"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got config.Types
			if err := got.UnmarshalValue(tt.in); err != nil {
				t.Fatalf("UnmarshalValue(%#v): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("UnmarshalValue mismatch (-want +got):\n%s", diff)
			}
			v, err := got.MarshalValue()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantValue, v); diff != "" {
				t.Errorf("MarshalValue mismatch (-want +got):\n%s", diff)
			}
			for _, name := range tt.want {
				if !got.Has(name) {
					t.Errorf("Has(%q) = false", name)
				}
			}
			if got.Has("nope") {
				t.Error(`Has("nope") = true`)
			}
		})
	}
}

func TestTypesUnmarshalValueErrors(t *testing.T) {
	const names = "string, number, integer, boolean, array, object, null, path"
	tests := []struct {
		name string
		in   any
		want errorView
	}{
		{"unknown name with did-you-mean", "strng", errorView{
			Text: `unknown type "strng"; expected one of ` + names + "; did you mean string?", Typed: true,
			Msg: `unknown type "strng"; expected one of ` + names, Hint: "did you mean string?",
		}},
		{"unknown name", "date", errorView{
			Text: `unknown type "date"; expected one of ` + names, Typed: true, Msg: `unknown type "date"; expected one of ` + names,
		}},
		{"names are lower case", "String", errorView{
			Text: `unknown type "String"; expected one of ` + names + "; did you mean string?", Typed: true,
			Msg: `unknown type "String"; expected one of ` + names, Hint: "did you mean string?",
		}},
		{"unknown name in a list", []any{"string", "objet"}, errorView{
			Text: `1: unknown type "objet"; expected one of ` + names + "; did you mean object?", Typed: true,
			Msg: `unknown type "objet"; expected one of ` + names, Hint: "did you mean object?", Path: []string{"1"},
		}},
		{"duplicate name", []any{"string", "null", "string"}, errorView{
			Text: `2: type "string" is listed twice`, Typed: true, Msg: `type "string" is listed twice`, Path: []string{"2"},
		}},
		{"empty list", []any{}, errorView{Text: "the type list is empty", Typed: true, Msg: "the type list is empty"}},
		{"not a string in a list", []any{int64(3)}, errorView{
			Text: "0: expected a type name, found number 3", Typed: true, Msg: "expected a type name, found number 3", Path: []string{"0"},
		}},
		{"boolean", true, errorView{Text: "expected a type name or a list of them, found boolean true"}},
		{"table", map[string]any{"type": "string"}, errorView{Text: "expected a type name or a list of them, found a table"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := config.Types{"keep"}
			err := got.UnmarshalValue(tt.in)
			if err == nil {
				t.Fatalf("UnmarshalValue(%#v) = %q, want an error", tt.in, got)
			}
			if diff := cmp.Diff(tt.want, viewError(err)); diff != "" {
				t.Errorf("UnmarshalValue(%#v) error mismatch (-want +got):\n%s", tt.in, diff)
			}
			if diff := cmp.Diff(config.Types{"keep"}, got); diff != "" {
				t.Errorf("UnmarshalValue changed the types on error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnumValues(t *testing.T) {
	tests := []struct {
		name string
		got  func() []string
		want []string
	}{
		{"run modes", config.RunMode("").EnumValues, []string{"ask", "unattended", "edit", "skip"}},
		{"result modes", config.ResultMode("").EnumValues, []string{"unattended", "ask", "edit", "skip"}},
		{"targets", config.Target("").EnumValues, []string{"user", "assistant"}},
		{"toggle policies", config.AllowToggle("").EnumValues, []string{"any", "never", "if_named", "if_named_or_group"}},
		{"types", config.Types(nil).EnumValues, []string{"string", "number", "integer", "boolean", "array", "object", "null", "path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.got()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("EnumValues() mismatch (-want +got):\n%s", diff)
			}
			// Callers may change what they get without changing the type.
			got[0] = "changed"
			if diff := cmp.Diff(tt.want, tt.got()); diff != "" {
				t.Errorf("EnumValues() shares its slice (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModesText(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		read    func(string) (string, error)
		wantErr string
	}{
		{"run mode", "unattended", readRun, ""},
		{"bad run mode", "always", readRun, `invalid run mode "always"; expected one of ask, unattended, edit, skip`},
		{"result mode", "skip", readResult, ""},
		{"bad result mode", "Ask", readResult, `invalid result mode "Ask"; expected one of unattended, ask, edit, skip`},
		{"target", "assistant", readTarget, ""},
		{"bad target", "model", readTarget, `invalid question target "model"; expected one of user, assistant`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.read(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				if got != "" {
					t.Errorf("value = %q with its error, want it unchanged", got)
				}
				return
			}
			if err != nil || got != tt.in {
				t.Errorf("read %q = %q, %v; want %q, nil", tt.in, got, err, tt.in)
			}
		})
	}
}

func readRun(s string) (string, error) {
	var m config.RunMode
	if err := m.UnmarshalText([]byte(s)); err != nil {
		return string(m), err
	}
	b, err := m.MarshalText()
	return string(b), err
}

func readResult(s string) (string, error) {
	var m config.ResultMode
	if err := m.UnmarshalText([]byte(s)); err != nil {
		return string(m), err
	}
	b, err := m.MarshalText()
	return string(b), err
}

func readTarget(s string) (string, error) {
	var m config.Target
	if err := m.UnmarshalText([]byte(s)); err != nil {
		return string(m), err
	}
	b, err := m.MarshalText()
	return string(b), err
}
