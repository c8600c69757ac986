package merge_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// optionLayers decodes each body as the [tools.t.options] table of a layer.
func optionLayers(t *testing.T, bodies ...string) []*config.Partial {
	t.Helper()
	var out []*config.Partial
	for i, b := range bodies {
		p := layertest.MustDecode(t, fmt.Sprintf("layer%d.toml", i+1), "[tools.t.options]\n"+b, partial.TOML)
		out = append(out, &p)
	}
	return out
}

// options finalizes layer p with defaults def and returns tool t's options.
func options(t *testing.T, p *config.Partial, def config.Config) map[string]any {
	t.Helper()
	c, _ := partial.Finalize(p, def)
	return c.Tools["t"].Options
}

// TestOptionStrategies covers each strategy for each kind of value, JP's
// own cases (types/json_value_tests.rs) first. Every case is also merged
// the other way round (associativity), and its merged layer written out
// and read back.
func TestOptionStrategies(t *testing.T) {
	tests := []struct {
		name   string
		layers []string
		want   map[string]any
	}{
		// JP: default merge, without a strategy.
		{"primitives replace", []string{"x = 42", "x = 99"}, map[string]any{"x": int64(99)}},
		{"objects merge deep by default", []string{"x = { web = { host = \"localhost\", port = 3000 } }", "x = { web = { port = 8080 }, log = true }"},
			map[string]any{"x": map[string]any{"web": map[string]any{"host": "localhost", "port": int64(8080)}, "log": true}}},
		{"nested objects, three levels", []string{"x.a.b = { c = 1, d = 2 }", "x.a.b = { c = 10, e = 3 }"},
			map[string]any{"x": map[string]any{"a": map[string]any{"b": map[string]any{"c": int64(10), "d": int64(2), "e": int64(3)}}}}},
		{"object replaces primitive", []string{"x = \"old\"", "x = { key = \"val\" }"}, map[string]any{"x": map[string]any{"key": "val"}}},
		{"primitive replaces object", []string{"x = { key = \"val\" }", "x = 42"}, map[string]any{"x": int64(42)}},
		{"arrays replace by default", []string{"x = [1, 2]", "x = [3, 4]"}, map[string]any{"x": []any{int64(3), int64(4)}}},
		// JP: array strategies.
		{"array append", []string{"x = [1, 2]", `x = { value = [3, 4], strategy = "append" }`}, map[string]any{"x": []any{int64(1), int64(2), int64(3), int64(4)}}},
		{"array prepend", []string{"x = [3, 4]", `x = { value = [1, 2], strategy = "prepend" }`}, map[string]any{"x": []any{int64(1), int64(2), int64(3), int64(4)}}},
		{"array replace", []string{"x = [1, 2]", `x = { value = [3], strategy = "replace" }`}, map[string]any{"x": []any{int64(3)}}},
		{"append over a non-array takes the value", []string{`x = "not an array"`, `x = { value = [1, 2], strategy = "append" }`}, map[string]any{"x": []any{int64(1), int64(2)}}},
		// JP: object strategies.
		{"object replace", []string{"x = { a = 1, b = 2 }", `x = { value = { a = 10 }, strategy = "replace" }`}, map[string]any{"x": map[string]any{"a": int64(10)}}},
		{"object deep_merge", []string{"x = { a = { x = 1 }, b = 2 }", `x = { value = { a = { y = 3 }, c = 4 }, strategy = "deep_merge" }`},
			map[string]any{"x": map[string]any{"a": map[string]any{"x": int64(1), "y": int64(3)}, "b": int64(2), "c": int64(4)}}},
		{"object shallow merge", []string{"x = { a = { x = 1 }, b = 2 }", `x = { value = { a = { y = 3 }, c = 4 }, strategy = "merge" }`},
			map[string]any{"x": map[string]any{"a": map[string]any{"y": int64(3)}, "b": int64(2), "c": int64(4)}}},
		{"object keep", []string{"x = { a = { x = 1 }, b = 2 }", `x = { value = { a = { y = 3 }, c = 4 }, strategy = "keep" }`},
			map[string]any{"x": map[string]any{"a": map[string]any{"x": int64(1)}, "b": int64(2), "c": int64(4)}}},
		{"keep fills nothing", []string{`x = { value = { a = 1 }, strategy = "keep" }`}, map[string]any{"x": map[string]any{"a": int64(1)}}},
		{"keep over a non-table takes the value", []string{"x = 5", `x = { value = { a = 1 }, strategy = "keep" }`}, map[string]any{"x": map[string]any{"a": int64(1)}}},
		// JP: string strategies.
		{"string replace", []string{`x = "hello"`, `x = { value = "world", strategy = "replace" }`}, map[string]any{"x": "world"}},
		{"string append", []string{`x = "hello"`, `x = { value = " world", strategy = "append" }`}, map[string]any{"x": "hello world"}},
		{"string prepend", []string{`x = "world"`, `x = { value = "hello ", strategy = "prepend" }`}, map[string]any{"x": "hello world"}},
		{"string append with a line", []string{`x = "line1"`, `x = { value = "line2", strategy = "append", separator = "line" }`}, map[string]any{"x": "line1\nline2"}},
		{"string prepend with a paragraph", []string{`x = "line2"`, `x = { value = "line1", strategy = "prepend", separator = "paragraph" }`}, map[string]any{"x": "line1\n\nline2"}},
		{"string append with a space", []string{`x = "a"`, `x = { value = "b", strategy = "append", separator = "space" }`}, map[string]any{"x": "a b"}},
		{"append to a non-string takes the value", []string{"x = 42", `x = { value = "hello", strategy = "append" }`}, map[string]any{"x": "hello"}},
		{"append with a separator to nothing takes the value", []string{`x = { value = "hello", strategy = "append", separator = "line" }`}, map[string]any{"x": "hello"}},
		{"append with a separator to an empty string keeps it", []string{`x = ""`, `x = { value = "hello", strategy = "append", separator = "line" }`}, map[string]any{"x": "\nhello"}},
		// JP: an annotation inside a nested object; finalize strips them.
		{"strategy inside a nested table", []string{`x = { tags = ["a", "b"], name = "test" }`, `x = { tags = { value = ["c"], strategy = "append" }, name = "updated" }`},
			map[string]any{"x": map[string]any{"tags": []any{"a", "b", "c"}, "name": "updated"}}},
		{"one layer: an array strategy gives its value", []string{`x = { value = [1, 2], strategy = "append" }`}, map[string]any{"x": []any{int64(1), int64(2)}}},
		{"one layer: a keep inside a table gives its value", []string{`x = { server = { value = { port = 3000 }, strategy = "keep" } }`}, map[string]any{"x": map[string]any{"server": map[string]any{"port": int64(3000)}}}},
		{"one layer: a string strategy gives its value", []string{`x = { value = "extra", strategy = "append", separator = "line" }`}, map[string]any{"x": "extra"}},
		// Other kinds of value.
		{"number replace", []string{"x = 1", `x = { value = 2.5, strategy = "replace" }`}, map[string]any{"x": 2.5}},
		{"bool replace", []string{"x = true", `x = { value = false, strategy = "replace" }`}, map[string]any{"x": false}},
		{"fill keeps what is there", []string{"x = 1", `x = { value = 2, strategy = "fill" }`}, map[string]any{"x": int64(1)}},
		{"fill where nothing is", []string{"y = 1", `x = { value = [2], strategy = "fill" }`}, map[string]any{"x": []any{int64(2)}, "y": int64(1)}},
		{"a table given as a value is a table", []string{`x = { value = { value = 1, strategy = "lru" }, strategy = "replace" }`}, map[string]any{"x": map[string]any{"value": int64(1), "strategy": "lru"}}},
		{"a table with value and strategy through deep_merge", []string{"x = { value = 0, size = 1 }", `x = { value = { strategy = "lru" }, strategy = "deep_merge" }`}, map[string]any{"x": map[string]any{"value": int64(0), "size": int64(1), "strategy": "lru"}}},
		{"a strategy inside an array gives its value", []string{`x = [{ value = [1], strategy = "append" }, { a = { value = "s", strategy = "prepend" } }]`}, map[string]any{"x": []any{[]any{int64(1)}, map[string]any{"a": "s"}}}},
		// strata's own: wrap, and fill before another strategy.
		{"wrap an array", []string{"x = [2]", `x = { value = [], strategy = "wrap", prepend = [1], append = [3] }`}, map[string]any{"x": []any{int64(1), int64(2), int64(3)}}},
		{"wrap a string", []string{`x = "b"`, `x = { value = "none", strategy = "wrap", prepend = "<", append = ">" }`}, map[string]any{"x": "<b>"}},
		{"wrap over another kind gives the value", []string{"x = 1", `x = { value = "none", strategy = "wrap", prepend = "<", append = ">" }`}, map[string]any{"x": "none"}},
		{"fill before append", []string{`x = { value = [2], strategy = "append", fill = [1] }`}, map[string]any{"x": []any{int64(1), int64(2)}}},
		{"fill before deep_merge", []string{`x = { value = { b = 2 }, strategy = "deep_merge", fill = { a = 1 } }`}, map[string]any{"x": map[string]any{"a": int64(1), "b": int64(2)}}},
		// Across three layers.
		{"append, append, prepend", []string{"x = [1]", `x = { value = [2], strategy = "append" }`, `x = { value = [0], strategy = "prepend" }`},
			map[string]any{"x": []any{int64(0), int64(1), int64(2)}}},
		{"appends onto appends", []string{`x = { value = [1], strategy = "append" }`, `x = { value = [2], strategy = "append" }`, `x = { value = [3], strategy = "append" }`},
			map[string]any{"x": []any{int64(1), int64(2), int64(3)}}},
		{"string appends with separators", []string{`x = "a"`, `x = { value = "b", strategy = "append", separator = "line" }`, `x = { value = "c", strategy = "prepend", separator = "space" }`},
			map[string]any{"x": "c a\nb"}},
		{"string appends onto nothing", []string{`x = { value = "a", strategy = "append", separator = "line" }`, `x = { value = "b", strategy = "append", separator = "line" }`, `x = { value = "c", strategy = "prepend", separator = "space" }`},
			map[string]any{"x": "c a\nb"}},
		{"keep, then keep: the first wins", []string{"x = { a = 1 }", `x = { value = { a = 2, b = 2 }, strategy = "keep" }`, `x = { value = { b = 3, c = 3 }, strategy = "keep" }`},
			map[string]any{"x": map[string]any{"a": int64(1), "b": int64(2), "c": int64(3)}}},
		{"keep, then a change of a kept key", []string{`x = { value = { a = [1] }, strategy = "keep" }`, `x.a = { value = [2], strategy = "append" }`, "y = 0"},
			map[string]any{"x": map[string]any{"a": []any{int64(1), int64(2)}}, "y": int64(0)}},
		{"shallow merge between deep merges", []string{"x = { a = { p = 1 }, b = 1 }", `x = { value = { a = { q = 2 } }, strategy = "merge" }`, "x.a.r = 3"},
			map[string]any{"x": map[string]any{"a": map[string]any{"q": int64(2), "r": int64(3)}, "b": int64(1)}}},
		{"replace, then deep merge", []string{"x = { a = 1, b = 2 }", `x = { value = { a = 10 }, strategy = "replace" }`, "x.c = 3"},
			map[string]any{"x": map[string]any{"a": int64(10), "c": int64(3)}}},
		// Nested depths.
		{"strategies two and three tables down", []string{
			"x.a.b.list = [1]\nx.a.b.text = \"t\"\nx.c.d = { e = 1 }",
			"x.a.b.list = { value = [2], strategy = \"append\" }\nx.a.b.text = { value = \"u\", strategy = \"append\", separator = \"space\" }\nx.c.d = { value = { e = 2, f = 2 }, strategy = \"keep\" }",
		}, map[string]any{"x": map[string]any{
			"a": map[string]any{"b": map[string]any{"list": []any{int64(1), int64(2)}, "text": "t u"}},
			"c": map[string]any{"d": map[string]any{"e": int64(1), "f": int64(2)}},
		}}},
		{"a strategy inside a keep value", []string{`x = { value = { a = { value = [1], strategy = "append" } }, strategy = "keep" }`}, map[string]any{"x": map[string]any{"a": []any{int64(1)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := optionLayers(t, tt.layers...)
			merged := merge.Layers(ls...)
			if diff := cmp.Diff(tt.want, options(t, merged, config.Default())); diff != "" {
				t.Errorf("options mismatch (-want +got):\n%s", diff)
			}
			// The other grouping gives the same.
			right := new(config.Partial)
			for i := len(ls) - 1; i >= 0; i-- {
				right = merge.Layers(ls[i], right)
			}
			if diff := cmp.Diff(tt.want, options(t, right, config.Default())); diff != "" {
				t.Errorf("options merged right to left mismatch (-want +got):\n%s", diff)
			}
			// The merged layer reads back the same.
			text, err := codec.Encode(merged, partial.TOML)
			if err != nil {
				t.Fatal(err)
			}
			back := new(config.Partial)
			if err := codec.Decode("merged.toml", text, partial.TOML, back); err != nil {
				t.Fatalf("merged layer does not read back: %v\n%s", err, text)
			}
			if diff := cmp.Diff(merged, back); diff != "" {
				t.Errorf("merged layer reads back differently (-want +got):\n%s\n%s", diff, text)
			}
		})
	}
}

// TestOptionStrategiesOverDefaults: a host's defaults are the lowest
// layer; a replace drops their keys, an unset brings them back.
func TestOptionStrategiesOverDefaults(t *testing.T) {
	def := config.Default()
	def.Tools["t"] = config.Tool{Options: map[string]any{"list": []string{"d"}, "text": "d", "table": map[string]any{"a": int64(1)}}}
	tests := []struct {
		name   string
		layers []string
		want   map[string]any
	}{
		{"append to the default", []string{`list = { value = ["x"], strategy = "append" }`, `text = { value = "x", strategy = "prepend", separator = "space" }`},
			map[string]any{"list": []any{"d", "x"}, "text": "x d", "table": map[string]any{"a": int64(1)}}},
		{"replace drops the default's keys", []string{`table = { value = { b = 2 }, strategy = "replace" }`},
			map[string]any{"list": []string{"d"}, "text": "d", "table": map[string]any{"b": int64(2)}}},
		{"keep keeps the default's keys", []string{`table = { value = { a = 2, b = 2 }, strategy = "keep" }`},
			map[string]any{"list": []string{"d"}, "text": "d", "table": map[string]any{"a": int64(1), "b": int64(2)}}},
		{"an unset goes back to the default, then appends", []string{`list = ["y"]`, "", `list = { value = ["x"], strategy = "append" }`},
			map[string]any{"list": []any{"d", "x"}, "text": "d", "table": map[string]any{"a": int64(1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := optionLayers(t, tt.layers...)
			if len(ls) == 3 { // the middle layer unsets the option
				u := layertest.MustDecode(t, "unset.toml", "unset = [\"tools.t.options.list\"]\n", partial.TOML)
				ls[1] = &u
			}
			if diff := cmp.Diff(tt.want, options(t, merge.Layers(ls...), def)); diff != "" {
				t.Errorf("options mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
