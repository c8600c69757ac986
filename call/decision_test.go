package call_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// policyTool is a local tool (it touches ran when it runs) whose run
// policy skips .env, runs src/ unattended and asks for the rest; n is
// bounded.
const policyTool = `[tools.modify]
command = "touch ran"
parameters.path = { type = "path", required = true }
parameters.n = { type = "integer", maximum = 10 }
run = [
  { arg = "/path", prefix = ".env", mode = "skip", reason = "secrets stay out of reach" },
  { arg = "/path", prefix = "src/", mode = "unattended" },
  { mode = "ask" },
]
`

func TestDecide(t *testing.T) {
	root := workspace(t, nil)
	r := runner(t, root, policyTool)
	tests := []struct {
		name string
		tool string
		args string
		want *call.Decision
	}{
		{"a rule runs it", "modify", `{"path": "./src/a.txt"}`, &call.Decision{
			Tool: "modify", Source: "local", Outcome: call.VerdictRun, Run: config.RunUnattended, Result: config.ResultUnattended,
			Message: "modify runs without asking: the rule tools.modify.run.1 (test.toml:7:3) says unattended",
			Reasons: []call.Reason{
				{Kind: "run-rule", Key: "tools.modify.run.1", At: "test.toml:7:3", Rule: `{ arg = "/path", prefix = "src/", mode = "unattended" }`, Mode: "unattended"},
				{Kind: "result-rule", Key: "tools.'*'.result.0", Rule: "unattended", Mode: "unattended"},
			},
		}},
		{"a rule skips it, with its reason", "modify", `{"path": "src/../.env"}`, &call.Decision{
			Tool: "modify", Source: "local", Outcome: call.VerdictSkip, Code: diag.CodeSkipped, Run: config.RunSkip, Result: config.ResultUnattended,
			Message: "modify is not run: the rule tools.modify.run.0 (test.toml:6:3) says skip (secrets stay out of reach)",
			Reasons: []call.Reason{
				{Kind: "run-rule", Key: "tools.modify.run.0", At: "test.toml:6:3", Rule: `{ arg = "/path", prefix = ".env", mode = "skip", reason = "secrets stay out of reach" }`, Mode: "skip", Reason: "secrets stay out of reach"},
				{Kind: "result-rule", Key: "tools.'*'.result.0", Rule: "unattended", Mode: "unattended"},
			},
		}},
		{"the catch-all asks", "modify", `{"path": "README.md"}`, &call.Decision{
			Tool: "modify", Source: "local", Outcome: call.VerdictAsk, Run: config.RunAsk, Result: config.ResultUnattended,
			Message: "modify runs once the user says yes: the rule tools.modify.run.2 (test.toml:8:3) says ask",
			Reasons: []call.Reason{
				{Kind: "run-rule", Key: "tools.modify.run.2", At: "test.toml:8:3", Rule: "ask", Mode: "ask"},
				{Kind: "result-rule", Key: "tools.'*'.result.0", Rule: "unattended", Mode: "unattended"},
			},
		}},
		{"a bound refuses an argument", "modify", `{"path": "src/a", "n": 11}`, &call.Decision{
			Tool: "modify", Source: "local", Outcome: call.VerdictRefused, Code: diag.CodeBadValue,
			Message: "modify is not run: its arguments do not fit its schema",
			Reasons: []call.Reason{{Kind: "argument", Key: "$.n", Detail: "maximum: got 11, want 10"}},
		}},
		{"arguments that are not JSON", "modify", `{"path"`, &call.Decision{
			Tool: "modify", Source: "local", Outcome: call.VerdictRefused, Code: diag.CodeBadValue,
			Message: "modify is not run: the arguments are not JSON: offset 7: unexpected end of input",
			Reasons: []call.Reason{{Kind: "argument", Detail: "the arguments are not JSON: offset 7: unexpected end of input"}},
		}},
		{"no such tool", "modfy", `{}`, &call.Decision{
			Tool: "modfy", Outcome: call.VerdictUnknown, Code: diag.CodeNotFound, Reasons: []call.Reason{},
			Message: "no such tool in the catalog; did you mean modify?",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := r.Decide(context.Background(), tt.tool, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, d); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("deciding ran the tool")
	}
}

// TestCallFollowsItsDecision: a call meets the decision Decide gives, and
// a confirm function reads the rule that asks from its context.
func TestCallFollowsItsDecision(t *testing.T) {
	root := workspace(t, nil)
	r := runner(t, root, policyTool)
	r.Confirm = nil // the host has no way to ask
	ran := func() bool {
		_, err := os.Stat(filepath.Join(root, "ran"))
		os.Remove(filepath.Join(root, "ran"))
		return err == nil
	}
	ctx := context.Background()

	res, err := r.Call(ctx, "modify", json.RawMessage(`{"path": ".env"}`))
	if err != nil || res.Type != protocol.Failure || res.Message != "modify was not run: the config says skip (tools.modify.run.0: secrets stay out of reach)" || ran() {
		t.Errorf("skip: %+v, %v", res, err)
	}
	if res.Decision == nil || res.Decision.Outcome != call.VerdictSkip {
		t.Errorf("skip's decision: %+v", res.Decision)
	}

	res, err = r.Call(ctx, "modify", json.RawMessage(`{"path": "src/a"}`))
	if err != nil || res.Type != protocol.Success || !ran() {
		t.Errorf("unattended: %+v, %v", res, err)
	}

	_, err = r.Call(ctx, "modify", json.RawMessage(`{"path": "README.md"}`))
	var refused *call.Refusal
	if !errors.As(err, &refused) || refused.Decision == nil || refused.Decision.Outcome != call.VerdictAsk || ran() {
		t.Errorf("ask without a way to ask: %v", err)
	}

	var asked *call.Decision
	res, err = r.Call(ctx, "modify", json.RawMessage(`{"path": "README.md"}`), call.Confirm(func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
		asked = call.DecisionOf(ctx)
		return true, nil
	}))
	if err != nil || res.Type != protocol.Success || !ran() {
		t.Errorf("ask, confirmed: %+v, %v", res, err)
	}
	if asked == nil || asked.DecidedBy("run") == nil || asked.DecidedBy("run").Key != "tools.modify.run.2" {
		t.Errorf("the confirm function was told %+v", asked)
	}

	_, err = r.Call(ctx, "modify", json.RawMessage(`{"path": "src/a", "n": 11}`))
	if !errors.As(err, &refused) || len(refused.Problems) != 1 || refused.Decision.Outcome != call.VerdictRefused || ran() {
		t.Errorf("a bound: %v", err)
	}
}

// TestAdmit: the host adds what it knows to every decision, and may stop
// a call that would run.
func TestAdmit(t *testing.T) {
	root := workspace(t, nil)
	r := runner(t, root, policyTool)
	r.Admit = func(_ context.Context, def resolve.Definition, d *call.Decision) {
		d.Trust = &call.TrustState{Workspace: "trusted", Pin: "changed", PinKey: def.Exec.Key}
		d.Outcome, d.Message = call.VerdictPinChanged, "modify is not run: its launch differs from its pin"
	}
	res, err := r.Call(context.Background(), "modify", json.RawMessage(`{"path": "src/a"}`))
	if err != nil || res.Type != protocol.Failure || res.Message != "modify was not run: modify is not run: its launch differs from its pin" {
		t.Errorf("a call the host stops: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("a call the host stopped ran")
	}
	if res.Decision.Trust == nil || res.Decision.Trust.PinKey != "tools.modify" {
		t.Errorf("the host's part: %+v", res.Decision.Trust)
	}
}
