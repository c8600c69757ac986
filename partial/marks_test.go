package partial

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-config/strata/internal/shape"
)

// The leaf types as they were before they held shape's marks: the marks
// must change neither their size nor how they compare.
type (
	oldValue struct {
		V     string
		State State
	}
	oldList struct {
		Base   Base
		Dedup  bool
		Before int32
		Items  []string
	}
	oldMap struct {
		Reset   bool
		Entries map[string]*Value[string]
	}
	oldNested struct {
		State State
		V     *Value[string]
	}
	oldAny struct {
		State      State
		V          any
		Table      *Map[Any]
		Head, Tail any
		Base       Base
		Fill       any
	}
)

// TestMarksCostNothing: a mark is a blank first field of size zero, so the
// leaf types keep their size, == and go-cmp ignore it, and shape finds
// every other field by name.
func TestMarksCostNothing(t *testing.T) {
	sizes := []struct {
		name     string
		got, old uintptr
	}{
		{"Value", unsafe.Sizeof(Value[string]{}), unsafe.Sizeof(oldValue{})},
		{"List", unsafe.Sizeof(List[string]{}), unsafe.Sizeof(oldList{})},
		{"Map", unsafe.Sizeof(Map[Value[string]]{}), unsafe.Sizeof(oldMap{})},
		{"Nested", unsafe.Sizeof(Nested[Value[string]]{}), unsafe.Sizeof(oldNested{})},
		{"Any", unsafe.Sizeof(Any{}), unsafe.Sizeof(oldAny{})},
	}
	for _, s := range sizes {
		if s.got != s.old {
			t.Errorf("%s is %d bytes, %d without its mark", s.name, s.got, s.old)
		}
	}

	// == and go-cmp without options see the fields a host sets.
	if Of("a") != Of("a") || Of("a") == Of("b") || (Value[string]{}) != (Value[string]{State: Absent}) {
		t.Error("== on Value")
	}
	n := NestedOf(Of("x"))
	if n != (Nested[Value[string]]{State: Present, V: n.V}) {
		t.Error("== on Nested")
	}
	if AnyOf("x") != (Any{State: Present, V: "x"}) {
		t.Error("== on Any")
	}
	for _, tt := range []struct{ a, b any }{
		{Of("a"), Value[string]{V: "a", State: Present}},
		{Append("x"), List[string]{Items: []string{"x"}}},
		{Map[Value[string]]{Entries: map[string]*Value[string]{"k": {V: "v", State: Present}}}, func() (m Map[Value[string]]) { m.Set("k", Of("v")); return }()},
		{NestedOf(Of("x")), Nested[Value[string]]{State: Present, V: &Value[string]{V: "x", State: Present}}},
		{AnyOf(map[string]any{"a": 1}), AnyOf(map[string]any{"a": int64(1)})},
	} {
		if d := cmp.Diff(tt.a, tt.b); d != "" {
			t.Errorf("cmp.Diff of equal %T values (-a +b):\n%s", tt.a, d)
		}
		if !reflect.DeepEqual(tt.a, tt.b) {
			t.Errorf("reflect.DeepEqual of equal %T values", tt.a)
		}
	}

	// shape describes each leaf by its mark, and finds its fields by name
	// (wherever they are declared).
	for _, tt := range []struct {
		typ    reflect.Type
		kind   shape.Kind
		fields []string
	}{
		{reflect.TypeFor[Value[int]](), shape.Value, []string{"V", "State"}},
		{reflect.TypeFor[List[int]](), shape.List, []string{"Base", "Before", "Items", "Dedup"}},
		{reflect.TypeFor[Map[Any]](), shape.Map, []string{"Reset", "Entries"}},
		{reflect.TypeFor[Nested[Value[int]]](), shape.Nested, []string{"State", "V"}},
		{reflect.TypeFor[Any](), shape.Any, []string{"State", "V", "Table", "Head", "Tail", "Base", "Fill"}},
	} {
		s, err := shape.Of(tt.typ)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind != tt.kind {
			t.Errorf("%v: kind %v, want %v", tt.typ, s.Kind, tt.kind)
		}
		at := reflect.ValueOf(s.At)
		var got []string
		for i := range at.NumField() {
			if x := int(at.Field(i).Int()); x >= 0 {
				if name := at.Type().Field(i).Name; tt.typ.Field(x).Name != name {
					t.Errorf("%v: At.%s is field %d, %s", tt.typ, name, x, tt.typ.Field(x).Name)
				}
				got = append(got, at.Type().Field(i).Name)
			}
		}
		if diff := cmp.Diff(tt.fields, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("%v: fields found (-want +got):\n%s", tt.typ, diff)
		}
	}
}
