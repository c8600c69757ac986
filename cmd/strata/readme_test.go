package main

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConfigExplainHome runs the README's strata config --explain example
// in the demo workspace, with the user file under a home directory of the
// test's making: the output is golden, and it is what the README shows.
func TestConfigExplainHome(t *testing.T) {
	env, args, want := readmeExample(t, "strata config", "--explain")
	clearStrataEnv(t)
	home := t.TempDir()
	user, err := os.ReadFile(filepath.Join(repoRoot, "fixtures/home/strata/config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".config/strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config/strata/config.toml"), user, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Chdir(filepath.Join(repoRoot, "fixtures/workspace"))
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	got := result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	golden(t, "config-explain-home", got)
	if diff := cmp.Diff(want, got.stdout); diff != "" {
		t.Errorf("README.md shows another output than strata prints (-README +strata):\n%s", diff)
	}
}

// readmeExample finds the first command of README.md's console examples
// that starts with prefix and contains every one of words, and returns its
// environment assignments, its arguments (after "strata") and the output
// the README shows for it. The command's words are split on spaces.
func readmeExample(t *testing.T, prefix string, words ...string) (env, args []string, output string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		cmdline, ok := strings.CutPrefix(line, "$ ")
		if !ok {
			continue
		}
		fields := strings.Fields(cmdline)
		for len(fields) > 0 && strings.Contains(fields[0], "=") {
			env, fields = append(env, fields[0]), fields[1:]
		}
		rest := strings.Join(fields, " ")
		if !strings.HasPrefix(rest, prefix) || !containsAll(rest, words) {
			env = nil
			continue
		}
		var out strings.Builder
		for _, l := range lines[i+1:] {
			if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "```") {
				break
			}
			out.WriteString(l + "\n")
		}
		return env, fields[1:], out.String()
	}
	t.Fatalf("README.md has no example command %q with %q", prefix, words)
	return nil, nil, ""
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// TestReadmeHostExamples holds README.md to its word that the Example
// functions of the packages it names show a host config that mounts the
// tools at conversation.tools: each package has a tested example (one
// with an Output comment) whose config has a conversation table holding
// the tools model (config.ToolsPartial) under tools.
func TestReadmeHostExamples(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	m := regexp.MustCompile("See the `Example` functions in (.*?) for a host config that mounts the tools at `conversation.tools`").FindStringSubmatch(text)
	if m == nil {
		t.Fatal("README.md no longer names the packages whose examples mount the tools at conversation.tools")
	}
	pkgs := regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(m[1], -1)
	if len(pkgs) == 0 {
		t.Fatalf("no package in %q", m[1])
	}
	for _, p := range pkgs {
		t.Run(p[1], func(t *testing.T) {
			fset := token.NewFileSet()
			matches, _ := filepath.Glob(filepath.Join(repoRoot, p[1], "*_test.go"))
			var files []*ast.File
			for _, name := range matches {
				f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
			for _, ex := range doc.Examples(files...) {
				if ex.Output != "" && mountsTools(ex.Code) {
					return
				}
			}
			t.Errorf("no tested Example in %s mounts the tools at conversation.tools", p[1])
		})
	}
}

// mountsTools reports whether code declares a struct with a field tagged
// toml:"conversation" whose struct has a field of type config.ToolsPartial
// tagged toml:"tools".
func mountsTools(code ast.Node) bool {
	structs := map[string]*ast.StructType{} // by type name
	ast.Inspect(code, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if st, ok := ts.Type.(*ast.StructType); ok {
				structs[ts.Name.Name] = st
			}
		}
		return true
	})
	tag := func(f *ast.Field) string {
		if f.Tag == nil {
			return ""
		}
		s, _ := strconv.Unquote(f.Tag.Value)
		return reflect.StructTag(s).Get("toml")
	}
	hasTools := func(st *ast.StructType) bool {
		for _, f := range st.Fields.List {
			if sel, ok := f.Type.(*ast.SelectorExpr); ok && tag(f) == "tools" &&
				sel.Sel.Name == "ToolsPartial" && fmt.Sprint(sel.X) == "config" {
				return true
			}
		}
		return false
	}
	for _, st := range structs {
		for _, f := range st.Fields.List {
			if id, ok := f.Type.(*ast.Ident); ok && tag(f) == "conversation" && structs[id.Name] != nil && hasTools(structs[id.Name]) {
				return true
			}
		}
	}
	return false
}

// TestReadmeGoVersion holds README.md's word on the Go it needs ("Both
// need Go 1.26") to go.mod's go directive: a reader who installs the Go
// the README names builds the module, and needs no newer one.
func TestReadmeGoVersion(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	says := regexp.MustCompile(`need Go (\d+\.\d+)`).FindAllSubmatch(readme, -1)
	if len(says) == 0 {
		t.Fatal(`README.md no longer says which Go it needs ("need Go 1.x")`)
	}
	for _, s := range says {
		if string(s[1]) != string(m[1]) {
			t.Errorf("README.md says %q, go.mod says go %s", s[0], m[1])
		}
	}
}
