// Package randpartial generates random partial layers of any partial type
// for property tests. It generates the states documents can express: map
// entries of value kinds are present or removed (never an absent or unset
// value), lists with Dedup hold no repeats, and replaced lists keep their
// items in one run.
package randpartial

import (
	"fmt"
	"reflect"

	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/partial"
	"pgregory.net/rapid"
)

// Samples gives, for custom leaf types, the values to draw from.
type Samples map[reflect.Type][]any

// Keys are the map keys drawn from; few, so that layers share entries.
var Keys = []string{"a", "b", "c", "x.y", "*"}

// Of returns a generator of *P.
func Of[P any](samples Samples) *rapid.Generator[*P] {
	t, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		panic(err)
	}
	return rapid.Custom(func(rt *rapid.T) *P {
		p := new(P)
		g := gen{t: rt, samples: samples}
		g.partial(reflect.ValueOf(p).Elem(), t, 0)
		return p
	})
}

type gen struct {
	t       *rapid.T
	samples Samples
}

const maxDepth = 3

func (g *gen) pick(label string, n int) int { return rapid.IntRange(0, n-1).Draw(g.t, label) }

func (g *gen) partial(v reflect.Value, t *shape.Type, depth int) {
	switch t.Kind {
	case shape.Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			if g.pick("skip "+f.Key, 3) == 0 || depth <= 1 {
				g.partial(v.Field(f.Index), f.Type, depth+1)
			}
		}
	case shape.Value:
		switch g.pick("value state", 4) {
		case 1, 2:
			g.leaf(v.Field(shape.ValueV), t.Elem, depth)
			v.Field(shape.ValueState).SetUint(shape.StatePresent)
		case 3:
			v.Field(shape.ValueState).SetUint(shape.StateUnset)
		}
	case shape.List:
		if g.pick("list present", 3) == 0 {
			return
		}
		base := uint64(g.pick("list base", 3))
		v.Field(shape.ListBase).SetUint(base)
		v.Field(shape.ListTail).Set(g.slice(v.Field(shape.ListTail).Type(), t.Elem, depth))
		if base != shape.BaseEmpty {
			v.Field(shape.ListHead).Set(g.slice(v.Field(shape.ListHead).Type(), t.Elem, depth))
		}
		if g.pick("dedup", 4) == 0 {
			v.Field(shape.ListDedup).SetBool(true)
			shape.DedupList(v, t)
		}
	case shape.Map:
		v.Field(shape.MapReset).SetBool(g.pick("reset", 5) == 0)
		g.entries(v.Field(shape.MapEntries), t.Elem, depth)
	case shape.Nested:
		switch g.pick("nested state", 4) {
		case 1:
			v.Field(shape.NestedState).SetUint(shape.StateUnset)
		case 2:
			if depth < maxDepth {
				p := reflect.New(t.Elem.Go)
				g.partial(p.Elem(), t.Elem, depth+1)
				v.Field(shape.NestedState).SetUint(shape.StatePresent)
				v.Field(shape.NestedV).Set(p)
			}
		}
	case shape.Any:
		switch g.pick("any state", 4) {
		case 1:
			v.Field(shape.AnyState).SetUint(shape.StateUnset)
		case 2:
			v.Set(reflect.ValueOf(g.anyPresent(depth)))
		case 3:
			if depth < maxDepth {
				v.Set(reflect.ValueOf(g.anyTable(t, depth)))
			}
		}
	}
}

// entries fills a partial.Map's entries: removed, or present.
func (g *gen) entries(m reflect.Value, elem *shape.Type, depth int) {
	if depth >= maxDepth+1 {
		return
	}
	n := g.pick("entries", 4)
	if n == 0 {
		return
	}
	m.Set(reflect.MakeMap(m.Type()))
	for i := 0; i < n; i++ {
		k := reflect.ValueOf(Keys[g.pick("key", len(Keys))])
		if g.pick("removed", 5) == 0 {
			m.SetMapIndex(k, reflect.Zero(m.Type().Elem()))
			continue
		}
		e := reflect.New(elem.Go)
		switch elem.Kind {
		case shape.Value:
			g.leaf(e.Elem().Field(shape.ValueV), elem.Elem, depth)
			e.Elem().Field(shape.ValueState).SetUint(shape.StatePresent)
		case shape.Any:
			if g.pick("any entry table", 3) == 0 && depth < maxDepth {
				e.Elem().Set(reflect.ValueOf(g.anyTable(elem, depth+1)))
			} else {
				e.Elem().Set(reflect.ValueOf(g.anyPresent(depth)))
			}
		default:
			g.partial(e.Elem(), elem, depth+1)
		}
		m.SetMapIndex(k, e)
	}
}

func (g *gen) anyTable(t *shape.Type, depth int) any {
	tbl := reflect.New(t.Elem.Go) // *Map[Any]
	tbl.Elem().Field(shape.MapReset).SetBool(g.pick("any reset", 4) == 0)
	g.entries(tbl.Elem().Field(shape.MapEntries), t, depth+1)
	a := reflect.New(t.Go).Elem()
	a.Field(shape.AnyState).SetUint(shape.StatePresent)
	a.Field(shape.AnyTable).Set(tbl)
	return a.Interface()
}

func (g *gen) anyPresent(depth int) any {
	return partial.AnyOf(g.plain(depth, false))
}

var texts = []string{"", "a", "b", "x y", "{{tool}}", "ünï", "q'\"", "line\nbreak"}

// plain draws a free-form value; tables only when allowTable.
func (g *gen) plain(depth int, allowTable bool) any {
	n := 5
	if depth < maxDepth {
		n = 7
	}
	switch g.pick("plain kind", n) {
	case 0:
		return texts[g.pick("string", len(texts))]
	case 1:
		return int64(rapid.IntRange(-3, 3).Draw(g.t, "int"))
	case 2:
		return float64(rapid.IntRange(-4, 4).Draw(g.t, "float")) / 2
	case 3:
		return rapid.Bool().Draw(g.t, "bool")
	case 4:
		return texts[g.pick("string", len(texts))]
	case 5:
		out := make([]any, g.pick("array len", 3))
		for i := range out {
			out[i] = g.plain(depth+1, true)
		}
		return out
	default:
		out := map[string]any{}
		for i := g.pick("table len", 3); i > 0; i-- {
			out[Keys[g.pick("key", len(Keys))]] = g.plain(depth+1, true)
		}
		return out
	}
}

func (g *gen) slice(st reflect.Type, elem *shape.Type, depth int) reflect.Value {
	n := g.pick("len", 3)
	s := reflect.MakeSlice(st, n, n)
	for i := 0; i < n; i++ {
		g.leaf(s.Index(i), elem, depth+1)
	}
	if n == 0 {
		return reflect.Zero(st)
	}
	return s
}

// leaf draws a plain value of type t into v.
func (g *gen) leaf(v reflect.Value, t *shape.Type, depth int) {
	if s, ok := g.samples[t.Go]; ok {
		v.Set(reflect.ValueOf(s[g.pick(t.Go.String(), len(s))]))
		return
	}
	switch t.Kind {
	case shape.String:
		v.SetString(texts[g.pick("string", len(texts))])
	case shape.Bool:
		v.SetBool(rapid.Bool().Draw(g.t, "bool"))
	case shape.Int:
		v.SetInt(int64(rapid.IntRange(-3, 3).Draw(g.t, "int")))
	case shape.Uint:
		v.SetUint(uint64(rapid.IntRange(0, 3).Draw(g.t, "uint")))
	case shape.Float:
		v.SetFloat(float64(rapid.IntRange(1, 8).Draw(g.t, "float")) / 2)
	case shape.Interface:
		if x := g.plain(depth, true); x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case shape.Slice:
		v.Set(g.slice(v.Type(), t.Elem, depth))
	default:
		panic(fmt.Sprintf("randpartial: no samples for %s", t.Go))
	}
}
