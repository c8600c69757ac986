package decode

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/doc"
)

// Values builds the document tree of a map of Go values, as a loader such
// as koanf gives them, for the decoder: strings, booleans, numbers of any
// Go type (json.Number too), slices and arrays, maps keyed by strings
// (their keys sorted, a map having no order), nil (a null) and time.Time
// (a datetime). Problems are named source, each with its key path. With
// text, string values are left out of the tree and returned apart, for
// the caller to read as the text of overrides.
func Values(source string, m map[string]any, text bool) (*doc.Node, []Text, diag.Errors) {
	b := mapReader{source: source, text: text}
	root := b.table(reflect.ValueOf(m), nil)
	return root, b.texts, b.errs
}

// Text is a string value that [Values] left out of the tree.
type Text struct {
	Path  []string
	Value string
}

// mapReader builds the document tree of a map of values.
type mapReader struct {
	source string
	text   bool
	errs   diag.Errors
	texts  []Text           // with text: the string values
	open   map[uintptr]bool // the maps and slices being read, to refuse cycles
}

// enter marks the map or slice v as being read; it reports false, and a
// problem, when v is already: it holds itself.
func (b *mapReader) enter(v reflect.Value, path []string) bool {
	ptr := v.Pointer()
	if ptr == 0 {
		return true
	}
	if b.open[ptr] {
		b.fail(path, "holds itself")
		return false
	}
	if b.open == nil {
		b.open = map[uintptr]bool{}
	}
	b.open[ptr] = true
	return true
}

func (b *mapReader) leave(v reflect.Value) { delete(b.open, v.Pointer()) }

func (b *mapReader) fail(path []string, msg string) {
	b.errs = append(b.errs, &diag.Error{Code: diag.CodeType, Source: b.source, Path: slices.Clone(path), Msg: msg})
}

// table builds the table node of map m, its keys in sorted order (a map
// has no order of its own).
func (b *mapReader) table(m reflect.Value, path []string) *doc.Node {
	n := doc.NewTable()
	if m.Type().Key().Kind() != reflect.String {
		b.fail(path, fmt.Sprintf("a table's keys must be strings, not %s", m.Type().Key()))
		return n
	}
	if !b.enter(m, path) {
		return n
	}
	defer b.leave(m)
	keys := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := append(path[:len(path):len(path)], k)
		e := m.MapIndex(reflect.ValueOf(k).Convert(m.Type().Key()))
		if b.text && isString(e) {
			b.texts = append(b.texts, Text{Path: p, Value: stringOf(e)})
			continue
		}
		if c := b.node(e, p); c != nil {
			n.Set(k, c)
		}
	}
	return n
}

func isString(v reflect.Value) bool {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	return v.Kind() == reflect.String && v.Type() != reflect.TypeFor[json.Number]()
}

func stringOf(v reflect.Value) string {
	for v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	return v.String()
}

// node builds the node of value v at path; nil after a problem.
func (b *mapReader) node(v reflect.Value, path []string) *doc.Node {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return &doc.Node{Kind: doc.Null, KeyOff: -1, Off: -1}
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return &doc.Node{Kind: doc.Null, KeyOff: -1, Off: -1}
	}
	switch x := v.Interface().(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return doc.NewInt(i)
		}
		f, err := x.Float64()
		if err != nil {
			b.fail(path, fmt.Sprintf("%q is not a number", string(x)))
			return nil
		}
		return doc.NewFloat(f)
	case time.Time:
		return &doc.Node{Kind: doc.Datetime, Str: x.Format(time.RFC3339Nano), KeyOff: -1, Off: -1}
	}
	switch v.Kind() {
	case reflect.String:
		return doc.NewString(v.String())
	case reflect.Bool:
		return doc.NewBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return doc.NewInt(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() > math.MaxInt64 {
			b.fail(path, fmt.Sprintf("integer %d is out of range", v.Uint()))
			return nil
		}
		return doc.NewInt(int64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		return doc.NewFloat(v.Float())
	case reflect.Slice, reflect.Array:
		a := doc.NewArray()
		if v.Kind() == reflect.Slice {
			if !b.enter(v, path) {
				return nil
			}
			defer b.leave(v)
		}
		for i := 0; i < v.Len(); i++ {
			if c := b.node(v.Index(i), append(path[:len(path):len(path)], fmt.Sprint(i))); c != nil {
				a.Append(c)
			}
		}
		return a
	case reflect.Map:
		return b.table(v, path)
	}
	b.fail(path, fmt.Sprintf("a Go %s is not a configuration value", v.Type()))
	return nil
}
