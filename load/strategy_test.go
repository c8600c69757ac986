package load_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/partial"
)

// option decodes body as tools.t.options and returns option x.
func option(t *testing.T, body string, f partial.Format) partial.Any {
	t.Helper()
	src := "[tools.t.options]\n" + body
	if f == partial.JSON {
		src = `{"tools": {"t": {"options": {"x": ` + body + `}}}}`
	}
	p := layertest.MustDecode(t, "f", src, f)
	return *p.Tools.Get("t").Options.Get("x")
}

func table(entries map[string]*partial.Any) *partial.Map[partial.Any] {
	return &partial.Map[partial.Any]{Entries: entries}
}

// TestDecodeStrategies checks the layer each strategy table reads as.
func TestDecodeStrategies(t *testing.T) {
	one, two := int64(1), int64(2)
	tests := []struct {
		name   string
		format partial.Format
		body   string
		want   partial.Any
	}{
		{"plain array replaces", partial.TOML, "x = [1]", partial.Any{State: partial.Present, V: []any{one}}},
		{"array append", partial.TOML, `x = { value = [1], strategy = "append" }`,
			partial.Any{State: partial.Present, V: []any{one}, Head: []any{}, Tail: []any{one}}},
		{"array prepend", partial.TOML, `x = { value = [1], strategy = "prepend" }`,
			partial.Any{State: partial.Present, V: []any{one}, Head: []any{one}, Tail: []any{}}},
		{"array replace", partial.TOML, `x = { value = [1], strategy = "replace" }`, partial.Any{State: partial.Present, V: []any{one}}},
		{"string append with a separator", partial.TOML, `x = { value = "b", strategy = "append", separator = "line" }`,
			partial.Any{State: partial.Present, V: "b", Head: "", Tail: "\nb"}},
		{"string prepend with a separator", partial.TOML, `x = { value = "a", strategy = "prepend", separator = "paragraph" }`,
			partial.Any{State: partial.Present, V: "a", Head: "a\n\n", Tail: ""}},
		{"wrap with a fill", partial.TOML, `x = { value = "v", strategy = "wrap", prepend = "<", fill = "f" }`,
			partial.Any{State: partial.Present, V: "v", Head: "<", Tail: "", Fill: "f"}},
		{"table deep_merge is a plain table", partial.TOML, `x = { value = { a = 1 }, strategy = "deep_merge" }`,
			partial.Any{State: partial.Present, Table: table(map[string]*partial.Any{"a": {State: partial.Present, V: one}})}},
		{"table replace merges into nothing", partial.TOML, `x = { value = { a = 1 }, strategy = "replace" }`,
			partial.Any{State: partial.Present, Base: partial.BaseEmpty, Table: table(map[string]*partial.Any{"a": {State: partial.Present, V: one}})}},
		{"table merge replaces each key", partial.TOML, `x = { value = { a = { b = 2 } }, strategy = "merge" }`,
			partial.Any{State: partial.Present, Table: table(map[string]*partial.Any{"a": {State: partial.Present, Base: partial.BaseEmpty, Table: table(map[string]*partial.Any{"b": {State: partial.Present, V: two}})}})}},
		{"table keep fills each key", partial.TOML, `x = { value = { a = 1, b = { c = 2 } }, strategy = "keep" }`,
			partial.Any{State: partial.Present, Table: table(map[string]*partial.Any{"a": {State: partial.Present, Fill: one}, "b": {State: partial.Present, Fill: map[string]any{"c": two}}})}},
		{"fill", partial.TOML, `x = { value = 1, strategy = "fill" }`, partial.Any{State: partial.Present, Fill: one}},
		{"a table with value and strategy, given as a value", partial.TOML, `x = { value = { value = 1, strategy = "s" }, strategy = "replace" }`,
			partial.Any{State: partial.Present, Base: partial.BaseEmpty, Table: table(map[string]*partial.Any{"value": {State: partial.Present, V: one}, "strategy": {State: partial.Present, V: "s"}})}},
		{"dotted keys make a strategy table too", partial.TOML, "x.value = [1]\nx.strategy = \"prepend\"",
			partial.Any{State: partial.Present, V: []any{one}, Head: []any{one}, Tail: []any{}}},
		{"JSON null in a replaced table unsets the key", partial.JSON, `{"value": {"a": null}, "strategy": "replace"}`,
			partial.Any{State: partial.Present, Base: partial.BaseEmpty, Table: table(map[string]*partial.Any{"a": nil})}},
		{"JSON strategy inside an array gives its value", partial.JSON, `[{"value": [1], "strategy": "append"}]`,
			partial.Any{State: partial.Present, V: []any{[]any{one}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, option(t, tt.body, tt.format)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeStrategyErrors: a table with value and strategy is a merge
// strategy; anything wrong in it is reported where it is.
func TestDecodeStrategyErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want layertest.Problem
	}{
		{"misspelt strategy", `x = { value = [1], strategy = "apend" }`, layertest.Problem{
			Err:  `f.toml:2:31: tools.t.options.x.strategy: unknown strategy "apend" for an array; expected one of append, prepend, wrap, replace, fill; did you mean append?`,
			Line: 2, Column: 31, Path: partial.Path{"tools", "t", "options", "x", "strategy"}, Hint: "did you mean append?",
		}},
		{"strategy for another kind", `x = { value = 1, strategy = "append" }`, layertest.Problem{
			Err:  `f.toml:2:15: tools.t.options.x.value: strategy append does not apply to a number or boolean (integer 1); it applies to arrays and strings`,
			Line: 2, Column: 15, Path: partial.Path{"tools", "t", "options", "x", "value"},
		}},
		{"keep of an array", `x = { value = [1], strategy = "keep" }`, layertest.Problem{
			Err:  `f.toml:2:15: tools.t.options.x.value: strategy keep does not apply to an array; it applies to tables`,
			Line: 2, Column: 15, Path: partial.Path{"tools", "t", "options", "x", "value"},
		}},
		{"strategy not a string", `x = { value = {}, strategy = 3 }`, layertest.Problem{
			Err:  `f.toml:2:30: tools.t.options.x.strategy: expected a strategy name (deep_merge, merge, keep, replace, fill), found integer 3`,
			Line: 2, Column: 30, Path: partial.Path{"tools", "t", "options", "x", "strategy"},
		}},
		{"unknown separator", `x = { value = "s", strategy = "append", separator = "tab" }`, layertest.Problem{
			Err:  `f.toml:2:53: tools.t.options.x.separator: expected one of none, space, line, paragraph, found string "tab"`,
			Line: 2, Column: 53, Path: partial.Path{"tools", "t", "options", "x", "separator"},
		}},
		{"misspelt separator", `x = { value = "s", strategy = "append", separator = "lines" }`, layertest.Problem{
			Err:  `f.toml:2:53: tools.t.options.x.separator: expected one of none, space, line, paragraph, found string "lines"; did you mean line?`,
			Line: 2, Column: 53, Path: partial.Path{"tools", "t", "options", "x", "separator"}, Hint: "did you mean line?",
		}},
		{"separator of an array", `x = { value = [1], strategy = "append", separator = "line" }`, layertest.Problem{
			Err:  `f.toml:2:41: tools.t.options.x.separator: separator goes with strategy append or prepend of a string`,
			Line: 2, Column: 41, Path: partial.Path{"tools", "t", "options", "x", "separator"},
		}},
		{"unknown key, as JP's dedup", `x = { value = [1], strategy = "append", dedup = true }`, layertest.Problem{
			Err:  `f.toml:2:41: tools.t.options.x.dedup: unknown key in a merge strategy (a table with value and strategy); a merge strategy has the keys value, strategy, separator, prepend, append, fill`,
			Line: 2, Column: 41, Path: partial.Path{"tools", "t", "options", "x", "dedup"}, Hint: "a merge strategy has the keys value, strategy, separator, prepend, append, fill",
		}},
		{"misspelt key", `x = { value = [1], strategy = "wrap", prepnd = [0] }`, layertest.Problem{
			Err:  `f.toml:2:39: tools.t.options.x.prepnd: unknown key in a merge strategy (a table with value and strategy); did you mean prepend?`,
			Line: 2, Column: 39, Path: partial.Path{"tools", "t", "options", "x", "prepnd"}, Hint: "did you mean prepend?",
		}},
		{"fill of another kind", `x = { value = [1], strategy = "append", fill = "x" }`, layertest.Problem{
			Err:  `f.toml:2:48: tools.t.options.x.fill: fill must be an array, as value is; found string "x"`,
			Line: 2, Column: 48, Path: partial.Path{"tools", "t", "options", "x", "fill"},
		}},
		{"prepend without wrap", `x = { value = [1], strategy = "append", prepend = [0] }`, layertest.Problem{
			Err:  `f.toml:2:41: tools.t.options.x.prepend: prepend goes with strategy wrap; write { value = ..., strategy = "wrap", prepend = ..., append = ... }`,
			Line: 2, Column: 41, Path: partial.Path{"tools", "t", "options", "x", "prepend"}, Hint: `write { value = ..., strategy = "wrap", prepend = ..., append = ... }`,
		}},
		{"nested strategy", `x = { a = { b = { value = [1], strategy = "merge" } } }`, layertest.Problem{
			Err:  `f.toml:2:27: tools.t.options.x.a.b.value: strategy merge does not apply to an array; it applies to tables`,
			Line: 2, Column: 27, Path: partial.Path{"tools", "t", "options", "x", "a", "b", "value"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "[tools.t.options]\n" + tt.body + "\n"
			_, err := layertest.Decode(t, "f.toml", src, partial.TOML)
			if err == nil {
				t.Fatal("Decode succeeded, want an error")
			}
			tt.want.Snippet = tt.body
			if diff := cmp.Diff([]layertest.Problem{tt.want}, layertest.Problems(err)); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// Null inside a value taken as it is has no default to go back to.
	_, err := layertest.Decode(t, "f.json", `{"tools": {"t": {"options": {"x": {"value": {"b": null}, "strategy": "keep"}}}}}`, partial.JSON)
	want := []layertest.Problem{{
		Err:  "f.json:1:51: tools.t.options.x.value.b: null is not allowed inside a value",
		Line: 1, Column: 51, Path: partial.Path{"tools", "t", "options", "x", "value", "b"},
		Snippet: `{"tools": {"t": {"options": {"x": {"value": {"b": null}, "strategy": "keep"}}}}}`,
	}}
	if diff := cmp.Diff(want, layertest.Problems(err)); diff != "" {
		t.Errorf("null in a keep value: problems mismatch (-want +got):\n%s", diff)
	}
}
