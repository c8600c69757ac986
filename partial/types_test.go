package partial_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/partial"
)

func TestStateAndBaseString(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"absent", partial.Absent.String(), "absent"},
		{"present", partial.Present.String(), "present"},
		{"unset", partial.Unset.String(), "unset"},
		{"unknown state", partial.State(9).String(), "absent"},
		{"base lower", partial.BaseLower.String(), "lower"},
		{"base default", partial.BaseDefault.String(), "default"},
		{"base empty", partial.BaseEmpty.String(), "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("String() = %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestValueGetAndOr(t *testing.T) {
	tests := []struct {
		name   string
		v      partial.Value[string]
		want   string
		wantOK bool
		wantOr string
	}{
		{"absent", partial.Value[string]{}, "", false, "def"},
		{"present", partial.Of("x"), "x", true, "x"},
		{"present empty", partial.Of(""), "", true, ""},
		{"unset", partial.Value[string]{V: "stale", State: partial.Unset}, "stale", false, "def"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.v.Get()
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Get() = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
			if got := tt.v.Or("def"); got != tt.wantOr {
				t.Errorf("Or(def) = %q, want %q", got, tt.wantOr)
			}
		})
	}
}

func TestListConstructors(t *testing.T) {
	tests := []struct {
		name string
		got  partial.List[int]
		want partial.List[int]
	}{
		{"append", partial.Append(1, 2), partial.List[int]{Items: []int{1, 2}}},
		{"prepend", partial.Prepend(1), partial.List[int]{Items: []int{1}, Before: 1}},
		{"replace", partial.Replace(3), partial.List[int]{Base: partial.BaseEmpty, Items: []int{3}}},
		{"replace with nothing", partial.Replace[int](), partial.List[int]{Base: partial.BaseEmpty}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMapOperations(t *testing.T) {
	var m partial.Map[partial.Value[int]]
	if m.Get("a") != nil || m.Removes("a") || len(m.Keys()) != 0 {
		t.Fatalf("zero Map: Get = %v, Removes = %v, Keys = %v; want nil, false, []", m.Get("a"), m.Removes("a"), m.Keys())
	}
	m.Set("b", partial.Of(2))
	m.Remove("c")
	e := m.Entry("a")
	e.V, e.State = 1, partial.Present
	if again := m.Entry("a"); again != e {
		t.Errorf("Entry(a) twice gave two entries")
	}
	// Entry on a removed key gives the entry back.
	if c := m.Entry("c"); c == nil || c.State != partial.Absent {
		t.Errorf("Entry(c) after Remove = %v, want a new empty entry", c)
	}
	m.Remove("d")
	tests := []struct {
		key         string
		want        *partial.Value[int]
		wantRemoves bool
	}{
		{"a", layertest.Ptr(partial.Of(1)), false},
		{"b", layertest.Ptr(partial.Of(2)), false},
		{"c", &partial.Value[int]{}, false},
		{"d", nil, true},
		{"e", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, m.Get(tt.key)); diff != "" {
				t.Errorf("Get(%q) mismatch (-want +got):\n%s", tt.key, diff)
			}
			if got := m.Removes(tt.key); got != tt.wantRemoves {
				t.Errorf("Removes(%q) = %v, want %v", tt.key, got, tt.wantRemoves)
			}
		})
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, m.Keys()); diff != "" {
		t.Errorf("Keys() mismatch (-want +got):\n%s", diff)
	}
	// Set stores a copy.
	v := partial.Of(5)
	m.Set("f", v)
	v.V = 6
	if got := m.Get("f").V; got != 5 {
		t.Errorf("Set stored a reference: Get(f).V = %d, want 5", got)
	}
}

func TestAnyOfAndNestedOf(t *testing.T) {
	tests := []struct {
		name string
		got  partial.Any
		want partial.Any
	}{
		{"scalar", partial.AnyOf(int64(1)), partial.Any{State: partial.Present, V: int64(1)}},
		{"array stays a value", partial.AnyOf([]any{map[string]any{"k": "v"}}), partial.Any{State: partial.Present, V: []any{map[string]any{"k": "v"}}}},
		{"nil", partial.AnyOf(nil), partial.Any{State: partial.Present}},
		{"table", partial.AnyOf(map[string]any{"a": "x", "t": map[string]any{"b": true}}), partial.Any{State: partial.Present, Table: &partial.Map[partial.Any]{Entries: map[string]*partial.Any{
			"a": {State: partial.Present, V: "x"},
			"t": {State: partial.Present, Table: &partial.Map[partial.Any]{Entries: map[string]*partial.Any{"b": {State: partial.Present, V: true}}}},
		}}}},
		{"empty table", partial.AnyOf(map[string]any{}), partial.Any{State: partial.Present, Table: &partial.Map[partial.Any]{Entries: map[string]*partial.Any{}}}},
		// Normalised as decoding gives them.
		{"int is int64", partial.AnyOf(10), partial.Any{State: partial.Present, V: int64(10)}},
		{"int8 is int64", partial.AnyOf(int8(-3)), partial.Any{State: partial.Present, V: int64(-3)}},
		{"uint is int64", partial.AnyOf(uint16(7)), partial.Any{State: partial.Present, V: int64(7)}},
		{"a uint64 past int64 stays", partial.AnyOf(uint64(1) << 63), partial.Any{State: partial.Present, V: uint64(1) << 63}},
		{"float32 is float64", partial.AnyOf(float32(1.5)), partial.Any{State: partial.Present, V: 1.5}},
		{"typed slice is []any", partial.AnyOf([]string{"a", "b"}), partial.Any{State: partial.Present, V: []any{"a", "b"}}},
		{"nil slice is an empty array", partial.AnyOf([]int(nil)), partial.Any{State: partial.Present, V: []any{}}},
		{"typed map is a table", partial.AnyOf(map[string]int{"a": 1}), partial.Any{State: partial.Present, Table: &partial.Map[partial.Any]{Entries: map[string]*partial.Any{
			"a": {State: partial.Present, V: int64(1)},
		}}}},
		{"nested maps and slices", partial.AnyOf([]any{map[string][]int{"k": {1}}, []float32{0.5}}), partial.Any{State: partial.Present, V: []any{
			map[string]any{"k": []any{int64(1)}}, []any{0.5},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("AnyOf mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("nested", func(t *testing.T) {
		p := layertest.Point{X: 1}
		n := partial.NestedOf(p)
		p.X = 2
		if n.State != partial.Present || n.V == nil || n.V.X != 1 {
			t.Errorf("NestedOf = %+v (V %+v), want present holding a copy with X 1", n, n.V)
		}
	})
}

// TestAnyOfEqualsDecoded: a constructed partial and a decoded one compare
// equal with cmp.Diff.
func TestAnyOfEqualsDecoded(t *testing.T) {
	p := layertest.MustDecode(t, "f.toml", "[tools.t.options]\nn = 10\nf = 0.5\nl = [1, 2]\nm = { a = [{ b = 3 }] }\n", partial.TOML)
	var want config.ToolPartial
	want.Options.Set("n", partial.AnyOf(10))
	want.Options.Set("f", partial.AnyOf(float32(0.5)))
	want.Options.Set("l", partial.AnyOf([]int{1, 2}))
	want.Options.Set("m", partial.AnyOf(map[string]any{"a": []map[string]int{{"b": 3}}}))
	if diff := cmp.Diff(&want, p.Tools.Get("t")); diff != "" {
		t.Errorf("constructed vs decoded (-want +got):\n%s", diff)
	}
}
