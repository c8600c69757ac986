package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
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

// EnableState says whether a tool is offered to the model.
type EnableState string

// Enable states.
const (
	EnableOn       EnableState = "on"       // offered; the user may turn it off
	EnableOff      EnableState = "off"      // not offered unless turned on
	EnableExplicit EnableState = "explicit" // offered only when asked for by name
	EnableAlways   EnableState = "always"   // offered even when tools are turned off as a group
)

// EnumValues lists the states.
func (EnableState) EnumValues() []string { return slices.Clone(enumEnableState) }

// Enable is a tool's enable setting. In a file it is a boolean (true is
// "on"), one of the strings "on", "off", "explicit" and "always", or a
// table { state = "...", allow_toggle = false }.
type Enable struct {
	State EnableState
	// AllowToggle says whether the user may turn the tool on and off at run
	// time; nil means yes.
	AllowToggle *bool
}

// EnumValues lists the string forms, for messages and the JSON Schema.
func (Enable) EnumValues() []string { return EnableState("").EnumValues() }

// Toggleable reports whether the user may turn the tool on and off.
func (e Enable) Toggleable() bool { return e.AllowToggle == nil || *e.AllowToggle }

// UnmarshalValue reads an enable setting.
func (e *Enable) UnmarshalValue(v any) error {
	switch v := v.(type) {
	case bool:
		*e = Enable{State: EnableOff}
		if v {
			e.State = EnableOn
		}
		return nil
	case string:
		var s EnableState
		if err := readEnum(v, &s, enumEnableState, "enable state"); err != nil {
			return err
		}
		*e = Enable{State: s}
		return nil
	case map[string]any:
		out := Enable{}
		for _, k := range slices.Sorted(maps.Keys(v)) { // deterministic: the first problem by key
			x := v[k]
			switch k {
			case "state":
				s, err := asString(x, partial.Path{k}, "one of on, off, explicit, always")
				if err != nil {
					return err
				}
				if err := readEnum(s, &out.State, enumEnableState, "enable state"); err != nil {
					return &diag.Error{Path: partial.Path{k}, Msg: err.Error(), Hint: didYouMean(s, enumEnableState)}
				}
			case "allow_toggle":
				b, err := asBool(x, partial.Path{k})
				if err != nil {
					return err
				}
				out.AllowToggle = &b
			default:
				return &diag.Error{Path: partial.Path{k}, Msg: "unknown key", Hint: didYouMean(k, []string{"state", "allow_toggle"})}
			}
		}
		if out.State == "" {
			return &diag.Error{Msg: "an enable table needs a state", Hint: `write { state = "on", allow_toggle = false }`}
		}
		*e = out
		return nil
	}
	return fmt.Errorf("expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found %s", describe(v))
}

// MarshalValue writes the shortest form: a boolean for on and off, a
// string for the other states, a table when AllowToggle is set.
func (e Enable) MarshalValue() (any, error) {
	if e.AllowToggle != nil {
		return map[string]any{"state": string(e.State), "allow_toggle": *e.AllowToggle}, nil
	}
	switch e.State {
	case EnableOn:
		return true, nil
	case EnableOff:
		return false, nil
	}
	return string(e.State), nil
}

// asString returns x when it is a string; otherwise a problem at path that
// says what was expected.
func asString(x any, path partial.Path, want string) (string, error) {
	s, ok := x.(string)
	if !ok {
		return "", &diag.Error{Path: path, Msg: "expected " + want + ", found " + describe(x)}
	}
	return s, nil
}

// asBool returns x when it is a boolean; otherwise a problem at path.
func asBool(x any, path partial.Path) (bool, error) {
	b, ok := x.(bool)
	if !ok {
		return false, &diag.Error{Path: path, Msg: "expected a boolean, found " + describe(x)}
	}
	return b, nil
}

// describe names a plain value's kind and value for messages.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("string %q", v)
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case int64, float64:
		return fmt.Sprintf("number %v", v)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", v)
}

var enumRunMode = []string{"ask", "unattended", "edit", "skip"}

var enumResultMode = []string{"unattended", "ask", "edit", "skip"}

var enumTarget = []string{"user", "assistant"}

var enumEnableState = []string{"on", "off", "explicit", "always"}
