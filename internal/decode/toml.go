package decode

import (
	"hash/maphash"
	"reflect"
	"slices"

	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/partial"
)

// TOML decodes TOML document data into v, the zero value of partial struct
// type t, as it reads it, without the document's tree: for a large layer
// the tree (a node for every key and value) costs more memory than the
// partial it decodes into.
//
// It handles documents without problems, and leaves everything else to
// the tree: at the first problem of any kind, and at a form it does not
// read (an array of tables; a header or dotted key into a value that is
// not a table of the model, such as a free-form option or a field that
// reads shorthands; the root's unset list; a root key in stop), it returns
// false and v is the zero value again. The caller then reads the document
// with doc's ReadTOML and decodes the tree with a [Decoder], which reports
// every problem with its position. A document TOML reads gives the same
// partial as that, and values is how many values ReadTOML counts in it
// (see [doc.Options]).
//
// Keys are checked as ReadTOML checks them: a key given twice, or a table
// defined twice, over a value or against the rules of dotted keys, is a
// problem and left to the tree. What the partial does not record is kept
// in a tree of the tables that headers and dotted keys make, smaller than
// the document's: how each table came to be, and the fields of a struct
// that keys took (an empty table or list given as a value leaves no trace
// in the partial). Entries of maps are in the partial's maps.
func TOML(o doc.Options, data []byte, v reflect.Value, t *shape.Type, stop ...string) (values int, ok bool) {
	s, ok := o.TOMLStream(data)
	if !ok {
		return 0, false
	}
	r := tomlDecoder{s: s, stop: stop}
	r.dec.Doc = &doc.Doc{Format: doc.TOML, Data: s.Data()}
	r.dec.MaxDepth = o.MaxDepth
	if _, own := t.Field(partial.UnsetKey); !own {
		r.stop = append(slices.Clip(stop), partial.UnsetKey)
	}
	if !r.read(v, t) {
		v.Set(reflect.Zero(t.Go))
		return 0, false
	}
	return s.Values(), true
}

// A tomlTable is a table that the root, a header or a dotted key made: a
// partial struct, or a partial.Map that is not a field of one. A map that
// is a struct's field (a tool's parameters, options, questions) is kept in
// its struct's table instead (see fieldDefs), and the tables of its
// entries are under the struct's table too, with that field as their
// field. Tables are found by key from the root, as their values are found
// in the partial: a table holds no value or type of its own.
type tomlTable struct {
	key       string
	taken     uint64 // for a struct, the fields a key or a table took
	fieldDefs uint64 // for a struct, how each map field that is a table came to be, 2 bits a field
	first     int32  // the first table under this one, or -1
	next      int32  // the next table under the same parent, or -1
	parent    int32
	n         uint16   // how many tables are under this one, up to indexAfter+1
	def       tableDef // how it came to be
	field     int8     // the map field of its parent that holds it, or -1
}

// tableDef records how a table came to be, as doc's reader does: a table
// a header named may not be named again, and only a dotted key extends one
// a dotted key made.
type tableDef uint8

const (
	defNone     tableDef = iota // not a table
	defImplicit                 // created as a prefix of a header
	defExplicit                 // named by a header, or the root
	defDotted                   // created by a dotted key
)

// mapFields is how many fields of a struct may be maps kept in its table;
// a map field past them has a table of its own.
const mapFields = 32

// The tables are kept in chunks, so that a pointer to one stays valid:
// the first few in the decoder, for a small document, the others in
// chunks of tableChunk.
const firstTables, tableChunk = 16, 256

// indexAfter is how many tables a table holds before the tables under it
// are found through the index rather than by walking its list.
const indexAfter = 16

// tref is where a table is: its tomlTable (or its struct's, for a map
// field), its type (Struct or Map) and its value in the partial.
type tref struct {
	node  int32
	field int8 // -1, or the map field of node's struct that is the table
	t     *shape.Type
	v     reflect.Value
}

type tomlDecoder struct {
	s      *doc.TOMLStream
	dec    Decoder
	stop   []string
	head   [firstTables]tomlTable
	tables []*[tableChunk]tomlTable
	count  int32
	path   []string
	// index finds the tables under tables with more than indexAfter: open
	// addressing by parent, field and key, each slot a table's index + 1
	// (0 is empty). It is a fraction of a map's size, and one for the
	// document (a map per large table grew by doubling, as large as the
	// tables it held).
	index     []int32
	indexUsed int
}

// indexSeed keys the index's hash, so that no document can choose keys
// that collide.
var indexSeed = maphash.MakeSeed()

func (r *tomlDecoder) table(i int32) *tomlTable {
	if i < firstTables {
		return &r.head[i]
	}
	i -= firstTables
	return &r.tables[i/tableChunk][i%tableChunk]
}

// newTable makes a table named key, a string that stays valid, under
// table parent (-1 for the root) in its map field (or -1).
func (r *tomlDecoder) newTable(parent int32, field int8, key string, def tableDef) int32 {
	if r.count >= firstTables && (r.count-firstTables)%tableChunk == 0 {
		r.tables = append(r.tables, new([tableChunk]tomlTable))
	}
	i := r.count
	r.count++
	*r.table(i) = tomlTable{key: key, first: -1, next: -1, parent: parent, field: field, def: def}
	if parent >= 0 {
		r.addChild(parent, i)
	}
	return i
}

func slot(parent int32, field int8, key string, mask int) int {
	h := maphash.String(indexSeed, key) ^ (uint64(parent)<<8|uint64(uint8(field)))*0x9E3779B97F4A7C15
	return int(h & uint64(mask))
}

// child returns the table under table p, in its map field (or -1), named
// key; or -1.
func (r *tomlDecoder) child(p int32, field int8, key string) int32 {
	tb := r.table(p)
	if tb.n > indexAfter {
		mask := len(r.index) - 1
		for i := slot(p, field, key, mask); r.index[i] != 0; i = (i + 1) & mask {
			c := r.index[i] - 1
			if ct := r.table(c); ct.parent == p && ct.field == field && ct.key == key {
				return c
			}
		}
		return -1
	}
	for c := tb.first; c >= 0; {
		ct := r.table(c)
		if ct.field == field && ct.key == key {
			return c
		}
		c = ct.next
	}
	return -1
}

// addChild puts table c under table p.
func (r *tomlDecoder) addChild(p, c int32) {
	tb := r.table(p)
	r.table(c).next = tb.first
	tb.first = c
	switch {
	case tb.n < indexAfter:
		tb.n++
	case tb.n == indexAfter:
		tb.n++
		for x := tb.first; x >= 0; x = r.table(x).next {
			r.indexed(x)
		}
	default:
		r.indexed(c)
	}
}

// indexed adds table c to the index.
func (r *tomlDecoder) indexed(c int32) {
	if 2*(r.indexUsed+1) > len(r.index) {
		old := r.index
		r.index = make([]int32, max(2*len(old), 256))
		r.indexUsed = 0
		for _, x := range old {
			if x != 0 {
				r.indexed(x - 1)
			}
		}
	}
	ct := r.table(c)
	mask := len(r.index) - 1
	i := slot(ct.parent, ct.field, ct.key, mask)
	for r.index[i] != 0 {
		i = (i + 1) & mask
	}
	r.index[i] = c + 1
	r.indexUsed++
}

// def returns how table t came to be.
func (r *tomlDecoder) def(t tref) tableDef {
	tb := r.table(t.node)
	if t.field < 0 {
		return tb.def
	}
	return tableDef(tb.fieldDefs >> (2 * uint(t.field)) & 3)
}

// setDef records how table t came to be.
func (r *tomlDecoder) setDef(t tref, d tableDef) {
	tb := r.table(t.node)
	if t.field < 0 {
		tb.def = d
		return
	}
	shift := 2 * uint(t.field)
	tb.fieldDefs = tb.fieldDefs&^(3<<shift) | uint64(d)<<shift
}

func (r *tomlDecoder) read(v reflect.Value, t *shape.Type) bool {
	if t.Kind != shape.Struct || t.ValueCodec || len(t.Fields) > 64 {
		return false
	}
	root := tref{node: r.newTable(-1, -1, "", defExplicit), field: -1, t: t, v: v}
	current, depth := root, 0
	r.path = make([]string, 0, 16)
	for {
		kind, keys, ok := r.s.Next()
		if !ok {
			return !r.s.Failed()
		}
		switch kind {
		case doc.ExprHeader:
			if len(keys) > r.s.MaxDepth() {
				return false
			}
			p := root
			for _, k := range keys[:len(keys)-1] {
				c, found, ok := r.find(p, k)
				if !ok {
					return false
				}
				if !found {
					if c, ok = r.create(p, k, defImplicit); !ok {
						return false
					}
				}
				p = c
			}
			last := keys[len(keys)-1]
			c, found, ok := r.find(p, last)
			switch {
			case !ok:
				return false
			case !found:
				if c, ok = r.create(p, last, defExplicit); !ok {
					return false
				}
			case r.def(c) == defImplicit:
				r.setDef(c, defExplicit)
			default:
				return false // defined twice, or made by dotted keys
			}
			current, depth = c, len(keys)
		case doc.ExprKeyValue:
			if depth+len(keys) > r.s.MaxDepth() {
				return false
			}
			p := current
			for _, k := range keys[:len(keys)-1] {
				c, found, ok := r.find(p, k)
				switch {
				case !ok:
					return false
				case !found:
					if c, ok = r.create(p, k, defDotted); !ok {
						return false
					}
				case r.def(c) != defDotted:
					return false // a dotted key cannot extend it
				}
				p = c
			}
			if !r.keyValue(p, keys[len(keys)-1], depth+len(keys)) {
				return false
			}
		default:
			return false
		}
	}
}

// stopped reports whether key may not be read in table p: a root key of
// r.stop.
func (r *tomlDecoder) stopped(p tref, key string) bool {
	return p.node == 0 && p.field < 0 && slices.Contains(r.stop, key)
}

// find returns the table in table p named key, and whether there is one;
// ok is false when p has a value named key, or key names nothing in the
// model.
func (r *tomlDecoder) find(p tref, key string) (c tref, found, ok bool) {
	if r.stopped(p, key) {
		return tref{}, false, false
	}
	switch p.t.Kind {
	case shape.Struct:
		f, known := p.t.Field(key)
		if !known || f.Index >= 64 {
			return tref{}, false, false
		}
		if r.table(p.node).taken&(1<<f.Index) == 0 {
			return tref{}, false, true
		}
		fv := p.v.Field(f.Index)
		if f.Type.Kind == shape.Map && f.Index < mapFields {
			c = tref{node: p.node, field: int8(f.Index), t: f.Type, v: fv}
			return c, r.def(c) != defNone, r.def(c) != defNone
		}
		n := r.child(p.node, -1, key)
		if n < 0 {
			return tref{}, false, false // a value
		}
		t, v := tableOf(f.Type, fv)
		return tref{node: n, field: -1, t: t, v: v}, true, true
	case shape.Map:
		entries := p.v.Field(p.t.At.Entries)
		if entries.IsNil() {
			return tref{}, false, true
		}
		e := entries.MapIndex(r.dec.mapKey(key))
		if !e.IsValid() {
			return tref{}, false, true
		}
		n := r.child(p.node, p.field, key)
		if n < 0 {
			return tref{}, false, false // a value
		}
		t, v := tableOf(p.t.Elem, e.Elem())
		return tref{node: n, field: -1, t: t, v: v}, true, true
	}
	return tref{}, false, false
}

// tableOf returns the table that value v of type t is, once the value is
// a table: v itself, or what a Nested holds.
func tableOf(t *shape.Type, v reflect.Value) (*shape.Type, reflect.Value) {
	if t.Kind == shape.Nested {
		return t.Elem, v.Field(t.At.V).Elem()
	}
	return t, v
}

// create makes the table named key in table p, which has none, as a
// Decoder decodes a table given for its field or entry; ok is false when
// that is not a table this decoder reads.
func (r *tomlDecoder) create(p tref, key string, def tableDef) (tref, bool) {
	if !r.s.Table() {
		return tref{}, false
	}
	switch p.t.Kind {
	case shape.Struct:
		f, _ := p.t.Field(key) // find has checked it
		tb := r.table(p.node)
		fv := p.v.Field(f.Index)
		if f.Type.Kind == shape.Map && f.Index < mapFields {
			tb.taken |= 1 << f.Index
			c := tref{node: p.node, field: int8(f.Index), t: f.Type, v: fv}
			r.setDef(c, def)
			return c, true
		}
		t, v, ok := enterTable(fv, f.Type)
		if !ok {
			return tref{}, false
		}
		tb.taken |= 1 << f.Index
		return tref{node: r.newTable(p.node, -1, f.Key, def), field: -1, t: t, v: v}, true
	case shape.Map:
		entries := p.v.Field(p.t.At.Entries)
		ev := reflect.New(p.t.Elem.Go)
		t, v, ok := enterTable(ev.Elem(), p.t.Elem)
		if !ok {
			return tref{}, false
		}
		if entries.IsNil() {
			entries.Set(reflect.MakeMap(entries.Type()))
		}
		key = r.s.Keep(key)
		entries.SetMapIndex(r.dec.mapKey(key), ev)
		return tref{node: r.newTable(p.node, p.field, key, def), field: -1, t: t, v: v}, true
	}
	return tref{}, false
}

// enterTable makes v, of type t, hold a table as a Decoder does for a
// table given for it, and returns the table's type and value: v itself
// for a struct or a map, the struct a Nested holds (which it now holds).
// ok is false for the other kinds, whose tables the tree decodes.
func enterTable(v reflect.Value, t *shape.Type) (*shape.Type, reflect.Value, bool) {
	switch t.Kind {
	case shape.Struct:
		if t.ValueCodec || len(t.Fields) > 64 {
			return nil, reflect.Value{}, false
		}
		return t, v, true
	case shape.Map:
		return t, v, true
	case shape.Nested:
		if t.Elem.Kind != shape.Struct || t.Elem.ValueCodec || len(t.Elem.Fields) > 64 {
			return nil, reflect.Value{}, false
		}
		p := reflect.New(t.Elem.Go)
		v.Field(t.At.State).SetUint(shape.StatePresent)
		v.Field(t.At.V).Set(p)
		return t.Elem, p.Elem(), true
	}
	return nil, reflect.Value{}, false
}

// keyValue decodes the value of the current key-value, named key in table
// p, at depth.
func (r *tomlDecoder) keyValue(p tref, key string, depth int) bool {
	if r.stopped(p, key) {
		return false
	}
	// A table in p named key took its field or entry: a key given twice is
	// found in the partial, or in taken.
	switch p.t.Kind {
	case shape.Struct:
		f, ok := p.t.Field(key)
		tb := r.table(p.node)
		if !ok || f.Index >= 64 || tb.taken&(1<<f.Index) != 0 {
			return false
		}
		tb.taken |= 1 << f.Index
		n := r.s.Value(depth)
		if n == nil {
			return false
		}
		r.dec.Field(n, p.v.Field(f.Index), f.Type, f.Strategy, r.path[:0])
	case shape.Map:
		entries := p.v.Field(p.t.At.Entries)
		if !entries.IsNil() && entries.MapIndex(r.dec.mapKey(key)).IsValid() {
			return false
		}
		n := r.s.Value(depth)
		if n == nil {
			return false
		}
		ev := reflect.New(p.t.Elem.Go)
		r.dec.Field(n, ev.Elem(), p.t.Elem, shape.Replace, r.path[:0])
		if entries.IsNil() {
			entries.Set(reflect.MakeMap(entries.Type()))
		}
		entries.SetMapIndex(r.dec.mapKey(r.s.Keep(key)), ev)
	default:
		return false
	}
	return len(r.dec.Errs) == 0 && r.dec.omitted == 0
}
