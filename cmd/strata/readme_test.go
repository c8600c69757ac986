package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
