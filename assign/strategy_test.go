package assign_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

const strategyBase = `[tools.t]
source = "builtin"
summary = "s"
enable = "explicit"
[tools.t.options]
list = [1]
text = "a"
table = { a = 1, b = { c = 1 } }
`

// TestStrategyAssignments: merge strategies inside options through --cfg
// and the environment. :+= applies the strategy to what lower layers
// give, := to the defaults.
func TestStrategyAssignments(t *testing.T) {
	one, two := int64(1), int64(2)
	tests := []struct {
		name string
		cfg  []string // --cfg arguments
		env  []string // or STRATA_ variables
		key  string
		want any
	}{
		{"append with :+=", []string{`tools.t.options.list:+={"value": [2], "strategy": "append"}`}, nil, "list", []any{one, two}},
		{"append with := starts from the defaults", []string{`tools.t.options.list:={"value": [2], "strategy": "append"}`}, nil, "list", []any{two}},
		{"prepend inside an object", []string{`tools.t.options:+={"list": {"value": [0], "strategy": "prepend"}}`}, nil, "list", []any{int64(0), one}},
		{"string append with a separator", []string{`tools.t.options.text:+={"value": "b", "strategy": "append", "separator": "space"}`}, nil, "text", "a b"},
		{"string prepend with :=", []string{`tools.t.options.text:={"value": "b", "strategy": "prepend", "separator": "line"}`}, nil, "text", "b"},
		{"keep", []string{`tools.t.options.table:+={"value": {"a": 2, "d": 4}, "strategy": "keep"}`}, nil, "table",
			map[string]any{"a": one, "b": map[string]any{"c": one}, "d": int64(4)}},
		{"shallow merge", []string{`tools.t.options.table:+={"value": {"b": {"e": 2}}, "strategy": "merge"}`}, nil, "table",
			map[string]any{"a": one, "b": map[string]any{"e": two}}},
		{"replace", []string{`tools.t.options.table:+={"value": {"z": 0}, "strategy": "replace"}`}, nil, "table", map[string]any{"z": int64(0)}},
		{"keep a level down", []string{`tools.t.options.table.b:+={"value": {"c": 5, "f": 6}, "strategy": "keep"}`}, nil, "table",
			map[string]any{"a": one, "b": map[string]any{"c": one, "f": int64(6)}}},
		{"+= appends text items", []string{"tools.t.options.list+=2,3"}, nil, "list", []any{one, "2", "3"}},
		{":+= appends an array", []string{"tools.t.options.list:+=[2, 3]"}, nil, "list", []any{one, two, int64(3)}},
		{"two appends", []string{"tools.t.options.list+=2", `tools.t.options.list:+={"value": [3], "strategy": "append"}`}, nil, "list", []any{one, "2", int64(3)}},
		{"env :+ append", nil, []string{`STRATA_TOOLS_T_OPTIONS_LIST=:+{"value": [2], "strategy": "append"}`}, "list", []any{one, two}},
		{"env +: prepend text", nil, []string{`STRATA_TOOLS_T_OPTIONS_TEXT=+:{"value": "z", "strategy": "prepend"}`}, "text", "za"},
		{"env keep", nil, []string{`STRATA_TOOLS_T_OPTIONS_TABLE=:+{"value": {"a": 9, "q": 1}, "strategy": "keep"}`}, "table",
			map[string]any{"a": one, "b": map[string]any{"c": one}, "q": one}},
		{"env := fill", nil, []string{`STRATA_TOOLS_T_OPTIONS_NEW=:{"value": 5, "strategy": "fill"}`}, "new", int64(5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "base.toml", strategyBase, partial.TOML)
			var as []assign.Assignment
			for i, s := range tt.cfg {
				a, err := assign.Parse(s)
				if err != nil {
					t.Fatal(err)
				}
				a.Source = "--cfg #" + string(rune('1'+i))
				as = append(as, a)
			}
			if tt.env != nil {
				var err error
				if as, err = assign.Env(&p, "STRATA", tt.env); err != nil {
					t.Fatal(err)
				}
			}
			// Each assignment's layer, merged over what lies below, gives
			// what applying it gives.
			layered := merge.Layers(&p)
			for _, a := range as {
				l, err := assign.Layer(layered, a)
				if err != nil {
					t.Fatalf("Layer(%s): %v", a, err)
				}
				layered = merge.Layers(layered, l)
			}
			if err := assign.Apply(&p, as...); err != nil {
				t.Fatal(err)
			}
			for what, q := range map[string]*config.Partial{"applied": &p, "layered": layered} {
				c, _ := config.Finalize(q)
				if diff := cmp.Diff(tt.want, c.Tools["t"].Options[tt.key]); diff != "" {
					t.Errorf("%s: options.%s mismatch (-want +got):\n%s", what, tt.key, diff)
				}
			}
		})
	}
}

func TestStrategyAssignmentErrors(t *testing.T) {
	tests := []struct {
		name, cfg, want string
	}{
		{"misspelt strategy", `tools.t.options.list:+={"value": [2], "strategy": "apend"}`,
			`--cfg: tools.t.options.list.strategy: unknown strategy "apend" for an array; expected one of append, prepend, wrap, replace, fill; did you mean append?`},
		{"strategy of another kind", `tools.t.options.table:+={"value": 1, "strategy": "keep"}`,
			`--cfg: tools.t.options.table.value: strategy keep does not apply to a number or boolean (integer 1); it applies to tables`},
		{"+= over a table", "tools.t.options.table+=1",
			"--cfg: tools.t.options.table: is a table; += appends to arrays; use :+= with a JSON object to merge into it"},
		{"+= over a string", "tools.t.options.text+=b",
			"--cfg: tools.t.options.text: holds a single value; += appends to arrays; set it with = or :="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := layertest.MustDecode(t, "base.toml", strategyBase, partial.TOML)
			before := merge.Layers(&p)
			a, err := assign.Parse(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			a.Source = "--cfg"
			err = assign.Apply(&p, a)
			if err == nil {
				t.Fatal("Apply succeeded, want an error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, &p); diff != "" {
				t.Errorf("a failed assignment changed the layer (-want +got):\n%s", diff)
			}
		})
	}
}
