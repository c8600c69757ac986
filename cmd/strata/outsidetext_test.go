package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// outsideTextConfig is a workspace where every place a file or a server
// can put text holds hostileText (HOSTILE): a tool's key and description,
// a server's key, tool names and descriptions (one that changes after
// strata lock), a tool's result, the
// errors of tools/list and tools/call, a server's stderr, resources'
// and prompts' descriptions and texts.
const outsideTextConfig = `[tools.'*']
run = "unattended"

[tools.HOSTILE_KEY]
source = "mcp.names.describe_me"
description = HOSTILE

[tools.described]
source = "mcp.names.describe_me"
description = HOSTILE

[tools.failing]
source = "mcp.calls.tool_000"

[mcp_servers.names]
command = "MCPFAKE"
args = ["-tool", "ROOT/evil_name.json", "-tool", "ROOT/evil_description.json", "-tool", "ROOT/drifting.json", "-outcome", OUTCOME, "-resources", "1", "-prompts", "1", "-offer-text", HOSTILE]

[mcp_servers.lists]
command = "MCPFAKE"
args = ["-tools", "1", "-list-error", HOSTILE]
optional = true

[mcp_servers.calls]
command = "MCPFAKE"
args = ["-tools", "1", "-call-error", HOSTILE]

[mcp_servers.crash]
command = "MCPFAKE"
args = ["-crash-after-init", "-stderr", HOSTILE]
optional = true

[mcp_servers.asks]
command = "MCPFAKE"
args = ["-ask", "elicitation/create", "-offer-text", HOSTILE]
optional = true

[mcp_servers.HOSTILE_KEY]
command = "MCPFAKE"
args = ["-tool", "ROOT/plain.json"]
optional = true
`

// outsideTextWorkspace writes the workspace of outsideTextConfig, and
// the user's Claude Code file, whose server keyed takes UPSTREAM_API_KEY
// in its arguments. It returns the root and the environment.
func outsideTextWorkspace(t *testing.T) (root string, environ []string) {
	t.Helper()
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	outcome, _ := json.Marshal(hostileText)
	cfg := strings.NewReplacer("HOSTILE_KEY", q("key "+hostileText), "HOSTILE", q(hostileText), "OUTCOME", q(string(outcome))).Replace(outsideTextConfig)
	root, environ = hostileWorkspace(t, cfg, map[string]string{
		"evil_name.json":        toolJSON("evil"+hostileText, "A tool with a hostile name."),
		"evil_description.json": toolJSON("describe_me", "Described. "+hostileText),
		"plain.json":            toolJSON("plain_tool", "Plain."),
		"drifting.json":         toolJSON("drifting", "Drifts."),
		"empty.toml":            "",
	})
	home := filepath.Dir(strings.TrimPrefix(environ[1], "HOME="))
	claude := filepath.Join(home, "home", ".claude.json")
	files := map[string]string{
		claude: `{"mcpServers": {"keyed": {"command": "` + mcpfake + `", "args": ["-tool", "` + filepath.Join(root, "plain.json") + `", "-flood-done", "--api-key=${UPSTREAM_API_KEY}", "-stderr", ` + q(hostileText) + `]}}}`,
		filepath.Join(home, "home", "strata", "config.toml"): `extends = [{ path = "` + claude + `", format = "claude-code" }]` + "\n",
	}
	writeUserFiles(t, files)
	return root, append(environ, "UPSTREAM_API_KEY="+upstreamKey)
}

// invocation is one run of strata in the hostile workspace.
type invocation struct {
	args  []string
	json  bool // stdout is JSON (or JSON lines, for serve)
	stdin string
	// quiet says that the run shows no outside text (schema, --version):
	// every other run must show the hostile text, escaped, somewhere.
	quiet bool
}

// everyCommand has, for every command of strata's grammar, the runs
// that show what it prints of files' and servers' text; ROOT stands for
// the workspace. TestOutsideTextEscaped fails when the grammar has a
// command that is not here.
var everyCommand = map[string][]invocation{
	"--version": {{args: []string{"--version"}, quiet: true}},
	"config": {
		{args: []string{"config", "--trust"}},
		{args: []string{"config", "--trust", "--json"}, json: true},
		{args: []string{"config", "--trust", "--explain", "tools.described.description"}},
		{args: []string{"config", "--trust", "--sources"}, quiet: true},
		{args: []string{"config", "--trust", "--check"}},
	},
	"resolve": {
		{args: []string{"resolve", "--trust"}, json: true},
		{args: []string{"resolve", "--trust", "--export", "openai"}, json: true},
		{args: []string{"resolve", "--trust", "--export", "anthropic"}, json: true},
		{args: []string{"resolve", "--trust", "--export", "mcp"}, json: true},
		{args: []string{"resolve", "--trust", "--stats"}},
		{args: []string{"resolve", "--trust", "--stats", "--json"}, json: true},
		{args: []string{"resolve", "--trust", "--explain", "described"}},
	},
	"call": {
		{args: []string{"call", "--trust", "--yes", "failing", "{}"}, json: true},
		{args: []string{"call", "--trust", "--yes", "jp", "{}"}, json: true},
		{args: []string{"call", "--trust", "--yes", "described", "{}"}, json: true},
		// The server asks a form (elicitation), whose message and field
		// carry the text: answered on stdin.
		{args: []string{"call", "--trust", "--yes", "--ask", "ask", "{}"}, json: true, stdin: "an answer\n\n"},
	},
	"serve": {
		{args: []string{"serve", "--trust"}, json: true, stdin: strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"fake://res/0"}}`,
			`{"jsonrpc":"2.0","id":6,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"prompt_0"}}`,
			`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"failing","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"jp","arguments":{}}}`,
		}, "\n") + "\n"},
		// serve --http: TestOutsideTextEscaped runs it apart, endpoint by
		// endpoint (see serveHTTPOutside).
	},
	"lock": {
		{args: []string{"lock", "--trust"}},
		{args: []string{"lock", "--trust", "--refresh", "--diff"}},
	},
	"doctor": {{args: []string{"doctor", "--trust"}}},
	// A server's name is the config's text: a refusal to sign in to one
	// that is started with a command names it.
	"login": {
		{args: []string{"login", "--trust", "key " + hostileText}},
		{args: []string{"login", "--trust", "--list"}, quiet: true},
	},
	"logout": {{args: []string{"logout", "--trust", "key " + hostileText}}},
	"trust": {
		{args: []string{"trust", "--root", "ROOT"}, quiet: true},
		{args: []string{"trust", "--pin", "mcp_servers.names"}, quiet: true},
		{args: []string{"trust", "--pin", `mcp_servers."key ` + strings.NewReplacer("\n", `\n`, "\r", `\r`, "\x1b", `\u001b`, "\x07", `\u0007`).Replace(hostileText) + `"`}},
		{args: []string{"trust", "--list"}},
	},
	"merge": {
		{args: []string{"merge", "ROOT/.strata/config.toml"}},
		{args: []string{"merge", "--json", "ROOT/.strata/config.toml"}, json: true},
		{args: []string{"merge", "--final", "ROOT/.strata/config.toml"}},
	},
	"diff": {
		{args: []string{"diff", "ROOT/empty.toml", "ROOT/.strata/config.toml"}},
		{args: []string{"diff", "--json", "ROOT/empty.toml", "ROOT/.strata/config.toml"}, json: true},
	},
	"schema": {{args: []string{"schema"}, json: true, quiet: true}},
}

// rawInOutput returns the first character in s that a terminal would act
// on rather than show, and whether there is one: a control character but
// newline and tab, DEL, a C1 control, a bidirectional formatting
// character, a line or paragraph separator, or a byte that is not UTF-8.
func rawInOutput(s string) (string, bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("the byte %#x", s[i]), true
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, 0x80 <= r && r <= 0x9f,
			r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029,
			0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
			return fmt.Sprintf("%U at %d", r, i), true
		}
		i += size
	}
	return "", false
}

// escapedHostile matches the hostile text as output shows it escaped:
// \x1b in terminal text, \u001b in JSON and TOML.
var escapedHostile = regexp.MustCompile(`\\(x1b|u001[bB])\[2J`)

// checkOutside fails when what a run printed holds a raw character a
// terminal acts on, the user's key, or, for a JSON output, is not JSON.
func checkOutside(t *testing.T, what, text string, asJSON bool) {
	t.Helper()
	if c, ok := rawInOutput(text); ok {
		t.Errorf("%s holds %s:\n%q", what, c, text)
	}
	if strings.Contains(text, upstreamKey) {
		t.Errorf("%s holds the secret:\n%s", what, text)
	}
	// On stderr, where strata's own lines are, the text's lines must
	// not pass for them.
	for _, line := range strings.Split(text, "\n") {
		if what != "stderr" {
			break
		}
		if strings.HasPrefix(line, "strata: ok") || strings.HasPrefix(line, "strata: all OK") {
			t.Errorf("%s has a line of the hostile text at its start, as strata's own:\n%s", what, text)
			break
		}
	}
	if !asJSON || text == "" {
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(text, "{\n") || strings.HasPrefix(text, "[\n") {
			line = text // indented: one value
		}
		if !json.Valid([]byte(line)) {
			t.Errorf("%s is not JSON:\n%s", what, line)
			return
		}
		if line == text {
			return
		}
	}
}

// commandsOfGrammar returns the commands strata --help lists, and
// --version.
func commandsOfGrammar(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command(strataBin, "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	commands := []string{"--version"}
	listing := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case line == "Commands:":
			listing = true
		case listing && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   "):
			commands = append(commands, strings.Fields(line)[0])
		}
	}
	if len(commands) < 5 {
		t.Fatalf("strata --help lists no commands:\n%s", out)
	}
	return commands
}

// TestOutsideTextEscaped is the rule "one writer for outside text": every
// command of strata's grammar and every endpoint of strata serve --http
// run in a workspace whose files and servers put hostile text (escape
// sequences, OSC window titles and clipboard writes, C1 controls, bidi
// overrides, a carriage return) in every place they can, and nothing a
// terminal acts on reaches stdout or stderr raw; JSON stays JSON; the
// user's key appears nowhere. A command added to the grammar fails the
// test until its runs are added to everyCommand.
func TestOutsideTextEscaped(t *testing.T) {
	t.Parallel()
	root, environ := outsideTextWorkspace(t)
	for _, name := range commandsOfGrammar(t) {
		if _, ok := everyCommand[name]; !ok {
			t.Errorf("strata %s is not run by TestOutsideTextEscaped: add its runs to everyCommand", name)
		}
	}
	order := []string{"--version", "schema", "config", "merge", "diff", "resolve", "call", "serve", "doctor", "login", "logout", "lock", "trust"}
	for name := range everyCommand {
		if !slices.Contains(order, name) {
			t.Fatalf("everyCommand has %s, which order does not run", name)
		}
	}
	for _, name := range order {
		for _, inv := range everyCommand[name] {
			args := make([]string, len(inv.args))
			for i, a := range inv.args {
				args[i] = strings.ReplaceAll(a, "ROOT", root)
			}
			what := "strata " + strings.Join(inv.args, " ")
			if slices.Equal(inv.args, []string{"lock", "--trust", "--refresh", "--diff"}) {
				// A tool's description changes after the lock.
				writeFile(t, filepath.Join(root, "drifting.json"), toolJSON("drifting", "Drifts. "+hostileText))
			}
			t.Run(what, func(t *testing.T) {
				cmd := exec.Command(strataBin, args...)
				cmd.Dir, cmd.Env = root, environ
				cmd.Stdin = strings.NewReader(inv.stdin)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					if _, ok := err.(*exec.ExitError); !ok {
						t.Fatal(err)
					}
				}
				if cmd.ProcessState.ExitCode() == 2 {
					t.Fatalf("a usage error:\n%s", stderr.String())
				}
				checkOutside(t, "stdout", stdout.String(), inv.json)
				checkOutside(t, "stderr", stderr.String(), false)
				if !inv.quiet && !escapedHostile.MatchString(stdout.String()+stderr.String()) {
					t.Errorf("the run shows nothing of the hostile text, so it checks nothing:\n-- stdout --\n%s\n-- stderr --\n%s", stdout.String(), stderr.String())
				}
			})
		}
	}
	t.Run("strata serve --http", func(t *testing.T) { serveHTTPOutside(t, root, environ) })
}

// serveHTTPOutside runs strata serve --http in the hostile workspace and
// checks every endpoint: /mcp (the results and the notifications of the
// requests of everyCommand's stdio run), /health, /metrics, the call log
// and serve's stderr.
func serveHTTPOutside(t *testing.T, root string, environ []string) {
	callLog := filepath.Join(t.TempDir(), "calls.log")
	url, _, stop := serveHTTPStop(t, strataBin, root, environ, "--no-token", "--call-log", callLog)
	sid := httpSession(t, url, "client")
	var all strings.Builder
	stdin := everyCommand["serve"][0].stdin
	lines := bufio.NewScanner(strings.NewReader(stdin))
	for lines.Scan() {
		msg := lines.Text()
		if strings.Contains(msg, `"initialize"`) || strings.Contains(msg, "notifications/") {
			continue // httpSession did
		}
		resp := httpPost(t, url, sid, msg)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		checkOutside(t, "/mcp's answer to "+msg, string(b), false)
		for _, l := range strings.Split(string(b), "\n") {
			// An event with no data is a priming event (SEP-1699: its id
			// lets the client resume the stream), which a client skips.
			if data, ok := strings.CutPrefix(l, "data: "); ok && data != "" && !json.Valid([]byte(data)) {
				t.Errorf("/mcp's answer to %s is not JSON: %s", msg, data)
			}
		}
		all.Write(b)
	}
	if !escapedHostile.MatchString(all.String()) {
		t.Errorf("/mcp shows nothing of the hostile text:\n%s", all.String())
	}
	base := strings.TrimSuffix(url, "/mcp")
	for _, path := range []string{"/health", "/metrics"} {
		b := httpGet(t, base+path)
		checkOutside(t, path, string(b), path == "/health")
		if !escapedHostile.MatchString(string(b)) && !strings.Contains(string(b), `\u001b`) {
			t.Errorf("%s shows nothing of the hostile text:\n%s", path, b)
		}
	}
	b, err := os.ReadFile(callLog)
	if err != nil {
		t.Fatal(err)
	}
	checkOutside(t, "the call log", string(b), true)
	stderr := stop()
	checkOutside(t, "serve --http's stderr", stderr, false)
	if !escapedHostile.MatchString(stderr) {
		t.Errorf("serve --http's stderr shows nothing of the hostile text:\n%s", stderr)
	}
}
