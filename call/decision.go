package call

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// Verdict is what a [Decision] says becomes of a call. Its values do not
// change: a host branches on them.
type Verdict string

// Verdicts, and the exit status of strata call --dry-run for each.
const (
	// VerdictRun: the call runs without asking (0).
	VerdictRun Verdict = "run"
	// VerdictAsk: the call runs once the user says yes: its run mode is
	// ask or edit (3).
	VerdictAsk Verdict = "ask"
	// VerdictSkip: the call is not run: its run policy says skip (4).
	VerdictSkip Verdict = "skip"
	// VerdictRefused: the call is not run: its arguments do not fit the
	// tool's schema (a bound, a type, a value; each problem is a reason)
	// (5).
	VerdictRefused Verdict = "refused"
	// VerdictHeld: the tool is held back by the lock: its definition
	// changed since it was locked (6).
	VerdictHeld Verdict = "held"
	// VerdictLeftOut: the tool is configured but not given to the model:
	// not enabled, or not in the run's tool set (7).
	VerdictLeftOut Verdict = "left-out"
	// VerdictUnknown: no tool of the catalog has the name (8).
	VerdictUnknown Verdict = "unknown"
	// VerdictPinChanged: the tool's launch differs from its pin (9).
	VerdictPinChanged Verdict = "pin-changed"
)

// Runs reports whether a call of this verdict runs (at once, or once the
// user says yes).
func (o Verdict) Runs() bool { return o == VerdictRun || o == VerdictAsk }

// Decision is the reason for one call's fate, made before anything runs:
// the tool and where it comes from, what decided (the rule of its run
// policy, with where it was written and its reason; the bounds of its
// schema that refused an argument), the tool set that admitted it, its
// lock entry, and the trust and pin of its launch. strata call --dry-run
// prints it and strata serve gives it with every result (in _meta, under
// [protocol.MetaDecision]).
//
// Reasons is a list so that what decides a call can grow without the
// record changing shape: each entry says what it is (Kind), where it was
// written (Key, At) and why (Reason); a policy layer that clamps a mode
// adds an entry of its own the same way.
type Decision struct {
	Tool string `json:"tool"`
	// Source is where the tool comes from, as the catalog says it: local,
	// local.<tool>, mcp.<server>, mcp.<server>.<tool>, builtin.
	Source string `json:"source,omitempty"`
	// Server and Upstream are the MCP server of an MCP tool and the
	// tool's name there (or a local tool's upstream name).
	Server   string `json:"server,omitempty"`
	Upstream string `json:"upstream,omitempty"`
	// Outcome is what becomes of the call; Code the kind of problem when
	// it does not run.
	Outcome Verdict   `json:"outcome"`
	Code    diag.Code `json:"code,omitempty"`
	// Message says it in one sentence, for people.
	Message string `json:"message"`
	// Run and Result are the modes the tool's policies decided.
	Run    config.RunMode    `json:"run,omitempty"`
	Result config.ResultMode `json:"result,omitempty"`
	// Reasons are what decided, in order.
	Reasons []Reason `json:"reasons"`
	// Toolset, Lock and Trust are what the host knows of the tool beyond
	// its definition; nil where it says nothing.
	Toolset *Admission  `json:"toolset,omitempty"`
	Lock    *LockEntry  `json:"lock,omitempty"`
	Trust   *TrustState `json:"trust,omitempty"`
}

// Reason is one thing that decided a call.
type Reason struct {
	// Kind says what it is: "run-rule" and "result-rule" (the rule of a
	// policy that decided, or "run-implicit" and "result-implicit" for the
	// { mode = "ask" } after the rules), "skipped-rule" (a rule of the '*'
	// entry that does not apply to the tool), "argument" (an argument
	// the schema refused). A policy layer adds "policy".
	Kind string `json:"kind"`
	// Key is the config key path of what decided: tools.fs.run.2.
	Key string `json:"key,omitempty"`
	// At is where it was written: file:line:column; "" for a default.
	At string `json:"at,omitempty"`
	// Rule is the rule as the config writes it.
	Rule string `json:"rule,omitempty"`
	// Mode is the mode it gives.
	Mode string `json:"mode,omitempty"`
	// Reason is the rule's own reason.
	Reason string `json:"reason,omitempty"`
	// Detail says more: why a rule does not apply; the problem of an
	// argument, at its JSONPath.
	Detail string `json:"detail,omitempty"`
	// Bound is the config key of the bound that refused an argument,
	// when the config set it (tools.x.parameters.n.maximum; At is where);
	// "" for a bound of the tool's own schema.
	Bound string `json:"bound,omitempty"`
}

// Admission is whether the run's tool set holds the tool.
type Admission struct {
	// Name is the tool set; "" when the run gives every tool.
	Name string `json:"name"`
	In   bool   `json:"in"`
	Why  string `json:"why,omitempty"`
}

// LockEntry is what the lock says of the tool.
type LockEntry struct {
	// Path is the lock that applies; "" when none does.
	Path   string `json:"path,omitempty"`
	Policy string `json:"policy,omitempty"`
	// Locked reports that the lock has an entry for the tool; Change is
	// how the tool differs from it, and Held whether that holds it back.
	Locked bool   `json:"locked"`
	Change string `json:"change,omitempty"`
	Held   bool   `json:"held,omitempty"`
}

// TrustState is the trust of the workspace and the pin of the tool's launch.
type TrustState struct {
	// Workspace is "trusted", "untrusted" (its files do not apply, and
	// programs start in a private empty directory), or "none" (no
	// workspace).
	Workspace string `json:"workspace"`
	// Pin is "none", "holds" or "changed", for the key PinKey of what
	// launches the tool (tools.<name> or mcp_servers.<server>); Detail
	// says what changed.
	Pin    string `json:"pin"`
	PinKey string `json:"pin_key,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// JSON writes the decision indented, as strata call --dry-run prints it.
func (d *Decision) JSON() []byte {
	b, _ := json.MarshalIndent(d, "", "  ")
	return b
}

type decisionKey struct{}

// DecisionOf returns the decision of the call whose context ctx is: a
// confirm function ([Confirm], [Runner].Confirm) reads the rule that asks
// from it. Nil outside a call.
func DecisionOf(ctx context.Context) *Decision {
	d, _ := ctx.Value(decisionKey{}).(*Decision)
	return d
}

// Decide returns the decision a call of name with args would meet,
// running nothing: the arguments are read, given their defaults and
// checked as [Runner.Call] does, the tool's policies decide, and
// [Runner].Admit says the rest. The error is the context's, when it is
// done.
func (r *Runner) Decide(ctx context.Context, name string, args json.RawMessage) (*Decision, error) {
	d, _, _, err := r.decide(ctx, name, args)
	return d, err
}

// decide makes the decision of a call, and gives the arguments the tool
// would run with (as JSON and as values), when it is in the catalog and
// they fit its schema; err is a refusal that is no decision's (arguments
// that are not JSON) or the context's error.
func (r *Runner) decide(ctx context.Context, name string, args json.RawMessage) (*Decision, json.RawMessage, map[string]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	def, ok := r.Catalog.Tool(name)
	if !ok {
		d := &Decision{Tool: name, Outcome: VerdictUnknown, Code: diag.CodeNotFound, Reasons: []Reason{}}
		e := r.unknown(name)
		d.Message = e.Msg
		if e.Hint != "" {
			d.Message += "; " + e.Hint
		}
		return d, nil, nil, nil
	}
	d := &Decision{Tool: name, Source: def.Source, Server: def.Exec.Server, Upstream: def.Exec.Tool, Reasons: []Reason{}}
	if d.Upstream == name {
		d.Upstream = ""
	}
	prepared, err := r.prepare(def, args)
	var refused *Refusal
	switch {
	case errors.As(err, &refused):
		d.Outcome, d.Code = VerdictRefused, diag.CodeBadValue
		d.Message = name + " is not run: its arguments do not fit its schema"
		for _, p := range refused.Problems {
			d.Reasons = append(d.Reasons, Reason{Kind: "argument", Key: p.Path, Detail: p.Msg})
		}
		if len(refused.Problems) == 0 {
			d.Message = name + " is not run: " + refused.Msg
			d.Reasons = append(d.Reasons, Reason{Kind: "argument", Detail: refused.Msg})
		}
		r.admit(ctx, def, d)
		return d, nil, nil, nil
	case err != nil:
		return nil, nil, nil, err
	}
	var argMap map[string]any
	if err := decode(prepared, &argMap); err != nil {
		return nil, nil, nil, err
	}
	pol := def.Policy
	if pol == nil {
		pol = &resolve.Policies{} // a definition made by hand: asked
	}
	for _, s := range pol.Run.Skipped {
		d.Reasons = append(d.Reasons, Reason{Kind: "skipped-rule", Key: s.Key.String(), At: s.At.String(), Detail: s.Why})
	}
	run := pol.Run.Decide(argMap)
	d.Run = run.Mode
	d.Reasons = append(d.Reasons, ruleReason("run", pol.Run.Key, run.Rule, string(run.Mode)))
	if run.Rule != nil {
		d.Reasons = append(d.Reasons, clampReason(run.Rule.Clamped, string(run.Mode))...)
	}
	result := pol.Result.Decide(argMap)
	d.Result = result.Mode
	d.Reasons = append(d.Reasons, ruleReason("result", pol.Result.Key, result.Rule, string(result.Mode)))
	if result.Rule != nil {
		d.Reasons = append(d.Reasons, clampReason(result.Rule.Clamped, string(result.Mode))...)
	}
	by := ruleText(pol.Run.Key, run.Rule)
	if run.Rule != nil {
		by += " says " + string(run.Mode)
	}
	switch run.Mode {
	case config.RunSkip:
		d.Outcome, d.Code = VerdictSkip, diag.CodeSkipped
		d.Message = name + " is not run: " + by
	case config.RunAsk, config.RunEdit:
		d.Outcome = VerdictAsk
		d.Message = name + " runs once the user says yes: " + by
	default:
		d.Outcome = VerdictRun
		d.Message = name + " runs without asking: " + by
	}
	if run.Rule != nil && run.Rule.Reason != "" {
		d.Message += " (" + run.Rule.Reason + ")"
	}
	if c := run.Rule.Clamp(); c != nil {
		d.Message += fmt.Sprintf("; the policy %s (%s) allows no %s", c.Key, c.At, c.From)
		if c.Reason != "" {
			d.Message += " (" + c.Reason + ")"
		}
	}
	r.admit(ctx, def, d)
	return d, prepared, argMap, nil
}

// clampReason is the reason of a policy layer that moved a rule's mode
// to mode; none when c is nil.
func clampReason(c *config.Clamped, mode string) []Reason {
	if c == nil {
		return nil
	}
	return []Reason{{Kind: "policy", Key: c.Key, At: c.At, Mode: mode, Reason: c.Reason,
		Detail: fmt.Sprintf("%s falls back to %s, the nearest of the modes the policies allow (%s)", c.From, mode, strings.Join(c.Allowed, ", "))}}
}

// DecidedBy returns the reason of the rule of policy kind (run or
// result) that decided, or nil when the implicit rule did.
func (d *Decision) DecidedBy(kind string) *Reason {
	for i := range d.Reasons {
		if d.Reasons[i].Kind == kind+"-rule" {
			return &d.Reasons[i]
		}
	}
	return nil
}

// admit has the host say what it knows of the tool (see [Runner].Admit).
func (r *Runner) admit(ctx context.Context, def resolve.Definition, d *Decision) {
	if r.Admit != nil {
		r.Admit(ctx, def, d)
	}
}

// ruleReason is the reason a policy (kind run or result) of the list at
// key gives through rule (nil: the implicit rule).
func ruleReason[M config.Mode](kind string, key partial.Path, rule *resolve.PolicyRule[M], mode string) Reason {
	if rule == nil {
		return Reason{Kind: kind + "-implicit", Key: key.String(), Rule: fmt.Sprintf("{ mode = %q }", mode), Mode: mode}
	}
	k, at, text := rule.Texts()
	return Reason{Kind: kind + "-rule", Key: k, At: at, Rule: text, Mode: mode, Reason: rule.Reason}
}

// ruleText names what decided, for a message: the rule by its key and
// place, or the implicit rule after the list at key.
func ruleText[M config.Mode](key partial.Path, rule *resolve.PolicyRule[M]) string {
	switch {
	case rule == nil && len(key) == 0:
		return `no run policy is set, and a call is asked (the implicit { mode = "ask" })`
	case rule == nil:
		return fmt.Sprintf(`no rule of %s holds, and a call no rule takes is asked (the implicit { mode = "ask" })`, key)
	}
	k, at, _ := rule.Texts()
	if at == "" {
		return "the default rule " + k
	}
	return "the rule " + k + " (" + at + ")"
}
