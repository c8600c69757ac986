// Package shape describes Go types for the strata engine, the way
// encoding/json describes them for JSON: which fields a struct has and under
// which keys, which fields are partial leaves (package partial's Value, List,
// Map, Nested and Any), and which types decode themselves. Descriptions are
// built once per type and cached.
//
// Package partial's leaf types are known by their first field, a blank one
// of a mark type declared here ([ValueMark], [ListMark], [MapMark],
// [NestedMark], [AnyMark]): zero-size, ignored by == and by go-cmp. Their
// other fields are found by name once per type ([Type].At).
package shape

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Kind classifies a type.
type Kind uint8

// Kinds. The first group are the partial kinds: the types a partial
// struct's fields may have. The second group are plain Go kinds, found in
// resolved types and inside partial.Value.
const (
	Invalid Kind = iota
	Struct       // a struct described field by field
	Value        // partial.Value[T]
	List         // partial.List[T]
	Map          // partial.Map[V]
	Nested       // partial.Nested[P]
	Any          // partial.Any

	String
	Bool
	Int
	Uint
	Float
	Interface // any: a free-form value
	Slice
	GoMap   // map[string]T
	Pointer // *T
	Custom  // a type that reads and writes itself (UnmarshalValue or UnmarshalText)
)

// IsPartial reports whether k is one of the partial kinds.
func (k Kind) IsPartial() bool { return k >= Struct && k <= Any }

// Marks: each of package partial's leaf types holds one as its first
// field, blank and of size zero (`_ shape.ValueMark`), by which [Of] knows
// its kind.
type (
	ValueMark  struct{} // partial.Value[T]: fields V and State
	ListMark   struct{} // partial.List[T]: Base, Before, Items and Dedup
	MapMark    struct{} // partial.Map[V]: Reset and Entries
	NestedMark struct{} // partial.Nested[P]: State and V
	AnyMark    struct{} // partial.Any: State, V, Table, Head, Tail, Base and Fill
)

// marks are the kinds of the mark types.
var marks = map[reflect.Type]Kind{
	reflect.TypeFor[ValueMark]():  Value,
	reflect.TypeFor[ListMark]():   List,
	reflect.TypeFor[MapMark]():    Map,
	reflect.TypeFor[NestedMark](): Nested,
	reflect.TypeFor[AnyMark]():    Any,
}

// Fields are the indexes of the fields of a leaf type (see the marks),
// read by name once per type; -1 for a field its kind does not have.
type Fields struct {
	V, State, Base, Head, Tail, Dedup, Reset, Entries, Table, Fill, Before, Items int
}

// fieldNames are the fields of each leaf kind, by name, and where
// [Fields] keeps each index.
var fieldNames = map[Kind][]string{
	Value:  {"V", "State"},
	List:   {"Base", "Before", "Items", "Dedup"},
	Map:    {"Reset", "Entries"},
	Nested: {"State", "V"},
	Any:    {"State", "V", "Table", "Head", "Tail", "Base", "Fill"},
}

// read finds the fields of leaf type t, of kind k, by name.
func (f *Fields) read(t reflect.Type, k Kind) error {
	*f = Fields{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	at := map[string]*int{"V": &f.V, "State": &f.State, "Base": &f.Base, "Head": &f.Head, "Tail": &f.Tail,
		"Dedup": &f.Dedup, "Reset": &f.Reset, "Entries": &f.Entries, "Table": &f.Table, "Fill": &f.Fill,
		"Before": &f.Before, "Items": &f.Items}
	for _, name := range fieldNames[k] {
		sf, ok := t.FieldByName(name)
		if !ok || len(sf.Index) != 1 {
			return fmt.Errorf("strata: %s holds the mark of a leaf type but has no field %s", t, name)
		}
		*at[name] = sf.Index[0]
	}
	return nil
}

// leafKind returns the kind of t when it is one of package partial's leaf
// types (its first field is a mark), else Invalid.
func leafKind(t reflect.Type) Kind {
	if t.Kind() != reflect.Struct || t.NumField() == 0 {
		return Invalid
	}
	return marks[t.Field(0).Type]
}

// Values of partial.State and partial.Base, which partial's constants are.
const (
	StateAbsent, StatePresent, StateUnset = 0, 1, 2
	BaseLower, BaseDefault, BaseEmpty     = 0, 1, 2
)

// Strategy is how a plain array given for a list field merges.
type Strategy uint8

// Strategies; Replace is the default.
const (
	Replace Strategy = iota
	Append
	Prepend
)

func (s Strategy) String() string {
	switch s {
	case Append:
		return "append"
	case Prepend:
		return "prepend"
	default:
		return "replace"
	}
}

// Type describes one Go type.
type Type struct {
	Kind Kind
	Go   reflect.Type
	// Elem is the element: T of Value[T] and List[T], V of Map[V], P of
	// Nested[P], and the element of slices, Go maps and pointers.
	Elem *Type
	// Fields of a struct, in declaration order.
	Fields []Field
	// At says where the fields of a leaf kind (Value, List, Map, Nested,
	// Any) are.
	At Fields
	// Keys are the field keys, in order.
	Keys []string
	keys map[string]int

	// Leaf behaviour, for plain types.
	ValueCodec bool     // *T implements UnmarshalValue(any) error; for a Struct, it reads shorthands
	TextCodec  bool     // *T implements encoding.TextUnmarshaler
	Marshals   bool     // T implements MarshalValue() (any, error)
	Enum       []string // T implements EnumValues() []string
	Comparable bool
	Defaults   bool // *T implements SetDefaults()
	// Equals says that T has a method Equal(T) bool, which compares its
	// values (leaving out what is not part of one: where it was read);
	// equal is that method as a function of two T. It is called as a
	// function, never through reflect.Value.Method: a call of Method
	// makes the linker keep every exported method of every type a
	// program puts in an interface, in the host's binary too.
	Equals bool
	equal  reflect.Value
	// Shorthand says that T has a method Shorthand() (any, bool): a
	// scalar stands for a list of one T (see partial.Shorthander).
	Shorthand bool
	// Positioned says that *T has a method SetPosition(source string,
	// line, column int): decoding tells a value where it was read.
	Positioned bool
}

// Field describes a struct field.
type Field struct {
	Key string
	// Declared says that Key comes from a toml tag; otherwise it is the Go
	// name in lower case.
	Declared bool
	// Index is the field's index sequence (reflect.Value.FieldByIndex):
	// one index, or more for a field of an embedded struct, whose fields
	// are the struct's own (see fields).
	Index    []int
	Type     *Type
	Strategy Strategy // for List fields: how a plain array merges
	Doc      string
	// Paths says how the field's strings are paths: relative ones are
	// relative to the file that wrote them (see load).
	Paths PathKind
}

// PathKind says how a field's strings are paths.
type PathKind uint8

// Path kinds, from the strata:"path" and strata:"program" tag options.
const (
	NotPath     PathKind = iota
	PathFile             // a file or directory: any relative path
	PathProgram          // a program: a relative path with a slash; a bare name is looked up in PATH
)

// Field returns the field with the given key.
func (t *Type) Field(key string) (*Field, bool) {
	i, ok := t.keys[key]
	if !ok {
		return nil, false
	}
	return &t.Fields[i], true
}

// The leaf interfaces, mirrored from package partial (interfaces are
// satisfied structurally, so the two declarations agree).
type (
	valueUnmarshaler interface{ UnmarshalValue(any) error }
	valueMarshaler   interface{ MarshalValue() (any, error) }
	enum             interface{ EnumValues() []string }
	defaulter        interface{ SetDefaults() }
	shorthander      interface{ Shorthand() (any, bool) }
	positioned       interface {
		SetPosition(source string, line, column int)
	}
)

var (
	valueUnmarshalerType = reflect.TypeFor[valueUnmarshaler]()
	valueMarshalerType   = reflect.TypeFor[valueMarshaler]()
	textUnmarshalerType  = reflect.TypeFor[encoding.TextUnmarshaler]()
	enumType             = reflect.TypeFor[enum]()
	defaulterType        = reflect.TypeFor[defaulter]()
	shorthanderType      = reflect.TypeFor[shorthander]()
	positionedType       = reflect.TypeFor[positioned]()
)

var (
	cache   sync.Map // reflect.Type -> *Type
	buildMu sync.Mutex
)

// Of describes t. It returns an error for types the engine cannot handle,
// such as channels, functions, maps with non-string keys, or a partial
// struct with a plain field.
func Of(t reflect.Type) (*Type, error) {
	if s, ok := cache.Load(t); ok {
		return s.(*Type), nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	return ofLocked(t)
}

// ofLocked is Of for a caller that holds buildMu.
func ofLocked(t reflect.Type) (*Type, error) {
	b := builder{pending: map[reflect.Type]*Type{}}
	s, err := b.build(t)
	if err != nil {
		return nil, err
	}
	for gt, st := range b.pending {
		cache.Store(gt, st)
	}
	return s, nil
}

var structures sync.Map // reflect.Type -> *Type

// Structure describes t by its structure, ignoring that t reads and writes
// itself (as Of would not): the fields of a Custom struct, for example, so
// that a key path can reach inside it. Types inside t are described by Of.
func Structure(t reflect.Type) (*Type, error) {
	if s, ok := structures.Load(t); ok {
		return s.(*Type), nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	b := builder{pending: map[reflect.Type]*Type{}}
	s := &Type{Go: t, Comparable: t.Comparable() && !holdsReference(t, 0)}
	var err error
	switch t.Kind() {
	case reflect.Struct:
		s.Kind = Struct
		err = b.fields(s, t)
	case reflect.Slice:
		s.Kind = Slice
		err = b.elem(s, t.Elem())
	case reflect.Map:
		s.Kind = GoMap
		err = b.elem(s, t.Elem())
	default:
		return ofLocked(t) // Of would lock buildMu again
	}
	if err != nil {
		return nil, err
	}
	for gt, st := range b.pending {
		cache.Store(gt, st)
	}
	structures.Store(t, s)
	return s, nil
}

// MustOf is Of for types known to be valid; it panics otherwise.
func MustOf(t reflect.Type) *Type {
	s, err := Of(t)
	if err != nil {
		panic(err)
	}
	return s
}

var partials sync.Map // reflect.Type -> error (nil when t is a partial)

// OfPartial describes t and checks that it is a partial: a struct whose
// fields all have partial kinds, recursively. The check is done once per
// type.
func OfPartial(t reflect.Type) (*Type, error) {
	s, err := Of(t)
	if err != nil {
		return nil, err
	}
	if e, ok := partials.Load(t); ok {
		if e != nil {
			return nil, e.(error)
		}
		return s, nil
	}
	if s.Kind != Struct {
		err = fmt.Errorf("strata: %s is not a struct", t)
	} else {
		err = checkPartial(s, map[*Type]bool{})
	}
	if err != nil {
		partials.Store(t, err)
		return nil, err
	}
	partials.Store(t, nil)
	return s, nil
}

func checkPartial(s *Type, seen map[*Type]bool) error {
	if seen[s] {
		return nil
	}
	seen[s] = true
	switch s.Kind {
	case Struct:
		for _, f := range s.Fields {
			if !f.Type.Kind.IsPartial() {
				return fmt.Errorf("strata: field %s.%s (%s) must be a partial type (partial.Value, List, Map, Nested, Any or a partial struct)", s.Go, f.Key, f.Type.Go)
			}
			if err := checkPartial(f.Type, seen); err != nil {
				return err
			}
		}
	case Map, Nested:
		if !s.Elem.Kind.IsPartial() {
			return fmt.Errorf("strata: %s holds %s, which is not a partial type", s.Go, s.Elem.Go)
		}
		return checkPartial(s.Elem, seen)
	}
	return nil
}

type builder struct {
	pending map[reflect.Type]*Type
}

func (b *builder) build(t reflect.Type) (*Type, error) {
	if s, ok := cache.Load(t); ok {
		return s.(*Type), nil
	}
	if s, ok := b.pending[t]; ok {
		return s, nil // recursive type, being built
	}
	s := &Type{Go: t, Comparable: t.Comparable() && !holdsReference(t, 0)}
	b.pending[t] = s
	if err := b.fill(s, t); err != nil {
		delete(b.pending, t)
		return nil, err
	}
	return s, nil
}

func (b *builder) elem(s *Type, t reflect.Type) error {
	e, err := b.build(t)
	if err != nil {
		return err
	}
	s.Elem = e
	return nil
}

func (b *builder) fill(s *Type, t reflect.Type) error {
	if k := leafKind(t); k != Invalid {
		s.Kind = k
		if err := s.At.read(t, k); err != nil {
			return err
		}
		switch k {
		case Value:
			return b.elem(s, t.Field(s.At.V).Type)
		case List:
			return b.elem(s, t.Field(s.At.Items).Type.Elem())
		case Map:
			return b.elem(s, t.Field(s.At.Entries).Type.Elem().Elem())
		case Nested:
			return b.elem(s, t.Field(s.At.V).Type.Elem())
		default: // Any: Elem describes Map[Any], the table form
			return b.elem(s, t.Field(s.At.Table).Type.Elem())
		}
	}
	pt := reflect.PointerTo(t)
	s.Defaults = pt.Implements(defaulterType)
	s.ValueCodec = pt.Implements(valueUnmarshalerType)
	s.TextCodec = pt.Implements(textUnmarshalerType)
	s.Marshals = t.Implements(valueMarshalerType)
	s.Shorthand = t.Implements(shorthanderType)
	s.Positioned = pt.Implements(positionedType)
	if m, ok := t.MethodByName("Equal"); ok && m.Type.NumIn() == 2 && m.Type.In(1) == t && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Bool {
		s.Equals, s.equal = true, m.Func
	}
	if t.Implements(enumType) {
		s.Enum = reflect.Zero(t).Interface().(enum).EnumValues()
	}
	if t.Kind() == reflect.Struct && s.ValueCodec && !s.TextCodec && holdsPartials(t) {
		// A partial struct that also reads a shorthand (enable = true):
		// a table of partial fields all the same.
		s.Kind = Struct
		return b.fields(s, t)
	}
	if s.ValueCodec || s.TextCodec {
		s.Kind = Custom
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		s.Kind = String
	case reflect.Bool:
		s.Kind = Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.Kind = Int
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s.Kind = Uint
	case reflect.Float32, reflect.Float64:
		s.Kind = Float
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return fmt.Errorf("strata: unsupported interface type %s", t)
		}
		s.Kind = Interface
	case reflect.Slice:
		s.Kind = Slice
		return b.elem(s, t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("strata: map %s must have string keys", t)
		}
		s.Kind = GoMap
		return b.elem(s, t.Elem())
	case reflect.Pointer:
		s.Kind = Pointer
		return b.elem(s, t.Elem())
	case reflect.Struct:
		s.Kind = Struct
		return b.fields(s, t)
	default:
		return fmt.Errorf("strata: unsupported type %s", t)
	}
	return nil
}

func (b *builder) fields(s *Type, t reflect.Type) error {
	s.keys = map[string]int{}
	return b.fieldsOf(s, t, nil, map[string]string{})
}

// fieldsOf adds the fields of struct t to s, their index sequences under
// at. An embedded struct without a key of its own (no toml name, or
// `toml:",inline"`) is read as its fields, at the level of the struct
// that embeds it, as encoding/json reads one: a host that embeds
// config.Partial has the keys tools, mcp_servers... beside its own. from
// names the Go field that gave each key, for the error of a key given
// twice.
func (b *builder) fieldsOf(s *Type, t reflect.Type, at []int, from map[string]string) error {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		key, opts, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if sf.Anonymous && key == "" && key != "-" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				return fmt.Errorf("strata: field %s.%s: an embedded struct is read as its fields, and a pointer may be nil: embed %s, not *%s", t, sf.Name, ft.Elem(), ft.Elem())
			}
			if ft.Kind() == reflect.Struct && leafKind(ft) == Invalid {
				if err := b.fieldsOf(s, ft, append(slices.Clip(at), i), from); err != nil {
					return err
				}
				continue
			}
		} else if opts == "inline" && key == "" {
			return fmt.Errorf("strata: field %s.%s: `toml:\",inline\"` reads a struct's fields in place only when the struct is embedded; embed it (write its type without a field name), or give the field a key", t, sf.Name)
		}
		if !sf.IsExported() {
			continue
		}
		if key == "-" {
			continue
		}
		declared := key != ""
		if !declared {
			key = strings.ToLower(sf.Name)
		}
		if prev, dup := from[key]; dup {
			return fmt.Errorf("strata: %s has two fields with key %q: %s and %s.%s; give one a toml key of its own", s.Go, key, prev, t, sf.Name)
		}
		from[key] = t.String() + "." + sf.Name
		ft, err := b.build(sf.Type)
		if err != nil {
			return fmt.Errorf("%w (field %s.%s)", err, t, sf.Name)
		}
		f := Field{Key: key, Declared: declared, Index: append(slices.Clip(at), i), Type: ft, Doc: sf.Tag.Get("doc")}
		for _, opt := range strings.Split(sf.Tag.Get("strata"), ",") {
			switch opt {
			case "":
			case "append":
				f.Strategy = Append
			case "prepend":
				f.Strategy = Prepend
			case "replace":
				f.Strategy = Replace
			case "path":
				f.Paths = PathFile
			case "program":
				f.Paths = PathProgram
			default:
				return fmt.Errorf("strata: field %s.%s: unknown strata tag option %q", t, sf.Name, opt)
			}
		}
		s.keys[key] = len(s.Fields)
		s.Fields = append(s.Fields, f)
		s.Keys = append(s.Keys, key)
	}
	return nil
}

// holdsPartials reports whether struct t has exported fields and all of
// them are of package partial's leaf types.
func holdsPartials(t reflect.Type) bool {
	n := 0
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if leafKind(f.Type) == Invalid {
			return false
		}
		n++
	}
	return n > 0
}

// holdsReference reports whether values of t may hold an interface (whose
// dynamic value may not be comparable) or a pointer (which == compares by
// address): such types are compared deeply.
func holdsReference(t reflect.Type, depth int) bool {
	if depth > 16 {
		return true
	}
	switch t.Kind() {
	case reflect.Interface, reflect.Pointer, reflect.UnsafePointer, reflect.Chan:
		return true
	case reflect.Array:
		return holdsReference(t.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if holdsReference(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}
