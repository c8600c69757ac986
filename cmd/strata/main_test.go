package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/testbin"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// strataBin and mcpfake are built by TestMain, for
// the tests that run them as processes.
var strataBin, mcpfake string

// TestMain builds the demo workspace's multi-tool binary, as the README's
// demo command does, and strata and mcpfake.
//
// The tests that call t.Parallel run 4 per CPU at once (testbin.Parallel)
// unless go test is given -parallel: they run strata as a process of its
// own (its own environment and directory) and spend most of their time
// waiting for it and the servers it starts, not on a CPU.
func TestMain(m *testing.M) {
	if err := testbin.Parallel(4); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := exec.Command("go", "build", "-o", "../../fixtures/workspace/bin/jptools", "../../fixtures/jptools").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building jptools: %v\n%s", err, out)
		os.Exit(1)
	}
	const self = testbin.Strata
	bins, err := testbin.Build(self, testbin.MCPFake)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	strataBin, mcpfake = bins[self], bins[testbin.MCPFake]
	os.Exit(m.Run())
}

// waitContext is the context of a test that waits on events (a process's
// answers, a notification): it ends a quarter of a minute before the
// test binary's deadline (go test -timeout, 10 minutes by default), so
// that a busy machine makes the test slower, never failed, while a test
// that hangs still fails with its own message rather than go test's
// panic. Before, such tests gave up after a fixed minute, which a load of
// 15 on 2 CPUs once ran out (TestLockServe).
func waitContext(t *testing.T) context.Context {
	t.Helper()
	d, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), d.Add(-15*time.Second))
	t.Cleanup(cancel)
	return ctx
}

// goldenDir and repoRoot are absolute: runCLI changes the working
// directory.
var (
	goldenDir, _ = filepath.Abs(filepath.Join("testdata", "golden"))
	repoRoot, _  = filepath.Abs(filepath.Join("..", ".."))
)

// result is what one run of the CLI gives: its exit status and output.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n-- stdout --\n%s-- stderr --\n%s", r.code, portable(r.stdout), portable(r.stderr))
}

// portable replaces what differs between machines, such as where node is
// installed.
func portable(s string) string {
	s = strings.ReplaceAll(s, repoRoot+string(filepath.Separator), "<repo>/")
	if node, err := exec.LookPath("node"); err == nil {
		s = strings.ReplaceAll(s, node, "<node>")
	}
	return s
}

// runCLI runs the CLI in the repository root, so that paths in messages
// read as a user would type them.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	return runCLIInput(t, "", args...)
}

// runCLIInput is runCLI with stdin.
func runCLIInput(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	t.Chdir(repoRoot)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// golden compares got with testdata/golden/name.txt, or rewrites it with
// -update.
func golden(t *testing.T, name string, got result) {
	t.Helper()
	path := filepath.Join(goldenDir, name+".txt")
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/strata -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}

func TestGolden(t *testing.T) {
	layers := []string{"fixtures/layers/user.toml", "fixtures/layers/workspace.toml", "fixtures/layers/directory.yaml", "fixtures/layers/override.json"}
	tests := []struct {
		name string
		args []string
	}{
		{"merge", append([]string{"merge"}, layers...)},
		{"merge-json", append([]string{"merge", "--json"}, layers...)},
		{"merge-final", append([]string{"merge", "--final"}, layers...)},
		{"merge-final-json", append([]string{"merge", "--final", "--json"}, layers...)},
		{"merge-one", []string{"merge", "fixtures/layers/workspace.toml"}},
		{"diff", []string{"diff", "fixtures/layers/user.toml", "fixtures/layers/workspace.toml"}},
		{"diff-json", []string{"diff", "--json", "fixtures/layers/workspace.toml", "fixtures/layers/user.toml"}},
		{"diff-same", []string{"diff", "fixtures/layers/workspace.toml", "fixtures/layers/workspace.toml"}},
		{"merge-extends", []string{"merge", "cmd/strata/testdata/extends/top.toml"}},
		{"merge-extends-workspace", []string{"merge", "fixtures/home/strata/config.toml", "fixtures/workspace/.strata/config.toml"}},
		{"diff-extends", []string{"diff", "cmd/strata/testdata/extends/base.toml", "cmd/strata/testdata/extends/top.toml"}},
		{"error-extends", []string{"merge", "cmd/strata/testdata/extends/cycle-a.toml", "cmd/strata/testdata/extends/missing.toml"}},
		{"error-extends-diff", []string{"diff", "cmd/strata/testdata/extends/top.toml", "cmd/strata/testdata/extends/cycle-b.toml"}},
		{"schema", []string{"schema"}},
		{"error-typo", []string{"merge", "fixtures/bad/typo.toml"}},
		{"error-several", []string{"merge", "fixtures/bad/several.toml"}},
		{"error-syntax", []string{"merge", "fixtures/bad/syntax.toml"}},
		{"error-unset", []string{"merge", "fixtures/bad/unset.toml"}},
		{"error-final", []string{"merge", "--final", "fixtures/bad/unknown_server.toml"}},
		{"error-final-shell", []string{"merge", "--final", "fixtures/bad/shell_comment.toml"}},
		{"error-two-files", []string{"merge", "fixtures/bad/typo.toml", "fixtures/bad/unset.toml"}},
		{"error-missing-file", []string{"merge", "fixtures/layers/nope.toml"}},
		{"error-extension", []string{"merge", "fixtures/layers/README"}},
		{"usage-no-command", nil},
		{"usage-unknown-command", []string{"frobnicate"}},
		{"usage-unknown-flag", []string{"merge", "--fast", "fixtures/layers/user.toml"}},
		{"usage-merge-no-files", []string{"merge"}},
		{"usage-call-no-name", []string{"call"}},
		{"usage-resolve-bad-flag", []string{"resolve", "--exprot", "openai"}},
		{"error-toml-bare", []string{"merge", "cmd/strata/testdata/toml/bare.toml"}},
		{"error-toml-open-array", []string{"merge", "cmd/strata/testdata/toml/open_array.toml"}},
		{"help", []string{"--help"}},
		{"merge-help", []string{"merge", "--help"}},
		{"call-help", []string{"call", "--help"}},
		{"serve-help", []string{"serve", "--help"}},
		{"merge-cfg", []string{"merge", "--cfg", "tools.fs_modify_file.run=skip", "--cfg", "discover.dirs+=a,b", "--cfg", `tools.fs_modify_file.options:+={"mode": "fast"}`, "--cfg", "tools.read_file:=null", "fixtures/layers/workspace.toml"}},
		{"merge-cfg-final", []string{"merge", "--final", "--cfg", "tools.'*'.run=unattended", "--cfg", "tools.fs_modify_file.command.args.0={{tool.name}}", "--cfg", `{"tools": {"new_tool": {"source": "builtin"}}}`, "fixtures/layers/workspace.toml"}},
		{"diff-cfg", []string{"diff", "--cfg", "tools.fs_modify_file.run=ask", "--cfg", "tools.read_file.enable=false", "fixtures/layers/workspace.toml", "fixtures/layers/workspace.toml"}},
		{"error-cfg", []string{"merge", "--cfg", "tools.fs_modify_file.rnu=ask", "--cfg", "nonsense", "--cfg", "tools.fs_modify_file.run=askk", "--cfg", "discover.dirs.7=x", "--cfg", "tools.x.options:={bad", "fixtures/layers/workspace.toml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, runCLI(t, tt.args...))
		})
	}
}

// TestDeterministic runs each command twice: the same input prints the
// same bytes.
func TestDeterministic(t *testing.T) {
	for _, args := range [][]string{
		{"merge", "fixtures/layers/user.toml", "fixtures/layers/workspace.toml", "fixtures/layers/directory.yaml"},
		{"merge", "--final", "--json", "fixtures/layers/user.toml", "fixtures/layers/workspace.toml"},
		{"diff", "fixtures/layers/user.toml", "fixtures/layers/workspace.toml"},
		{"schema"},
	} {
		first := runCLI(t, args...)
		for i := 0; i < 5; i++ {
			if again := runCLI(t, args...); again != first {
				t.Fatalf("%v printed differently on run %d:\n%s\nthen\n%s", args, i+2, first, again)
			}
		}
	}
}

// TestErrorLines checks the error contract: every line on stderr begins
// with "strata: ", and nothing panics.
func TestErrorLines(t *testing.T) {
	for _, f := range []string{"typo", "several", "syntax", "unset", "unknown_server", "shell_comment"} {
		r := runCLI(t, "merge", "--final", "fixtures/bad/"+f+".toml")
		if r.code != 1 {
			t.Errorf("%s: exit %d, want 1", f, r.code)
		}
		for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
			if !strings.HasPrefix(line, "strata: fixtures/bad/"+f+".toml:") {
				t.Errorf("%s: stderr line %q does not name the file with strata: first", f, line)
			}
		}
	}
}

// TestMergeOutputReadsBack checks that what merge prints is a layer that
// merges to the same final config.
func TestMergeOutputReadsBack(t *testing.T) {
	layers := []string{"fixtures/layers/user.toml", "fixtures/layers/workspace.toml", "fixtures/layers/directory.yaml", "fixtures/layers/override.json"}
	merged := runCLI(t, append([]string{"merge"}, layers...)...)
	final := runCLI(t, append([]string{"merge", "--final"}, layers...)...)
	dir := t.TempDir()
	path := filepath.Join(dir, "merged.toml")
	if err := os.WriteFile(path, []byte(merged.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	again := runCLI(t, "merge", "--final", path)
	if diff := cmp.Diff(final, again, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("merged layer does not finalize the same (-want +got):\n%s", diff)
	}
}

// TestConfigGolden runs strata config on the demo workspace, with the user
// directory in the fixtures and an environment of the test's making.
func TestConfigGolden(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
	}{
		{"config", nil, []string{"config", "--trust", "--root", "fixtures/workspace/project/src"}},
		{"config-untrusted", nil, []string{"config", "--root", "fixtures/workspace/project/src"}},
		{"config-json", nil, []string{"config", "--trust", "--json", "--root", "fixtures/workspace/project"}},
		{"config-sources", []string{"STRATA_TOOLS_GREP_RESULT=ask"}, []string{"config", "--trust", "--sources", "--root", "fixtures/workspace/project/src", "--cfg", "tools.grep.run=skip", "--cfg", "NONE", "--cfg", "tools.grep.summary=x"}},
		{"config-explain", []string{"STRATA_TOOLS_GREP_RUN=ask"}, []string{"config", "--trust", "--root", "fixtures/workspace/project/src", "--cfg", "tools.grep.run=skip", "--explain", "tools.grep.run"}},
		{"config-explain-untrusted", []string{"STRATA_TOOLS_GREP_RUN=ask"}, []string{"config", "--root", "fixtures/workspace/project/src", "--explain", "tools.grep.run"}},
		{"config-explain-list", nil, []string{"config", "--trust", "--root", "fixtures/workspace/project/src", "--cfg", "discover.dirs+=extra", "--explain", "discover.dirs"}},
		{"config-explain-option", nil, []string{"config", "--trust", "--root", "fixtures/workspace/project/src", "--explain", "tools.grep.options.max_count"}},
		{"config-explain-inherited", nil, []string{"config", "--trust", "--root", "fixtures/workspace", "--explain", "tools.word_count.run"}},
		{"config-explain-typo", nil, []string{"config", "--trust", "--root", "fixtures/workspace", "--explain", "tools.grep.rnu"}},
		{"config-error-env", []string{"STRATA_TOOLS_GREP_RNU=ask", "STRATA_TOOLS_GREP_RUN=askk"}, []string{"config", "--root", "fixtures/workspace"}},
		{"config-env-stray", []string{"STRATA_DEBUG=1", "STRATA_TOOL_GREP_RUN=skip"}, []string{"config", "--trust", "--root", "fixtures/workspace", "--explain", "tools.grep.run"}},
		{"config-error-cfg", nil, []string{"config", "--trust", "--root", "fixtures/workspace", "--cfg", "fixtures/bad/typo.toml", "--cfg", "tools.grep.run=sometimes"}},
		{"config-error-all-at-once", []string{"STRATA_TOOLS_GREP_RUN=askk"}, []string{"config", "--root", "fixtures/workspace", "--cfg", "fixtures/bad/typo.toml", "--cfg", "tools.grep.summry=x"}},
		{"config-error-shell", nil, []string{"config", "--trust", "--root", "fixtures/workspace", "--cfg", "fixtures/bad/shell_comment.toml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearStrataEnv(t)
			t.Setenv("STRATA_CONFIG_HOME", "fixtures/home/strata")
			for _, kv := range tt.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			golden(t, tt.name, runCLI(t, tt.args...))
		})
	}
}

// requireNode skips a test that needs the npm MCP servers when they are
// missing, unless REQUIRE_MCP_SERVERS says they must be there.
func requireNode(t *testing.T) {
	t.Helper()
	_, err := os.Stat(filepath.Join(repoRoot, "fixtures/mcp/node_modules/@modelcontextprotocol/server-filesystem"))
	if _, nodeErr := exec.LookPath("node"); err != nil || nodeErr != nil {
		if os.Getenv("REQUIRE_MCP_SERVERS") != "" {
			t.Fatal("the npm MCP servers are missing; run npm ci --prefix fixtures/mcp")
		}
		t.Skip("the npm MCP servers are missing")
	}
}

// environWithoutStrata is this process's environment less strata's
// variables (STRATA_*).
func environWithoutStrata() []string {
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(name, "STRATA_") {
			env = append(env, kv)
		}
	}
	return env
}

// clearStrataEnv unsets every STRATA_ variable for the test.
func clearStrataEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "STRATA_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
}

// demoEnv clears strata's variables and points the user directory and the
// cache where a test wants them.
func demoEnv(t *testing.T, cache string) {
	clearStrataEnv(t)
	t.Setenv("STRATA_CONFIG_HOME", "fixtures/home/strata")
	t.Setenv("HOME", "/nonexistent")
	t.Setenv("XDG_CACHE_HOME", cache)
}

// TestCallGolden calls the tools of the demo workspace.
func TestCallGolden(t *testing.T) {
	requireNode(t)
	cache := t.TempDir()
	demo := []string{"call", "--root", "fixtures/workspace", "--trust", "--yes"}
	ask := []string{"--cfg", "tools.fs_modify_file.options.auto_approve_max_changed_lines:=0"}
	modify := `{"path":"data/notes.txt","start_line":1,"end_line":1,"content":"changed"}`
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"call-describe", "", append(demo, "word_count", `{"text":"one two three"}`)},
		{"call-forced", "", append(demo, "get_weather", `{"location":"Oslo"}`)},
		{"call-stdin", `{"location": "Half Moon Bay"}`, append(demo, "get_weather", "-")},
		{"call-jp", "", append(demo, "count_lines", `{"path":"data/poem.txt"}`)},
		{"call-jp-renamed", "", append(demo, "grep", `{"pattern":"rose"}`)},
		{"call-jp-error", "", append(demo, "count_lines", `{"path":"../../etc/passwd"}`)},
		{"call-mcp", "", append(demo, "read_file", `{"path":"notes.txt","head":2}`)},
		{"call-mcp-exposed", "", append(demo, "get-sum", `{"a":2,"b":40}`)},
		{"call-invalid", "", append(demo, "get_weather", `{"location":7,"unit":"kelvin","wind":true}`)},
		{"call-not-json", "", append(demo, "word_count", `{"text":`)},
		{"call-unknown", "", append(demo, "wordcount", `{}`)},
		{"call-question-no-terminal", "", append(append(demo, ask...), "fs_modify_file", modify)},
		{"call-question-answered", "", append(append(demo, ask...), "--answer", "apply_changes=false", "fs_modify_file", modify)},
		{"call-question-asked", "maybe\nno\n", append(append(demo, ask...), "--ask", "fs_modify_file", modify)},
		{"call-question-no-answer", "", append(append(demo, ask...), "--ask", "fs_modify_file", modify)},
		{"call-untrusted", "", []string{"call", "--root", "fixtures/workspace", "count_lines", `{"path":"data/poem.txt"}`}},
		{"call-bad-answer", "", append(demo, "--answer", "apply_changes", "word_count", `{"text":""}`)},
		{"call-ask-no-terminal", "", []string{"call", "--root", "fixtures/workspace", "--trust", "word_count", `{"text":"one two three"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(tt.name, "call-mcp") {
				t.Skip("-short: a call starts a Node server; -short has TestServeProcess's MCP call")
			}
			demoEnv(t, cache)
			t.Setenv("SHELLCLAW_STUB", "1")
			golden(t, tt.name, runCLIInput(t, tt.stdin, tt.args...))
		})
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "fixtures/workspace/data/notes.txt"))
	if err != nil || strings.Contains(string(b), "changed") {
		t.Errorf("a declined change was applied: %q, %v", b, err)
	}
}

// TestResolveGolden resolves the demo workspace.
func TestResolveGolden(t *testing.T) {
	requireNode(t)
	cache := t.TempDir()
	tests := []struct {
		name string
		args []string
	}{
		{"resolve", []string{"resolve", "--root", "fixtures/workspace", "--trust"}},
		{"resolve-warm", []string{"resolve", "--root", "fixtures/workspace", "--trust", "--offline"}},
		{"resolve-openai", []string{"resolve", "--root", "fixtures/workspace", "--trust", "--export", "openai"}},
		{"resolve-anthropic", []string{"resolve", "--root", "fixtures/workspace", "--trust", "--export", "anthropic"}},
		{"resolve-mcp", []string{"resolve", "--root", "fixtures/workspace", "--trust", "--export", "mcp"}},
		{"resolve-stats", []string{"resolve", "--root", "fixtures/budget", "--trust", "--stats", "--export", "openai"}},
		{"resolve-stats-toolset", []string{"resolve", "--root", "fixtures/budget", "--trust", "--stats", "--json", "--export", "anthropic", "--toolset", "review"}},
		{"resolve-stats-deferred", []string{"resolve", "--root", "fixtures/budget", "--trust", "--stats", "--export", "mcp", "--toolset", "ops"}},
		{"resolve-explain", []string{"resolve", "--root", "fixtures/budget", "--trust", "--toolset", "ops", "--explain", "deploy_logs"}},
		{"resolve-explain-out", []string{"resolve", "--root", "fixtures/budget", "--trust", "--toolset", "review", "--explain", "git_push", "--export", "openai"}},
		{"resolve-toolset-unknown", []string{"resolve", "--root", "fixtures/budget", "--trust", "--toolset", "reveiw"}},
		{"resolve-json-without-stats", []string{"resolve", "--root", "fixtures/budget", "--trust", "--json"}},
		{"resolve-untrusted", []string{"resolve", "--root", "fixtures/workspace"}},
		{"resolve-override", []string{"resolve", "--root", "fixtures/workspace", "--trust", "--cfg", "tools.word_count.parameters.mode:={\"enum\": [\"bytes\"]}", "--cfg", "tools.grep.parameters.pattern.required=false"}},
		{"resolve-bad-export", []string{"resolve", "--root", "fixtures/workspace", "--export", "yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			demoEnv(t, cache)
			golden(t, tt.name, runCLI(t, tt.args...))
		})
	}
}
