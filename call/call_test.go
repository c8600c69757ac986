package call_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/internal/testbin"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

var jptools, mcpfake string // the built fixture binaries

func TestMain(m *testing.M) {
	testbin.Main(m, map[string]*string{testbin.JPTools: &jptools, testbin.MCPFake: &mcpfake})
}

var environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "GREETING=hello from the environment", "SECRET=not for tools"}

// workspace writes files (path: content; a content starting with #! is an
// executable) into a new workspace and returns its root.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// runner resolves the config src (JPTOOLS and MCPFAKE stand for the fixture
// programs) in root and returns a Runner of its catalog.
func runner(t *testing.T, root, src string) *call.Runner {
	t.Helper()
	src = strings.NewReplacer("JPTOOLS", jptools, "MCPFAKE", mcpfake).Replace(src)
	p := layertest.MustDecode(t, "test.toml", src, partial.TOML)
	c, err := config.Finalize(&p)
	if err != nil {
		t.Fatal(err)
	}
	servers := &upstream.Servers{}
	t.Cleanup(func() { servers.Close() })
	r := &discover.Resolver{Root: root, Environ: environ, Servers: servers}
	found, err := r.Discover(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := resolve.Build(c, found)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Warnings) > 0 {
		t.Fatalf("warnings: %v", cat.Warnings)
	}
	spec := func(name string) (upstream.Server, bool) {
		srv, ok := c.MCPServers[name]
		return r.Server(name, srv, root, root), ok
	}
	return &call.Runner{Catalog: cat, Environ: environ, MCP: upstream.Caller{Servers: servers, Server: spec}, Timeout: 5 * time.Second, Confirm: yes}
}

// yes confirms every call.
func yes(context.Context, string, json.RawMessage) (bool, error) { return true, nil }

func TestConfirmRequired(t *testing.T) {
	root := workspace(t, map[string]string{"tools/echo": echoTool})
	r := runner(t, root, "[discover]\ndirs = [\"tools\"]\n[tools.unattended_echo]\nsource = \"local\"\ncommand = \"echo hi\"\nrun = \"unattended\"\nparameters.x = { type = \"string\" }\n")
	r.Confirm = nil
	_, err := r.Call(context.Background(), "echo", json.RawMessage(`{"path":"p"}`))
	ce := callErr(t, err)
	if want := `its run mode is "ask", and the host has no way to ask`; ce.Msg != want {
		t.Errorf("Msg = %q, want %q", ce.Msg, want)
	}
	// A host names the option it has: strata.Confirm on a Workspace.
	if want := `set run = "unattended" for the tool, or give the host a way to ask: the option strata.Confirm (call.Runner.Confirm); a host with nobody to ask chooses strata.Unattended`; ce.Hint != want {
		t.Errorf("Hint = %q, want %q", ce.Hint, want)
	}
	if res, err := r.Call(context.Background(), "unattended_echo", nil); err != nil || res.Content != "hi\n" {
		t.Errorf("an unattended tool: %+v, %v", res, err)
	}
}

// describe is a --describe tool: it describes itself with params and runs
// body.
func describe(name, params, body string) string {
	return "#!/bin/sh\nif [ \"$1\" = --describe ]; then echo '{\"name\":\"" + name + "\",\"description\":\"" + name + ".\",\"parameters\":" + params + "}'; exit 0; fi\n" + body + "\n"
}

// echoTool prints its JSON argument.
var echoTool = describe("echo", `{"type":"object","properties":{"path":{"type":"string","minLength":1},"count":{"type":"integer","minimum":0,"default":3},"opts":{"type":"object","properties":{"deep":{"type":"boolean","default":false},"mode":{"enum":["a","b"]}}},"tags":{"type":"array","items":{"type":"string"}}},"required":["path"],"additionalProperties":false}`, `printf '%s' "$1"`)

func callErr(t *testing.T, err error) *call.Refusal {
	t.Helper()
	var ce *call.Refusal
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want a *call.Refusal", err, err)
	}
	return ce
}

func TestDefaultDeny(t *testing.T) {
	root := workspace(t, map[string]string{"tools/echo": echoTool})
	r := runner(t, root, "[discover]\ndirs = [\"tools\"]\n[tools.off]\ncommand = \"touch ran\"\nenable = false\nparameters.x = { type = \"string\" }\n")
	for _, name := range []string{"ecoh", "off", "../tools/echo", ""} {
		t.Run(name, func(t *testing.T) {
			_, err := r.Call(context.Background(), name, nil)
			ce := callErr(t, err)
			if ce.Msg != "no such tool in the catalog" {
				t.Errorf("Msg = %q", ce.Msg)
			}
			if name == "ecoh" && ce.Hint != "did you mean echo?" {
				t.Errorf("Hint = %q", ce.Hint)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("a disabled tool ran")
	}
}

func TestArguments(t *testing.T) {
	root := workspace(t, map[string]string{"tools/echo": echoTool})
	r := runner(t, root, "[discover]\ndirs = [\"tools\"]\n")
	tests := []struct {
		name     string
		args     string
		want     string   // the arguments the tool got
		problems []string // or the problems
		msg      string   // or the message
	}{
		{name: "defaults filled", args: `{"path":"a"}`, want: `{"path":"a","count":3}`},
		{name: "nested defaults", args: `{"path":"a","opts":{}}`, want: `{"path":"a","opts":{"deep":false},"count":3}`},
		{name: "numbers keep their text", args: `{"count":1e2,"path":"x"}`, want: `{"count":1e2,"path":"x"}`},
		{name: "no arguments", args: ``, problems: []string{"$: missing property 'path'"}},
		{name: "every problem at its path", args: `{"path":"","count":-1,"opts":{"mode":"c","deep":"yes"},"tags":["x",2],"extra odd":1}`, problems: []string{
			"$: additional properties 'extra odd' not allowed",
			"$.count: minimum: got -1, want 0",
			"$.opts.deep: got string, want boolean",
			"$.opts.mode: value must be one of 'a', 'b'",
			"$.path: minLength: got 0, want 1",
			"$.tags[1]: got number, want string",
		}},
		{name: "not JSON", args: `{"path":`, msg: "the arguments are not JSON: "},
		{name: "not an object", args: `["a"]`, msg: "the arguments must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Call(context.Background(), "echo", json.RawMessage(tt.args))
			if tt.want != "" {
				if err != nil {
					t.Fatal(err)
				}
				if res.Type != protocol.Success || res.Content != tt.want || string(res.Arguments) != tt.want {
					t.Errorf("got %+v with arguments %s, want the tool to get %s", res.Outcome, res.Arguments, tt.want)
				}
				return
			}
			ce := callErr(t, err)
			if tt.msg != "" {
				if !strings.HasPrefix(ce.Msg, tt.msg) {
					t.Errorf("Msg = %q, want it to start with %q", ce.Msg, tt.msg)
				}
				return
			}
			var got []string
			for _, p := range ce.Problems {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.problems, got); diff != "" || ce.Msg != "invalid arguments" {
				t.Errorf("%s; problems (-want +got):\n%s", ce.Msg, diff)
			}
		})
	}
}

func TestLocalProtocols(t *testing.T) {
	root := workspace(t, map[string]string{
		"tools/echo":     echoTool,
		"tools/env":      describe("env", `{"type":"object"}`, `printf '%s|%s|%s' "$GREETING" "$SECRET" "$SET"`),
		"tools/fail":     describe("fail", `{"type":"object"}`, "echo partial output\necho 'fail: no network' >&2\nexit 1"),
		"tools/hang":     describe("hang", `{"type":"object"}`, "sleep 30"),
		"tools/flood":    describe("flood", `{"type":"object"}`, "yes flood"),
		"data/notes.txt": "one\ntwo\nthree\n",
		"jp-garbage":     "#!/bin/sh\necho not an outcome\n",
	})
	r := runner(t, root, `
[discover]
dirs = ["tools"]

[tools.env]
env_vars = ["GREETING"]
env.SET = "set by the config"

[tools.count_lines]
source = "local"
command = "JPTOOLS {{tool}} {{context}}"

[tools.lines]
source = "local.count_lines"
command = "JPTOOLS {{tool}} {{context}}"

[tools.plain]
command = "./jp-garbage {{tool.arguments.x}}"
parameters.x = { type = "string" }

[tools.missing]
command = "/nonexistent/program"
parameters.x = { type = "string" }
`)
	r.MaxOutput = 1 << 20
	tests := []struct {
		tool, args string
		// timeout is the Runner's: the hang case's short one is what it
		// tests; the others get the default, so that no run under load
		// (the flood's megabyte, say) meets a timeout it does not test.
		timeout time.Duration
		want    protocol.Outcome
	}{
		{tool: "echo", args: `{"path":"p"}`, want: protocol.Outcome{Type: protocol.Success, Content: `{"path":"p","count":3}`}},
		// The base set, what env_vars names and what env sets: nothing else
		// of the host's.
		{tool: "env", want: protocol.Outcome{Type: protocol.Success, Content: "hello from the environment||set by the config"}},
		{tool: "count_lines", args: `{"path":"data/notes.txt"}`, want: protocol.Outcome{Type: protocol.Success, Content: "3"}},
		{tool: "lines", args: `{"path":"data/notes.txt"}`, want: protocol.Outcome{Type: protocol.Success, Content: "3"}},
		{tool: "count_lines", args: `{"path":"../etc/passwd"}`, want: protocol.Outcome{Type: protocol.Failure, Message: `path "../etc/passwd" is outside the workspace root; use a relative path without ..`}},
		{tool: "plain", args: `{"x":"y"}`, want: protocol.Outcome{Type: protocol.Success, Content: "not an outcome\n"}},
		{tool: "fail", want: protocol.Outcome{Type: protocol.Failure, Message: "fail: exit status 1: fail: no network", Trace: []string{"fail: no network"}}},
		{tool: "hang", timeout: 500 * time.Millisecond, want: protocol.Outcome{Type: protocol.Failure, Transient: true, Message: "hang: no answer within 500ms; it was stopped"}},
		{tool: "flood", want: protocol.Outcome{Type: protocol.Failure, Message: "flood: wrote more than 1 MiB to stdout"}},
		{tool: "missing", args: `{"x":"y"}`, want: protocol.Outcome{Type: protocol.Failure, Message: "missing: cannot run /nonexistent/program: not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			r.Timeout = tt.timeout
			res, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Outcome); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// modify is the config of fs_modify_file with the given extra lines.
func modify(extra string) string {
	return "[tools.fs_modify_file]\nsource = \"local\"\ncommand = \"JPTOOLS {{tool}} {{context}}\"\n" + extra + "\n"
}

const modifyArgs = `{"path":"notes.txt","start_line":2,"end_line":2,"content":"TWO"}`

func TestQuestions(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		ask     func(ctx context.Context, tool string, q protocol.Inquiry, target config.Target) (any, bool, error)
		want    protocol.OutcomeType
		runs    int
		answers map[string]any
		file    string // notes.txt afterwards
	}{
		{name: "a configured answer is given without asking", config: "questions.apply_changes = { target = \"user\", answer = true }",
			ask: func(context.Context, string, protocol.Inquiry, config.Target) (any, bool, error) {
				return nil, false, errors.New("asked")
			},
			want: protocol.Success, runs: 2, answers: map[string]any{"apply_changes": true}, file: "one\nTWO\nthree\n"},
		{name: "a configured no", config: "questions.apply_changes.answer = false",
			want: protocol.Failure, runs: 2, answers: map[string]any{"apply_changes": false}, file: "one\ntwo\nthree\n"},
		{name: "the user is asked", config: "questions.apply_changes.target = \"user\"",
			ask: func(_ context.Context, tool string, q protocol.Inquiry, target config.Target) (any, bool, error) {
				if tool != "fs_modify_file" || q.ID != "apply_changes" || q.AnswerType != "boolean" || target != config.TargetUser {
					return nil, false, fmt.Errorf("asked %s %+v for %s", tool, q, target)
				}
				return true, true, nil
			},
			want: protocol.Success, runs: 2, answers: map[string]any{"apply_changes": true}, file: "one\nTWO\nthree\n"},
		{name: "without Ask the host gets the question", config: "",
			want: protocol.NeedsInput, runs: 1, answers: map[string]any{}, file: "one\ntwo\nthree\n"},
		{name: "a question for the assistant goes back", config: "questions.apply_changes.target = \"assistant\"",
			ask: func(_ context.Context, _ string, _ protocol.Inquiry, target config.Target) (any, bool, error) {
				if target != config.TargetAssistant {
					return nil, false, fmt.Errorf("target %s", target)
				}
				return nil, false, nil
			},
			want: protocol.NeedsInput, runs: 1, answers: map[string]any{}, file: "one\ntwo\nthree\n"},
		{name: "options reach the tool", config: "options.auto_approve_max_changed_lines = 1",
			want: protocol.Success, runs: 1, answers: map[string]any{}, file: "one\nTWO\nthree\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := workspace(t, map[string]string{"notes.txt": "one\ntwo\nthree\n"})
			r := runner(t, root, modify(tt.config))
			r.Ask = tt.ask
			res, err := r.Call(context.Background(), "fs_modify_file", json.RawMessage(modifyArgs))
			if err != nil {
				t.Fatal(err)
			}
			if res.Type != tt.want || res.Runs != tt.runs {
				t.Errorf("%+v after %d runs; want %s after %d", res.Outcome, res.Runs, tt.want, tt.runs)
			}
			if diff := cmp.Diff(tt.answers, res.Answers); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != tt.file {
				t.Errorf("notes.txt = %q, want %q", b, tt.file)
			}
			if tt.want == protocol.NeedsInput && (res.Question == nil || res.Question.ID != "apply_changes") {
				t.Errorf("question %+v", res.Question)
			}
		})
	}
	t.Run("an answer that does not satisfy", func(t *testing.T) {
		root := workspace(t, nil)
		ask := `{"type":"needs_input","question":{"id":"again","text":"Again?"}}`
		r := runner(t, root, "[mcp_servers.fake]\ncommand = \"MCPFAKE\"\nargs = [\"-outcome\", '"+ask+"']\n[tools.jp]\nsource = \"mcp.fake\"\nquestions.again.answer = \"yes\"\n")
		r.MaxRounds = 3
		_, err := r.Call(context.Background(), "jp", nil)
		ce := callErr(t, err)
		if want := "the tool kept asking: 3 runs, the question again asked 3 times; the answers given do not satisfy it"; ce.Msg != want {
			t.Errorf("Msg = %q, want %q", ce.Msg, want)
		}
	})
	t.Run("answers of an earlier call", func(t *testing.T) {
		root := workspace(t, map[string]string{"notes.txt": "one\ntwo\nthree\n"})
		r := runner(t, root, modify(""))
		res, err := r.Call(context.Background(), "fs_modify_file", json.RawMessage(modifyArgs), call.Answers(map[string]any{"apply_changes": true}))
		if err != nil || res.Type != protocol.Success || res.Runs != 1 {
			t.Fatalf("%+v, %v", res, err)
		}
	})
	t.Run("a failing Ask", func(t *testing.T) {
		root := workspace(t, map[string]string{"notes.txt": "one\ntwo\nthree\n"})
		r := runner(t, root, modify(""))
		r.Ask = func(context.Context, string, protocol.Inquiry, config.Target) (any, bool, error) {
			return nil, false, errors.New("no terminal")
		}
		if _, err := r.Call(context.Background(), "fs_modify_file", json.RawMessage(modifyArgs)); err == nil || err.Error() != "no terminal" {
			t.Errorf("err = %v", err)
		}
	})
}

func TestMCPCalls(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "starts")
	r := runner(t, dir, `
[mcp_servers.fake]
command = "MCPFAKE"
args = ["-echo", "-error", "-log", "`+log+`"]
expose = ["echo", "fail"]

[mcp_servers.jp]
command = "MCPFAKE"
args = ["-outcome", '{"type":"error","message":"quota exceeded","transient":true,"trace":["at fetch"]}']

[tools.with_options]
source = "mcp.fake.echo"
options.depth = 2

[tools.quota]
source = "mcp.jp.jp"
`)
	tests := []struct {
		tool, args string
		want       protocol.Outcome
		mcp        bool
	}{
		{tool: "echo", args: `{"n":1.50}`, want: protocol.Outcome{Type: protocol.Success, Content: `{"arguments":{"n":1.50},"_meta":null}`}, mcp: true},
		{tool: "with_options", args: `{}`, want: protocol.Outcome{Type: protocol.Success, Content: `{"arguments":{},"_meta":{"computer.jp/context":{"action":"run","root":"` + dir + `"},"computer.jp/tool":{"answers":{},"arguments":{},"name":"echo","options":{"depth":2}}}}`}, mcp: true},
		{tool: "fail", want: protocol.Outcome{Type: protocol.Failure, Message: "fail: the tool failed on purpose"}, mcp: true},
		{tool: "quota", want: protocol.Outcome{Type: protocol.Failure, Message: "quota exceeded", Transient: true, Trace: []string{"at fetch"}}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Outcome); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if (res.MCP != nil) != tt.mcp {
				t.Errorf("MCP result kept: %v, want %v", res.MCP != nil, tt.mcp)
			}
		})
	}
	if b, _ := os.ReadFile(log); strings.Count(string(b), "start ") != 1 {
		t.Errorf("the server started %d times for resolving and three calls, want once", strings.Count(string(b), "start "))
	}
}

func TestRunModes(t *testing.T) {
	root := workspace(t, map[string]string{"tools/echo": echoTool})
	r := runner(t, root, "[discover]\ndirs = [\"tools\"]\n[tools.echo]\nrun = \"ask\"\n[tools.skipped]\ncommand = \"touch ran\"\nrun = \"skip\"\nparameters.x = { type = \"string\" }\n")
	res, err := r.Call(context.Background(), "skipped", nil)
	if err != nil || res.Type != protocol.Failure || res.Message != `skipped was not run: the config says skip (tools.skipped.run.0)` {
		t.Errorf("skip: %+v, %v", res, err)
	}
	var confirmed json.RawMessage
	r.Confirm = func(_ context.Context, tool string, args json.RawMessage) (bool, error) {
		confirmed = args
		return false, nil
	}
	// A declined call is a typed error, not a response that failed.
	res, err = r.Call(context.Background(), "echo", json.RawMessage(`{"path":"p"}`))
	var refusal *call.Refusal
	if res != nil || !errors.Is(err, call.ErrDeclined) || !errors.As(err, &refusal) || !refusal.Declined || refusal.Decision == nil ||
		err.Error() != "call echo: the user declined to run it" || string(confirmed) != `{"path":"p","count":3}` {
		t.Errorf("declined: %+v, %v, confirmed %s", res, err, confirmed)
	}
	r.Confirm = func(context.Context, string, json.RawMessage) (bool, error) { return true, nil }
	if res, err = r.Call(context.Background(), "echo", json.RawMessage(`{"path":"p"}`)); err != nil || res.Type != protocol.Success {
		t.Errorf("confirmed: %+v, %v", res, err)
	}
	// A call's own confirm is asked instead of the runner's.
	no := call.Confirm(func(context.Context, string, json.RawMessage) (bool, error) { return false, nil })
	if res, err = r.Call(context.Background(), "echo", json.RawMessage(`{"path":"p"}`), no); res != nil || !errors.Is(err, call.ErrDeclined) {
		t.Errorf("declined by the call's confirm: %+v, %v", res, err)
	}
	r.Confirm = nil
	if res, err = r.Call(context.Background(), "echo", json.RawMessage(`{"path":"p"}`), call.Confirm(yes)); err != nil || res.Type != protocol.Success {
		t.Errorf("confirmed by the call's confirm, the runner having none: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("a skipped tool ran")
	}
}

func TestBuiltin(t *testing.T) {
	p := layertest.MustDecode(t, "test.toml", "[tools.now]\nsource = \"builtin\"\noptions.zone = \"UTC\"\n", partial.TOML)
	c, err := config.Finalize(&p)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := resolve.Build(c, resolve.Found{Builtins: map[string]resolve.Discovered{
		"now": {Name: "now", Description: "The time.", InputSchema: resolve.MustSchema(`{"type":"object"}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := &call.Runner{Catalog: cat, Environ: environ, Confirm: yes}
	res, err := r.Call(context.Background(), "now", nil)
	if err != nil || res.Type != protocol.Failure || res.Message != "now is a builtin tool, which the host runs; this host has none" {
		t.Errorf("without a builtin: %+v, %v", res, err)
	}
	r.Builtin = func(_ context.Context, pc protocol.Context) (protocol.Outcome, error) {
		return protocol.Outcome{Type: protocol.Success, Content: pc.Tool.Name + " in " + pc.Tool.Options["zone"].(string)}, nil
	}
	if res, err = r.Call(context.Background(), "now", nil); err != nil || res.Content != "now in UTC" {
		t.Errorf("with a builtin: %+v, %v", res, err)
	}
}

// TestDashValues: a model's value that a JP command renders as an
// argument of its own and that starts with "-" is refused as a call
// error naming the tool and the parameter (or the answer); JSON blobs
// ({{tool}}, {{context}}, a --describe tool's one argument) start with
// "{" whatever the values hold, and run.
func TestDashValues(t *testing.T) {
	root := workspace(t, map[string]string{
		"tools/echo":     echoTool,
		"data/notes.txt": "one\n",
		"args":           "#!/bin/sh\nprintf '%s|' \"$@\"\n",
	})
	r := runner(t, root, `
[discover]
dirs = ["tools"]

[tools.count_lines]
source = "local"
command = "JPTOOLS {{tool}} {{context}}"

[tools.args]
command = "./args {{tool.arguments.x}} -- {{tool.arguments.y}}"
parameters.x = { type = "string" }
parameters.y = { type = "string" }
parameters.opts = { type = "object", properties.f = { type = "string" } }

[tools.nested]
command = "./args {{tool.arguments.opts.f}}"
parameters.opts = { type = "object", properties.f = { type = "string", allow_dash = true }, properties.g = { type = "string" } }

[tools.odd]
command = "./args {{tool.arguments.odd-name}}"
parameters.odd-name = { type = "string" }
`)
	for _, tt := range []struct {
		tool, args string
		want       protocol.Outcome
	}{
		{"echo", `{"path":"-rf"}`, protocol.Outcome{Type: protocol.Success, Content: `{"path":"-rf","count":3}`}},
		{"count_lines", `{"path":"--help"}`, protocol.Outcome{Type: protocol.Failure, Message: "count_lines: openat --help: no such file or directory"}},
		{"args", `{"x":"a","y":"-b"}`, protocol.Outcome{Type: protocol.Success, Content: "a|--|-b|"}},
		{"nested", `{"opts":{"f":"-f"}}`, protocol.Outcome{Type: protocol.Success, Content: "-f|"}},
	} {
		res, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
		if err != nil {
			t.Errorf("%s %s: %v", tt.tool, tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, res.Outcome); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.tool, tt.args, diff)
		}
	}
	for _, tt := range []struct{ tool, args, want string }{
		{"args", `{"x":"-b","y":"c"}`, `call args: refused: $.x: "-b" starts with "-" and would be an argument of its own, which the program reads as an option; to pass such values, the tool's command writes -- before it, or [tools.args.parameters.x] sets allow_dash = true`},
		{"odd", `{"odd-name":"--x"}`, `call odd: refused: $["odd-name"]: "--x" starts with "-" and would be an argument of its own, which the program reads as an option; to pass such values, the tool's command writes -- before it, or [tools.odd.parameters.odd-name] sets allow_dash = true`},
	} {
		_, err := r.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
		var ce *call.Refusal
		if !errors.As(err, &ce) || err.Error() != tt.want {
			t.Errorf("%s %s:\n got %v\nwant %s", tt.tool, tt.args, err, tt.want)
		}
	}
	// A value longer than a message quotes is cut.
	long := `{"x":"-` + strings.Repeat("a", 500) + `"}`
	if _, err := r.Call(context.Background(), "args", json.RawMessage(long)); err == nil || strings.Count(err.Error(), "a") > 150 {
		t.Errorf("a long value: %v", err)
	}

	// A --describe tool gets one JSON object, never anything else.
	if _, err := call.Argv(resolve.Exec{Kind: resolve.ExecDescribe, Path: "/t"}, protocol.Context{}, json.RawMessage(`-1`)); err == nil {
		t.Error("a --describe tool was given arguments that are not an object")
	}
}
