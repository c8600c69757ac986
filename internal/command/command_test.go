package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
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
		{name: "template in a command substitution", words: []string{"echo", "$(cat", "{{tool.name}})"}, shell: true, err: "{{tool.name}} is in a command substitution"},
		{name: "template after a command substitution", words: []string{"echo", "$(date)", "{{tool.name}}"}, shell: true, program: Shell, args: []string{"-c", "echo $(date) 'grep'"}},
		{name: "empty", err: "the command is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			program, args, err := Render(tt.words, tt.shell, data, nil)
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

// shells are the shells a template's /bin/sh may be: /bin/sh here, and
// bash as macOS's /bin/sh runs it (POSIX mode), when it is installed.
func shells(t testing.TB) [][]string {
	if _, err := os.Stat(Shell); err != nil {
		t.Skip("no " + Shell)
	}
	out := [][]string{{Shell, "-c"}}
	if bash, err := exec.LookPath("bash"); err == nil {
		out = append(out, []string{bash, "--posix", "-c"})
	}
	return out
}

// quotingContexts are the places a shell template may put a value, each
// printing the value between brackets as one argument (printf repeats its
// format for each argument, so a value split in two prints two pairs).
var quotingContexts = []struct {
	name string
	text string                // shell text around the template
	want func(v string) string // what it prints
}{
	{"bare", `printf [%s] {{tool.arguments.v}}`, nil},
	{"double quotes", `printf [%s] "{{tool.arguments.v}}"`, nil},
	{"single quotes", `printf [%s] '{{tool.arguments.v}}'`, nil},
	{"double quotes with text", `printf [%s] "x-{{tool.arguments.v}}-y"`, func(v string) string { return "[x-" + v + "-y]" }},
	{"single quotes with text", `printf [%s] 'x-{{tool.arguments.v}}-y'`, func(v string) string { return "[x-" + v + "-y]" }},
	{"after an escaped quote", `printf [%s] \"{{tool.arguments.v}}`, func(v string) string { return `["` + v + "]" }},
	{"after an escaped backslash", `printf [%s] \\{{tool.arguments.v}}`, func(v string) string { return `[\` + v + "]" }},
	{"after an escaped dollar", `printf [%s] "\${{tool.arguments.v}}"`, func(v string) string { return "[$" + v + "]" }},
	{"twice in a word", `printf [%s] {{tool.arguments.v}}"{{tool.arguments.v}}"`, func(v string) string { return "[" + v + v + "]" }},
	{"after --", `printf [%s] -- {{tool.arguments.v}}`, func(v string) string { return "[--][" + v + "]" }},
	{"assignment", `a={{tool.arguments.v}}; printf [%s] "$a"`, nil},
	{"assignment in double quotes", `a="{{tool.arguments.v}}"; printf [%s] "$a"`, nil},
	{"for loop", `for a in {{tool.arguments.v}}; do printf [%s] "$a"; done`, nil},
	{"case", `case {{tool.arguments.v}} in {{tool.arguments.v}}) printf [same];; *) printf [differs];; esac`, func(string) string { return "[same]" }},
	{"after a here-document", "cat <<'EOF'\nit's \"x\" `y` $(z)\nEOF\nprintf [%s] {{tool.arguments.v}}", func(v string) string { return "it's \"x\" `y` $(z)\n[" + v + "]" }},
	{"after a comment", "# it's \"x\"\nprintf [%s] {{tool.arguments.v}}", nil},
	{"after a command substitution", `printf [%s] "$(printf x)"{{tool.arguments.v}}`, func(v string) string { return "[x" + v + "]" }},
	{"in a subshell and a group", `(printf [%s] {{tool.arguments.v}}); { printf [%s] '{{tool.arguments.v}}'; }`, func(v string) string { return "[" + v + "][" + v + "]" }},
	{"in a pipeline", `printf %s {{tool.arguments.v}} | { printf [; cat; printf ]; }`, nil},
	{"redirection", `printf %s {{tool.arguments.v}} > "$OUT"/f.{{tool.arguments.v}}.out 2>/dev/null || true; printf [%s] {{tool.arguments.v}}`, nil},
}

// render renders a context with value v, allowing any dash.
func render(text, v string) (string, error) {
	data := map[string]any{"tool": map[string]any{"arguments": map[string]any{"v": v}}}
	_, args, err := Render([]string{text}, true, data, func(string) bool { return true })
	if err != nil {
		return "", err
	}
	return args[1], nil
}

// quotingRun renders the contexts cs with value v into one script and
// runs it in each shell: it fails the test if the value ran as code or
// did not arrive whole, as one argument, in each.
func quotingRun(t testing.TB, shellCmds [][]string, cs []int, v, dir string) {
	t.Helper()
	marker := filepath.Join(dir, "ran")
	v = strings.ReplaceAll(v, "MARKER", marker)
	const sep = "\n@@\n"
	var script, want []string
	for _, i := range cs {
		c := quotingContexts[i]
		line, err := render(c.text, v)
		if strings.IndexByte(v, 0) >= 0 {
			if err == nil || !strings.Contains(err.Error(), "NUL") {
				t.Fatalf("%s: a NUL byte: err = %v", c.name, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		script = append(script, line)
		if c.want != nil {
			want = append(want, c.want(v))
		} else {
			want = append(want, "["+v+"]")
		}
	}
	for _, sh := range shellCmds {
		cmd := exec.Command(sh[0], append(sh[1:], strings.Join(script, "\nprintf '"+strings.ReplaceAll(sep, "\n", `\n`)+"'\n"))...)
		cmd.Env = append(os.Environ(), "OUT="+dir)
		cmd.Dir = dir
		out, err := cmd.Output()
		if _, serr := os.Stat(marker); serr == nil {
			os.Remove(marker)
			t.Fatalf("%s: the value %q ran as code; rendered:\n%s", sh, v, strings.Join(script, "\n"))
		}
		if err != nil {
			t.Fatalf("%s: %v; rendered:\n%s", sh, err, strings.Join(script, "\n"))
		}
		if diff := cmp.Diff(strings.Join(want, sep), string(out)); diff != "" {
			t.Errorf("%s printed, for %q (-want +got):\n%s\nrendered:\n%s", sh, v, diff, strings.Join(script, "\n"))
		}
	}
}

// quotingPayloads try to run code from every quoting context.
var quotingPayloads = []string{
	"$(touch MARKER)",
	"`touch MARKER`",
	"'; touch MARKER; '",
	`"; touch MARKER; "`,
	`\"; touch MARKER; \"`,
	"x' \"$(touch MARKER)\" '",
	"\\'; touch MARKER; #",
	"\nEOF\ntouch MARKER\n",
	"x\ntouch MARKER #",
	"a\nb",
	`\`,
	"$HOME ${HOME} $((1+1)) ${x:-$(touch MARKER)}",
	"(touch MARKER)",
	"{touch,MARKER}",
	"*",
	"~",
	"-n",
	"",
	" ",
	"a b\tc",
	"!",
	"%strata0%",
	"\x00",
	"\xff\xfe",
}

// TestShellQuotingAttacks renders values that try to run code into every
// quoting context and runs them in every shell /bin/sh may be: each must
// print the value literally, as one argument, and run nothing.
func TestShellQuotingAttacks(t *testing.T) {
	shellCmds := shells(t)
	dir := t.TempDir()
	all := make([]int, len(quotingContexts))
	for i := range all {
		all[i] = i
	}
	for i, p := range quotingPayloads {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			quotingRun(t, shellCmds, all, p, dir)
		})
	}
}

// FuzzShellQuoting renders any value into a quoting context and runs it
// in every shell /bin/sh may be: the value arrives byte for byte as one
// argument, and nothing runs (a NUL byte is refused).
func FuzzShellQuoting(f *testing.F) {
	for i := range quotingContexts {
		f.Add(uint8(i), "$(touch MARKER)")
	}
	shellCmds := shells(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, context uint8, v string) {
		if len(v) > 4096 || strings.Contains(v, "/") && quotingContexts[int(context)%len(quotingContexts)].name == "redirection" {
			t.Skip("a file name holds no slash, and stays short")
		}
		quotingRun(t, shellCmds, []int{int(context) % len(quotingContexts)}, v, dir)
	})
}

// TestCheck: shell templates whose references sit where no quoting keeps
// a value literal are refused before any call, saying where and how to
// fix it; the places quoting covers are accepted.
func TestCheck(t *testing.T) {
	const v = "{{tool.arguments.v}}"
	tests := []struct {
		name  string
		text  string
		shell bool
		err   string // "" accepted
	}{
		{name: "bare", text: "printf %s " + v, shell: true},
		{name: "double quotes", text: `printf %s "x` + v + `"`, shell: true},
		{name: "single quotes", text: "printf %s 'x" + v + "'", shell: true},
		{name: "assignment", text: "a=" + v + "; printf %s \"$a\"", shell: true},
		{name: "redirection target", text: "printf x > " + v, shell: true},
		{name: "case", text: "case " + v + " in " + v + ") ;; esac", shell: true},
		{name: "for loop", text: "for a in " + v + "; do :; done", shell: true},
		{name: "after a here-document", text: "cat <<'EOF'\nit's \"x\n$(y)\nEOF\nprintf %s " + v, shell: true},
		{name: "after a comment", text: "# it's\nprintf %s " + v, shell: true},
		{name: "after a command substitution", text: "printf %s $(date) " + v, shell: true},
		{name: "after an expansion", text: "printf %s ${HOME}" + v, shell: true},
		{name: "here-document arguments", text: "cat - " + v + " <<EOF\nx\nEOF", shell: true},
		{name: "a value after an escaped backslash", text: `printf %s \\` + v, shell: true},
		{name: "a value after an escaped dollar", text: `printf %s \$` + v, shell: true},
		{name: "in a subshell", text: "(printf %s " + v + ")", shell: true},
		{name: "in a here-document", text: "cat <<EOF\n" + v + "\nEOF", shell: true, err: v + " is in the body of a here-document, where a line of the value could end the document and $ or ` in it would run (line 2 of the shell text); pass the value as an argument instead"},
		{name: "in a quoted here-document", text: "cat <<'EOF'\n" + v + "\nEOF", shell: true, err: v + " is in the body of a here-document"},
		{name: "in a here-document with tabs", text: "cat <<-EOF\n\t" + v + "\n\tEOF", shell: true, err: v + " is in the body of a here-document"},
		{name: "in a here-document after another", text: "cat <<A <<B\na\nA\nb " + v + "\nB", shell: true, err: v + " is in the body of a here-document, where a line of the value could end the document and $ or ` in it would run (line 4 of the shell text)"},
		{name: "as a here-document's delimiter", text: "cat <<" + v + "\nx\nEOF", shell: true, err: "does not parse as sh: line 1, column 5: unclosed here-document `" + v + "`"},
		{name: "in a comment", text: "true # " + v, shell: true, err: v + " is in a comment, which a newline in the value would end; move it out of the comment"},
		{name: "in a comment after a command", text: "true\n# " + v + "\ntrue", shell: true, err: v + " is in a comment, which a newline in the value would end (line 2 of the shell text)"},
		{name: "in a command substitution", text: "printf %s \"$(echo " + v + ")\"", shell: true, err: v + " is in a command substitution"},
		{name: "in backquotes", text: "printf %s `echo " + v + "`", shell: true, err: v + " is in a command substitution"},
		{name: "in arithmetic", text: "printf %s $((1 + " + v + "))", shell: true, err: v + " is in an arithmetic expression"},
		{name: "in a parameter expansion", text: "printf %s \"${x:-" + v + "}\"", shell: true, err: v + " is in a parameter expansion"},
		{name: "in a parameter expansion pattern", text: "printf %s ${x#" + v + "}", shell: true, err: v + " is in a parameter expansion"},
		{name: "after a dollar", text: "printf %s $" + v, shell: true, err: v + " follows a $"},
		{name: "after a dollar in double quotes", text: "printf %s \"$" + v + "\"", shell: true, err: v + " follows a $"},
		{name: "in dollar single quotes", text: "printf %s $'" + v + "'", shell: true, err: v + " is in $'…' quoting"},
		{name: "in dollar double quotes", text: "printf %s $\"" + v + "\"", shell: true, err: v + " is in $\"…\" quoting"},
		{name: "after a backslash", text: `printf %s \` + v, shell: true, err: v + " follows a backslash"},
		{name: "after a backslash in double quotes", text: `printf %s "\` + v + `"`, shell: true, err: v + " follows a backslash"},
		{name: "a model's command", text: v + " x", shell: true, err: v + " is in the name of the program, which the model would choose"},
		{name: "a model's command after a pipe", text: "true | x" + v, shell: true, err: v + " is in the name of the program"},
		{name: "a model's program", text: v + "/x", err: v + " is in the name of the program"},
		{name: "an argument of eval", text: "eval " + v, shell: true, err: v + " is an argument of eval, which runs it as shell code or as a command"},
		{name: "an argument of eval in quotes", text: `eval "echo ` + v + `"`, shell: true, err: v + " is an argument of eval"},
		{name: "a file to source", text: ". " + v, shell: true, err: v + " is an argument of ."},
		{name: "a command to exec", text: "exec " + v, shell: true, err: v + " is an argument of exec"},
		{name: "a command of command", text: "command -p " + v + " x", shell: true, err: v + " is an argument of command"},
		{name: "a trap", text: "trap " + v + " EXIT", shell: true, err: v + " is an argument of trap"},
		{name: "the root for exec", text: "exec {{context.root}}/bin/x " + v, shell: true},
		{name: "a command to exec after --", text: "exec -- " + v, shell: true, err: v + " is an argument of exec"},
		{name: "an argument of a command to exec", text: "exec -- x " + v, shell: true},
		{name: "the root in a command", text: "{{context.root}}/bin/x " + v, shell: true},
		{name: "the root in a program", text: "{{context.root}}/bin/x"},
		{name: "a process substitution", text: "cat <(printf %s " + v + ")", shell: true, err: "does not parse as sh"},
		{name: "a bash test", text: "[[ " + v + " ]]", shell: true, err: v + " is where strata cannot quote a value"},
		{name: "unbalanced quotes", text: "printf '%s " + v, shell: true, err: "the shell text does not parse as sh: line 1, column 8: reached EOF without closing quote `'`"},
		{name: "a function name", text: v + "() { :; }", shell: true, err: v + " is where strata cannot quote a value"},
		{name: "a loop variable", text: "for " + v + " in a; do :; done", shell: true, err: v + " is where strata cannot quote a value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]string{tt.text}, tt.shell)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("err = %v, want it to contain %q", err, tt.err)
			}
		})
	}
}

// TestDash: a model's value that would start an argument of its own with
// "-" is refused, naming its reference, unless -- comes before it or its
// parameter allows it; values that only continue an argument, or that
// are not the model's, pass.
func TestDash(t *testing.T) {
	data := map[string]any{
		"tool": map[string]any{
			"name":      "t",
			"arguments": map[string]any{"v": "-o/x", "e": "", "n": json.Number("-5"), "ok": "x", "obj": map[string]any{"k": "-k"}},
			"answers":   map[string]any{"q": "--yes"},
			"options":   map[string]any{"flag": "--fast"},
		},
		"context": map[string]any{"root": "/w"},
	}
	tests := []struct {
		name  string
		words []string
		shell bool
		allow string // a reference allowed to start with a dash
		err   string // the refused reference, or ""
	}{
		{name: "its own argument", words: []string{"sort", "{{tool.arguments.v}}"}, err: "tool.arguments.v"},
		{name: "starts an argument", words: []string{"sort", "{{tool.arguments.v}}.txt"}, err: "tool.arguments.v"},
		{name: "after an empty value", words: []string{"sort", "{{tool.arguments.e}}{{tool.arguments.v}}"}, err: "tool.arguments.v"},
		{name: "after a value", words: []string{"sort", "{{tool.arguments.ok}}{{tool.arguments.v}}"}},
		{name: "a negative number", words: []string{"head", "-n", "{{tool.arguments.n}}"}, err: "tool.arguments.n"},
		{name: "attached to an option", words: []string{"head", "-n{{tool.arguments.n}}"}},
		{name: "an option's value", words: []string{"sort", "--output={{tool.arguments.v}}"}},
		{name: "after --", words: []string{"sort", "--", "{{tool.arguments.v}}"}},
		{name: "-- as a value is no --", words: []string{"sort", "{{tool.arguments.e}}--", "{{tool.arguments.v}}"}, err: "tool.arguments.v"},
		{name: "allowed", words: []string{"head", "-n", "{{tool.arguments.n}}"}, allow: "tool.arguments.n"},
		{name: "another allowed", words: []string{"sort", "{{tool.arguments.v}}"}, allow: "tool.arguments.n", err: "tool.arguments.v"},
		{name: "nested", words: []string{"x", "{{tool.arguments.obj.k}}"}, err: "tool.arguments.obj.k"},
		{name: "an answer", words: []string{"x", "{{tool.answers.q}}"}, err: "tool.answers.q"},
		{name: "an option of the config", words: []string{"x", "{{tool.options.flag}}"}},
		{name: "JSON of the arguments", words: []string{"x", "{{tool.arguments}}", "{{tool}}", "{{context}}"}},
		{name: "shell: bare", words: []string{"sort {{tool.arguments.v}}"}, shell: true, err: "tool.arguments.v"},
		{name: "shell: in quotes", words: []string{`sort "{{tool.arguments.v}}"`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: after empty quotes", words: []string{`sort ''"{{tool.arguments.v}}"`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: after an expansion", words: []string{`sort "$X"{{tool.arguments.v}}`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: after text", words: []string{`sort ./{{tool.arguments.v}}`}, shell: true},
		{name: "shell: after text in quotes", words: []string{`sort "./{{tool.arguments.v}}"`}, shell: true},
		{name: "shell: an option's value", words: []string{`sort --output="{{tool.arguments.v}}"`}, shell: true},
		{name: "shell: after --", words: []string{`sort -- {{tool.arguments.v}}`}, shell: true},
		{name: "shell: after -- of another command", words: []string{`echo --; sort {{tool.arguments.v}}`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: after -- in a pipeline", words: []string{`echo -- | sort {{tool.arguments.v}}`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: an assignment", words: []string{`a={{tool.arguments.v}}; sort "$a"`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: a loop", words: []string{`for a in {{tool.arguments.v}}; do sort "$a"; done`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: export", words: []string{`export {{tool.arguments.v}}`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: after a brace expansion", words: []string{`sort {,}{{tool.arguments.v}}`}, shell: true, err: "tool.arguments.v"},
		{name: "shell: after a brace expansion of text", words: []string{`sort x{a,b}{{tool.arguments.v}}`}, shell: true},
		{name: "shell: allowed", words: []string{`head -n {{tool.arguments.n}}`}, shell: true, allow: "tool.arguments.n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allow := func(ref string) bool { return ref == tt.allow }
			_, _, err := Render(tt.words, tt.shell, data, allow)
			var de *DashError
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.err != "" && !errors.As(err, &de):
				t.Errorf("err = %v, want a DashError", err)
			case tt.err != "" && de.Ref != tt.err:
				t.Errorf("refused %s, want %s", de.Ref, tt.err)
			}
		})
	}
}

// FuzzCheck reads any shell text as a template: Check never panics, and
// where it accepts the text, a hostile value changes nothing of its
// structure: the rendered script has the same commands, substitutions
// and expansions as with a plain value.
func FuzzCheck(f *testing.F) {
	for _, c := range quotingContexts {
		f.Add(c.text)
	}
	for _, s := range []string{"cat <<EOF\n{{tool.arguments.v}}\nEOF", "true # {{tool.arguments.v}}", "echo ${{tool.arguments.v}}", `echo "$(x "{{tool.arguments.v}}")"`, "a=$(( {{tool.arguments.v}} ))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 2000 {
			t.Skip()
		}
		if err := Check([]string{text}, true); err != nil || !ref().MatchString(text) {
			return // refused, or no value to quote (and not parsed)
		}
		plain, err := render(text, "v")
		if err != nil && strings.Contains(err.Error(), "unknown template value") {
			return // the test has only {{tool.arguments.v}}
		}
		if err != nil {
			t.Fatalf("accepted, but a plain value is refused: %v", err)
		}
		want := shape(t, plain)
		for _, v := range []string{"$(x)`y`${z}$((1))", "'\"\\\n;a\n", "\nEOF\n", "x\n#"} {
			hostile, err := render(text, v)
			if err != nil {
				t.Fatalf("accepted, but %q is refused: %v", v, err)
			}
			if got := shape(t, hostile); got != want {
				t.Fatalf("%q changed the script:\n%s\nrendered %q, with v: %q", v, cmp.Diff(want, got), hostile, plain)
			}
		}
	})
}

// shape is the kinds of nodes a script parses to, in order, leaving out
// the words' text.
func shape(t *testing.T, script string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX), syntax.KeepComments(true)).Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatalf("the rendered script does not parse: %v\n%s", err, script)
	}
	var b strings.Builder
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n.(type) {
		case nil, *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted:
			return true // the value's own text and quoting
		}
		fmt.Fprintf(&b, "%T ", n)
		return true
	})
	return b.String()
}
