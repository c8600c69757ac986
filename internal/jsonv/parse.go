package jsonv

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/limits"
)

// Parse reads one JSON value with the default [Options]. A key repeated
// in an object is an error.
//
// It accepts exactly what encoding/json accepts (json.Valid), keys decoded
// as json.Unmarshal decodes them, and nothing deeper than the default
// limit. The Value keeps its own copy of b: the caller may reuse b
// afterwards.
func Parse(b []byte) (*Value, error) { return Options{}.Parse(b) }

// Options bound what Parse accepts. The zero Options gives the defaults.
type Options struct {
	// MaxDepth is how deep objects and arrays may nest: a value's path
	// has at most MaxDepth keys and indexes. 0 means 1,000, the default of
	// load.Limits.Depth, which a host passes on for the schemas tools
	// describe and MCP servers answer.
	MaxDepth int
}

// Parse is [Parse] within o.
func (o Options) Parse(b []byte) (*Value, error) {
	return parse(bytes.Clone(b), "", limits.Or(o.MaxDepth, limits.Depth))
}

// MustParse is Parse for values known to be valid.
func MustParse(s string) *Value {
	v, err := parse([]byte(s), s, limits.Depth) // the conversion is already a copy
	if err != nil {
		panic(err)
	}
	return v
}

// parse reads one JSON value from data, which the Value keeps: the scalars'
// text and the keys' text are slices of it, so nothing may change data
// afterwards. Those slices have no spare capacity, and nothing in this
// package writes through them. str is data as a string, or "" to have
// parse make it if a key needs it.
func parse(data []byte, str string, maxDepth int) (*Value, error) {
	p := parser{data: data, str: str, maxDepth: maxDepth}
	s := scratchPool.Get().(*scratch)
	p.keys, p.keyText, p.items = s.keys[:0], s.keyText[:0], s.items[:0]
	defer func() {
		if cap(p.keys)+cap(p.items) > maxScratch {
			return // let a rare huge one go
		}
		// Keep no Value of this parse alive through the pool.
		clear(p.keys[:cap(p.keys)])
		clear(p.keyText[:cap(p.keyText)])
		clear(p.items[:cap(p.items)])
		s.keys, s.keyText, s.items = p.keys, p.keyText, p.items
		scratchPool.Put(s)
	}()
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errorf(p.pos, "unexpected data after the JSON value")
	}
	return v, nil
}

// scratch is the parser's stacks, kept from one parse to the next.
type scratch struct {
	keys    []string
	keyText [][]byte
	items   []*Value
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

const maxScratch = 1 << 16

// parser is a single-pass recursive descent over a []byte.
type parser struct {
	data     []byte
	pos      int
	str      string // data as a string, made when a key needs it
	maxDepth int

	// The keys and values of the objects and arrays being read, innermost
	// last; each container moves its part into the arenas when it ends.
	keys    []string
	keyText [][]byte
	items   []*Value

	// Arenas the Values and the containers' slices are carved from, to
	// spare an allocation for each. Slices carved from them have no spare
	// capacity, so appending to one (Set, Append) moves it elsewhere rather
	// than writing over its neighbour's part.
	vals         []Value
	keyArena     []string
	keyTextArena [][]byte
	itemArena    []*Value
	// How many Values, keys and items have been carved so far.
	nVals, nKeys, nItems int
}

// chunk returns the size of a new arena chunk, of at least need elements,
// when used have been carved so far: enough for the rest of the input if
// it goes on as it went, a little more to spare another chunk, but no more
// than the rest of the input can hold (a value takes two bytes, but for a
// digit alone).
func (p *parser) chunk(used, need int) int {
	rest := len(p.data) - p.pos
	var est int
	if used == 0 || p.pos == 0 {
		est = len(p.data) / 32 // a schema has a value every 20 bytes or so
	} else {
		est = int(int64(used) * int64(rest) / int64(p.pos))
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

// carveKeys returns copies of s and t with no spare capacity.
func (p *parser) carveKeys(s []string, t [][]byte) ([]string, [][]byte) {
	n := len(s)
	if len(p.keyArena) < n {
		size := p.chunk(p.nKeys, n)
		p.keyArena = make([]string, size)
		p.keyTextArena = make([][]byte, size)
	}
	p.nKeys += n
	ks := p.keyArena[:n:n]
	p.keyArena = p.keyArena[n:]
	kt := p.keyTextArena[:n:n]
	p.keyTextArena = p.keyTextArena[n:]
	copy(ks, s)
	copy(kt, t)
	return ks, kt
}

// skipSpace skips JSON whitespace: space, tab, newline and carriage return.
func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value reads a value at p.pos, which is not whitespace.
func (p *parser) value(depth int) (*Value, error) {
	if depth > p.maxDepth {
		return nil, p.errorf(p.pos, "JSON nests deeper than %s levels, the limit", diag.Count(p.maxDepth))
	}
	if p.pos >= len(p.data) {
		return nil, p.expected("a JSON value")
	}
	start := p.pos
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		if _, _, err := p.scanString(); err != nil {
			return nil, err
		}
		v := p.newValue(String)
		v.raw = p.data[start:p.pos:p.pos]
		return v, nil
	case 't':
		return p.literal(Bool, "true")
	case 'f':
		return p.literal(Bool, "false")
	case 'n':
		return p.literal(Null, "null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if err := p.scanNumber(); err != nil {
			return nil, err
		}
		v := p.newValue(Number)
		v.raw = p.data[start:p.pos:p.pos]
		return v, nil
	}
	return nil, p.expected("a JSON value")
}

// smallObject is the number of keys up to which an object's keys are
// checked for repeats one by one; larger objects use a map.
const smallObject = 16

func (p *parser) object(depth int) (*Value, error) {
	p.pos++ // {
	v := p.newValue(Object)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	base, itemBase := len(p.keys), len(p.items)
	var seen map[string]struct{}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			if len(p.keys) == base {
				return nil, p.expected("a string key or '}' after '{'")
			}
			return nil, p.expected("a string key after ',' in an object")
		}
		start := p.pos
		esc, ascii, err := p.scanString()
		if err != nil {
			return nil, err
		}
		key := p.key(start, esc, ascii)
		switch {
		case seen != nil:
			if _, dup := seen[key]; dup {
				return nil, p.errorf(start, "key %q appears twice in an object", key)
			}
			seen[key] = struct{}{}
		default:
			for _, k := range p.keys[base:] {
				if k == key {
					return nil, p.errorf(start, "key %q appears twice in an object", key)
				}
			}
			if len(p.keys)-base == smallObject {
				seen = make(map[string]struct{}, 2*smallObject)
				for _, k := range p.keys[base:] {
					seen[k] = struct{}{}
				}
				seen[key] = struct{}{}
			}
		}
		p.keys = append(p.keys, key)
		p.keyText = append(p.keyText, p.data[start:p.pos:p.pos])

		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.expected("':' after an object key")
		}
		p.pos++
		p.skipSpace()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, e)

		p.skipSpace()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.skipSpace()
				continue
			case '}':
				p.pos++
				v.keys, v.keyText = p.carveKeys(p.keys[base:], p.keyText[base:])
				v.items = p.carveItems(p.items[itemBase:])
				p.keys = p.keys[:base]
				p.keyText = p.keyText[:base]
				p.items = p.items[:itemBase]
				return v, nil
			}
		}
		return nil, p.expected("',' or '}' after an object value")
	}
}

func (p *parser) array(depth int) (*Value, error) {
	p.pos++ // [
	v := p.newValue(Array)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	base := len(p.items)
	for {
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, e)

		p.skipSpace()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				p.skipSpace()
				continue
			case ']':
				p.pos++
				v.items = p.carveItems(p.items[base:])
				p.items = p.items[:base]
				return v, nil
			}
		}
		return nil, p.expected("',' or ']' after an array element")
	}
}

func (p *parser) literal(k Kind, lit string) (*Value, error) {
	start := p.pos
	for i := 0; i < len(lit); i++ {
		if p.pos+i >= len(p.data) || p.data[p.pos+i] != lit[i] {
			p.pos += i
			return nil, p.expected(fmt.Sprintf("%q (to spell %s)", lit[i], lit))
		}
	}
	p.pos += len(lit)
	v := p.newValue(k)
	v.raw = p.data[start:p.pos:p.pos]
	return v, nil
}

// scanNumber skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
// What follows the number is for the caller to judge.
func (p *parser) scanNumber() error {
	d := p.data
	i := p.pos
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i++
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		p.pos = i
		return p.expected("a digit after '-'")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			p.pos = i
			return p.expected("a digit after the decimal point")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			p.pos = i
			return p.expected("a digit in the exponent")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	p.pos = i
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// plain marks the bytes a string holds as they are: all but the quote, the
// backslash and control characters. Bytes of invalid UTF-8 are plain too,
// as they are to encoding/json.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString skips the string at p.pos, and reports whether it holds an
// escape and whether it is all ASCII.
func (p *parser) scanString() (esc, ascii bool, err error) {
	d := p.data
	start := p.pos
	i := p.pos + 1
	var or byte // the bits of all plain bytes, to tell ASCII
	for {
		for i < len(d) && plain[d[i]] {
			or |= d[i]
			i++
		}
		if i >= len(d) {
			return false, false, p.errorf(i, "the string begun at offset %d does not end", start)
		}
		switch c := d[i]; {
		case c == '"':
			p.pos = i + 1
			return esc, or < utf8.RuneSelf, nil
		case c == '\\':
			esc = true
			if i+1 >= len(d) {
				return false, false, p.errorf(i+1, "the string begun at offset %d does not end", start)
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for j := i + 2; j < i+6; j++ {
					if j >= len(d) || unhex(d[j]) < 0 {
						p.pos = j
						return false, false, p.expected(`4 hexadecimal digits after \u`)
					}
				}
				i += 6
			default:
				p.pos = i + 1
				return false, false, p.expected(`an escape: \" \\ \/ \b \f \n \r \t or \uXXXX`)
			}
		default:
			return false, false, p.errorf(i, "control character %s in a string; escape it", quoteByte(c))
		}
	}
}

func unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// key returns the key whose text, a valid string, is p.data[start:p.pos],
// decoded as json.Unmarshal decodes it. Keys without escapes and of valid
// UTF-8, nearly all of them, are slices of one copy of the input made as a
// string: one allocation for all of them.
func (p *parser) key(start int, esc, ascii bool) string {
	s := p.data[start+1 : p.pos-1]
	if !esc && (ascii || utf8.Valid(s)) {
		if p.str == "" {
			p.str = string(p.data)
		}
		return p.str[start+1 : p.pos-1]
	}
	return unquote(s)
}

// unquote decodes the inside of a valid JSON string as encoding/json does
// (its unquoteBytes): each byte of invalid UTF-8 becomes U+FFFD, and so
// does a \u escape of a surrogate that is not the first of a pair.
func unquote(s []byte) string {
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch s[r+1] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // " \ /
				b = append(b, s[r+1])
			}
			r += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return string(b)
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		h := unhex(c)
		if h < 0 {
			return -1
		}
		r = r<<4 | h
	}
	return r
}

// errorf returns an error at offset off.
func (p *parser) errorf(off int, format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", off, fmt.Sprintf(format, args...))
}

// expected returns an error at p.pos saying what was expected there, and
// what was found.
func (p *parser) expected(what string) error {
	return p.errorf(p.pos, "expected %s, found %s", what, p.found())
}

// found describes what is at p.pos.
func (p *parser) found() string {
	if p.pos >= len(p.data) {
		return "the end of the input"
	}
	c := p.data[p.pos]
	if c < utf8.RuneSelf {
		return quoteByte(c)
	}
	r, size := utf8.DecodeRune(p.data[p.pos:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("the byte 0x%02x", c)
	}
	return strconv.QuoteRune(r)
}

func quoteByte(c byte) string { return strconv.QuoteRune(rune(c)) }
