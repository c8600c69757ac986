package codec

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// schemaTree draws a tree of the values a schema is made of: the maps,
// lists, strings and booleans the generator writes itself, and the other
// values a Schemer may return (nil, numbers, other maps and slices, a raw
// message), which go through encoding/json.
func schemaTree(depth int) *rapid.Generator[any] {
	leaves := []*rapid.Generator[any]{
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.StringOf(rapid.SampledFrom([]rune("<>&\"\\\b\f\n\r\t\x00\x1f\x7f\u2028\u2029é😀a"))), func(s string) any { return s }),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) any { return string(b) }), // invalid UTF-8 too
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.Int(), func(i int) any { return i }),
		rapid.Map(rapid.Float64Range(-1e300, 1e300), func(f float64) any { return f }),
		rapid.Just[any](nil),
		rapid.Just[any](map[string]any(nil)),
		rapid.Just[any]([]any(nil)),
		rapid.Just[any](map[string]any{}),
		rapid.Just[any]([]any{}),
		rapid.Map(rapid.MapOf(rapid.String(), rapid.String()), func(m map[string]string) any { return m }),
		rapid.Map(rapid.SliceOf(rapid.String()), func(s []string) any { return s }),
		rapid.Just[any](json.RawMessage(`{"b": [1, 2,{}], "a":"<x>"}`)),
	}
	if depth == 0 {
		return rapid.OneOf(leaves...)
	}
	inner := schemaTree(depth - 1)
	return rapid.OneOf(append(leaves,
		rapid.Map(rapid.MapOf(rapid.String(), inner), func(m map[string]any) any { return m }),
		rapid.Map(rapid.SliceOf(inner), func(s []any) any { return s }),
	)...)
}

// TestIndentJSONIsMarshalIndent: the schema's own writer gives what
// json.MarshalIndent gives, byte for byte, for any tree.
func TestIndentJSONIsMarshalIndent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := schemaTree(3).Draw(t, "tree")
		want, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := indentJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("(-MarshalIndent +indentJSON):\n%s", diff)
		}
	})
}

// TestIndentJSONError: a value encoding/json refuses is an error, as it
// was.
func TestIndentJSONError(t *testing.T) {
	if _, err := indentJSON(map[string]any{"f": func() {}}); err == nil {
		t.Error("indentJSON of a func: no error")
	}
}
