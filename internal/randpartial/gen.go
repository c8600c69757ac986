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

// picks are the generators of pick, made once: making one per draw took
// a tenth of the law tests' time.
var picks = func() []*rapid.Generator[int] {
	out := make([]*rapid.Generator[int], 17)
	for n := 1; n < len(out); n++ {
		out[n] = rapid.IntRange(0, n-1)
	}
	return out
}()

func (g *gen) pick(label string, n int) int {
	if n < len(picks) && n > 0 {
		return picks[n].Draw(g.t, label)
	}
	return rapid.IntRange(0, n-1).Draw(g.t, label)
}

func (g *gen) partial(v reflect.Value, t *shape.Type, depth int) {
	switch t.Kind {
	case shape.Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			if g.pick("skip "+f.Key, 3) == 0 || depth <= 1 {
				g.partial(v.FieldByIndex(f.Index), f.Type, depth+1)
			}
		}
	case shape.Value:
		switch g.pick("value state", 4) {
		case 1, 2:
			g.leaf(v.Field(t.At.V), t.Elem, depth)
			v.Field(t.At.State).SetUint(shape.StatePresent)
		case 3:
			v.Field(t.At.State).SetUint(shape.StateUnset)
		}
	case shape.List:
		if g.pick("list present", 3) == 0 {
			return
		}
		base := uint64(g.pick("list base", 3))
		v.Field(t.At.Base).SetUint(base)
		lt := v.Field(t.At.Items).Type()
		tail, head := g.slice(lt, t.Elem, depth), reflect.Zero(lt)
		if base != shape.BaseEmpty {
			head = g.slice(lt, t.Elem, depth)
		}
		shape.SetItems(v, t, head, tail)
		if g.pick("dedup", 4) == 0 {
			v.Field(t.At.Dedup).SetBool(true)
			shape.DedupList(v, t)
		}
	case shape.Map:
		v.Field(t.At.Reset).SetBool(g.pick("reset", 5) == 0)
		g.entries(v.Field(t.At.Entries), t.Elem, depth)
	case shape.Nested:
		switch g.pick("nested state", 4) {
		case 1:
			v.Field(t.At.State).SetUint(shape.StateUnset)
		case 2:
			if depth < maxDepth {
				p := reflect.New(t.Elem.Go)
				g.partial(p.Elem(), t.Elem, depth+1)
				v.Field(t.At.State).SetUint(shape.StatePresent)
				v.Field(t.At.V).Set(p)
			}
		}
	case shape.Any:
		switch g.pick("any state", 3) {
		case 1:
			v.Field(t.At.State).SetUint(shape.StateUnset)
		case 2:
			v.Set(reflect.ValueOf(g.anyValue(0)))
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
			g.leaf(e.Elem().Field(elem.At.V), elem.Elem, depth)
			e.Elem().Field(elem.At.State).SetUint(shape.StatePresent)
		case shape.Any:
			e.Elem().Set(reflect.ValueOf(g.anyValue(0)))
		default:
			g.partial(e.Elem(), elem, depth+1)
		}
		m.SetMapIndex(k, e)
	}
}

// AnyKeys are the keys of free-form tables drawn from: value and strategy
// together make a table that must not be read as a merge strategy.
var AnyKeys = []string{"a", "b", "x.y", "value", "strategy"}

// anyValue draws a present free-form value, depth levels down in a
// free-form value, of every form a document can write: a replace, a table merged (into the lower layers, the default or
// nothing; with a fill), a wrap of a string or an array (append, prepend,
// wrap; with a fill; on the default), or a fill alone.
func (g *gen) anyValue(depth int) partial.Any {
	n := 4
	if depth < maxDepth {
		n = 6
	}
	onDefault := func(a partial.Any) partial.Any {
		if g.pick("any on default", 4) == 0 {
			a.Base = partial.BaseDefault
		}
		return a
	}
	switch g.pick("any form", n) {
	case 0, 1:
		return partial.Any{State: partial.Present, V: g.plain(depth, false, false)}
	case 2:
		a := partial.Any{State: partial.Present}
		if g.pick("fill string", 2) == 0 {
			a.V, a.Head, a.Tail = g.text(), g.text(), g.text()
			if g.pick("any fill", 4) == 0 {
				a.Fill = g.text()
			}
		} else {
			a.V, a.Head, a.Tail = g.array(depth), g.array(depth), g.array(depth)
			if g.pick("any fill", 4) == 0 {
				a.Fill = g.array(depth)
			}
		}
		return onDefault(a)
	case 3:
		return onDefault(partial.Any{State: partial.Present, Fill: g.plain(depth, true, true)})
	default:
		a := partial.Any{State: partial.Present, Table: &partial.Map[partial.Any]{}}
		g.anyEntries(reflect.ValueOf(&a.Table.Entries).Elem(), depth+1)
		switch g.pick("any table base", 4) {
		case 0:
			a.Base = partial.BaseEmpty
		case 1:
			a.Base = partial.BaseDefault
		}
		if a.Base != partial.BaseEmpty && g.pick("any fill", 4) == 0 {
			a.Fill = g.table(depth + 1)
		}
		return a
	}
}

// anyEntries fills the entries of a free-form table: removed, or present.
func (g *gen) anyEntries(m reflect.Value, depth int) {
	n := g.pick("entries", 4)
	if n == 0 || depth > maxDepth {
		return
	}
	m.Set(reflect.MakeMap(m.Type()))
	for i := 0; i < n; i++ {
		k := reflect.ValueOf(AnyKeys[g.pick("key", len(AnyKeys))])
		if g.pick("removed", 5) == 0 {
			m.SetMapIndex(k, reflect.Zero(m.Type().Elem()))
			continue
		}
		a := g.anyValue(depth)
		m.SetMapIndex(k, reflect.ValueOf(&a))
	}
}

func (g *gen) text() string { return texts[g.pick("string", len(texts))] }

func (g *gen) array(depth int) []any {
	out := make([]any, g.pick("array len", 3))
	for i := range out {
		out[i] = g.plain(depth+1, true, false)
	}
	return out
}

func (g *gen) table(depth int) map[string]any {
	out := map[string]any{}
	for i := g.pick("table len", 3); i > 0; i-- {
		out[AnyKeys[g.pick("key", len(AnyKeys))]] = g.plain(depth+1, true, false)
	}
	return out
}

var texts = []string{"", "a", "b", "x y", "{{tool}}", "ünï", "q'\"", "line\nbreak"}

// plain draws a free-form value; tables only when allowTable, and at the
// top only when top.
func (g *gen) plain(depth int, allowTable, top bool) any {
	n := 5
	if depth < maxDepth {
		n = 6
		if allowTable || top {
			n = 7
		}
	}
	switch g.pick("plain kind", n) {
	case 0, 4:
		return g.text()
	case 1:
		return int64(rapid.IntRange(-3, 3).Draw(g.t, "int"))
	case 2:
		return float64(rapid.IntRange(-4, 4).Draw(g.t, "float")) / 2
	case 3:
		return rapid.Bool().Draw(g.t, "bool")
	case 5:
		return g.array(depth)
	default:
		return g.table(depth)
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
		if x := g.plain(depth, true, true); x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case shape.Slice:
		v.Set(g.slice(v.Type(), t.Elem, depth))
	default:
		panic(fmt.Sprintf("randpartial: no samples for %s", t.Go))
	}
}
