package shape_test

import (
	"reflect"
	"testing"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/partial"
)

func TestFind(t *testing.T) {
	var p config.Partial
	doc := `
[tools.t.options]
deep = { a = [1, 2] }

[tools.t.parameters.p.items]
enum = ["x", "y"]
`
	if err := codec.Decode("find.toml", []byte(doc), partial.TOML, &p); err != nil {
		t.Fatal(err)
	}
	pt := shape.MustOf(reflect.TypeFor[config.Partial]())
	for _, tt := range []struct {
		path string
		kind shape.Kind // of what is reached
		used int
		ok   bool
	}{
		{"tools.t.parameters.p.items.enum", shape.List, 6, true}, // through a nested struct
		{"tools.t.parameters.p.items.enum.0", shape.List, 6, true},
		{"tools.t.parameters.p.items.summary", shape.Value, 6, true},
		{"tools.t.parameters.q.items", shape.Map, 3, false}, // no entry q
		{"tools.t.parameters.p.items.nope", shape.Struct, 5, false},
		{"tools.t.options.deep.a", shape.Any, 5, true}, // free-form tables
		{"tools.t.options.deep.b", shape.Any, 4, false},
		{"tools.u", shape.Map, 1, false},
		{"tools.t.run", shape.List, 3, true},
	} {
		t.Run(tt.path, func(t *testing.T) {
			path, err := partial.ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			_, typ, used, ok := shape.Find(reflect.ValueOf(&p).Elem(), pt, path)
			if typ.Kind != tt.kind || used != tt.used || ok != tt.ok {
				t.Errorf("Find = %v, %d, %v; want %v, %d, %v", typ.Kind, used, ok, tt.kind, tt.used, tt.ok)
			}
		})
	}
}
