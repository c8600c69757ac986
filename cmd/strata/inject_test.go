package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelValuesCLI calls, through strata call, tools whose templates
// would let a model's value run as an option of the program (sort -o FILE
// writes FILE) or as shell code (a here-document or a comment that a
// newline ends): each is refused with an error that says which tool,
// which parameter or which template, and where; no file is written.
func TestModelValuesCLI(t *testing.T) {
	tmp := t.TempDir()
	marker := filepath.Join(tmp, "marker")
	arg := func(k, v string) string {
		b, _ := json.Marshal(map[string]string{k: strings.ReplaceAll(v, "MARKER", marker)})
		return string(b)
	}
	ws := []string{"call", "--root", "fixtures/inject", "--trust"}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"call-dash-refused", append(ws, "sort_lines", arg("file", "-oMARKER")), 1, "call sort_lines: refused; to pass such values, the tool's command writes -- before it, or [tools.sort_lines.parameters.file] sets allow_dash = true\nstrata: $.file: \"-"},
		{"call-dash-long-refused", append(ws, "sort_lines", arg("file", "--output=MARKER")), 1, "call sort_lines: refused; to pass such values, the tool's command writes -- before it, or [tools.sort_lines.parameters.file] sets allow_dash = true\nstrata: $.file: \"-"},
		{"call-dash-allowed", append(ws, "head_lines", `{"n":-2}`), 0, ""},
		{"call-heredoc-refused", append(ws, "--cfg", "fixtures/inject/heredoc.toml", "note", arg("text", "\nEOF\ntouch MARKER\n")), 1,
			"strata: fixtures/inject/heredoc.toml:7:13: tools.note.command: {{tool.arguments.text}} is in the body of a here-document"},
		{"call-comment-refused", append(ws, "--cfg", "fixtures/inject/comment.toml", "note", arg("text", "x\ntouch MARKER #")), 1,
			"strata: fixtures/inject/comment.toml:6:1: tools.note.command: {{tool.arguments.text}} is in a comment"},
	}
	env := func(t *testing.T) {
		clearStrataEnv(t)
		t.Setenv("STRATA_CONFIG_HOME", t.TempDir()) // no user layer
		t.Setenv("HOME", "/nonexistent")
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env(t)
			got := runCLI(t, tt.args...)
			if got.code != tt.code || !strings.Contains(got.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q in stderr", got.code, got.stderr, tt.code, tt.want)
			}
			if _, err := os.Stat(marker); err == nil {
				os.Remove(marker)
				t.Fatal("the model's value ran: the marker file was written")
			}
			got.stderr = strings.ReplaceAll(got.stderr, tmp, "<tmp>")
			golden(t, tt.name, got)
		})
	}

	// After --, sort takes the value for a file name: sort fails, and
	// writes nothing.
	env(t)
	got := runCLI(t, append(ws, "sort_names", arg("file", "-oMARKER"))...)
	if got.code != 1 || !strings.Contains(got.stdout, `"type": "error"`) || !strings.Contains(got.stdout, "-o"+marker) {
		t.Errorf("sort -- -o…: %v; want sort's error outcome naming the file", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("sort read a value after -- as an option")
	}
}
