package command

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRender(t *testing.T) {
	data := map[string]any{
		"tool":    map[string]any{"name": "grep", "arguments": map[string]any{"n": 3, "q": "a b"}},
		"context": map[string]any{"root": "/w"},
	}
	tests := []struct {
		name    string
		words   []string
		shell   bool
		program string
		args    []string
		err     string
	}{
		{name: "plain", words: []string{"t", "{{tool.name}}", "--root={{context.root}}"}, program: "t", args: []string{"grep", "--root=/w"}},
		{name: "a value stays one argument", words: []string{"t", "{{tool.arguments.q}}"}, program: "t", args: []string{"a b"}},
		{name: "objects as JSON", words: []string{"t", "{{tool.arguments}}"}, program: "t", args: []string{`{"n":3,"q":"a b"}`}},
		{name: "shell quotes a bare value", words: []string{"echo", "{{tool.arguments.q}}"}, shell: true, program: Shell, args: []string{"-c", "echo 'a b'"}},
		{name: "unknown reference", words: []string{"t", "{{tool.nmae}}"}, err: "unknown template value {{tool.nmae}}; did you mean {{tool.name}}?"},
		{name: "template after a command substitution", words: []string{"echo", "$(cat", "{{tool.name}})"}, shell: true, err: "{{tool.name}} follows a command substitution"},
		{name: "empty", err: "the command is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			program, args, err := Render(tt.words, tt.shell, data)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(append([]string{tt.program}, tt.args...), append([]string{program}, args...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestShellQuotingAttacks runs rendered shell commands whose values try to
// run code from every quoting context; each must print the value
// literally and run nothing.
func TestShellQuotingAttacks(t *testing.T) {
	if _, err := os.Stat(Shell); err != nil {
		t.Skip("no " + Shell)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	payloads := []string{
		"$(touch " + marker + ")",
		"`touch " + marker + "`",
		"'; touch " + marker + "; '",
		`"; touch ` + marker + `; "`,
		`\"; touch ` + marker + `; \"`,
		"x' \"$(touch " + marker + ")\" '",
		"a\nb",
		`\`,
		"$HOME ${HOME} $((1+1))",
	}
	contexts := []struct {
		name          string
		text          string // shell text around the template
		before, after string // what it prints around the value
	}{
		{"bare", `printf %s {{tool.arguments.v}}`, "", ""},
		{"double quotes", `printf %s "{{tool.arguments.v}}"`, "", ""},
		{"single quotes", `printf %s '{{tool.arguments.v}}'`, "", ""},
		{"double quotes with text", `printf %s "x-{{tool.arguments.v}}-y"`, "x-", "-y"},
		{"single quotes with text", `printf %s 'x-{{tool.arguments.v}}-y'`, "x-", "-y"},
		{"after an escaped quote", `printf %s \"{{tool.arguments.v}}`, `"`, ""},
	}
	for _, c := range contexts {
		for i, p := range payloads {
			t.Run(c.name+"/"+string(rune('a'+i)), func(t *testing.T) {
				data := map[string]any{"tool": map[string]any{"arguments": map[string]any{"v": p}}}
				program, args, err := Render([]string{c.text}, true, data)
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command(program, args...).Output()
				if err != nil {
					t.Fatalf("%s %q: %v", program, args, err)
				}
				if _, err := os.Stat(marker); err == nil {
					os.Remove(marker)
					t.Fatalf("the value ran as code: %q rendered as %q", p, args[1])
				}
				if want := c.before + p + c.after; string(out) != want {
					t.Errorf("printed %q, want %q (rendered %q)", out, want, args[1])
				}
			})
		}
	}
}
