package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// First contact (issue 24): what a new user meets who follows the README
// with nothing of their own (HOME an empty directory).

// filesystemServer is the entry point of the npm filesystem server that
// fixtures/mcp installs; it skips the test when Node or the package is
// missing (see requireNode).
func filesystemServer(t *testing.T) string {
	t.Helper()
	requireNode(t)
	return filepath.Join(repoRoot, "fixtures/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
}

// TestFirstServerGivesTools: the README tour's [mcp_servers.fs], as a
// user coming from Claude Code, Codex or Cursor writes it (no expose),
// gives the server's tools, with no warning.
func TestFirstServerGivesTools(t *testing.T) {
	t.Parallel()
	entry := filesystemServer(t)
	root, environ := hostileWorkspace(t, `[mcp_servers.fs]
command = "node"
args = ["`+entry+`", "."]
`, map[string]string{"notes.txt": "hello\n"})
	stdout, stderr, code := strataIn(t, root, environ, "resolve", "--trust")
	golden(t, "first-server-tools", result{code: code, stdout: catalogLines(t, stdout), stderr: stderr})
	if !strings.Contains(stdout, `"name": "read_text_file"`) {
		t.Errorf("the filesystem server gave no read_text_file:\n%s", stdout)
	}
	if stderr != "" {
		t.Errorf("a warning the user did not cause:\n%s", stderr)
	}
}

// slugifyTool is a tool that describes itself (--describe), as the
// tester of issue 24 wrote one.
const slugifyTool = `#!/bin/sh
if [ "$1" = --describe ]; then
  echo '{"name":"slugify","description":"Turn a title into a lowercase URL slug.","parameters":{"type":"object","properties":{"title":{"type":"string","description":"The title."}},"required":["title"]}}'
  exit 0
fi
echo slug
`

// TestFirstDescriptionOverride: the description a user writes is what
// every export gives the model, once, for a tool that describes itself
// and for an MCP server's; with no override, the tool's own text.
func TestFirstDescriptionOverride(t *testing.T) {
	t.Parallel()
	entry := filesystemServer(t)
	root, environ := hostileWorkspace(t, `[discover]
dirs = ["../tools"]

[mcp_servers.fs]
command = "node"
args = ["`+entry+`", "."]
enabled_tools = ["read_text_file"]
`, map[string]string{"tools/slugify": slugifyTool})
	if err := os.Chmod(filepath.Join(root, "tools/slugify"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code := 0
	for _, c := range []struct{ name, tool, cfg string }{
		{"no override", "slugify", ""},
		{"plain", "slugify", `tools.slugify.description=Make a URL slug.`},
		{"with {{description}}", "slugify", `tools.slugify.description=Make a URL slug. {{description}}`},
		{"summary and description", "slugify", `{"tools": {"slugify": {"summary": "Slugs.", "description": "Make a URL slug."}}}`},
		{"MCP tool, no override", "read_text_file", ""},
		{"MCP tool", "read_text_file", `tools.read_text_file.description=Read a note of the workspace. {{description}}`},
	} {
		args := []string{"resolve", "--trust", "--export", "openai"}
		if c.cfg != "" {
			args = append(args, "--cfg", c.cfg)
		}
		stdout, stderr, rc := strataIn(t, root, environ, args...)
		var list []struct {
			Function struct{ Name, Description string }
		}
		if err := json.Unmarshal([]byte(stdout), &list); err != nil {
			t.Fatalf("%s: %v\n%s%s", c.name, err, stdout, stderr)
		}
		fmt.Fprintf(&out, "## %s (exit %d)\n", c.name, rc)
		for _, f := range list {
			if f.Function.Name == c.tool {
				fmt.Fprintf(&out, "%s: %q\n", f.Function.Name, f.Function.Description)
			}
		}
		out.WriteString(stderr)
		code = max(code, rc)
	}
	golden(t, "first-description-override", result{code: code, stdout: out.String()})
}

// repeatTool describes itself with bounded parameters, and echoes its
// arguments when called.
const repeatTool = `#!/bin/sh
if [ "$1" = --describe ]; then
  echo '{"name":"repeat","description":"Repeat a word.","parameters":{"type":"object","properties":{"word":{"type":"string","maxLength":80},"times":{"type":"integer","minimum":1,"maximum":100}},"required":["word","times"]}}'
  exit 0
fi
printf '%s\n' "$1"
`

// TestFirstBounds: a user file tightens a parameter's bounds (maximum,
// max_length, pattern); the resolved schema has them, calls outside them
// are refused before the tool runs, and an override that would loosen one
// is an error that names the layer, the key, the tool's bound and the fix.
func TestFirstBounds(t *testing.T) {
	t.Parallel()
	root, environ := hostileWorkspace(t, `[discover]
dirs = ["../tools"]

[tools.repeat]
run = "unattended"

[tools.repeat.parameters.times]
maximum = 50

[tools.repeat.parameters.word]
max_length = 20
pattern = '^[a-z]+$'
`, map[string]string{"tools/repeat": repeatTool})
	if err := os.Chmod(filepath.Join(root, "tools/repeat"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code := 0
	for _, args := range [][]string{
		{"resolve", "--trust", "--export", "openai"},
		{"call", "--trust", "repeat", `{"word": "hello", "times": 60}`},
		{"call", "--trust", "repeat", `{"word": "Hello there", "times": 3}`},
		{"call", "--trust", "repeat", `{"word": "hello", "times": 50}`},
		{"resolve", "--trust", "--cfg", "tools.repeat.parameters.times.maximum=500"},
	} {
		stdout, stderr, rc := strataIn(t, root, environ, args...)
		if args[0] == "resolve" && rc == 0 {
			var list []struct {
				Function struct{ Parameters json.RawMessage }
			}
			if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list) != 1 {
				t.Fatalf("%v: %s", err, stdout)
			}
			stdout = string(list[0].Function.Parameters) + "\n"
		} else if args[0] == "resolve" {
			stdout = ""
		}
		fmt.Fprintf(&out, "$ strata %s (exit %d)\n%s%s", strings.Join(args, " "), rc, stdout, strings.ReplaceAll(stderr, root, "<root>"))
		code = max(code, rc)
	}
	golden(t, "first-bounds", result{code: code, stdout: out.String()})
}

// TestFirstServerFails: a server that exits as it starts, and one that
// never answers, each get one line that names the server, quotes the end
// of its stderr (escaped), and names the setting to change.
func TestFirstServerFails(t *testing.T) {
	t.Parallel()
	root, environ := hostileWorkspace(t, `[mcp_servers.fs]
command = "MCPFAKE"
args = ["-stderr", "Error: Access denied - path outside allowed directories: /data\n    at validatePath (index.js:1:2)\n\u001b[2Jdone", "-fail-if", "MCPFAKE"]

[mcp_servers.slow]
command = "MCPFAKE"
args = ["-hang-init", "-stderr", "resolving packages..."]
startup_timeout_sec = 0.5
`, map[string]string{})
	stdout, stderr, code := strataIn(t, root, environ, "resolve", "--trust")
	golden(t, "first-server-fails", result{code: code, stdout: catalogLines(t, stdout), stderr: cleanOutput(stderr)})
}

// TestFirstDemoReadsNoHome runs the README's demo command (its strata
// part; TestMain builds what the rest builds) with HOME a directory of
// the test's: a tool planted in ~/.config/strata/tools is neither run nor
// listed, and the demo prints its tools with no warning at all.
func TestFirstDemoReadsNoHome(t *testing.T) {
	t.Parallel()
	requireNode(t)
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "<!-- demo-command -->\n```sh\n")
	if !ok {
		t.Fatal("README.md has no demo command")
	}
	line, _, _ := strings.Cut(after, "\n")
	steps := strings.Split(line, " && ")
	fields := strings.Fields(steps[len(steps)-1])
	var env []string
	for len(fields) > 0 && strings.Contains(fields[0], "=") {
		env, fields = append(env, fields[0]), fields[1:]
	}
	if len(fields) < 3 || strings.Join(fields[:3], " ") != "go run ./cmd/strata" {
		t.Fatalf("the demo command's last step does not run strata: %q", steps[len(steps)-1])
	}
	home := t.TempDir()
	marker := filepath.Join(home, "ran")
	planted := filepath.Join(home, ".config/strata/tools/home_tool")
	if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	tool := "#!/bin/sh\ntouch " + marker + "\necho '{\"name\":\"home_tool\",\"description\":\"From HOME.\"}'\n"
	if err := os.WriteFile(planted, []byte(tool), 0o755); err != nil {
		t.Fatal(err)
	}
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, env...)
	stdout, stderr, code := strataIn(t, repoRoot, environ, fields[3:]...)
	if code != 0 || stderr != "" {
		t.Errorf("the demo: exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil || strings.Contains(stdout, "home_tool") {
		t.Error("the demo ran a tool of the real HOME's ~/.config/strata/tools")
	}
	if !strings.Contains(stdout, `"name": "slugify"`) || !strings.Contains(stdout, `"name": "list_directory"`) {
		t.Errorf("the demo lacks the user's own tool or the filesystem server's:\n%s", stdout)
	}
}

// noteTool describes itself as note, and writes its text to note.txt in
// the directory it runs in (or where NOTE points).
const noteTool = `#!/bin/sh
if [ "$1" = --describe ]; then
  echo '{"name":"note","description":"Write a note.","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}'
  exit 0
fi
printf '%s\n' "$1" > "$(dirname "$0")/../note.txt"
echo noted
`

// TestFirstAskServe: strata serve asks the client's user, through
// elicitation, before it runs a tool whose run mode is "ask" (the
// default), over the protocol versions before and after multi round-trip
// requests; a client that declared no elicitation is refused such a
// tool, with a result that says why and names run = "unattended".
func TestFirstAskServe(t *testing.T) {
	t.Parallel()
	root, environ := hostileWorkspace(t, `[discover]
dirs = ["../tools"]
`, map[string]string{"tools/note": noteTool})
	if err := os.Chmod(filepath.Join(root, "tools/note"), 0o755); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(root, "note.txt")
	accept := func(run bool) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if want := `Run note with {"text":"hello"}?`; req.Params.Message != want {
				t.Errorf("elicitation message %q, want %q", req.Params.Message, want)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"run": run}}, nil
		}
	}
	var out strings.Builder
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, c := range []struct {
			name    string
			handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
			wrote   bool
		}{
			{"the user says run", accept(true), true},
			{"the user says do not run", accept(false), false},
			{"the user declines", func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}, false},
			{"a client without elicitation", nil, false},
		} {
			os.Remove(note)
			cmd := exec.Command(strataBin, "serve", "--trust")
			cmd.Dir, cmd.Env = root, environ
			var stderr strings.Builder
			cmd.Stderr = &stderr
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: c.handler})
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				cancel()
				t.Fatalf("%v; stderr:\n%s", err, stderr.String())
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"text": "hello"}})
			cs.Close()
			cancel()
			if err != nil {
				t.Fatalf("%s, %s: %v", version, c.name, err)
			}
			_, statErr := os.Stat(note)
			if wrote := statErr == nil; wrote != c.wrote {
				t.Errorf("%s, %s: the tool wrote its note: %v, want %v", version, c.name, wrote, c.wrote)
			}
			fmt.Fprintf(&out, "## %s, %s: isError %v\n%s\n", version, c.name, res.IsError, res.Content[0].(*mcp.TextContent).Text)
		}
	}
	golden(t, "first-ask-serve", result{stdout: out.String()})
}

// TestFirstWarningsOnce: each thing is said once, at its cause. A user
// file's settings for tools this workspace lacks say nothing unless asked
// (--verbose, strata config --check), so that an untrusted workspace gets
// one line; two servers with the same tools get one warning for the pair.
func TestFirstWarningsOnce(t *testing.T) {
	t.Parallel()
	root, environ := hostileWorkspace(t, `[mcp_servers.one]
command = "MCPFAKE"
args = ["-tools", "7"]

[mcp_servers.two]
command = "MCPFAKE"
args = ["-tools", "7"]
`, map[string]string{"home/strata/config.toml": ""})
	user := filepath.Join(filepath.Dir(root), "home/strata/config.toml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("[tools.slugify]\nrun = \"unattended\"\n\n[tools.word_count]\nrun = \"unattended\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code := 0
	for _, args := range [][]string{
		{"resolve"},
		{"resolve", "--verbose"},
		{"config", "--check"},
		{"resolve", "--trust"},
	} {
		stdout, stderr, rc := strataIn(t, root, environ, args...)
		if args[0] == "resolve" {
			stdout = catalogLines(t, stdout)
		}
		stderr = strings.ReplaceAll(cleanOutput(stderr), filepath.Dir(root), "<dir>")
		fmt.Fprintf(&out, "$ strata %s (exit %d)\n%s%s", strings.Join(args, " "), rc, stdout, stderr)
		code = max(code, rc)
	}
	golden(t, "first-warnings-once", result{code: code, stdout: out.String()})
}

// TestFirstServeEmpty: strata serve tells its client, in a log message
// (and in the _meta of the list), why it lists no tools, over the
// protocol versions before and after log levels moved into each request.
func TestFirstServeEmpty(t *testing.T) {
	t.Parallel()
	root, environ := hostileWorkspace(t, "[discover]\ndirs = [\"../tools\"]\n", map[string]string{"tools/note": noteTool})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, c := range []struct{ name, dir string }{
			{"an untrusted workspace", root},
			{"nothing configured", filepath.Dir(root)},
		} {
			cmd := exec.Command(strataBin, "serve")
			cmd.Dir, cmd.Env = c.dir, environ
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			logs := make(chan *mcp.LoggingMessageParams, 10)
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { logs <- req.Params },
			})
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			params := &mcp.ListToolsParams{Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
			if version < "2026-07-28" {
				if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
					t.Fatal(err)
				}
				params = nil
			}
			list, err := cs.ListTools(ctx, params)
			if err != nil || len(list.Tools) != 0 {
				t.Fatalf("%s, %s: %v, %d tools", version, c.name, err, len(list.Tools))
			}
			select {
			case p := <-logs:
				got := strings.ReplaceAll(fmt.Sprintf("%s %s: %v", p.Level, p.Logger, p.Data), filepath.Dir(root), "<dir>")
				golden(t, "first-serve-empty-"+strings.ReplaceAll(c.name, " ", "-"), result{stdout: got + "\n"})
				if list.Meta["strata/empty"] != p.Data {
					t.Errorf("%s, %s: the list's _meta says %q", version, c.name, list.Meta["strata/empty"])
				}
			case <-ctx.Done():
				t.Errorf("%s, %s: no log message says why the list is empty", version, c.name)
			}
			cs.Close()
			cancel()
		}
	}
}

// TestFirstVersion: strata --version prints the module's version, the
// VCS revision when the build recorded one, and the Go release.
func TestFirstVersion(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := strataIn(t, repoRoot, []string{"PATH=" + os.Getenv("PATH")}, "--version")
	if code != 0 || stderr != "" || !regexp.MustCompile(`^strata \S+( \([0-9a-f]+(-dirty)?(, \S+)?\))? go\S+\n$`).MatchString(stdout) {
		t.Errorf("strata --version: exit %d, %q, stderr %q", code, stdout, stderr)
	}
}

// TestFirstDefaultHint: a default given with = on the command line is
// text; for an integer parameter, the error says to write := (or no
// quotes in TOML).
func TestFirstDefaultHint(t *testing.T) {
	t.Parallel()
	root, environ := hostileWorkspace(t, "[discover]\ndirs = [\"../tools\"]\n", map[string]string{"tools/repeat": repeatTool})
	if err := os.Chmod(filepath.Join(root, "tools/repeat"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code := 0
	for _, args := range [][]string{
		{"resolve", "--trust", "--cfg", "tools.repeat.parameters.times.default=50"},
		{"resolve", "--trust", "--cfg", "tools.repeat.parameters.times.default:=50"},
	} {
		stdout, stderr, rc := strataIn(t, root, environ, args...)
		fmt.Fprintf(&out, "$ strata %s (exit %d)\n%s%s", strings.Join(args, " "), rc, catalogLines(t, stdout), stderr)
		code = max(code, rc)
	}
	golden(t, "first-default-hint", result{code: code, stdout: out.String()})
}
