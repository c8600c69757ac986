package config_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// enable builds an EnablePartial; an empty toggle leaves allow_toggle out,
// a nil state leaves state out.
func enable(state *bool, toggle config.AllowToggle) config.EnablePartial {
	var e config.EnablePartial
	if state != nil {
		e.State = partial.Of(*state)
	}
	if toggle != "" {
		e.AllowToggle = partial.Of(toggle)
	}
	return e
}

var (
	yes = ptrTo(true)
	no  = ptrTo(false)
	// JP's named values of PartialEnableConfig.
	enableOn        = enable(yes, config.ToggleAny)
	enableOff       = enable(no, config.ToggleAny)
	enableLockedOn  = enable(yes, config.ToggleNever)
	enableLockedOff = enable(no, config.ToggleNever)
)

// JP's test_enable_config_from_bool, _from_str and _deserialize, and
// strata's earlier table spellings.
func TestEnablePartialUnmarshalValue(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want config.EnablePartial
	}{
		{"true", true, enableOn},
		{"false", false, enableOff},
		{"string true", "true", enableOn},
		{"string false", "false", enableOff},
		{"on", "on", enableOn},
		{"off", "off", enableOff},
		{"always is locked on", "always", enableLockedOn},
		{"explicit is off unless named", "explicit", enable(no, config.ToggleIfNamed)},
		{"table with state only", map[string]any{"state": true}, enable(yes, "")},
		{"table with allow_toggle only", map[string]any{"allow_toggle": "if_named_or_group"}, enable(nil, config.ToggleIfNamedOrGroup)},
		{"table with both", map[string]any{"state": false, "allow_toggle": "never"}, enableLockedOff},
		{"any is the freely toggleable spelling", map[string]any{"allow_toggle": "any"}, enable(nil, config.ToggleAny)},
		{"empty table", map[string]any{}, config.EnablePartial{}},
		// strata's earlier spellings
		{"earlier table with a state string", map[string]any{"state": "explicit"}, enable(no, config.ToggleIfNamed)},
		{"earlier on and not toggleable", map[string]any{"state": "on", "allow_toggle": false}, enableLockedOn},
		{"earlier off and toggleable", map[string]any{"state": "off", "allow_toggle": true}, enableOff},
		{"earlier always and not toggleable", map[string]any{"state": "always", "allow_toggle": false}, enableLockedOn},
		{"explicit repeating what it means", map[string]any{"state": "explicit", "allow_toggle": "if_named"}, enable(no, config.ToggleIfNamed)},
		{"earlier boolean allow_toggle alone", map[string]any{"allow_toggle": false}, enable(nil, config.ToggleNever)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e config.EnablePartial
			if err := e.UnmarshalValue(tt.in); err != nil {
				t.Fatalf("UnmarshalValue(%#v): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, e); diff != "" {
				t.Errorf("UnmarshalValue(%#v) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestEnablePartialUnmarshalValueErrors(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want errorView
	}{
		{"unknown string", "maybe", errorView{
			Text: `expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found string "maybe"`, Typed: true,
			Msg: `expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found string "maybe"`,
		}},
		{"misspelt string", "alway", errorView{
			Text: `expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found string "alway"; did you mean always?`, Typed: true,
			Msg: `expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found string "alway"`, Hint: "did you mean always?",
		}},
		{"number", int64(1), errorView{Text: "expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found number 1"}},
		{"array", []any{"on"}, errorView{Text: "expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found an array"}},
		{"state a number", map[string]any{"state": int64(1)}, errorView{
			Text: "state: expected a boolean, found number 1", Typed: true, Msg: "expected a boolean, found number 1", Path: []string{"state"},
		}},
		{"misspelt state string", map[string]any{"state": "of"}, errorView{
			Text: `state: expected a boolean, or one of on, off, explicit, always, found string "of"; did you mean off?`, Typed: true,
			Msg: `expected a boolean, or one of on, off, explicit, always, found string "of"`, Hint: "did you mean off?", Path: []string{"state"},
		}},
		{"allow_toggle always is not JP's", map[string]any{"allow_toggle": "always"}, errorView{
			Text: `allow_toggle: invalid allow_toggle "always"; expected one of any, never, if_named, if_named_or_group; "any" lets every directive toggle the tool; enable = "always" locks it on`, Typed: true,
			Msg: `invalid allow_toggle "always"; expected one of any, never, if_named, if_named_or_group`, Hint: `"any" lets every directive toggle the tool; enable = "always" locks it on`, Path: []string{"allow_toggle"},
		}},
		{"misspelt allow_toggle", map[string]any{"allow_toggle": "if_name"}, errorView{
			Text: `allow_toggle: invalid allow_toggle "if_name"; expected one of any, never, if_named, if_named_or_group; did you mean if_named?`, Typed: true,
			Msg: `invalid allow_toggle "if_name"; expected one of any, never, if_named, if_named_or_group`, Hint: "did you mean if_named?", Path: []string{"allow_toggle"},
		}},
		{"allow_toggle a number", map[string]any{"allow_toggle": int64(0)}, errorView{
			Text: "allow_toggle: expected one of any, never, if_named, if_named_or_group, found number 0", Typed: true,
			Msg: "expected one of any, never, if_named, if_named_or_group, found number 0", Path: []string{"allow_toggle"},
		}},
		{"explicit cannot be locked", map[string]any{"state": "explicit", "allow_toggle": false}, errorView{
			Text: `allow_toggle: state "explicit" already means allow_toggle = "if_named"; write { state = false, allow_toggle = "never" }`, Typed: true,
			Msg: `state "explicit" already means allow_toggle = "if_named"`, Hint: `write { state = false, allow_toggle = "never" }`, Path: []string{"allow_toggle"},
		}},
		{"always cannot be toggled", map[string]any{"state": "always", "allow_toggle": true}, errorView{
			Text: `allow_toggle: state "always" already means allow_toggle = "never"; write { state = true, allow_toggle = "any" }`, Typed: true,
			Msg: `state "always" already means allow_toggle = "never"`, Hint: `write { state = true, allow_toggle = "any" }`, Path: []string{"allow_toggle"},
		}},
		{"misspelt key", map[string]any{"stat": true}, errorView{
			Text: "stat: unknown key; did you mean state?", Typed: true, Msg: "unknown key", Hint: "did you mean state?", Path: []string{"stat"},
		}},
		{"several problems give the first key's", map[string]any{"stat": "on", "allow": int64(1), "state": int64(2)}, errorView{
			Text: "allow: unknown key", Typed: true, Msg: "unknown key", Path: []string{"allow"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 { // map order must not matter
				e := enableLockedOff
				err := e.UnmarshalValue(tt.in)
				if err == nil {
					t.Fatalf("UnmarshalValue(%#v) succeeded, want an error", tt.in)
				}
				if diff := cmp.Diff(tt.want, viewError(err)); diff != "" {
					t.Fatalf("UnmarshalValue(%#v) error mismatch (-want +got):\n%s", tt.in, diff)
				}
				if diff := cmp.Diff(enableLockedOff, e); diff != "" {
					t.Fatalf("UnmarshalValue changed the setting on error (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// JP's test_enable_effective_fills_from_defaults_then_fallback and
// test_enable_cross_key_defaults_inheritance.
func TestEffectiveEnable(t *testing.T) {
	tests := []struct {
		name        string
		own, star   *config.Enable
		want        config.Enable
		wantEnabled bool
	}{
		{"nothing set: on, any", &config.Enable{}, &config.Enable{}, config.Enable{State: yes, AllowToggle: config.ToggleAny}, true},
		{"no enable anywhere: on, any", nil, nil, config.Enable{State: yes, AllowToggle: config.ToggleAny}, true},
		{"state from the tool, allow_toggle from '*'", &config.Enable{State: no}, &config.Enable{State: yes, AllowToggle: config.ToggleIfNamed}, config.Enable{State: no, AllowToggle: config.ToggleIfNamed}, false},
		{"allow_toggle from the tool, state from '*'", &config.Enable{AllowToggle: config.ToggleNever}, &config.Enable{State: no}, config.Enable{State: no, AllowToggle: config.ToggleNever}, false},
		{"both inherited", &config.Enable{}, &config.Enable{State: no, AllowToggle: config.ToggleIfNamed}, config.Enable{State: no, AllowToggle: config.ToggleIfNamed}, false},
		{"both inherited, the tool sets none", nil, &config.Enable{State: no, AllowToggle: config.ToggleIfNamed}, config.Enable{State: no, AllowToggle: config.ToggleIfNamed}, false},
		{"the tool's own win", &config.Enable{State: yes, AllowToggle: config.ToggleAny}, &config.Enable{State: no, AllowToggle: config.ToggleNever}, config.Enable{State: yes, AllowToggle: config.ToggleAny}, true},
		{"the tool's own, '*' sets none", &config.Enable{State: no}, nil, config.Enable{State: no, AllowToggle: config.ToggleAny}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := config.Tools{config.EveryTool: {Enable: tt.star}, "foo": {Enable: tt.own}}
			e, _ := tools.Effective("foo")
			if diff := cmp.Diff(tt.want, e.Enable()); diff != "" {
				t.Errorf("Enable() mismatch (-want +got):\n%s", diff)
			}
			if got := e.Enabled(); got != tt.wantEnabled {
				t.Errorf("Enabled() = %v, want %v", got, tt.wantEnabled)
			}
		})
	}
}

// JP's test_enable_accepts_by_scope.
func TestAllowToggleAccepts(t *testing.T) {
	tests := []struct {
		toggle            config.AllowToggle
		all, named, group bool
	}{
		{config.ToggleNever, false, false, false},
		{config.ToggleAny, true, true, true},
		{"", true, true, true},
		{config.ToggleIfNamed, false, true, false},
		{config.ToggleIfNamedOrGroup, false, true, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.toggle), func(t *testing.T) {
			got := []bool{tt.toggle.Accepts(config.ScopeAll), tt.toggle.Accepts(config.ScopeNamed), tt.toggle.Accepts(config.ScopeGroup)}
			if diff := cmp.Diff([]bool{tt.all, tt.named, tt.group}, got); diff != "" {
				t.Errorf("Accepts(all, named, group) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// JP's test_enable_cross_layer_merge_preserves_other_field, through files,
// and the fields inherited one by one from '*' across layers.
func TestEnableMergesPerField(t *testing.T) {
	tests := []struct {
		name   string
		layers []string
		want   config.Enable // of tool t, effective
	}{
		{"state below, allow_toggle above", []string{"[tools.t]\nenable = { state = false }", "[tools.t]\nenable = { allow_toggle = \"never\" }"},
			config.Enable{State: no, AllowToggle: config.ToggleNever}},
		{"a shorthand above sets both", []string{"[tools.t]\nenable = { allow_toggle = \"if_named\" }", "[tools.t]\nenable = true"},
			config.Enable{State: yes, AllowToggle: config.ToggleAny}},
		{"dotted key alone", []string{"[tools.t]\nenable = \"explicit\"", "[tools.t]\nenable.state = true"},
			config.Enable{State: yes, AllowToggle: config.ToggleIfNamed}},
		{"an empty table says nothing", []string{"[tools.t]\nenable = \"always\"", "[tools.t]\nenable = {}"},
			config.Enable{State: yes, AllowToggle: config.ToggleNever}},
		{"each field from '*' in its own layer", []string{"[tools.'*']\nenable.allow_toggle = \"if_named_or_group\"", "[tools.'*']\nenable.state = false", "[tools.t]\nsource = \"builtin\""},
			config.Enable{State: no, AllowToggle: config.ToggleIfNamedOrGroup}},
		{"the tool's state, '*''s allow_toggle", []string{"[tools.'*']\nenable = \"explicit\"", "[tools.t]\nenable.state = true"},
			config.Enable{State: yes, AllowToggle: config.ToggleIfNamed}},
		{"unset one field", []string{"[tools.t]\nenable = \"always\"", "unset = [\"tools.t.enable.allow_toggle\"]\n[tools.'*']\nenable.allow_toggle = \"if_named\""},
			config.Enable{State: yes, AllowToggle: config.ToggleIfNamed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ls []*config.Partial
			for i, src := range tt.layers {
				p := layertest.MustDecode(t, "layer"+string(rune('1'+i))+".toml", src, partial.TOML)
				ls = append(ls, &p)
			}
			c, _ := config.Finalize(merge.Layers(ls...))
			e, _ := c.Tools.Effective("t")
			if diff := cmp.Diff(tt.want, e.Enable()); diff != "" {
				t.Errorf("Enable() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// JP's test_delta_enable_records_only_changed_subfield.
func TestEnableDeltaRecordsOnlyTheChangedField(t *testing.T) {
	prev := &config.Partial{}
	prev.Tools.Set("t", config.ToolPartial{Enable: partial.NestedOf(enable(yes, config.ToggleIfNamed))})
	next := &config.Partial{}
	next.Tools.Set("t", config.ToolPartial{Enable: partial.NestedOf(enable(no, config.ToggleIfNamed))})
	want := &config.Partial{}
	want.Tools.Set("t", config.ToolPartial{Enable: partial.NestedOf(enable(no, ""))})
	if diff := cmp.Diff(want, delta.Between(prev, next)); diff != "" {
		t.Errorf("delta mismatch (-want +got):\n%s", diff)
	}
	text, err := codec.Encode(delta.Between(prev, next), partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("[tools.t]\nenable = { state = false }\n", string(text)); diff != "" {
		t.Errorf("delta text mismatch (-want +got):\n%s", diff)
	}
}

// ToPartial writes only the fields that differ from the defaults.
func TestEnableToPartial(t *testing.T) {
	c := config.Default()
	c.Tools["*"] = config.Tool{Run: config.Always(config.RunAsk), Result: config.Always(config.ResultUnattended), Enable: &config.Enable{State: no, AllowToggle: config.ToggleAny}}
	c.Tools["t"] = config.Tool{Enable: &config.Enable{AllowToggle: config.ToggleNever}}
	p := config.ToPartial(c)
	text, err := codec.Encode(p, partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	want := "[tools.'*']\nenable = { state = false }\n\n[tools.t]\nenable = { allow_toggle = \"never\" }\n"
	if diff := cmp.Diff(want, string(text)); diff != "" {
		t.Errorf("ToPartial text mismatch (-want +got):\n%s", diff)
	}
	back, _ := config.Finalize(p)
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("finalize(ToPartial(c)) mismatch (-want +got):\n%s", diff)
	}
}

// JP's test_enable_config_serialize: strata writes an enable setting as JP
// does, as the table of the fields it sets, whichever form it was read in,
// and keeps an empty table (enable = {}) in the layer. TestEnableKept
// follows it through merge and delta.
func TestEnableWrittenAsJP(t *testing.T) {
	tests := []struct {
		name     string
		in       string // the value of tools.t.enable
		toml     string // the layer written back
		json     string
		finalRun bool // whether the tool's enable is on after finalize
	}{
		{"true", "true", "[tools.t]\nenable = { state = true, allow_toggle = \"any\" }\n", `{"tools": {"t": {"enable": {"state": true, "allow_toggle": "any"}}}}`, true},
		{"false", "false", "[tools.t]\nenable = { state = false, allow_toggle = \"any\" }\n", `{"tools": {"t": {"enable": {"state": false, "allow_toggle": "any"}}}}`, false},
		{"on", `"on"`, "[tools.t]\nenable = { state = true, allow_toggle = \"any\" }\n", `{"tools": {"t": {"enable": {"state": true, "allow_toggle": "any"}}}}`, true},
		{"always", `"always"`, "[tools.t]\nenable = { state = true, allow_toggle = \"never\" }\n", `{"tools": {"t": {"enable": {"state": true, "allow_toggle": "never"}}}}`, true},
		{"explicit", `"explicit"`, "[tools.t]\nenable = { state = false, allow_toggle = \"if_named\" }\n", `{"tools": {"t": {"enable": {"state": false, "allow_toggle": "if_named"}}}}`, false},
		{"locked off", `{ state = false, allow_toggle = "never" }`, "[tools.t]\nenable = { state = false, allow_toggle = \"never\" }\n", `{"tools": {"t": {"enable": {"state": false, "allow_toggle": "never"}}}}`, false},
		{"state alone", `{ state = true }`, "[tools.t]\nenable = { state = true }\n", `{"tools": {"t": {"enable": {"state": true}}}}`, true},
		{"allow_toggle alone", `{ allow_toggle = "if_named" }`, "[tools.t]\nenable = { allow_toggle = \"if_named\" }\n", `{"tools": {"t": {"enable": {"allow_toggle": "if_named"}}}}`, true},
		{"empty table", `{}`, "[tools.t]\nenable = {}\n", `{"tools": {"t": {"enable": {}}}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "in.toml", "[tools.t]\nenable = "+tt.in+"\n", partial.TOML)
			for _, f := range []struct {
				format partial.Format
				want   string
			}{{partial.TOML, tt.toml}, {partial.JSON, tt.json}} {
				text, err := codec.Encode(&p, f.format)
				if err != nil {
					t.Fatal(err)
				}
				got := string(text)
				if f.format == partial.JSON {
					var v any
					_ = json.Unmarshal(text, &v)
					compact, _ := json.Marshal(v)
					var w any
					_ = json.Unmarshal([]byte(f.want), &w)
					want, _ := json.Marshal(w)
					got, f.want = string(compact), string(want)
				}
				if diff := cmp.Diff(f.want, got); diff != "" {
					t.Errorf("written layer mismatch (-want +got):\n%s", diff)
				}
				back := layertest.MustDecode(t, "back", string(text), f.format)
				if diff := cmp.Diff(p, back); diff != "" {
					t.Errorf("the written layer reads back differently (-want +got):\n%s", diff)
				}
			}
			c, err := config.Finalize(&p)
			if err != nil {
				t.Fatal(err)
			}
			e, _ := c.Tools.Effective("t")
			if got := e.Enabled(); got != tt.finalRun {
				t.Errorf("Enabled() = %v, want %v", got, tt.finalRun)
			}
		})
	}
}

// An empty enable table is kept through merge, delta and ToPartial, as JP
// keeps Some(PartialEnableConfig::default()).
func TestEnableKept(t *testing.T) {
	decode := func(src string) *config.Partial {
		p := layertest.MustDecode(t, "l.toml", src, partial.TOML)
		return &p
	}
	write := func(p *config.Partial) string {
		text, err := codec.Encode(p, partial.TOML)
		if err != nil {
			t.Fatal(err)
		}
		return string(text)
	}
	tests := []struct {
		name string
		got  func() *config.Partial
		want string
	}{
		{"merged over nothing", func() *config.Partial {
			return merge.Layers(decode("[tools.t]\nsource = \"builtin\"\n"), decode("[tools.t]\nenable = {}\n"))
		}, "[tools.t]\nsource = \"builtin\"\nenable = {}\n"},
		{"merged over a state", func() *config.Partial {
			return merge.Layers(decode("[tools.t]\nenable = false\n"), decode("[tools.t]\nenable = {}\n"))
		}, "[tools.t]\nenable = { state = false, allow_toggle = \"any\" }\n"},
		{"a delta that adds it", func() *config.Partial {
			return delta.Between(decode("[tools.t]\nsource = \"builtin\"\n"), decode("[tools.t]\nsource = \"builtin\"\nenable = {}\n"))
		}, "[tools.t]\nenable = {}\n"},
		{"a delta that removes it", func() *config.Partial {
			return delta.Between(decode("[tools.t]\nsource = \"builtin\"\nenable = {}\n"), decode("[tools.t]\nsource = \"builtin\"\n"))
		}, "unset = [\"tools.t.enable\"]\n\n[tools.t]\n"},
		{"ToPartial of a tool that has it", func() *config.Partial {
			c, err := config.Finalize(decode("[tools.t]\nsource = \"builtin\"\nenable = {}\n"))
			if err != nil {
				t.Fatal(err)
			}
			return config.ToPartial(c)
		}, "[tools.t]\nsource = \"builtin\"\nenable = {}\n"},
		{"ToPartial of a locked tool", func() *config.Partial {
			c, err := config.Finalize(decode("[tools.t]\nsource = \"builtin\"\nenable = \"always\"\n"))
			if err != nil {
				t.Fatal(err)
			}
			return config.ToPartial(c)
		}, "[tools.t]\nsource = \"builtin\"\nenable = { state = true, allow_toggle = \"never\" }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, write(tt.got())); diff != "" {
				t.Errorf("layer mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
