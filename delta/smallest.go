package delta

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/partial"
)

// Smallest returns the smallest layer that turns from into to, judged
// after finalize over defaults: [Between] without the fields whose
// finalized value is the same for from and to. What Between keeps because
// the layers write it differently goes: a value the defaults give anyway
// ([tools.'*'] run = "ask" over nothing, with the library's defaults), the
// unset of a field whose value is the default. merge(from, Smallest(from,
// to, defaults)) finalizes over defaults as to does, and
// Smallest(from, to, defaults) is empty exactly when from and to finalize
// alike.
//
// Only Between knows no defaults, so only Between's result holds over any
// defaults; Smallest's holds over the ones it was given. R is the resolved
// type that P finalizes into (see [partial.Finalize]); from and to are
// finalized whole, and the problems validation finds in them do not
// matter (an overlay alone may lack what the layers below give). The
// inputs are not modified. Smallest panics when P and R do not pair.
func Smallest[P, R any](from, to *P, defaults R) *P {
	pt, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		panic(err)
	}
	rt, err := shape.Of(reflect.TypeFor[R]())
	if err != nil {
		panic(err)
	}
	fa, err := partial.Finalize(from, defaults)
	if err != nil && !validation(err) {
		panic(err)
	}
	fb, err := partial.Finalize(to, defaults)
	if err != nil && !validation(err) {
		panic(err)
	}
	d := Between(from, to)
	trim(reflect.ValueOf(d).Elem(), reflect.ValueOf(&fa).Elem(), reflect.ValueOf(&fb).Elem(), pt, rt)
	return d
}

// validation reports whether err holds the problems that validating a
// finalized value found, rather than a mismatch of types.
func validation(err error) bool {
	var es diag.Errors
	var e *diag.Error
	return errors.As(err, &es) || errors.As(err, &e)
}

// trim clears the fields of delta d (of partial type pt) whose finalized
// values fa and fb (of resolved type rt) are the same. Finalize is local:
// the finalized value at a key depends only on the merged layer and the
// defaults at that key, so a field of d that leaves its key's finalized
// value as from has it is not needed. It reports whether d is now zero.
func trim(d, fa, fb reflect.Value, pt, rt *shape.Type) bool {
	if shape.IsZero(d, pt) {
		return true
	}
	if shape.EqualLeaf(fa, fb, rt) { // a rule's position is not part of it

		d.Set(reflect.Zero(d.Type()))
		return true
	}
	switch pt.Kind {
	case shape.Struct:
		zero := true
		for i := range pt.Fields {
			f := &pt.Fields[i]
			rf, ok := rt.Field(f.Key)
			if !ok {
				panic(fmt.Sprintf("strata: resolved type %s has no field for key %q of %s", rt.Go, f.Key, pt.Go))
			}
			if !trim(d.FieldByIndex(f.Index), fa.FieldByIndex(rf.Index), fb.FieldByIndex(rf.Index), f.Type, rf.Type) {
				zero = false
			}
		}
		return zero
	case shape.Nested:
		// A Nested that from leaves absent and the defaults do not give
		// finalizes to nil: d brings it, whole.
		if d.Field(pt.At.State).Uint() != shape.StatePresent || fa.IsNil() || fb.IsNil() {
			return false
		}
		if trim(d.Field(pt.At.V).Elem(), fa.Elem(), fb.Elem(), pt.Elem, rt.Elem) {
			d.Set(reflect.Zero(d.Type()))
			return true
		}
	case shape.Map:
		entries := d.Field(pt.At.Entries)
		iter := entries.MapRange()
		var drop []reflect.Value
		for iter.Next() {
			k := iter.Key()
			ea, eb := fa.MapIndex(k.Convert(fa.Type().Key())), fb.MapIndex(k.Convert(fb.Type().Key()))
			switch {
			case ea.IsValid() != eb.IsValid():
				continue // an entry one of them has and not the other
			case !ea.IsValid():
				drop = append(drop, k) // neither has it
			case iter.Value().IsNil():
				if shape.EqualLeaf(ea, eb, rt.Elem) {
					drop = append(drop, k)
				}
			default:
				if trim(iter.Value().Elem(), ea, eb, pt.Elem, rt.Elem) {
					drop = append(drop, k)
				}
			}
		}
		for _, k := range drop {
			entries.SetMapIndex(k, reflect.Value{})
		}
		if entries.Len() == 0 && !d.Field(pt.At.Reset).Bool() {
			d.Set(reflect.Zero(d.Type()))
			return true
		}
	}
	return false
}
