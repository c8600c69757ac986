package partial

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/shape"
)

// Validator is implemented by resolved types that check themselves after
// [Finalize]. An error of type *[diag.Error] or [diag.Errors] may give paths relative
// to the value; Finalize prefixes them with the value's own path.
type Validator interface {
	Validate() error
}

// Defaulter is implemented by resolved types whose new map entries start
// from non-zero defaults (pointer receiver).
type Defaulter interface {
	SetDefaults()
}

// Finalize applies layer p (usually the merge of all layers) to defaults
// and returns the resolved value: fields p sets take its values, unset and
// absent fields take the defaults, lists are assembled, map entries are
// merged or created. An unset always means what the defaults give: an
// unset field takes the default, an unset map entry is the default's entry
// or none, and a reset map or list only drops what lower layers said (they
// are already folded into p). It then validates the result (see
// [Validator]) and returns every problem, each with its key path.
//
// Partial type P and resolved type R are matched field by field by key:
// Value[T] holds T or *T, List[T] holds []T, Map[V] holds map[string]R',
// Nested[P'] holds *R', Any holds any, and partial structs hold structs.
// Empty lists and maps finalize to nil. The result may share leaf values
// with p and defaults, and a list whose items all come from p shares
// them with p: change a list's items only in a copy of it (an append
// copies).
func Finalize[P, R any](p *P, defaults R) (R, error) {
	var zero R
	pt, rt, err := pair(reflect.TypeFor[P](), reflect.TypeFor[R]())
	if err != nil {
		return zero, err
	}
	out := reflect.New(rt.Go).Elem()
	if p == nil {
		p = new(P)
	}
	finalize(out, reflect.ValueOf(p).Elem(), pt, reflect.ValueOf(&defaults).Elem(), rt)
	var errs diag.Errors
	validate(out, rt, nil, &errs)
	if len(errs) > 0 {
		return out.Interface().(R), errs
	}
	return out.Interface().(R), nil
}

// From returns the layer that turns defaults into x: JP's ToPartial
// (to_partial), for any host type (config.ToPartial is strata's). Fields of x
// equal to the defaults are left out, so From(Finalize(empty)) is empty and
// Finalize(From(x)) equals x for any x that Finalize produced.
func From[P, R any](x, defaults R) (*P, error) {
	pt, rt, err := pair(reflect.TypeFor[P](), reflect.TypeFor[R]())
	if err != nil {
		return nil, err
	}
	out := new(P)
	from(reflect.ValueOf(out).Elem(), pt, reflect.ValueOf(&x).Elem(), reflect.ValueOf(&defaults).Elem(), rt)
	return out, nil
}

var pairs sync.Map // [2]reflect.Type -> error (nil when they match)

// pair describes a partial and a resolved type and checks that they match.
func pair(p, r reflect.Type) (*shape.Type, *shape.Type, error) {
	pt, err := shape.OfPartial(p)
	if err != nil {
		return nil, nil, err
	}
	rt, err := shape.Of(r)
	if err != nil {
		return nil, nil, err
	}
	key := [2]reflect.Type{p, r}
	if e, ok := pairs.Load(key); ok {
		if e != nil {
			return nil, nil, e.(error)
		}
		return pt, rt, nil
	}
	err = matches(pt, rt, map[[2]*shape.Type]bool{})
	if err != nil {
		pairs.Store(key, err)
		return nil, nil, err
	}
	pairs.Store(key, nil)
	return pt, rt, nil
}

// CheckPair reports whether P is a partial type and R the resolved type it is
// the partial of, key by key, as [Finalize] and [From] need them: a host's
// test calls it (or strata.Check) to find a mismatch before the program
// runs. The error is one line that names the first key where they differ.
func CheckPair[P, R any]() error {
	_, _, err := pair(reflect.TypeFor[P](), reflect.TypeFor[R]())
	return err
}

func matches(pt, rt *shape.Type, seen map[[2]*shape.Type]bool) error {
	return matchesAt(pt, rt, nil, seen)
}

// matchesAt checks partial type pt against resolved type rt at key path
// path.
func matchesAt(pt, rt *shape.Type, path Path, seen map[[2]*shape.Type]bool) error {
	if seen[[2]*shape.Type{pt, rt}] {
		return nil
	}
	seen[[2]*shape.Type{pt, rt}] = true
	bad := func() error {
		return fmt.Errorf("strata: %s: the partial type has %s where the resolved type has %s, which does not match; write %s in the partial type (or %s in the resolved type)",
			at(path), typeName(pt.Go), typeName(rt.Go), partialOf(rt), resolvedOf(pt))
	}
	switch pt.Kind {
	case shape.Struct:
		if rt.Kind != shape.Struct {
			return bad()
		}
		for _, f := range pt.Fields {
			rf, ok := rt.Field(f.Key)
			if !ok {
				sf := pt.Go.FieldByIndex(f.Index)
				return fmt.Errorf("strata: %s: %s has this key (its field %s %s), %s has not; add the field %s %s `toml:%q` to %s, or remove it from the partial type",
					at(path.Append(f.Key)), table(pt.Go, path, "partial"), sf.Name, typeName(sf.Type), table(rt.Go, path, "resolved"),
					sf.Name, resolvedOf(f.Type), f.Key, table(rt.Go, path, "resolved"))
			}
			if err := matchesAt(f.Type, rf.Type, path.Append(f.Key), seen); err != nil {
				return err
			}
		}
		for _, f := range rt.Fields {
			if _, ok := pt.Field(f.Key); !ok {
				sf := rt.Go.FieldByIndex(f.Index)
				return fmt.Errorf("strata: %s: %s has this key (its field %s %s), %s has not; add the field %s %s `toml:%q` to %s, or remove it from the resolved type",
					at(path.Append(f.Key)), table(rt.Go, path, "resolved"), sf.Name, typeName(sf.Type), table(pt.Go, path, "partial"),
					sf.Name, partialOf(f.Type), f.Key, table(pt.Go, path, "partial"))
			}
		}
	case shape.Value:
		if rt.Go == pt.Elem.Go || rt.Kind == shape.Pointer && rt.Elem.Go == pt.Elem.Go {
			return nil
		}
		return bad()
	case shape.List:
		if rt.Kind != shape.Slice || rt.Elem.Go != pt.Elem.Go {
			return bad()
		}
	case shape.Map:
		if rt.Kind != shape.GoMap {
			return bad()
		}
		return matchesAt(pt.Elem, rt.Elem, path.Append("<name>"), seen)
	case shape.Nested:
		if rt.Kind != shape.Pointer {
			return bad()
		}
		return matchesAt(pt.Elem, rt.Elem, path, seen)
	case shape.Any:
		if rt.Kind != shape.Interface {
			return bad()
		}
	default:
		return bad()
	}
	return nil
}

// table names struct type t, the table at path of the partial or the
// resolved type (which), in a message: "the partial type
// main.HostPartial", or "the resolved type's table at assistant" for an
// unnamed struct.
func table(t reflect.Type, path Path, which string) string {
	if t.Name() != "" {
		return "the " + which + " type " + t.String()
	}
	if len(path) == 0 {
		return "the " + which + " type"
	}
	return "the " + which + " type's table at " + path.String()
}

// partialOf names the partial type of resolved type rt, as a host writes
// it: partial.Value[string] for a string.
func partialOf(rt *shape.Type) string {
	switch rt.Kind {
	case shape.Slice:
		return "partial.List[" + rt.Elem.Go.String() + "]"
	case shape.GoMap:
		return "partial.Map[" + partialOf(rt.Elem) + "]"
	case shape.Pointer:
		if rt.Elem.Kind == shape.Struct {
			return "partial.Nested[" + partialOf(rt.Elem) + "]"
		}
		return "partial.Value[" + rt.Elem.Go.String() + "]"
	case shape.Interface:
		return "partial.Any"
	case shape.Struct:
		if rt.Go.Name() == "" {
			return "a table (struct) of the partials of its fields"
		}
		return "the partial struct of " + rt.Go.String()
	}
	return "partial.Value[" + rt.Go.String() + "]"
}

// resolvedOf names the resolved type of partial type pt: string for a
// partial.Value[string].
func resolvedOf(pt *shape.Type) string {
	switch pt.Kind {
	case shape.Value:
		return pt.Elem.Go.String()
	case shape.List:
		return "[]" + pt.Elem.Go.String()
	case shape.Map:
		return "map[string]" + resolvedOf(pt.Elem)
	case shape.Nested:
		return "*" + resolvedOf(pt.Elem)
	case shape.Any:
		return "any"
	case shape.Struct:
		if pt.Go.Name() == "" {
			return "a table (struct) of the resolved types of its fields"
		}
		return "the resolved struct of " + pt.Go.String()
	}
	return pt.Go.String()
}

// at names key path p in a message: the root, or the path.
func at(p Path) string {
	if len(p) == 0 {
		return "at the root"
	}
	return "at " + p.String()
}

// typeName names t in one line: an unnamed struct, whose text would hold
// every field, is "a table (struct)".
func typeName(t reflect.Type) string {
	for k := t; ; k = k.Elem() {
		if k.Kind() == reflect.Struct && k.Name() == "" {
			return "a table (struct)"
		}
		if k.Kind() != reflect.Pointer && k.Kind() != reflect.Slice && k.Kind() != reflect.Map {
			break
		}
	}
	return t.String()
}

// fieldPair is a partial struct's field and the resolved field with the
// same key.
type fieldPair struct{ p, r *shape.Field }

var fieldPairs sync.Map // [2]*shape.Type -> []fieldPair

// pairsOf returns the fields of partial struct pt paired with those of
// resolved struct rt (pair has checked that they match).
func pairsOf(pt, rt *shape.Type) []fieldPair {
	key := [2]*shape.Type{pt, rt}
	if fp, ok := fieldPairs.Load(key); ok {
		return fp.([]fieldPair)
	}
	out := make([]fieldPair, len(pt.Fields))
	for i := range pt.Fields {
		rf, _ := rt.Field(pt.Fields[i].Key)
		out[i] = fieldPair{&pt.Fields[i], rf}
	}
	fieldPairs.Store(key, out)
	return out
}

// template returns a new resolved value for a map entry or nested value
// that lower layers did not have.
func template(rt *shape.Type) reflect.Value {
	if !rt.Defaults {
		return reflect.Zero(rt.Go)
	}
	v := reflect.New(rt.Go)
	v.Interface().(Defaulter).SetDefaults()
	return v.Elem()
}

// finalize sets out (addressable, of type rt) to partial p applied to def.
func finalize(out, p reflect.Value, pt *shape.Type, def reflect.Value, rt *shape.Type) {
	switch pt.Kind {
	case shape.Struct:
		out.Set(def)
		for _, fp := range pairsOf(pt, rt) {
			finalize(out.FieldByIndex(fp.r.Index), p.FieldByIndex(fp.p.Index), fp.p.Type, def.FieldByIndex(fp.r.Index), fp.r.Type)
		}
	case shape.Value:
		if p.Field(pt.At.State).Uint() != shape.StatePresent {
			out.Set(def)
		} else if rt.Kind == shape.Pointer && rt.Elem.Go == pt.Elem.Go && rt.Go != pt.Elem.Go {
			ptr := reflect.New(pt.Elem.Go)
			ptr.Elem().Set(p.Field(pt.At.V))
			out.Set(ptr)
		} else {
			out.Set(p.Field(pt.At.V))
		}
	case shape.List:
		items, before := p.Field(pt.At.Items), int(p.Field(pt.At.Before).Int())
		base := def
		if p.Field(pt.At.Base).Uint() == shape.BaseEmpty {
			base = reflect.Zero(rt.Go)
		}
		n := items.Len() + base.Len()
		if n == 0 {
			out.Set(reflect.Zero(rt.Go))
			return
		}
		dedup := p.Field(pt.At.Dedup).Bool()
		if !dedup && n == items.Len() && items.Type().AssignableTo(rt.Go) {
			// The layer's items alone: shared, not copied (a catalog's
			// run rules would be kept twice), capped so that an append
			// copies. (Slice3 would allocate a header.)
			out.Set(items)
			out.SetCap(n)
			return
		}
		// Copied item by item: AppendSlice allocates a slice header for
		// each call.
		s := reflect.MakeSlice(rt.Go, n, n)
		for i := range n {
			var from reflect.Value
			switch {
			case i < before:
				from = items.Index(i)
			case i < before+base.Len():
				from = base.Index(i - before)
			default:
				from = items.Index(i - base.Len())
			}
			s.Index(i).Set(from)
		}
		if dedup {
			s = shape.DedupSlice(s, rt.Elem)
		}
		out.Set(s)
	case shape.Map:
		out.Set(finalizeMap(p, pt, def, rt))
	case shape.Nested:
		switch p.Field(pt.At.State).Uint() {
		case shape.StateAbsent, shape.StateUnset:
			out.Set(def)
		default:
			base := template(rt.Elem)
			if !def.IsNil() {
				base = def.Elem()
			}
			ptr := reflect.New(rt.Elem.Go)
			finalize(ptr.Elem(), p.Field(pt.At.V).Elem(), pt.Elem, base, rt.Elem)
			out.Set(ptr)
		}
	case shape.Any:
		if x := shape.ApplyAny(p, pt, def.Interface(), def.Interface()); x != nil {
			out.Set(reflect.ValueOf(&x).Elem())
		} else {
			out.Set(reflect.Zero(rt.Go))
		}
	}
}

func finalizeMap(p reflect.Value, pt *shape.Type, def reflect.Value, rt *shape.Type) reflect.Value {
	// Reset only drops what lower layers said; they are already folded into
	// p, so the defaults are the base either way.
	entries := p.Field(pt.At.Entries)
	if entries.Len() == 0 {
		if def.Len() == 0 {
			return reflect.Zero(rt.Go)
		}
		return def
	}
	out := reflect.MakeMapWithSize(rt.Go, def.Len()+entries.Len())
	// Keys are copied into reused values: iter.Key and Convert copy each to
	// the heap.
	kp := shape.Key(rt.Go.Key())
	defer shape.PutKey(kp)
	k := *kp
	iter := def.MapRange()
	for iter.Next() {
		k.SetIterKey(iter)
		out.SetMapIndex(k, iter.Value())
	}
	var tmpl reflect.Value
	// Each entry is finalized into one reused value: SetMapIndex copies it
	// (and a large one to a slot of the map's own).
	nv := reflect.New(rt.Elem.Go).Elem()
	ekp := shape.Key(entries.Type().Key())
	defer shape.PutKey(ekp)
	ek := *ekp
	iter = entries.MapRange()
	for iter.Next() {
		ek.SetIterKey(iter)
		k.SetString(ek.String())
		e := iter.Value()
		if e.IsNil() {
			// An unset entry is what the defaults give: theirs, or none.
			if d := def.MapIndex(k); d.IsValid() {
				out.SetMapIndex(k, d)
			} else {
				out.SetMapIndex(k, reflect.Value{})
			}
			continue
		}
		if pt.Elem.Kind == shape.Any && e.Elem().Field(pt.Elem.At.State).Uint() == shape.StateAbsent {
			continue
		}
		base := out.MapIndex(k)
		if !base.IsValid() {
			if !tmpl.IsValid() {
				tmpl = template(rt.Elem)
			}
			base = tmpl
		}
		nv.SetZero()
		finalize(nv, e.Elem(), pt.Elem, base, rt.Elem)
		if pt.Elem.Kind == shape.Any && nv.IsNil() {
			out.SetMapIndex(k, reflect.Value{})
			continue
		}
		out.SetMapIndex(k, nv)
	}
	if out.Len() == 0 {
		return reflect.Zero(rt.Go)
	}
	return out
}

var validatorType = reflect.TypeFor[Validator]()

var validates sync.Map // *shape.Type -> bool

// hasValidators reports whether values of t, or of anything they hold,
// implement Validator; the walk skips subtrees that do not.
func hasValidators(t *shape.Type) bool {
	if b, ok := validates.Load(t); ok {
		return b.(bool)
	}
	var walk func(t *shape.Type, seen map[*shape.Type]bool) bool
	walk = func(t *shape.Type, seen map[*shape.Type]bool) bool {
		if t == nil || seen[t] {
			return false
		}
		seen[t] = true
		if t.Go.Implements(validatorType) || reflect.PointerTo(t.Go).Implements(validatorType) {
			return true
		}
		for _, f := range t.Fields {
			if walk(f.Type, seen) {
				return true
			}
		}
		return walk(t.Elem, seen)
	}
	b := walk(t, map[*shape.Type]bool{})
	validates.Store(t, b)
	return b
}

// validate calls Validate on every value of the resolved tree that has it.
func validate(v reflect.Value, t *shape.Type, path Path, errs *diag.Errors) {
	if !hasValidators(t) {
		return
	}
	if v.CanAddr() {
		if val, ok := v.Addr().Interface().(Validator); ok {
			addErrors(errs, path, val.Validate())
		}
	} else if val, ok := v.Interface().(Validator); ok {
		addErrors(errs, path, val.Validate())
	}
	switch t.Kind {
	case shape.Struct:
		for i := range t.Fields {
			f := &t.Fields[i]
			validate(v.FieldByIndex(f.Index), f.Type, path.Append(f.Key), errs)
		}
	case shape.GoMap:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		for _, k := range keys {
			e := reflect.New(t.Elem.Go).Elem()
			e.Set(v.MapIndex(reflect.ValueOf(k).Convert(t.Go.Key())))
			validate(e, t.Elem, path.Append(k), errs)
		}
	case shape.Slice:
		for i := 0; i < v.Len(); i++ {
			validate(v.Index(i), t.Elem, path.Append(fmt.Sprint(i)), errs)
		}
	case shape.Pointer:
		if !v.IsNil() {
			validate(v.Elem(), t.Elem, path, errs)
		}
	}
}

func addErrors(errs *diag.Errors, path Path, err error) {
	if err == nil {
		return
	}
	var es diag.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			addErrors(errs, path, e)
		}
		return
	}
	var e *diag.Error
	if errors.As(err, &e) {
		c := *e
		c.Path = path.Append(e.Path...)
		*errs = append(*errs, &c)
		return
	}
	*errs = append(*errs, &diag.Error{Code: diag.CodeInvalid, Path: path, Msg: err.Error(), Err: err})
}

// from sets out (a partial of type pt) to the layer that turns def into x.
func from(out reflect.Value, pt *shape.Type, x, def reflect.Value, rt *shape.Type) {
	switch pt.Kind {
	case shape.Struct:
		for _, fp := range pairsOf(pt, rt) {
			fromField(out.FieldByIndex(fp.p.Index), fp.p, x.FieldByIndex(fp.r.Index), def.FieldByIndex(fp.r.Index), fp.r.Type)
		}
	default:
		fromField(out, &shape.Field{Type: pt}, x, def, rt)
	}
}

func fromField(out reflect.Value, pf *shape.Field, x, def reflect.Value, rt *shape.Type) {
	pt := pf.Type
	switch pt.Kind {
	case shape.Struct:
		from(out, pt, x, def, rt)
	case shape.Value:
		if rt.Kind == shape.Pointer && rt.Go != pt.Elem.Go {
			switch {
			case x.IsNil() && def.IsNil():
			case x.IsNil():
				out.Field(pt.At.State).SetUint(shape.StateUnset)
			case def.IsNil() || !shape.EqualLeaf(x.Elem(), def.Elem(), rt.Elem):
				out.Field(pt.At.V).Set(x.Elem())
				out.Field(pt.At.State).SetUint(shape.StatePresent)
			}
			return
		}
		if !shape.EqualLeaf(x, def, rt) {
			out.Field(pt.At.V).Set(x)
			out.Field(pt.At.State).SetUint(shape.StatePresent)
		}
	case shape.List:
		if x.Len() == 0 && def.Len() == 0 || shape.EqualLeaf(x, def, rt) {
			return
		}
		items := reflect.MakeSlice(x.Type(), x.Len(), x.Len())
		reflect.Copy(items, x)
		if pf.Strategy == shape.Append && def.Len() > 0 && def.Len() <= x.Len() && shape.EqualLeaf(x.Slice(0, def.Len()), def, rt) {
			out.Field(pt.At.Items).Set(items.Slice(def.Len(), x.Len()))
			return
		}
		out.Field(pt.At.Base).SetUint(shape.BaseEmpty)
		out.Field(pt.At.Items).Set(items)
	case shape.Map:
		entries := reflect.MakeMapWithSize(out.Field(pt.At.Entries).Type(), x.Len())
		elem := &shape.Field{Type: pt.Elem}
		xv := reflect.New(rt.Elem.Go).Elem() // each entry, copied without allocating
		tmpl := template(rt.Elem)
		iter := x.MapRange()
		for iter.Next() {
			k := iter.Key()
			xv.SetIterValue(iter)
			e := reflect.New(pt.Elem.Go)
			dv := def.MapIndex(k)
			if dv.IsValid() {
				fromField(e.Elem(), elem, xv, dv, rt.Elem)
				if shape.IsZero(e.Elem(), pt.Elem) {
					continue
				}
			} else {
				fromField(e.Elem(), elem, xv, tmpl, rt.Elem)
				if pt.Elem.Kind == shape.Any && shape.IsZero(e.Elem(), pt.Elem) {
					e.Elem().Set(reflect.ValueOf(AnyOf(xv.Interface())))
				}
			}
			entries.SetMapIndex(k.Convert(entries.Type().Key()), e)
		}
		// Entries of def that x lacks cannot be expressed: unsetting an entry
		// brings back what the defaults give. Finalize never drops them.
		if entries.Len() > 0 {
			out.Field(pt.At.Entries).Set(entries)
		}
	case shape.Nested:
		switch {
		case x.IsNil() && def.IsNil():
		case x.IsNil():
			out.Field(pt.At.State).SetUint(shape.StateUnset)
		default:
			base := template(rt.Elem)
			if !def.IsNil() {
				base = def.Elem()
			}
			p := reflect.New(pt.Elem.Go)
			from(p.Elem(), pt.Elem, x.Elem(), base, rt.Elem)
			if !def.IsNil() && shape.IsZero(p.Elem(), pt.Elem) {
				return
			}
			out.Field(pt.At.State).SetUint(shape.StatePresent)
			out.Field(pt.At.V).Set(p)
		}
	case shape.Any:
		out.Set(reflect.ValueOf(fromAny(x.Interface(), def.Interface())))
	}
}

func fromAny(x, def any) Any {
	return fromPlain(Normalize(x), Normalize(def))
}

// fromPlain is fromAny for normalised values.
func fromPlain(x, def any) Any {
	if reflect.DeepEqual(x, def) {
		return Any{}
	}
	if x == nil {
		return Any{State: Unset}
	}
	xm, xok := x.(map[string]any)
	dm, dok := def.(map[string]any)
	if !xok || !dok {
		return AnyOf(x)
	}
	t := &Map[Any]{Entries: map[string]*Any{}}
	for k := range dm {
		if _, ok := xm[k]; !ok {
			// x drops a key of the defaults: only a table merged into
			// nothing gives that.
			a := AnyOf(x)
			a.Base = BaseEmpty
			return a
		}
	}
	for k, v := range xm {
		if dv, ok := dm[k]; ok {
			if a := fromPlain(v, dv); a.State != Absent {
				t.Entries[k] = &a
			}
			continue
		}
		a := AnyOf(v)
		t.Entries[k] = &a
	}
	if len(t.Entries) == 0 {
		return Any{}
	}
	return Any{State: Present, Table: t}
}
