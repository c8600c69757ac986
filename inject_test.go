package strata_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/trust"
)

// gitRepo makes dir a git repository with one commit, as the repository a
// tool works on would be.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first commit"},
	} {
		cmd := exec.Command(git, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
}

// TestModelValuesNeverOptions: a model's argument that a command template
// renders as an argument of its own is refused when it starts with "-",
// which the program would read as an option: git log --output=FILE and
// sort -o FILE write files wherever the model says. After a literal --, or
// where the parameter allows it (allow_dash), the value passes.
func TestModelValuesNeverOptions(t *testing.T) {
	s := newSetup(t, map[string]string{
		"home/strata/config.toml": `
[tools.git_log]
command = "git log --format=%s {{tool.arguments.rev}}"
run = "unattended"
parameters.rev = { type = "string" }

[tools.sort_lines]
command = "sort {{tool.arguments.file}}"
run = "unattended"
parameters.file = { type = "string" }

[tools.sort_names]
command = "sort -- {{tool.arguments.file}}"
run = "unattended"
parameters.file = { type = "string" }

[tools.head_lines]
command = "head -n {{tool.arguments.n}} notes.txt"
run = "unattended"
parameters.n = { type = "integer", allow_dash = true }
`,
		"repo/notes.txt": "a\nb\nc\n",
	})
	gitRepo(t, s.repo)
	if err := s.store.Update(func(l *trust.List) error { l.AddWorkspace(s.repo); return nil }); err != nil {
		t.Fatal(err)
	}
	w := s.open(t)
	bashrc := filepath.Join(s.dir, "bashrc")
	marker := filepath.Join(s.dir, "marker")
	refused := []struct {
		tool, param string
		args        map[string]any
	}{
		{"git_log", "rev", map[string]any{"rev": "--output=" + bashrc}},
		{"sort_lines", "file", map[string]any{"file": "-o" + marker}},
		{"sort_lines", "file", map[string]any{"file": "--output=" + marker}},
	}
	for _, tt := range refused {
		args, _ := json.Marshal(tt.args)
		res, err := w.Call(context.Background(), tt.tool, args)
		var ce *call.Refusal
		if !errors.As(err, &ce) {
			t.Errorf("%s %s: %+v, %v; want a refusal", tt.tool, args, res, err)
			continue
		}
		if ce.Tool != tt.tool || len(ce.Problems) != 1 || ce.Problems[0].Path != "$."+tt.param || !strings.Contains(ce.Error(), "allow_dash") {
			t.Errorf("%s %s: the refusal should name the tool and the parameter and say how to allow it: %v", tt.tool, args, err)
		}
	}
	for _, f := range []string{bashrc, marker} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("a model's value was read as an option: %s was written", f)
			os.Remove(f)
		}
	}

	// What passes: a value that does not start with "-", one after --, and
	// one whose parameter allows a dash.
	passed := []struct {
		tool    string
		args    string
		outcome protocol.Outcome
	}{
		{"git_log", `{"rev":"HEAD"}`, protocol.Outcome{Type: protocol.Success, Content: "first commit\n"}},
		{"sort_names", `{"file":"notes.txt"}`, protocol.Outcome{Type: protocol.Success, Content: "a\nb\nc\n"}},
		{"head_lines", `{"n":-2}`, protocol.Outcome{Type: protocol.Success, Content: "a\n"}},
	}
	for _, tt := range passed {
		res, err := w.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
		if err != nil {
			t.Errorf("%s %s: %v", tt.tool, tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.outcome, res.Outcome); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.tool, tt.args, diff)
		}
	}
	// After --, sort reads "-o…" as a file name: it fails, and writes
	// nothing.
	res, err := w.Call(context.Background(), "sort_names", json.RawMessage(`{"file":"-o`+marker+`"}`))
	if err != nil || res.Type != protocol.Failure || !strings.Contains(res.Message, "exit") {
		t.Errorf("sort -- -o…: %+v, %v; want sort's failure", res, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("sort read a value after -- as an option")
	}
}

// TestShellTemplatesRefusedWhereValuesCannotBeQuoted: a shell template
// that puts a value in a here-document or a comment, where no quoting
// keeps it data, is refused when the workspace opens, at its place in
// the file, and nothing runs.
func TestShellTemplatesRefusedWhereValuesCannotBeQuoted(t *testing.T) {
	tests := []struct {
		name, config, value, want string
	}{
		{
			name: "here-document",
			config: `[tools.note]
run = "unattended"
parameters.text = { type = "string" }
[tools.note.command]
shell = true
program = """
cat <<EOF
{{tool.arguments.text}}
EOF"""
`,
			value: "\nEOF\ntouch MARKER\n",
			want:  "config.toml:4:13: tools.note.command: {{tool.arguments.text}} is in the body of a here-document",
		},
		{
			name: "comment",
			config: `[tools.note]
run = "unattended"
parameters.text = { type = "string" }
command = { program = "true # {{tool.arguments.text}}", shell = true }
`,
			value: "x\ntouch MARKER #",
			want:  "config.toml:4:1: tools.note.command: {{tool.arguments.text}} is in a comment",
		},
		{
			name: "after a dollar",
			config: `[tools.note]
run = "unattended"
parameters.text = { type = "string" }
command = { program = "printf %s \"${{tool.arguments.text}}\"", shell = true }
`,
			value: "(touch MARKER)",
			want:  "config.toml:4:1: tools.note.command: {{tool.arguments.text}} follows a $",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t, map[string]string{"home/strata/config.toml": tt.config})
			marker := filepath.Join(s.dir, "marker")
			args, _ := json.Marshal(map[string]string{"text": strings.ReplaceAll(tt.value, "MARKER", marker)})
			w, err := openErr(s)
			if err == nil {
				defer w.Close()
				res, err := w.Call(context.Background(), "note", args)
				t.Errorf("the template was accepted; the call gave %+v, %v", res, err)
			} else if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the value ran as shell code")
			}
		})
	}
}

// openErr opens the workspace as open does, and returns Open's error.
func openErr(s *setup) (*strata.Workspace[config.Partial, config.Config], error) {
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(s.repo), strata.Environ(s.environ),
		strata.TrustStore(s.store), strata.CacheDir(filepath.Join(s.dir, "cache")))
	return w, err
}
