package delta_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// hostDefaults give tool t options, for the unsets of a delta to bring
// back.
func hostDefaults() config.Config {
	c := config.Default()
	c.Tools["t"] = config.Tool{Options: map[string]any{"list": []any{"d"}, "table": map[string]any{"a": int64(0), "z": int64(0)}}}
	return c
}

// TestDeltaOfStrategies: a delta between layers with merge strategies in
// options turns the first into the second, written as a layer that reads
// back the same.
func TestDeltaOfStrategies(t *testing.T) {
	tests := []struct {
		name     string
		from, to string // bodies of [tools.t.options]
		want     string // the delta
	}{
		{"a plain value to an append", "list = [1]", `list = { value = [2], strategy = "append" }`,
			"unset = [\"tools.t.options.list\"]\n\n[tools.t.options]\nlist = { value = [2], strategy = \"append\" }\n"},
		{"an append extended", `list = { value = [1], strategy = "append" }`, `list = { value = [0, 1, 2], strategy = "wrap", prepend = [0], append = [1, 2] }`,
			"[tools.t.options]\nlist = { value = [0, 2], strategy = \"wrap\", prepend = [0], append = [2] }\n"},
		{"a string append extended", `text = { value = "a", strategy = "append", separator = "line" }`, `text = { value = "a b", strategy = "wrap", append = "\na b" }`,
			"[tools.t.options]\ntext = { value = \" b\", strategy = \"append\" }\n"},
		{"the same strategy", `list = { value = [1], strategy = "prepend" }`, `list = { value = [1], strategy = "prepend" }`, ""},
		{"a key of a keep changed", `table = { value = { a = 1, b = 1 }, strategy = "keep" }`, `table = { value = { a = 1, b = 2 }, strategy = "keep" }`,
			"unset = [\"tools.t.options.table.b\"]\n\n[tools.t.options.table]\nb = { value = 2, strategy = \"fill\" }\n"},
		{"a table to a replaced one", "table = { a = 1 }", `table = { value = { a = 1 }, strategy = "replace" }`,
			"[tools.t.options]\ntable = { value = { a = 1 }, strategy = \"replace\" }\n"},
		{"a strategy removed", `list = { value = [1], strategy = "append" }`, "",
			"unset = [\"tools.t.options.list\"]\n\n[tools.t]\n"},
		{"deep in a table", "table.b.c = { value = \"x\", strategy = \"append\" }\ntable.a = 1", "table.b.c = { value = \"y\", strategy = \"append\" }\ntable.a = 1",
			"unset = [\"tools.t.options.table.b.c\"]\n\n[tools.t.options.table.b]\nc = { value = \"y\", strategy = \"append\" }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := layertest.MustDecode(t, "from.toml", "[tools.t.options]\n"+tt.from, partial.TOML)
			b := layertest.MustDecode(t, "to.toml", "[tools.t.options]\n"+tt.to, partial.TOML)
			d := delta.Between(&a, &b)
			text, err := codec.Encode(d, partial.TOML)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(text)); diff != "" {
				t.Errorf("delta mismatch (-want +got):\n%s", diff)
			}
			back := new(config.Partial)
			if err := codec.Decode("delta.toml", text, partial.TOML, back); err != nil {
				t.Fatalf("the delta does not read back: %v", err)
			}
			if diff := cmp.Diff(d, back); diff != "" {
				t.Errorf("the delta reads back differently (-want +got):\n%s", diff)
			}
			for _, def := range []config.Config{config.Default(), hostDefaults()} {
				want, _ := partial.Finalize(&b, def)
				got, _ := partial.Finalize(merge.Layers(&a, d), def)
				if diff := cmp.Diff(want.Tools["t"].Options, got.Tools["t"].Options); diff != "" {
					t.Errorf("finalize(merge(a, delta)) differs from finalize(b) (-b +merged):\n%s", diff)
				}
			}
		})
	}
}

// TestToPartialOfStrategies: the finalized config holds no strategies,
// and ToPartial writes its options as values (a replace where the
// defaults have keys the config dropped).
func TestToPartialOfStrategies(t *testing.T) {
	ls := []string{
		"[tools.t.options]\nlist = [1]\ntable = { value = { b = 1 }, strategy = \"replace\" }\ntext = \"a\"\n",
		"[tools.t.options]\nlist = { value = [2], strategy = \"append\" }\ntext = { value = \"b\", strategy = \"prepend\", separator = \"space\" }\ntable.c = { value = [3], strategy = \"fill\" }\n",
	}
	var layers []*config.Partial
	for _, s := range ls {
		p := layertest.MustDecode(t, "l.toml", s, partial.TOML)
		layers = append(layers, &p)
	}
	for name, def := range map[string]config.Config{"library defaults": config.Default(), "host defaults": hostDefaults()} {
		t.Run(name, func(t *testing.T) {
			c, _ := partial.Finalize(merge.Layers(layers...), def)
			wantOptions := map[string]any{"list": []any{int64(1), int64(2)}, "text": "b a", "table": map[string]any{"b": int64(1), "c": []any{int64(3)}}}
			if diff := cmp.Diff(wantOptions, c.Tools["t"].Options); diff != "" {
				t.Errorf("options mismatch (-want +got):\n%s", diff)
			}
			p, err := partial.From[config.Partial](c, def)
			if err != nil {
				t.Fatal(err)
			}
			text, err := codec.Encode(p, partial.TOML)
			if err != nil {
				t.Fatal(err)
			}
			// Only a table that drops keys of the defaults needs a strategy.
			wantStrategies := 0
			if name == "host defaults" {
				wantStrategies = 1
			}
			if got := strings.Count(string(text), "strategy"); got != wantStrategies {
				t.Errorf("ToPartial wrote %d strategies, want %d:\n%s", got, wantStrategies, text)
			}
			back, _ := partial.Finalize(p, def)
			if diff := cmp.Diff(c, back); diff != "" {
				t.Errorf("finalize(ToPartial(c)) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
