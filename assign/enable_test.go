package assign_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/partial"
)

// TestEnableAssignments: JP's test_enable_assign_kv and the JSON merges of
// test_tool_config_json_merge_*, and strata's own spellings.
func TestEnableAssignments(t *testing.T) {
	yes, no := layertest.Ptr(true), layertest.Ptr(false)
	tests := []struct {
		name string
		cfg  []string
		env  []string
		want *config.Enable // tools.t's own, after the base's explicit
	}{
		{"true", []string{"tools.t.enable=true"}, nil, &config.Enable{State: yes, AllowToggle: config.ToggleAny}},
		{"explicit", []string{"tools.t.enable=explicit"}, nil, &config.Enable{State: no, AllowToggle: config.ToggleIfNamed}},
		{"JSON false", []string{"tools.t.enable:=false"}, nil, &config.Enable{State: no, AllowToggle: config.ToggleAny}},
		{"allow_toggle alone", []string{"tools.t.enable.allow_toggle=if_named_or_group"}, nil, &config.Enable{State: no, AllowToggle: config.ToggleIfNamedOrGroup}},
		{"state alone", []string{"tools.t.enable.state=true"}, nil, &config.Enable{State: yes, AllowToggle: config.ToggleIfNamed}},
		{"strata's boolean allow_toggle", []string{"tools.t.enable.allow_toggle=false"}, nil, &config.Enable{State: no, AllowToggle: config.ToggleNever}},
		{"a table replaces both with :=", []string{`tools.t.enable:={"allow_toggle": "never"}`}, nil, &config.Enable{AllowToggle: config.ToggleNever}},
		{"a table merges with :+=", []string{`tools.t.enable:+={"allow_toggle": "never"}`}, nil, &config.Enable{State: no, AllowToggle: config.ToggleNever}},
		{"JSON merge into the tool", []string{`tools.t:+={"enable": true, "run": "unattended"}`}, nil, &config.Enable{State: yes, AllowToggle: config.ToggleAny}},
		{"JSON null clears enable", []string{`tools.t:+={"enable": null, "run": null}`}, nil, nil},
		{"unset one field", []string{"tools.t.enable.state:=null"}, nil, &config.Enable{AllowToggle: config.ToggleIfNamed}},
		{"env shorthand", nil, []string{"STRATA_TOOLS_T_ENABLE=always"}, &config.Enable{State: yes, AllowToggle: config.ToggleNever}},
		{"env allow_toggle", nil, []string{"STRATA_TOOLS_T_ENABLE_ALLOW_TOGGLE=never"}, &config.Enable{State: no, AllowToggle: config.ToggleNever}},
		{"env state", nil, []string{"STRATA_TOOLS_T_ENABLE_STATE=true"}, &config.Enable{State: yes, AllowToggle: config.ToggleIfNamed}},
		{"env JSON table", nil, []string{`STRATA_TOOLS_T_ENABLE=:+{"state": true}`}, &config.Enable{State: yes, AllowToggle: config.ToggleIfNamed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "base.toml", strategyBase, partial.TOML)
			var as []assign.Assignment
			for _, s := range tt.cfg {
				a, err := assign.Parse(s)
				if err != nil {
					t.Fatal(err)
				}
				as = append(as, a)
			}
			if tt.env != nil {
				var err error
				if as, err = assign.Env(&p, "STRATA", tt.env); err != nil {
					t.Fatal(err)
				}
			}
			if err := assign.Apply(&p, as...); err != nil {
				t.Fatal(err)
			}
			c, _ := config.Finalize(&p)
			if diff := cmp.Diff(tt.want, c.Tools["t"].Enable); diff != "" {
				t.Errorf("enable mismatch (-want +got):\n%s", diff)
			}
			if c.Tools["t"].Source.Kind != config.SourceBuiltin || c.Tools["t"].Summary != "s" {
				t.Errorf("the assignment lost the tool's other fields: %+v", c.Tools["t"])
			}
		})
	}
}
