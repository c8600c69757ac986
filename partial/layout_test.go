package partial

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/internal/shape"
)

// TestLayout checks that the leaf types have the fields package shape
// reaches by index.
func TestLayout(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want map[int]string
	}{
		{reflect.TypeFor[Value[int]](), map[int]string{shape.ValueV: "V", shape.ValueState: "State"}},
		{reflect.TypeFor[List[int]](), map[int]string{shape.ListBase: "Base", shape.ListHead: "Head", shape.ListTail: "Tail", shape.ListDedup: "Dedup"}},
		{reflect.TypeFor[Map[int]](), map[int]string{shape.MapReset: "Reset", shape.MapEntries: "Entries"}},
		{reflect.TypeFor[Nested[int]](), map[int]string{shape.NestedState: "State", shape.NestedV: "V"}},
		{reflect.TypeFor[Any](), map[int]string{
			shape.AnyState: "State", shape.AnyV: "V", shape.AnyTable: "Table", shape.AnyHead: "Head",
			shape.AnyTail: "Tail", shape.AnyBase: "Base", shape.AnyFill: "Fill",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String(), func(t *testing.T) {
			got := map[int]string{}
			for i := range tt.typ.NumField() {
				got[i] = tt.typ.Field(i).Name
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
