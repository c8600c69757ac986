package call_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// weatherTool is a --describe tool that prints the JSON argument it is
// called with.
const weatherTool = `#!/bin/sh
if [ "$1" = --describe ]; then
  echo '{"name": "get_weather", "description": "Get the weather of a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"], "additionalProperties": false}}'
  exit 0
fi
printf '%s' "$1"
`

// Call fills in the defaults the config gives, validates the arguments
// against the tool's schema and runs the tool. Arguments the tool cannot
// take are refused before anything runs, with an *Refusal that lists every
// problem at its JSONPath; so is a tool that is not in the catalog.
func ExampleRunner_Call() {
	root, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, ".strata", "tools"), 0o755)
	_ = os.WriteFile(filepath.Join(root, ".strata", "tools", "weather"), []byte(weatherTool), 0o755)
	_ = os.WriteFile(filepath.Join(root, ".strata", "config.toml"), []byte(`
[discover]
dirs = ["tools"]

[tools.get_weather]
run = "unattended"
parameters.unit = { default = "celsius" }
`), 0o644)

	ws, err := strata.Open[config.Partial](context.Background(), config.Default(),
		strata.Dir(root), strata.TrustWorkspace(), strata.Environ([]string{"PATH=" + os.Getenv("PATH")}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	runner, err := ws.Runner(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}

	res, err := runner.Call(context.Background(), "get_weather", json.RawMessage(`{"city": "Oslo"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Type, res.Content)

	_, err = runner.Call(context.Background(), "get_weather", json.RawMessage(`{"unit": "kelvin", "days": 3}`))
	var ce *call.Refusal
	if errors.As(err, &ce) {
		fmt.Println(ce.Msg)
		for _, p := range ce.Problems {
			fmt.Println(" ", p.Path, p.Msg)
		}
	}

	_, err = runner.Call(context.Background(), "get_wether", nil)
	fmt.Println(err)
	// Output:
	// success {"city":"Oslo","unit":"celsius"}
	// invalid arguments
	//   $ additional properties 'days' not allowed
	//   $ missing property 'city'
	//   $.unit value must be one of 'celsius', 'fahrenheit'
	// call get_wether: no such tool in the catalog; did you mean get_weather?
}

// editTool is a host's builtin tool that asks before it changes anything:
// it answers needs_input until the call carries an answer to
// apply_changes.
func editTool(_ context.Context, pc protocol.Context) (protocol.Outcome, error) {
	answer, ok := pc.Tool.Answers["apply_changes"]
	switch {
	case !ok:
		return protocol.Outcome{Type: protocol.NeedsInput, Question: &protocol.Inquiry{
			ID: "apply_changes", Text: fmt.Sprintf("Apply the changes to %s?", pc.Tool.Arguments["path"]), AnswerType: "boolean",
		}}, nil
	case answer == true:
		return protocol.Outcome{Type: protocol.Success, Content: fmt.Sprintf("changed %s", pc.Tool.Arguments["path"])}, nil
	}
	return protocol.Outcome{Type: protocol.Success, Content: "left unchanged"}, nil
}

// editRunner builds the catalog of the config text, whose builtin tool edit
// is editTool, and returns a Runner of it. Nothing runs to build it: the
// host describes its builtins itself.
func editRunner(text string) (*call.Runner, error) {
	edit := resolve.Discovered{Name: "edit", Description: "Edit a file.",
		InputSchema: resolve.MustSchema(`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}`)}
	var p config.Partial
	if err := codec.Decode("config.toml", []byte(text), partial.TOML, &p); err != nil {
		return nil, err
	}
	cfg, err := config.Finalize(&p)
	if err != nil {
		return nil, err
	}
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"edit": edit}})
	if err != nil {
		return nil, err
	}
	return &call.Runner{Catalog: cat, Builtin: editTool,
		// The tool's run mode is "ask" (the default): the host's user says yes.
		Confirm: func(context.Context, string, json.RawMessage) (bool, error) { return true, nil }}, nil
}

// A question whose answer the config fixes is answered without asking
// anyone: the tool runs again with the answer.
func ExampleRunner_Call_configuredAnswer() {
	runner, err := editRunner(`
[tools.edit]
source = "builtin"
questions.apply_changes = { answer = true }
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := runner.Call(context.Background(), "edit", json.RawMessage(`{"path": "notes.txt"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Type, res.Content, res.Answers, res.Runs)
	// Output:
	// success changed notes.txt map[apply_changes:true] 2
}

// Any other question goes to the host's Ask, with who should answer it: a
// terminal asks its user; a question for the assistant is left to the
// caller (ok false), and the call ends with it.
func ExampleRunner_Call_ask() {
	runner, err := editRunner(`
[tools.edit]
source = "builtin"
questions.apply_changes = { target = "user" }
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	runner.Ask = func(_ context.Context, tool string, q protocol.Inquiry, target config.Target) (any, bool, error) {
		fmt.Printf("%s asks the %s: %s\n", tool, target, q.Text)
		if target != config.TargetUser {
			return nil, false, nil
		}
		return false, true, nil // the user says no
	}
	res, err := runner.Call(context.Background(), "edit", json.RawMessage(`{"path": "notes.txt"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Type, res.Content, res.Runs)
	// Output:
	// edit asks the user: Apply the changes to notes.txt?
	// success left unchanged 2
}

// Without Ask, a question ends the call with the needs_input outcome; the
// caller (a model, an MCP client) answers it and calls again, with the
// answer.
func ExampleAnswers() {
	runner, err := editRunner(`
[tools.edit]
source = "builtin"
questions.apply_changes = { target = "assistant" }
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	args := json.RawMessage(`{"path": "notes.txt"}`)
	res, err := runner.Call(context.Background(), "edit", args)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Type, res.Question.ID, res.Question.AnswerType)

	res, err = runner.Call(context.Background(), "edit", args, call.Answers(map[string]any{"apply_changes": true}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Type, res.Content)
	// Output:
	// needs_input apply_changes boolean
	// success changed notes.txt
}

// Decide says what a call would meet, and runs nothing: here the rule of
// the tool's run policy that decides each call, with its place and
// reason. A host shows it, or branches on its outcome.
func ExampleRunner_Decide() {
	p := config.Partial{}
	if err := codec.Decode("config.toml", []byte(`
[tools.write]
source = "builtin"
parameters.path.type = "path"
run = [
  { arg = "/path", prefix = ".env", mode = "skip", reason = "secrets stay out" },
  { arg = "/path", prefix = "src/", mode = "unattended" },
  { mode = "ask" },
]
`), partial.TOML, &p); err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := config.Finalize(&p)
	if err != nil {
		fmt.Println(err)
		return
	}
	write := resolve.Discovered{Name: "write", InputSchema: resolve.MustSchema(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"write": write}})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &call.Runner{Catalog: cat}
	for _, path := range []string{"src/main.go", "./src/../.env", "README.md"} {
		d, err := r.Decide(context.Background(), "write", json.RawMessage(`{"path": "`+path+`"}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s (%s)\n", path, d.Outcome, d.Message)
	}
	// Output:
	// src/main.go: run (write runs without asking: the rule tools.write.run.1 (config.toml:7:3) says unattended)
	// ./src/../.env: skip (write is not run: the rule tools.write.run.0 (config.toml:6:3) says skip (secrets stay out))
	// README.md: ask (write runs once the user says yes: the rule tools.write.run.2 (config.toml:8:3) says ask)
}
