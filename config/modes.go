package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/rules"
	"github.com/strata-config/strata/partial"
)

// RunMode says what happens when the model calls a tool.
type RunMode string

// Run modes.
const (
	RunAsk        RunMode = "ask"        // ask the user before running
	RunUnattended RunMode = "unattended" // run without asking
	RunEdit       RunMode = "edit"       // let the user edit the arguments first
	RunSkip       RunMode = "skip"       // do not run; tell the model it was skipped
)

// EnumValues lists the run modes.
func (RunMode) EnumValues() []string { return slices.Clone(enumRunMode) }

// UnmarshalText reads a run mode.
func (m *RunMode) UnmarshalText(b []byte) error {
	return readEnum(string(b), m, enumRunMode, "run mode")
}

// MarshalText writes a run mode.
func (m RunMode) MarshalText() ([]byte, error) { return []byte(m), nil }

// ResultMode says what happens with a tool's result before the model sees
// it.
type ResultMode string

// Result modes.
const (
	ResultUnattended ResultMode = "unattended" // hand the result to the model
	ResultAsk        ResultMode = "ask"        // ask the user first
	ResultEdit       ResultMode = "edit"       // let the user edit it first
	ResultSkip       ResultMode = "skip"       // do not hand it over
)

// EnumValues lists the result modes.
func (ResultMode) EnumValues() []string { return slices.Clone(enumResultMode) }

// UnmarshalText reads a result mode.
func (m *ResultMode) UnmarshalText(b []byte) error {
	return readEnum(string(b), m, enumResultMode, "result mode")
}

// MarshalText writes a result mode.
func (m ResultMode) MarshalText() ([]byte, error) { return []byte(m), nil }

// Target says who answers a tool's question.
type Target string

// Question targets.
const (
	TargetUser      Target = "user"
	TargetAssistant Target = "assistant"
)

// EnumValues lists the targets.
func (Target) EnumValues() []string { return slices.Clone(enumTarget) }

// UnmarshalText reads a target.
func (t *Target) UnmarshalText(b []byte) error {
	return readEnum(string(b), t, enumTarget, "question target")
}

// MarshalText writes a target.
func (t Target) MarshalText() ([]byte, error) { return []byte(t), nil }

// readEnum stores s in *dst when it is one of dst's values.
func readEnum[E ~string](s string, dst *E, values []string, what string) error {
	if !slices.Contains(values, s) {
		return fmt.Errorf("invalid %s %q; expected one of %s", what, s, strings.Join(values, ", "))
	}
	*dst = E(s)
	return nil
}

// AllowToggle says which run-time directives (a host's --tool and
// --no-tool) may turn a tool on or off.
type AllowToggle string

// Toggle policies.
const (
	ToggleAny            AllowToggle = "any"               // any directive (the default)
	ToggleNever          AllowToggle = "never"             // none: the tool is locked
	ToggleIfNamed        AllowToggle = "if_named"          // only one that names the tool
	ToggleIfNamedOrGroup AllowToggle = "if_named_or_group" // one that names the tool or its group
)

// EnumValues lists the policies.
func (AllowToggle) EnumValues() []string { return slices.Clone(enumAllowToggle) }

// UnmarshalValue reads a policy: one of its names, or strata's earlier
// boolean (true is any, false is never).
func (a *AllowToggle) UnmarshalValue(v any) error {
	switch v := v.(type) {
	case bool:
		*a = ToggleNever
		if v {
			*a = ToggleAny
		}
		return nil
	case string:
		if err := readEnum(v, a, enumAllowToggle, "allow_toggle"); err != nil {
			hint := didYouMean(v, enumAllowToggle)
			if v == "always" {
				hint = `"any" lets every directive toggle the tool; enable = "always" locks it on`
			}
			return &diag.Error{Code: diag.CodeBadValue, Msg: err.Error(), Hint: hint}
		}
		return nil
	}
	return fmt.Errorf("expected one of %s, found %s", strings.Join(enumAllowToggle, ", "), describe(v))
}

// MarshalText writes a policy.
func (a AllowToggle) MarshalText() ([]byte, error) { return []byte(a), nil }

// ToggleScope is what a run-time directive names: all tools, one tool by
// name, or a group of tools.
type ToggleScope uint8

// Scopes of a directive.
const (
	ScopeAll   ToggleScope = iota // --tool / --no-tool without a name
	ScopeNamed                    // a directive that names the tool
	ScopeGroup                    // a directive that names the tool's group
)

// Accepts reports whether policy a lets a directive of scope s turn the
// tool on or off. An empty policy is any.
func (a AllowToggle) Accepts(s ToggleScope) bool {
	switch a {
	case ToggleNever:
		return false
	case ToggleIfNamed:
		return s == ScopeNamed
	case ToggleIfNamedOrGroup:
		return s == ScopeNamed || s == ScopeGroup
	}
	return true
}

// Enable is a tool's enable setting: whether the tool is offered to the
// model (State) and which run-time directives may change that
// (AllowToggle). Each is inherited on its own from the '*' entry when the
// tool leaves it out (State nil, AllowToggle ""); see
// [EffectiveTool.Enable].
type Enable struct {
	State       *bool       `toml:"state"`
	AllowToggle AllowToggle `toml:"allow_toggle"`
}

// IsZero reports whether e sets neither field.
func (e Enable) IsZero() bool { return e.State == nil && e.AllowToggle == "" }

// On reports whether e's State is set and true.
func (e Enable) On() bool { return e.State != nil && *e.State }

// MarshalValue writes e as JP does: the table of the fields it sets
// ({ state = true, allow_toggle = "never" }), never a shorthand.
func (e Enable) MarshalValue() (any, error) { return enableTable(e), nil }

// EnablePartial is the partial twin of [Enable]. Its fields merge one by
// one across layers. Besides the table { state = true, allow_toggle =
// "never" } (either key alone, or none) it reads JP's shorthands, which set
// both fields:
//
//	true, "true", "on"      { state = true,  allow_toggle = "any" }
//	false, "false", "off"   { state = false, allow_toggle = "any" }
//	"always"                { state = true,  allow_toggle = "never" }
//	"explicit"              { state = false, allow_toggle = "if_named" }
//
// and strata's earlier table spellings: a state that is one of those
// strings sets both fields as it does (an allow_toggle in the same table
// overrides on and off; for always and explicit it may only repeat what
// they mean), and allow_toggle = true or false is any or never.
//
// It is written as JP writes it, always as the table of the fields it
// sets. A tool holds it in a [partial.Nested], as JP holds an
// Option<PartialEnableConfig>: enable = {} is present, says nothing of
// either field, and is kept in the layer.
type EnablePartial struct {
	State       partial.Value[bool]        `toml:"state" doc:"Whether the tool is offered to the model; inherited from '*' when left out, else true."`
	AllowToggle partial.Value[AllowToggle] `toml:"allow_toggle" doc:"Which run-time directives may turn the tool on or off: any (the default), never, if_named, if_named_or_group."`
}

// enableShorthands are the strings that stand for both fields.
var enableShorthands = map[string]EnablePartial{
	"true":     enableOf(true, ToggleAny),
	"on":       enableOf(true, ToggleAny),
	"false":    enableOf(false, ToggleAny),
	"off":      enableOf(false, ToggleAny),
	"always":   enableOf(true, ToggleNever),
	"explicit": enableOf(false, ToggleIfNamed),
}

func enableOf(state bool, toggle AllowToggle) EnablePartial {
	return EnablePartial{State: partial.Of(state), AllowToggle: partial.Of(toggle)}
}

// UnmarshalValue reads an enable setting in any of its forms.
func (e *EnablePartial) UnmarshalValue(v any) error {
	switch v := v.(type) {
	case bool:
		*e = enableOf(v, ToggleAny)
		return nil
	case string:
		s, ok := enableShorthands[v]
		if !ok {
			return &diag.Error{Code: diag.CodeBadValue, Msg: fmt.Sprintf("expected a boolean, one of %s, or { state, allow_toggle }, found %s", strings.Join(enumEnable, ", "), describe(v)), Hint: didYouMean(v, enumEnable)}
		}
		*e = s
		return nil
	case map[string]any:
		return e.readTable(v)
	}
	return fmt.Errorf("expected a boolean, one of %s, or { state, allow_toggle }, found %s", strings.Join(enumEnable, ", "), describe(v))
}

// MarshalValue writes e as JP does: the table of the fields it sets,
// whichever form it was read in (true is { state = true, allow_toggle =
// "any" }); an unset field is not written, it has no plain form.
func (e EnablePartial) MarshalValue() (any, error) {
	var out enableTable
	if state, ok := e.State.Get(); ok {
		out.State = &state
	}
	out.AllowToggle, _ = e.AllowToggle.Get()
	return out, nil
}

// enableTable is the table form of an enable setting, written field by
// field in order (an [Enable] would write itself through MarshalValue).
type enableTable Enable

// readTable reads the table form.
func (e *EnablePartial) readTable(v map[string]any) error {
	out := EnablePartial{}
	var shorthand string                            // a state written as a string
	for _, k := range slices.Sorted(maps.Keys(v)) { // deterministic: the first problem by key
		x := v[k]
		switch k {
		case "state":
			switch x := x.(type) {
			case bool:
				out.State = partial.Of(x)
			case string:
				s, ok := enableShorthands[x]
				if !ok || x == "true" || x == "false" {
					return &diag.Error{Code: diag.CodeBadValue, Path: partial.Path{k}, Msg: fmt.Sprintf("expected a boolean, or one of %s, found %s", strings.Join(enumEnable, ", "), describe(x)), Hint: didYouMean(x, enumEnable)}
				}
				shorthand, out.State = x, s.State
			default:
				return &diag.Error{Code: diag.CodeType, Path: partial.Path{k}, Msg: "expected a boolean, found " + describe(x)}
			}
		case "allow_toggle":
			var a AllowToggle
			if err := a.UnmarshalValue(x); err != nil {
				var de *diag.Error
				if errors.As(err, &de) {
					c := *de
					c.Path = partial.Path{k}
					return &c
				}
				return &diag.Error{Code: diag.CodeBadValue, Path: partial.Path{k}, Msg: err.Error()}
			}
			out.AllowToggle = partial.Of(a)
		default:
			return &diag.Error{Code: diag.CodeUnknownKey, Path: partial.Path{k}, Msg: "unknown key", Hint: didYouMean(k, []string{"state", "allow_toggle"})}
		}
	}
	if shorthand != "" {
		implied := enableShorthands[shorthand].AllowToggle
		switch given, set := out.AllowToggle.Get(); {
		case !set:
			out.AllowToggle = implied
		case (shorthand == "always" || shorthand == "explicit") && given != implied.V:
			return &diag.Error{
				Code: diag.CodeInvalid,
				Path: partial.Path{"allow_toggle"},
				Msg:  fmt.Sprintf("state %q already means allow_toggle = %q", shorthand, implied.V),
				Hint: fmt.Sprintf("write { state = %v, allow_toggle = %q }", enableShorthands[shorthand].State.V, given),
			}
		}
	}
	*e = out
	return nil
}

// asString returns x when it is a string; otherwise a problem at path that
// says what was expected.
func asString(x any, path partial.Path, want string) (string, error) {
	s, ok := x.(string)
	if !ok {
		return "", &diag.Error{Code: diag.CodeType, Path: path, Msg: "expected " + want + ", found " + describe(x)}
	}
	return s, nil
}

// asBool returns x when it is a boolean; otherwise a problem at path.
func asBool(x any, path partial.Path) (bool, error) {
	b, ok := x.(bool)
	if !ok {
		return false, &diag.Error{Code: diag.CodeType, Path: path, Msg: "expected a boolean, found " + describe(x)}
	}
	return b, nil
}

// describe names a plain value's kind and value for messages.
func describe(v any) string { return rules.Describe(v) }

var enumRunMode = []string{"ask", "unattended", "edit", "skip"}

var enumResultMode = []string{"unattended", "ask", "edit", "skip"}

var enumTarget = []string{"user", "assistant"}

var enumEnable = []string{"on", "off", "explicit", "always"}

var enumAllowToggle = []string{"any", "never", "if_named", "if_named_or_group"}
