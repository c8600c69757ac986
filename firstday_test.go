package strata_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/trust"
)

// wordCount is a tool that describes itself (--describe) and counts words.
const wordCount = `#!/bin/sh
if [ "$1" = --describe ]; then
  echo '{"name": "word_count", "description": "Count the words of a text.", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}'
  exit 0
fi
echo "3 words"
`

// TestFirstDay runs the host of Example_firstDay as its user would: a
// trusted project with a --describe tool and server-filesystem (under
// Node), a -c flag and a MYAGENT_ variable; then every mistake at once.
func TestFirstDay(t *testing.T) {
	fs := filesystemServer(t)
	home, project := t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "MYAGENT_TOOLS_WORD_COUNT_DESCRIPTION=Count words."}
	for name, text := range map[string]string{
		filepath.Join(home, ".myagent", "config.toml"):    "model = \"claude-haiku-4-5\"\n",
		filepath.Join(project, ".myagent", "config.toml"): "model = \"claude-opus-4-1\"\ndiscover.dirs = [\"../tools\"]\n" + fs,
		filepath.Join(project, "tools", "word_count"):     wordCount,
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	store := &trust.Store{Path: trust.DefaultPath("myagent", environ)}
	if err := store.Update(func(l *trust.List) error { l.AddWorkspace(project); return nil }); err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)

	out, err := captureStdout(t, func() error {
		return myagent(context.Background(), []string{"tools.word_count.run=unattended"}, environ)
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"claude-opus-4-1 with ", `"name": "fs__read_file"`, `"name": "word_count"`, `"description": "Count words."`, "success 3 words"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output has no %q:\n%s", want, out)
		}
	}

	// Mistakes in the environment, the flags and a file, all at once.
	typos := append(environ, "MYAGENT_TOOLS_WORD_COUNT_RNU=ask")
	if err := os.WriteFile(filepath.Join(home, ".myagent", "config.toml"), []byte("modle = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = captureStdout(t, func() error { return myagent(context.Background(), []string{"tools.word_count.rnu=ask"}, typos) })
	got := diag.Errors(diag.All(err)).Render()
	for _, want := range []string{"did you mean MYAGENT_TOOLS_WORD_COUNT_RUN", "-c #1", "did you mean run", "config.toml:1:1: modle: unknown key; did you mean model"} {
		if !strings.Contains(got, want) {
			t.Errorf("the problems do not say %q:\n%s", want, got)
		}
	}
}

// captureStdout runs f and returns what it printed on stdout.
func captureStdout(t *testing.T, f func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		read <- string(b)
	}()
	err = f()
	os.Stdout = stdout
	w.Close()
	return <-read, err
}

// TestReadmeShowsFirstDay holds the README's host program to
// Example_firstDay, as a main package, and the example to its word: under
// 60 non-blank lines.
func TestReadmeShowsFirstDay(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_firstday_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.FieldsFunc(string(src), func(r rune) bool { return r == '\n' })); n >= 60 {
		t.Errorf("Example_firstDay's file has %d non-blank lines, want under 60", n)
	}
	text := string(src)
	main := "package main\n\n" + text[strings.Index(text, "import ("):]
	main = regexp.MustCompile(`// A host's first day[^\n]*\nfunc Example_firstDay\(\) \{`).ReplaceAllString(main, "func main() {")
	if !strings.Contains(string(readme), "```go\n"+main+"```\n") {
		t.Errorf("README.md does not show Example_firstDay as the main package:\n%s", main)
	}
}
