package partial

import (
	"maps"
	"slices"

	"github.com/strata-config/strata/internal/shape"
)

// State says what a layer does with a field.
type State uint8

// States of a [Value], a [Nested] or an [Any].
const (
	// Absent: the layer says nothing; lower layers decide.
	Absent State = shape.StateAbsent
	// Present: the layer sets the field.
	Present State = shape.StatePresent
	// Unset: the layer clears the field; lower layers are ignored and the
	// default applies.
	Unset State = shape.StateUnset
)

func (s State) String() string {
	switch s {
	case Present:
		return "present"
	case Unset:
		return "unset"
	default:
		return "absent"
	}
}

// Value is a field that a layer sets, unsets or leaves alone. An upper
// layer's value replaces a lower one's. T is a plain type: a string, number
// or bool, a slice or map of those, or a type that decodes itself
// ([ValueUnmarshaler] or encoding.TextUnmarshaler).
//
// The zero Value is absent.
type Value[T any] struct {
	_     shape.ValueMark
	V     T
	State State
}

// Of returns a present Value holding v.
func Of[T any](v T) Value[T] { return Value[T]{V: v, State: Present} }

// Get returns the value and whether the layer sets it.
func (v Value[T]) Get() (T, bool) { return v.V, v.State == Present }

// Or returns the value if the layer sets it, and def otherwise.
func (v Value[T]) Or(def T) T {
	if v.State == Present {
		return v.V
	}
	return def
}

// Base is what a [List] starts from.
type Base uint8

// Bases of a [List].
const (
	// BaseLower: extend what the lower layers give (append and prepend).
	BaseLower Base = shape.BaseLower
	// BaseDefault: ignore the lower layers and extend the default (an unset
	// list, possibly with items added).
	BaseDefault Base = shape.BaseDefault
	// BaseEmpty: ignore the lower layers and the default (strategy replace).
	BaseEmpty Base = shape.BaseEmpty
)

func (b Base) String() string {
	switch b {
	case BaseDefault:
		return "default"
	case BaseEmpty:
		return "empty"
	default:
		return "lower"
	}
}

// List is a list field. The items a layer gives are placed before (its
// [List.Head]) and after (its [List.Tail]) what it starts from (Base).
// With Dedup, the finished list keeps only the first occurrence of each
// item.
//
// In a file, a plain array uses the field's default strategy: the
// `strata:"append"` or `strata:"prepend"` struct tag, replace when there is
// none. The inline form { value = [...], strategy = "append" | "prepend" |
// "replace", dedup = true } chooses one; { prepend = [...], append = [...] }
// does both, as a merged layer may need.
//
// The items are one slice, Before of them the head: a tool's partial has
// several lists, most of them absent, each 32 bytes where a head and a
// tail would be 56. Build one with [Append], [Prepend], [Replace] or
// [Wrap].
//
// The zero List is absent.
type List[T any] struct {
	_     shape.ListMark
	Base  Base
	Dedup bool
	// Before is how many of Items go before what the list starts from
	// (at most len(Items)); the rest go after it.
	Before int32
	// Items are the layer's items: its head, then its tail.
	Items []T
}

// Head returns the items placed before what the list starts from:
// Items[:Before], capped so that an append copies.
func (l List[T]) Head() []T { return l.Items[:l.Before:l.Before] }

// Tail returns the items placed after what the list starts from:
// Items[Before:].
func (l List[T]) Tail() []T { return l.Items[l.Before:] }

// Append returns a list layer that appends items.
func Append[T any](items ...T) List[T] { return List[T]{Items: items} }

// Prepend returns a list layer that prepends items.
func Prepend[T any](items ...T) List[T] { return List[T]{Items: items, Before: int32(len(items))} }

// Replace returns a list layer that replaces the list with items.
func Replace[T any](items ...T) List[T] { return List[T]{Base: BaseEmpty, Items: items} }

// Wrap returns a list layer that puts head before the lower layers' items
// and tail after them.
func Wrap[T any](head, tail []T) List[T] {
	items := make([]T, 0, len(head)+len(tail))
	return List[T]{Items: append(append(items, head...), tail...), Before: int32(len(head))}
}

// Map is a table of named entries, such as the tools or the MCP servers.
// Across layers, entries with the same name merge. An entry whose pointer
// is nil is unset by this layer: what lower layers said about it is
// dropped, and it is what the defaults give (usually: it is removed). With
// Reset, all entries of lower layers are dropped and the defaults apply
// again before this layer's entries.
//
// The zero Map is absent.
type Map[V any] struct {
	_       shape.MapMark
	Reset   bool
	Entries map[string]*V
}

// Get returns the entry named key, or nil when the layer does not have it
// or removes it.
func (m Map[V]) Get(key string) *V { return m.Entries[key] }

// Removes reports whether the layer unsets the entry named key.
func (m Map[V]) Removes(key string) bool {
	v, ok := m.Entries[key]
	return ok && v == nil
}

// Set stores v under key.
func (m *Map[V]) Set(key string, v V) {
	if m.Entries == nil {
		m.Entries = make(map[string]*V)
	}
	m.Entries[key] = &v
}

// Entry returns the entry named key, creating an empty one if needed.
func (m *Map[V]) Entry(key string) *V {
	if v := m.Entries[key]; v != nil {
		return v
	}
	if m.Entries == nil {
		m.Entries = make(map[string]*V)
	}
	v := new(V)
	m.Entries[key] = v
	return v
}

// Remove makes the layer unset the entry named key.
func (m *Map[V]) Remove(key string) {
	if m.Entries == nil {
		m.Entries = make(map[string]*V)
	}
	m.Entries[key] = nil
}

// Keys returns the names of the entries, sorted.
func (m Map[V]) Keys() []string { return slices.Sorted(maps.Keys(m.Entries)) }

// Nested is an optional nested partial, such as the items schema of an
// array parameter: absent, present (merged field by field with lower
// layers) or unset (removed).
type Nested[P any] struct {
	_     shape.NestedMark
	State State
	V     *P
}

// NestedOf returns a present Nested holding p.
func NestedOf[P any](p P) Nested[P] { return Nested[P]{State: Present, V: &p} }

// Any is a free-form value, such as a tool option: a string, number,
// bool, array or table. Numbers are int64 or float64, arrays []any, tables
// inside values map[string]any.
//
// A present Any starts from what its Base says: the value lower layers
// give (BaseLower), the default (BaseDefault, after an unset) or nothing
// (BaseEmpty). When that is nothing and Fill is set, it starts from Fill
// (strategy keep, and fill). Then, by which fields are set:
//
//   - V alone replaces the start with V (a string, number, bool or array;
//     never a map).
//   - Table merges its entries into the start key by key, as a [Map] does
//     (a start that is no table counts as an empty one). A nil entry unsets
//     the key: it is what the defaults give. Table's Reset is not used.
//   - Head and Tail wrap the start: when it is of V's kind (string or
//     array), Head goes before it and Tail after it (strategies append,
//     prepend and wrap); otherwise the result is V. Head, Tail and V are
//     all strings or all arrays.
//   - none of them: the start is kept (strategy fill).
//
// In a file, a table with the keys value and strategy is a strategy: see
// the README. The zero Any is absent.
type Any struct {
	_     shape.AnyMark
	State State
	V     any
	Table *Map[Any]
	Head  any
	Tail  any
	Base  Base
	Fill  any
}

// AnyOf returns a present Any holding v, normalised as decoding gives it:
// integers become int64, floats float64, slices []any, and maps with string
// keys tables whose entries merge (map[string]any inside arrays).
func AnyOf(v any) Any {
	v = Normalize(v)
	if m, ok := v.(map[string]any); ok {
		t := &Map[Any]{Entries: make(map[string]*Any, len(m))}
		for k, e := range m {
			a := AnyOf(e)
			t.Entries[k] = &a
		}
		return Any{State: Present, Table: t}
	}
	return Any{State: Present, V: v}
}

// Normalize returns v as decoding a document gives it: integers as int64
// (unsigned ones that do not fit stay uint64), floats as float64, slices
// as []any and maps with string keys as map[string]any, at every depth.
// Other values are returned as they are.
func Normalize(v any) any { return shape.Normalize(v) }
