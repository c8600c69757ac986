package shape

import (
	"reflect"
	"testing"
	"time"
)

// scalar is a type no other test describes, so that Structure meets it
// uncached.
type scalar int

// TestStructureOfUncachedScalar describes a scalar type by its structure
// before anything described it: Structure then builds it the way Of does,
// under the lock it already holds. (It used to call Of, which took the
// lock again and deadlocked.)
func TestStructureOfUncachedScalar(t *testing.T) {
	typ := reflect.TypeFor[scalar]()
	if _, ok := cache.Load(typ); ok {
		t.Fatalf("%v is already cached: the test would not test the uncached path", typ)
	}
	type result struct {
		s   *Type
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Structure(typ)
		done <- result{s, err}
	}()
	var got result
	select {
	case got = <-done:
	case <-time.After(10 * time.Second): // a safety net: Structure returns at once or never
		t.Fatal("Structure of an uncached scalar did not return: it deadlocks on buildMu")
	}
	if got.err != nil {
		t.Fatalf("Structure(%v): %v", typ, got.err)
	}
	want, err := Of(typ)
	if err != nil {
		t.Fatal(err)
	}
	if got.s != want {
		t.Errorf("Structure(%v) = %+v, want the cached description %+v that Of returns", typ, got.s, want)
	}
	if got.s.Kind != Int {
		t.Errorf("Structure(%v).Kind = %v, want Int", typ, got.s.Kind)
	}
}

// TestMarkWithoutFields: a type that holds a leaf's mark without the
// leaf's fields is an error, not a leaf read at the wrong places.
func TestMarkWithoutFields(t *testing.T) {
	type fake struct {
		_     ValueMark
		Value int
	}
	_, err := Of(reflect.TypeFor[fake]())
	if err == nil || err.Error() != "strata: shape.fake holds the mark of a leaf type but has no field V" {
		t.Errorf("Of(fake) = %v", err)
	}
}
