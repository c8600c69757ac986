package jsonv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/limits"
)

// Parse reads one JSON value with the default [Options]. A key repeated
// in an object is an error.
//
// It accepts exactly what encoding/json accepts (json.Valid), invalid
// UTF-8 included (a schema is data, kept as it came), keys decoded as
// json.Unmarshal decodes them, and nothing deeper than the default limit.
// The Value keeps its own copy of b: the caller may reuse b afterwards.
func Parse(b []byte) (*Value, error) { return Options{}.Parse(b) }

// Options bound what Parse accepts. The zero Options gives the defaults.
type Options struct {
	// MaxDepth is how deep objects and arrays may nest: a value's path
	// has at most MaxDepth keys and indexes. 0 means 1,000, the default of
	// codec.Limits.Depth, which a host passes on for the schemas tools
	// describe and MCP servers answer. The tokenizer goes no deeper than
	// 10,000 levels whatever the limit.
	MaxDepth int
}

// Parse is [Parse] within o.
func (o Options) Parse(b []byte) (*Value, error) {
	return parse(bytes.Clone(b), limits.Or(o.MaxDepth, limits.Depth))
}

// MustParse is Parse for values known to be valid.
func MustParse(s string) *Value {
	v, err := parse([]byte(s), limits.Depth) // the conversion is already a copy
	if err != nil {
		panic(err)
	}
	return v
}

// tokenizerNesting is how deep the tokenizer lets objects and arrays nest.
const tokenizerNesting = 10_000

// decoders keeps tokenizers from one parse to the next: a schema is small,
// and a tokenizer's state costs as much as the Values of one.
var decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// tokenizerOptions keep invalid UTF-8 as it came, a tool's schema being
// data that passes through, and leave keys given twice refused, as
// encoding/json's users would read one of them and not the other.
var tokenizerOptions = jsontext.AllowInvalidUTF8(true)

// parse reads one JSON value from data, which the Value keeps: the scalars'
// text and the keys' text are slices of it, and its keys share its
// memory, so nothing may change data afterwards. Those slices have no
// spare capacity, and nothing in this package writes through them.
func parse(data []byte, maxDepth int) (*Value, error) {
	dec := decoder(data)
	p := parser{dec: dec, data: data, str: unsafe.String(unsafe.SliceData(data), len(data)), maxDepth: maxDepth}
	s := scratchPool.Get().(*scratch)
	p.keys, p.texts, p.items = s.keys[:0], s.texts[:0], s.items[:0]
	defer func() {
		release(dec)
		if cap(p.keys)+cap(p.items) > maxScratch {
			return // let a rare huge one go
		}
		// Keep no Value of this parse alive through the pool.
		clear(p.keys[:cap(p.keys)])
		clear(p.texts[:cap(p.texts)])
		clear(p.items[:cap(p.items)])
		s.keys, s.texts, s.items = p.keys, p.texts, p.items
		scratchPool.Put(s)
	}()
	v, err := p.value(0)
	if err != nil {
		return nil, p.wrap(err)
	}
	if off := p.skip(false); off < len(data) {
		return nil, p.errorf(off, "unexpected data after the JSON value")
	}
	return v, nil
}

// scratch is the parser's stacks, kept from one parse to the next.
type scratch struct {
	keys  []string
	texts []string
	items []*Value
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

const maxScratch = 1 << 16

// parser builds Values from the tokens of a jsontext.Decoder.
type parser struct {
	dec      *jsontext.Decoder
	data     []byte
	str      string // data as a string, sharing its memory
	maxDepth int

	// The keys and values of the objects and arrays being read, innermost
	// last, and the exact text of each key that is not plain ("" for the
	// others); each container moves its part into the arenas when it ends.
	keys  []string
	texts []string
	items []*Value

	// Arenas the Values and the containers' slices are carved from, to
	// spare an allocation for each. Slices carved from them have no spare
	// capacity, so appending to one (Set, Append) moves it elsewhere rather
	// than writing over its neighbour's part.
	vals      []Value
	keyArena  []string
	itemArena []*Value
	// How many Values, keys and items have been carved so far.
	nVals, nKeys, nItems int
}

// chunk returns the size of a new arena chunk, of at least need elements,
// when used have been carved so far: enough for the rest of the input if
// it goes on as it went, a little more to spare another chunk, but no more
// than the rest of the input can hold (a value takes two bytes, but for a
// digit alone).
func (p *parser) chunk(used, need int) int {
	pos := int(p.dec.InputOffset())
	rest := len(p.data) - pos
	var est int
	if used == 0 || pos == 0 {
		est = len(p.data) / 32 // a schema has a value every 20 bytes or so
	} else {
		est = int(int64(used) * int64(rest) / int64(pos))
	}
	return max(need, min(est+est/8+8, (rest+1)/2))
}

func (p *parser) newValue(k Kind) *Value {
	if len(p.vals) == 0 {
		p.vals = make([]Value, p.chunk(p.nVals, 1))
	}
	p.nVals++
	v := &p.vals[0]
	p.vals = p.vals[1:]
	v.kind = k
	return v
}

// carveItems returns a copy of s with no spare capacity.
func (p *parser) carveItems(s []*Value) []*Value {
	n := len(s)
	if len(p.itemArena) < n {
		p.itemArena = make([]*Value, p.chunk(p.nItems, n))
	}
	p.nItems += n
	c := p.itemArena[:n:n]
	p.itemArena = p.itemArena[n:]
	copy(c, s)
	return c
}

// carveKeys returns a copy of s with no spare capacity.
func (p *parser) carveKeys(s []string) []string {
	n := len(s)
	if len(p.keyArena) < n {
		p.keyArena = make([]string, p.chunk(p.nKeys, n))
	}
	p.nKeys += n
	ks := p.keyArena[:n:n]
	p.keyArena = p.keyArena[n:]
	copy(ks, s)
	return ks
}

// keyTexts returns the texts of an object's keys, t, to keep: nil when
// every key is plain (nearly always), else a copy.
func keyTexts(t []string) *[]string {
	for _, x := range t {
		if x != "" {
			c := slices.Clone(t)
			return &c
		}
	}
	return nil
}

// text returns the text the tokenizer just read, raw, as a string sharing
// data's memory.
func (p *parser) text(raw []byte) string {
	end := int(p.dec.InputOffset())
	return p.str[end-len(raw) : end]
}

// value reads the next value, depth keys and indexes deep.
func (p *parser) value(depth int) (*Value, error) {
	kind := p.dec.PeekKind()
	if depth > p.maxDepth && kind != 0 {
		return nil, p.errorf(p.next(), "JSON nests deeper than %s levels, the limit", diag.Count(p.maxDepth))
	}
	switch kind {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	}
	raw, err := p.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	k := Number
	switch kind {
	case '"':
		k = String
	case 't', 'f':
		k = Bool
	case 'n':
		k = Null
	}
	v := p.newValue(k)
	v.raw = p.text(raw)
	return v, nil
}

// open reads the '{' or '[' that starts a value.
func (p *parser) open() error {
	if p.dec.StackDepth() >= tokenizerNesting {
		return p.errorf(p.next(), "JSON nests deeper than %s levels, the JSON tokenizer's limit", diag.Count(tokenizerNesting))
	}
	_, err := p.dec.ReadToken()
	return err
}

func (p *parser) object(depth int) (*Value, error) {
	if err := p.open(); err != nil {
		return nil, err
	}
	v := p.newValue(Object)
	base, itemBase := len(p.keys), len(p.items)
	for p.dec.PeekKind() != '}' {
		raw, err := p.dec.ReadValue() // the tokenizer refuses a key given twice
		if err != nil {
			return nil, err
		}
		text := p.text(raw)
		key := unquote(text) // nearly always a slice of text: see unquote
		if plainKey(key) && key == text[1:len(text)-1] {
			text = "" // written back as it is
		}
		p.keys = append(p.keys, key)
		p.texts = append(p.texts, text)
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, e)
	}
	if _, err := p.dec.ReadToken(); err != nil { // }
		return nil, err
	}
	if len(p.keys) > base {
		v.keys, v.texts = p.carveKeys(p.keys[base:]), keyTexts(p.texts[base:])
		v.items = p.carveItems(p.items[itemBase:])
		p.keys, p.texts, p.items = p.keys[:base], p.texts[:base], p.items[:itemBase]
	}
	return v, nil
}

func (p *parser) array(depth int) (*Value, error) {
	if err := p.open(); err != nil {
		return nil, err
	}
	v := p.newValue(Array)
	base := len(p.items)
	for p.dec.PeekKind() != ']' {
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, e)
	}
	if _, err := p.dec.ReadToken(); err != nil { // ]
		return nil, err
	}
	if len(p.items) > base {
		v.items = p.carveItems(p.items[base:])
		p.items = p.items[:base]
	}
	return v, nil
}

// next returns the offset where the next token starts.
func (p *parser) next() int { return p.skip(true) }

// skip returns the offset of the first byte after what the tokenizer read
// that is not whitespace, nor, with delims, a ',' or ':'; or len(p.data).
func (p *parser) skip(delims bool) int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\n', '\r':
		case ',', ':':
			if !delims {
				return off
			}
		default:
			return off
		}
		off++
	}
	return off
}

// wrap gives a problem of the tokenizer the form of parse's problems.
func (p *parser) wrap(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return p.errorf(len(p.data), "unexpected end of input")
	}
	var se *jsontext.SyntacticError
	switch {
	case !errors.As(err, &se) || se.Err == nil:
		return err // one of ours
	case se.Err == jsontext.ErrDuplicateName:
		return p.errorf(int(se.ByteOffset), "key %q appears twice in an object", se.JSONPointer.LastToken())
	}
	return p.errorf(int(se.ByteOffset), "%s", se.Err)
}

// errorf returns an error at offset off.
func (p *parser) errorf(off int, format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", off, fmt.Sprintf(format, args...))
}

// StringMember returns the string that the member key of the JSON object
// data holds, and whether data is an object whose member key is a string
// (see [Members]).
func StringMember(data []byte, key string) (string, bool) {
	return Text(Member(data, key))
}

// Text returns the string whose JSON text is raw, and whether raw is a
// string's text.
func Text(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	return unquote(string(raw)), true
}

// Member returns the text of the member key of the JSON object data, or
// nil (see [Members]).
func Member(data []byte, key string) []byte { return Members(data, key)[0] }

// Members returns the text of each member of the JSON object data that
// keys name, in their order, each a slice of data with no spare capacity,
// or nil for one data does not have before its end or a problem. It reads
// no more of data than it must, and makes no Values: a tool's name, or
// its input schema, in its JSON, say.
func Members(data []byte, keys ...string) [][]byte {
	out := make([][]byte, len(keys))
	dec := decoder(data)
	defer release(dec)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return out
	}
	for left := len(keys); left > 0 && dec.PeekKind() == '"'; {
		k, err := dec.ReadToken()
		if err != nil {
			return out
		}
		i := slices.Index(keys, k.String())
		if i < 0 || out[i] != nil {
			if dec.SkipValue() != nil {
				return out
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return out
		}
		end := int(dec.InputOffset())
		out[i] = data[end-len(v) : end : end]
		left--
	}
	return out
}

// decoder returns a tokenizer of data from the pool; release gives it
// back.
func decoder(data []byte) *jsontext.Decoder {
	dec := decoders.Get().(*jsontext.Decoder)
	dec.Reset(bytes.NewBuffer(data), tokenizerOptions)
	return dec
}

// release gives dec back to the pool, keeping nothing of its data alive
// through it.
func release(dec *jsontext.Decoder) {
	dec.Reset(bytes.NewBuffer(nil))
	decoders.Put(dec)
}

// Elements returns the text of each element of the JSON array data, each
// a slice of data with no spare capacity, and whether data is an array
// read to its end without a problem. It makes no Values.
func Elements(data []byte) ([][]byte, bool) {
	dec := decoder(data)
	defer release(dec)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '[' {
		return nil, false
	}
	var out [][]byte
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		out = append(out, data[end-len(v):end:end])
	}
	if _, err := dec.ReadToken(); err != nil { // ]
		return nil, false
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, false // something after the array
	}
	return out, true
}

// Compact returns data, one JSON value, without its insignificant
// whitespace, with the default [Options].
func Compact(data []byte) ([]byte, error) { return Options{}.Compact(data) }

// Compact returns data, one JSON value, without its insignificant
// whitespace: the text [Parse](data).JSON() gives, in memory of its own,
// for what Parse accepts (and Parse's problem for the rest), without
// making Values: each token as the tokenizer read it, in one pass.
func (o Options) Compact(data []byte) ([]byte, error) {
	out, ok := compact(make([]byte, 0, len(data)), data, limits.Or(o.MaxDepth, limits.Depth)) // no longer than data
	if !ok {
		_, err := o.Parse(data) // says what is wrong, where
		if err == nil {
			err = errors.New("the JSON tokenizer refused it") // not met: what compact refuses, Parse refuses
		}
		return nil, err
	}
	if cap(out)-len(out) > len(out)/8 {
		out = bytes.Clone(out) // data had much whitespace: keep only the text
	}
	return out, nil
}

// compact appends to out the tokens of data, one JSON value, with the
// commas and colons between them and nothing else, and reports whether
// Parse accepts data within maxDepth.
func compact(out, data []byte, maxDepth int) ([]byte, bool) {
	dec := decoder(data)
	defer release(dec)
	// For each open object or array, innermost last: whether it is an
	// object whose next token is a name, and whether it has a member or
	// element yet.
	type level struct{ object, name, some bool }
	var open []level
	for {
		kind := dec.PeekKind()
		switch {
		case kind == 0:
			return nil, false // a problem, or no value
		case kind == '}' || kind == ']':
			if _, err := dec.ReadToken(); err != nil {
				return nil, false
			}
			out = append(out, byte(kind))
			open = open[:len(open)-1]
		case dec.StackDepth() > maxDepth:
			return nil, false // a value (or a name, whose value would be) too deep
		default:
			if n := len(open); n > 0 {
				top := &open[n-1]
				if top.some && (!top.object || top.name) {
					out = append(out, ',')
				}
				if top.object && top.name {
					name, err := dec.ReadValue()
					if err != nil {
						return nil, false
					}
					out = append(append(out, name...), ':')
					top.name = false
					continue
				}
			}
			switch kind {
			case '{', '[':
				if dec.StackDepth() >= tokenizerNesting {
					return nil, false
				}
				if _, err := dec.ReadToken(); err != nil {
					return nil, false
				}
				out = append(out, byte(kind))
				open = append(open, level{object: kind == '{', name: kind == '{'})
				continue // its value ends with its last token
			default:
				v, err := dec.ReadValue()
				if err != nil {
					return nil, false
				}
				out = append(out, v...)
			}
		}
		// A value ended: its container has some, and an object's next
		// token is a name.
		if n := len(open); n > 0 {
			open[n-1].some, open[n-1].name = true, open[n-1].object
			continue
		}
		if dec.StackDepth() == 0 {
			_, err := dec.ReadToken()
			return out, err == io.EOF
		}
	}
}
