package strata

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// Decide returns the decision a call of the tool name with args would
// meet, and runs nothing (see [call.Decision]): the tool and its source,
// the rule of its run policy that decides (where it was written, and its
// reason), the bounds of its schema that refuse an argument, the tool set
// that admitted it, its lock entry, the trust of the workspace and the
// pin of its launch. A tool the lock holds back, one the run's tool set
// leaves out, one a policy's tool list leaves out and one that is not
// enabled have a decision too; so has a
// name no tool has (with the closest name), and a tool of the config
// that did not resolve (the decision says why, and the error is finding
// it). strata call --dry-run prints it; strata serve gives the same
// record with each result.
func (w *engine) Decide(ctx context.Context, name string, args json.RawMessage) (*call.Decision, error) {
	r, err := w.Runner(ctx, name)
	if r == nil {
		return nil, err
	}
	if _, ok := r.Catalog.Tool(name); ok {
		return r.Decide(ctx, name, args)
	}
	if full, _ := w.resolveAll(ctx); full != nil {
		if def, ok := full.Tool(name); ok {
			d := &call.Decision{Tool: name, Source: def.Source, Server: def.Exec.Server, Upstream: def.Exec.Tool, Reasons: []call.Reason{}}
			if d.Upstream == name {
				d.Upstream = ""
			}
			w.admit(ctx, def, d)
			switch {
			case d.Lock != nil && d.Lock.Held:
				d.Outcome, d.Code = call.VerdictHeld, diag.CodeRefused
				d.Message = name + " is held back by the lock " + d.Lock.Path + ": " + d.Lock.Change
			default:
				d.Outcome, d.Code = call.VerdictLeftOut, diag.CodeLeftOut
				d.Message = name + " is left out of the run's tool set " + d.Toolset.Name + " (" + d.Toolset.Why + ")"
			}
			return d, nil
		}
	}
	if d := w.deniedDecision(name); d != nil {
		return d, nil
	}
	if t, ok := w.model.Tools.Effective(name); ok && !t.Enabled() {
		return &call.Decision{Tool: name, Outcome: call.VerdictLeftOut, Code: diag.CodeLeftOut, Reasons: []call.Reason{},
			Message: name + " is not enabled; set enable = true for it"}, nil
	}
	d, derr := r.Decide(ctx, name, args) // unknown, with the closest name
	if _, configured := w.model.Tools[name]; configured && err != nil && d != nil && d.Outcome == call.VerdictUnknown {
		// The config has the tool, and finding it failed: that is why
		// (the error says it, and is returned with the decision).
		d.Message = name + " did not resolve: " + err.Error()
		return d, errors.Join(err, derr)
	}
	return d, derr
}

// admit adds to a call's decision what the workspace knows of the tool
// beyond its definition (see [call.Runner].Admit).
func (w *engine) admit(ctx context.Context, def resolve.Definition, d *call.Decision) {
	ch := resolve.Choose(w.model, w.Toolset(), def)
	d.Toolset = &call.Admission{Name: ch.Set, In: ch.In, Why: ch.Why}
	w.mu.Lock()
	st := w.lockState
	w.mu.Unlock()
	l := &call.LockEntry{Path: st.Path, Policy: string(w.model.Lock.Policy.Or())}
	if st.Path != "" {
		_, l.Locked = w.lockedTools()[def.Name]
	}
	for _, c := range st.Changes {
		if c.Tool == def.Name {
			l.Change, l.Held = c.String(), c.Held() && st.Policy == config.LockHold
		}
	}
	d.Lock = l
	t := &call.TrustState{Workspace: "trusted", Pin: "none", PinKey: def.Exec.Key}
	switch {
	case w.view.root == "":
		t.Workspace = "none"
	case !w.trusted:
		t.Workspace = "untrusted"
	}
	if pin, ok := w.list.Pins[def.Exec.Key]; ok && def.Exec.Key != "" {
		t.Pin = "holds"
		launch, err := w.launchOf(ctx, def)
		if err == nil {
			err = pin.Check(launch)
		}
		if err != nil {
			t.Pin, t.Detail = "changed", err.Error()
			if d.Outcome.Runs() {
				d.Outcome, d.Code = call.VerdictPinChanged, diag.CodePinChanged
				d.Message = def.Name + " is not run: its launch differs from its pin " + def.Exec.Key + ": " + err.Error()
			}
		}
	}
	d.Trust = t
	w.bounds(def, d)
}

// keywords are the JSON Schema keywords whose problems the arguments'
// check names first ("maximum: got 11, want 10"), by the config key of the
// bound.
var keywords = map[string]string{
	"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum", "exclusiveMaximum": "exclusive_maximum",
	"multipleOf": "multiple_of", "minLength": "min_length", "maxLength": "max_length", "minItems": "min_items", "maxItems": "max_items",
}

// bounds names, for each argument the schema refused, the bound of the
// config that refused it and where it was written, when the config set
// it (the tool's own bounds are the tool's).
func (w *engine) bounds(def resolve.Definition, d *call.Decision) {
	for i := range d.Reasons {
		r := &d.Reasons[i]
		if r.Kind != "argument" || !strings.HasPrefix(r.Key, "$.") {
			continue
		}
		kw, _, _ := strings.Cut(r.Detail, ":")
		key, ok := keywords[kw]
		switch {
		case strings.HasPrefix(r.Detail, "value must be one of"):
			key, ok = "enum", true
		case strings.Contains(r.Detail, "does not match pattern"):
			key, ok = "pattern", true
		}
		if !ok {
			continue
		}
		path := partial.Path{"tools", def.Name, "parameters"}
		for i, part := range strings.Split(strings.TrimPrefix(r.Key, "$."), ".") {
			name, rest, _ := strings.Cut(part, "[")
			if i > 0 {
				path = path.Append("properties")
			}
			path = path.Append(name)
			for range strings.Count(rest, "[") + min(len(rest), 1) {
				path = path.Append("items")
			}
		}
		if b := w.model.Tools[def.Name].Parameters[path[len(path)-1]].Bounded; len(path) == 4 && (b.Sets(key) || key == "pattern" && b != nil && len(b.Patterns) > 0) {
			// A policy layer's bound.
			r.Bound, r.At, r.Reason = b.Key+"."+key, b.AtOf(key), b.Reason
			continue
		}
		path = path.Append(key)
		ex, err := w.view.explain(w.key(path.String()))
		if err != nil || len(ex.Steps) == 0 {
			continue
		}
		for _, s := range slices.Backward(ex.Steps) {
			if s.Wins {
				r.Bound = path.String()
				if s.Line > 0 {
					r.At = s.Name + ":" + strconv.Itoa(s.Line) + ":" + strconv.Itoa(s.Column)
				} else {
					r.At = string(s.Kind) + " " + s.Name
				}
				break
			}
		}
	}
}

// launchOf is the launch of what runs def, as its pin holds it.
func (w *engine) launchOf(ctx context.Context, def resolve.Definition) (trust.Launch, error) {
	if def.Exec.Kind == resolve.ExecDescribe {
		return trust.Launch{Program: def.Exec.Path, Env: trust.LaunchEnv(def.Exec.Env, def.Exec.EnvVars), Dir: def.Exec.Dir}, nil
	}
	return w.Launch(ctx, w.key(def.Exec.Key))
}

// lockedTools returns the source of each tool the lock that applies has
// an entry for, by name, read once.
func (w *engine) lockedTools() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.locked != nil {
		return w.locked
	}
	w.locked = map[string]string{}
	if w.lockState.Path == "" {
		return w.locked
	}
	if f, err := w.readLock(context.Background(), w.lockState.Path); err == nil && f != nil {
		for _, e := range f.Tools {
			w.locked[e.Name] = e.Source
		}
	}
	return w.locked
}
