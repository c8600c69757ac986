package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// TestJPEnableCases holds strata to every assertion JP makes of its enable
// setting (github.com/dcdpr/jp at 4c1c39f1, after RFD 081 made enable the
// pair { state, allow_toggle }): jp_config's conversation/tool_tests.rs
// (test_enable_*, and the enable assertions of test_format_mode_*,
// test_tools_config and test_tool_config_json_merge_*), fs_tests.rs (the
// merges into an inline enable table) and jp_conversation's
// compat_tests.rs (legacy strings of stored configs). Each case is one
// assertion, in strata's terms: JP's bool and legacy strings read as both
// fields, its tables field by field, and a layer written back as the
// table of the fields it sets ("Output is always the table form", JP's
// test_enable_config_serialize). One JP assertion has no counterpart:
// test_locked_off_tool_choice_is_rejected is about assistant.tool_choice,
// which strata has not.
func TestJPEnableCases(t *testing.T) {
	var (
		on        = enable(yes, config.ToggleAny)
		off       = enable(no, config.ToggleAny)
		lockedOn  = enable(yes, config.ToggleNever)
		lockedOff = enable(no, config.ToggleNever)
		explicit  = enable(no, config.ToggleIfNamed)
	)
	// read reads v as JP's Deserialize, From<bool> and FromStr do.
	read := func(v any) any {
		var e config.EnablePartial
		if err := e.UnmarshalValue(v); err != nil {
			return "error"
		}
		return e
	}
	// written is the TOML value a layer of tools.t with e is written with.
	written := func(e config.EnablePartial) any {
		p := config.Partial{}
		p.Tools.Set("t", config.ToolPartial{Enable: partial.NestedOf(e)})
		text, err := codec.Encode(&p, partial.TOML)
		if err != nil {
			return err.Error()
		}
		return string(text)
	}
	layer := func(v string) string { return "[tools.t]\nenable = " + v + "\n" }
	// merged is the enable of tools.t in the merge of layers (TOML, lowest
	// first), as a partial.
	merged := func(layers ...string) any {
		var ls []*config.Partial
		for _, src := range layers {
			p := layertest.MustDecode(t, "l.toml", src, partial.TOML)
			ls = append(ls, &p)
		}
		m := merge.Layers(ls...)
		return enableOfT(m)
	}
	// assigned is the enable of tools.t after the assignments, over the
	// layer base.
	assigned := func(base string, kvs ...string) any {
		p := layertest.MustDecode(t, "base.toml", base, partial.TOML)
		for _, kv := range kvs {
			a, err := assign.Parse(kv)
			if err != nil {
				return err.Error()
			}
			if err := assign.Apply(&p, a); err != nil {
				return err.Error()
			}
		}
		return enableOfT(&p)
	}
	// effective is the resolved enable of tool name in the layer src.
	effective := func(src, name string) any {
		p := layertest.MustDecode(t, "l.toml", src, partial.TOML)
		c, err := config.Finalize(&p)
		if err != nil {
			return err.Error()
		}
		e, _ := c.Tools.Effective(name)
		return e.Enable()
	}
	accepts := func(a config.AllowToggle) any {
		return []bool{a == config.ToggleNever, a.Accepts(config.ScopeAll), a.Accepts(config.ScopeNamed), a.Accepts(config.ScopeGroup)}
	}
	full := func(state bool, a config.AllowToggle) config.Enable {
		return config.Enable{State: &state, AllowToggle: a}
	}

	tests := []struct {
		name      string
		got, want any
	}{
		// test_enable_config_from_bool
		{"from_bool/true", read(true), on},
		{"from_bool/false", read(false), off},
		// test_enable_config_from_str
		{"from_str/true", read("true"), on},
		{"from_str/on", read("on"), on},
		{"from_str/false", read("false"), off},
		{"from_str/off", read("off"), off},
		{"from_str/always is locked on", read("always"), lockedOn},
		{"from_str/explicit is off unless named", read("explicit"), explicit},
		{"from_str/invalid", read("invalid"), "error"},
		// test_enable_config_serialize: always the table, of the fields set
		{"serialize/ON", written(on), layer(`{ state = true, allow_toggle = "any" }`)},
		{"serialize/OFF", written(off), layer(`{ state = false, allow_toggle = "any" }`)},
		{"serialize/LOCKED_ON", written(lockedOn), layer(`{ state = true, allow_toggle = "never" }`)},
		{"serialize/LOCKED_OFF", written(lockedOff), layer(`{ state = false, allow_toggle = "never" }`)},
		{"serialize/state alone", written(enable(yes, "")), layer(`{ state = true }`)},
		{"serialize/allow_toggle alone", written(enable(nil, config.ToggleIfNamed)), layer(`{ allow_toggle = "if_named" }`)},
		{"serialize/default", written(config.EnablePartial{}), layer(`{}`)},
		// test_enable_config_deserialize
		{"deserialize/true", read(true), on},
		{"deserialize/false", read(false), off},
		{"deserialize/on", read("on"), on},
		{"deserialize/always", read("always"), lockedOn},
		{"deserialize/explicit", read("explicit"), explicit},
		{"deserialize/state alone", read(map[string]any{"state": true}), enable(yes, "")},
		{"deserialize/allow_toggle alone", read(map[string]any{"allow_toggle": "if_named_or_group"}), enable(nil, config.ToggleIfNamedOrGroup)},
		{"deserialize/locked off", read(map[string]any{"state": false, "allow_toggle": "never"}), lockedOff},
		{"deserialize/any", read(map[string]any{"allow_toggle": "any"}), enable(nil, config.ToggleAny)},
		{"deserialize/allow_toggle always is refused", read(map[string]any{"allow_toggle": "always"}), "error"},
		// test_format_mode_survives_merge_with_persona_override
		{"persona merge/enable = true over false", merged("[tools.t]\nsource = \"local\"\nenable = false\n", "[tools.t]\nenable = true\n"), on},
		// test_enable_assign_kv: one after the other
		{"assign_kv/true", assigned("", "tools.t.enable=true"), on},
		{"assign_kv/explicit", assigned("", "tools.t.enable=true", "tools.t.enable=explicit"), explicit},
		{"assign_kv/json false", assigned("", "tools.t.enable=true", "tools.t.enable=explicit", "tools.t.enable:=false"), off},
		{"assign_kv/allow_toggle alone", assigned("", "tools.t.enable:=false", "tools.t.enable.allow_toggle=if_named"), explicit},
		{"assign_kv/state alone", assigned("", "tools.t.enable:=false", "tools.t.enable.allow_toggle=if_named", "tools.t.enable.state=true"), enable(yes, config.ToggleIfNamed)},
		// test_tools_config
		{"tools_config/cargo_check.enable=true", assigned("[tools.t]\nsource = \"local\"\nenable = false\n", "tools.t.enable=true"), on},
		// test_tool_config_json_merge_*
		{"json_merge/preserves existing fields", assigned("[tools.t]\nsource = \"local\"\nenable = false\n", `tools.t:+={"enable":true,"run":"unattended"}`), on},
		{"json_merge/null clears", assigned("[tools.t]\nsource = \"local\"\nenable = true\n", `tools.t:+={"enable":null,"run":null}`), "absent"},
		{"json_merge/nested object", assigned("[tools.t]\nsource = \"local\"\nenable = false\n", `tools.t:+={"enable":true,"options":{"hidden":true}}`), on},
		// test_enable_effective_fills_from_defaults_then_fallback
		{"effective/nothing set", effective("[tools.t]\nsource = \"builtin\"\n", "t"), full(true, config.ToggleAny)},
		{"effective/state from the tool, allow_toggle from the defaults", effective("[tools.'*']\nenable = \"explicit\"\n[tools.t]\nsource = \"builtin\"\nenable.state = true\n", "t"), full(true, config.ToggleIfNamed)},
		// test_enable_accepts_by_scope: locked, bulk, named, group
		{"accepts/never", accepts(config.ToggleNever), []bool{true, false, false, false}},
		{"accepts/any", accepts(config.ToggleAny), []bool{false, true, true, true}},
		{"accepts/if_named", accepts(config.ToggleIfNamed), []bool{false, false, true, false}},
		{"accepts/if_named_or_group", accepts(config.ToggleIfNamedOrGroup), []bool{false, false, true, true}},
		// test_enable_cross_layer_merge_preserves_other_field
		{"cross_layer/state below, allow_toggle above", merged(layer("{ state = true }"), layer(`{ allow_toggle = "never" }`)), lockedOn},
		{"cross_layer/a bool above sets both", merged(layer(`{ allow_toggle = "if_named" }`), layer("true")), on},
		// test_enable_cross_key_defaults_inheritance
		{"cross_key/foo: state its own, allow_toggle from '*'", effective("[tools.'*']\nenable = \"explicit\"\n[tools.foo]\nsource = \"builtin\"\nenable = { state = true }\n[tools.bar]\nsource = \"builtin\"\n", "foo"), full(true, config.ToggleIfNamed)},
		{"cross_key/bar: both from '*'", effective("[tools.'*']\nenable = \"explicit\"\n[tools.foo]\nsource = \"builtin\"\nenable = { state = true }\n[tools.bar]\nsource = \"builtin\"\n", "bar"), full(false, config.ToggleIfNamed)},
		// test_delta_enable_records_only_changed_subfield
		{"delta/only the changed field", func() any {
			prev := layertest.MustDecode(t, "prev.toml", layer(`{ state = true, allow_toggle = "if_named" }`), partial.TOML)
			next := layertest.MustDecode(t, "next.toml", layer(`{ state = false, allow_toggle = "if_named" }`), partial.TOML)
			text, _ := codec.Encode(delta.Between(&prev, &next), partial.TOML)
			return string(text)
		}(), layer("{ state = false }")},
		// jp_conversation: legacy_enable_strings_survive_compat_deserialization
		{"compat/always", read("always"), lockedOn},
		{"compat/explicit", read("explicit"), explicit},
		{"compat/off", read("off"), off},
		// fs_tests: merges into an inline enable table keep its other field
		{"fs/deep_merge_recurses_into_inline_table", merged(layer(`{ state = true, allow_toggle = "never" }`), "[tools.t.enable]\nstate = false\n"), lockedOff},
		{"fs/deep_merge_recurses_inline_table_into_inline_table", merged(layer(`{ state = true, allow_toggle = "never" }`), layer("{ state = false }")), lockedOff},
		{"fs/merge_delta_preserves_inline_table_enable_siblings", merged("[tools.t]\nsource = \"builtin\"\nenable = { state = true, allow_toggle = \"never\" }\n", layer("{ state = false }")), lockedOff},
	}
	agree := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("JP says otherwise (-JP +strata):\n%s", diff)
				return
			}
			agree++
		})
	}
	t.Logf("%d of JP's %d enable cases agree", agree, len(tests))
}

// enableOfT is the enable of tools.t in p, or "absent".
func enableOfT(p *config.Partial) any {
	tp := p.Tools.Get("t")
	if tp == nil {
		return "absent"
	}
	if tp.Enable.State != partial.Present {
		return "absent"
	}
	return *tp.Enable.V
}
