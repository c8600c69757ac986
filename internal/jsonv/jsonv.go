// Package jsonv is an ordered JSON value that keeps what it does not
// change: object keys in their order and scalars as their exact text. Tool
// schemas pass through strata losslessly with it; only the parts an
// override changes are written anew.
package jsonv

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/strata-config/strata/internal/limits"
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
//
// A Value is 80 bytes: a server's listing of 10,000 tools is some 170,000
// of them. An object keeps the exact text of its keys only where one is not
// its key in quotes (see [plainKey]); nearly none is.
type Value struct {
	raw   string   // the exact text of a scalar
	keys  []string // an object's keys
	items []*Value // an object's values (parallel to keys) or an array's elements
	// texts, when not nil, holds the exact text of each key of an object
	// whose keys are not all plain (see plainKey); "" for a plain one, or
	// one set later.
	texts *[]string
	kind  Kind
}

// plainKey reports whether key is written as itself in quotes: it is
// valid UTF-8 and holds nothing JSON or encoding/json escapes (a control
// character, a quote, a backslash, U+2028, U+2029). A key read whose text
// in quotes is plain is that text, so it is written back exactly.
func plainKey(key string) bool {
	for _, r := range key {
		if r < 0x20 || r == '"' || r == '\\' || r == '\u2028' || r == '\u2029' || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// keyText returns the exact text of the i-th key of object v, or "" where
// it is written from the key (see [Value.write]).
func (v *Value) keyText(i int) string {
	if v.texts == nil {
		return ""
	}
	return (*v.texts)[i]
}

// Of converts a Go value (as encoding/json marshals it) to a Value, with
// the default [Options].
func Of(x any) (*Value, error) { return Options{}.Of(x) }

// Of converts a Go value (as encoding/json marshals it) to a Value within
// o: a value that nests deeper than o.MaxDepth (a schema an MCP server
// answered, decoded by its SDK) is an error.
func (o Options) Of(x any) (*Value, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	return parse(b, limits.Or(o.MaxDepth, limits.Depth)) // b is ours alone: no copy needed
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
	if v.texts != nil {
		*v.texts = append(*v.texts, "")
	}
	v.items = append(v.items, x)
}

// Delete removes key from object v.
func (v *Value) Delete(key string) {
	for i, k := range v.keys {
		if k == key {
			v.keys = append(v.keys[:i], v.keys[i+1:]...)
			if v.texts != nil {
				t := append((*v.texts)[:i], (*v.texts)[i+1:]...)
				v.texts = &t
			}
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

// Str returns the text of string v, and whether v is a string. Nearly
// always (no escape, valid UTF-8) it shares the memory of the text v was
// parsed from: strings.Clone what is kept while that text is not.
func (v *Value) Str() (string, bool) {
	if v == nil || v.kind != String {
		return "", false
	}
	return unquote(v.raw), true
}

// unquote returns the text of raw, a valid JSON string, decoded as
// json.Unmarshal decodes it: invalid UTF-8, and an escaped surrogate that
// is not half of a pair, become U+FFFD.
func unquote(raw string) string {
	if inner := raw[1 : len(raw)-1]; strings.IndexByte(inner, '\\') < 0 && utf8.ValidString(inner) {
		return inner
	}
	b, _ := jsontext.AppendUnquote(nil, raw) // the error says what was replaced
	return string(b)
}

// Interface returns v as encoding/json would decode it, with numbers as
// json.Number.
func (v *Value) Interface() any {
	switch v.kind {
	case Bool:
		return v.raw[0] == 't'
	case Number:
		return json.Number(v.raw)
	case String:
		return unquote(v.raw)
	case Array:
		out := make([]any, len(v.items))
		for i, it := range v.items {
			out[i] = it.Interface()
		}
		return out
	case Object:
		out := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			out[k] = v.items[i].Interface()
		}
		return out
	}
	return nil
}

// Clone returns a deep copy of v.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := &Value{kind: v.kind, raw: v.raw, keys: append([]string(nil), v.keys...)}
	if v.texts != nil {
		t := slices.Clone(*v.texts)
		c.texts = &t
	}
	for _, it := range v.items {
		c.items = append(c.items, it.Clone())
	}
	return c
}

// JSON returns v as compact JSON: keys in order, scalars as they were.
// The result is exactly as long as the text (no room beyond it): the
// schemas of a catalog are kept as it, some thousands of them.
func (v *Value) JSON() []byte {
	b := writeBuffers.Get().(*bytes.Buffer)
	b.Reset()
	v.write(b)
	out := make([]byte, b.Len())
	copy(out, b.Bytes())
	if b.Cap() <= maxScratch {
		writeBuffers.Put(b)
	}
	return out
}

// writeBuffers are the buffers JSON writes in; one larger than
// maxScratch (a large document) is left to the collector.
var writeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

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
			switch t := v.keyText(i); {
			case t != "":
				b.WriteString(t)
			case plainKey(k):
				b.WriteByte('"')
				b.WriteString(k)
				b.WriteByte('"')
			default:
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
		b.WriteString(v.raw)
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
// values, in any order, numbers compared by value, strings by what they
// say. It walks the two values as they are (nothing is converted or
// written): what is written the same is compared as bytes, and objects
// whose keys come in the same order key by key.
func Equal(a, b *Value) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Object:
		if len(a.keys) != len(b.keys) {
			return false
		}
		for i, k := range a.keys {
			if b.keys[i] != k {
				return sameMembers(a, b)
			}
			if !Equal(a.items[i], b.items[i]) {
				return false
			}
		}
		return true
	case Array:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := range a.items {
			if !Equal(a.items[i], b.items[i]) {
				return false
			}
		}
		return true
	case String:
		return a.raw == b.raw || unquote(a.raw) == unquote(b.raw)
	case Number:
		if a.raw == b.raw {
			return true
		}
		x, okx := new(big.Rat).SetString(a.raw)
		y, oky := new(big.Rat).SetString(b.raw)
		return okx && oky && x.Cmp(y) == 0
	}
	return a.raw == b.raw // true, false, null
}

// sameMembers reports whether the objects a and b, of as many keys, have
// the same members in another order.
func sameMembers(a, b *Value) bool {
	at := make(map[string]*Value, len(a.keys))
	for i, k := range a.keys {
		at[k] = a.items[i]
	}
	if len(at) != len(b.keys) {
		return false // a key given twice (a value built with Set cannot be)
	}
	for i, k := range b.keys {
		x, ok := at[k]
		if !ok || !Equal(x, b.items[i]) {
			return false
		}
	}
	return true
}
