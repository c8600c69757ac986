// Package jsonv is an ordered JSON value that keeps what it does not
// change: object keys in their order and scalars as their exact text. Tool
// schemas pass through strata losslessly with it; only the parts an
// override changes are written anew.
package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
)

// Kind is the kind of a Value.
type Kind uint8

// Kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is a JSON value. Objects keep their keys in order; scalars keep
// their text.
type Value struct {
	kind    Kind
	raw     []byte // the exact text of a scalar
	keys    []string
	keyText [][]byte // the exact text of each key, nil for keys set later
	items   []*Value // object values (parallel to keys) or array elements
}

// Parse reads one JSON value. A key repeated in an object is an error.
func Parse(b []byte) (*Value, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	p := parser{data: b, dec: dec}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// MustParse is Parse for values known to be valid.
func MustParse(s string) *Value {
	v, err := Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

type parser struct {
	data []byte
	dec  *json.Decoder
}

const maxDepth = 1000

func (p *parser) value(depth int) (*Value, error) {
	if depth > maxDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	start := p.next()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		v := &Value{kind: Object}
		if t == '[' {
			v.kind = Array
		}
		for p.dec.More() {
			if v.kind == Object {
				start := p.next()
				kt, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				if v.Get(k) != nil {
					return nil, fmt.Errorf("key %q appears twice in an object", k)
				}
				v.keys = append(v.keys, k)
				v.keyText = append(v.keyText, bytes.Clone(p.data[start:p.dec.InputOffset()]))
			}
			e, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, e)
		}
		if _, err := p.dec.Token(); err != nil {
			return nil, err
		}
		return v, nil
	case nil:
		return &Value{kind: Null, raw: []byte("null")}, nil
	case bool:
		return &Value{kind: Bool, raw: []byte(fmt.Sprint(t))}, nil
	case json.Number:
		return &Value{kind: Number, raw: []byte(t)}, nil
	case string:
		end := int(p.dec.InputOffset())
		return &Value{kind: String, raw: bytes.Clone(p.data[start:end])}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// next returns the offset where the next token starts.
func (p *parser) next() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// Of converts a Go value (as encoding/json marshals it) to a Value.
func Of(x any) (*Value, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// MustOf is Of for values known to marshal.
func MustOf(x any) *Value {
	v, err := Of(x)
	if err != nil {
		panic(err)
	}
	return v
}

// Kind returns the kind of v.
func (v *Value) Kind() Kind { return v.kind }

// Get returns the value of key in object v, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.kind != Object {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.items[i]
		}
	}
	return nil
}

// Keys returns the keys of object v, in order.
func (v *Value) Keys() []string {
	if v == nil {
		return nil
	}
	return v.keys
}

// Items returns the elements of array v.
func (v *Value) Items() []*Value {
	if v == nil || v.kind != Array {
		return nil
	}
	return v.items
}

// Set sets key in object v to x, in place when the key exists, last
// otherwise.
func (v *Value) Set(key string, x *Value) {
	for i, k := range v.keys {
		if k == key {
			v.items[i] = x
			return
		}
	}
	v.keys = append(v.keys, key)
	v.keyText = append(v.keyText, nil)
	v.items = append(v.items, x)
}

// Delete removes key from object v.
func (v *Value) Delete(key string) {
	for i, k := range v.keys {
		if k == key {
			v.keys = append(v.keys[:i], v.keys[i+1:]...)
			v.keyText = append(v.keyText[:i], v.keyText[i+1:]...)
			v.items = append(v.items[:i], v.items[i+1:]...)
			return
		}
	}
}

// NewObject returns an empty object.
func NewObject() *Value { return &Value{kind: Object} }

// NewArray returns an array of items.
func NewArray(items ...*Value) *Value { return &Value{kind: Array, items: items} }

// Append adds an element to array v.
func (v *Value) Append(x *Value) { v.items = append(v.items, x) }

// Str returns the text of string v, and whether v is a string.
func (v *Value) Str() (string, bool) {
	if v == nil || v.kind != String {
		return "", false
	}
	var s string
	_ = json.Unmarshal(v.raw, &s)
	return s, true
}

// Interface returns v as encoding/json would decode it, with numbers as
// json.Number.
func (v *Value) Interface() any {
	dec := json.NewDecoder(bytes.NewReader(v.JSON()))
	dec.UseNumber()
	var x any
	_ = dec.Decode(&x)
	return x
}

// Clone returns a deep copy of v.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := &Value{kind: v.kind, raw: v.raw, keys: append([]string(nil), v.keys...), keyText: append([][]byte(nil), v.keyText...)}
	for _, it := range v.items {
		c.items = append(c.items, it.Clone())
	}
	return c
}

// JSON returns v as compact JSON: keys in order, scalars as they were.
func (v *Value) JSON() []byte {
	var b bytes.Buffer
	v.write(&b)
	return b.Bytes()
}

// MarshalJSON implements json.Marshaler.
func (v *Value) MarshalJSON() ([]byte, error) { return v.JSON(), nil }

// UnmarshalJSON implements json.Unmarshaler.
func (v *Value) UnmarshalJSON(b []byte) error {
	p, err := Parse(b)
	if err != nil {
		return err
	}
	*v = *p
	return nil
}

func (v *Value) write(b *bytes.Buffer) {
	switch v.kind {
	case Object:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if v.keyText[i] != nil {
				b.Write(v.keyText[i])
			} else {
				writeString(b, k)
			}
			b.WriteByte(':')
			v.items[i].write(b)
		}
		b.WriteByte('}')
	case Array:
		b.WriteByte('[')
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	default:
		b.Write(v.raw)
	}
}

// writeString writes s as a JSON string without escaping HTML characters.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // the newline Encode adds
}

// String returns v as compact JSON.
func (v *Value) String() string { return string(v.JSON()) }

// Equal reports whether a and b are the same JSON value: same keys and
// values, in any order, numbers compared by value.
func Equal(a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	return jsonEqual(a.Interface(), b.Interface())
}

func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, x := range a {
			y, ok := bm[k]
			if !ok || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	case []any:
		ba, ok := b.([]any)
		if !ok || len(a) != len(ba) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], ba[i]) {
				return false
			}
		}
		return true
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		x, okx := new(big.Rat).SetString(string(a))
		y, oky := new(big.Rat).SetString(string(bn))
		return okx && oky && x.Cmp(y) == 0
	}
	return a == b
}
