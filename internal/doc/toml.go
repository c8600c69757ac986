package doc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unsafe"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/strata-config/strata/diag"
)

// definition records how a TOML table came to exist, which decides whether
// later expressions may extend it (TOML 1.0, "Table" and "Array of Tables").
type definition uint8

const (
	defValue      definition = iota // a value; never extended
	defImplicit                     // created as a prefix of a [header]
	defExplicit                     // named by a [header]
	defDotted                       // created by a dotted key
	defArrayTable                   // an array of tables, from [[header]]
)

// ReadTOML parses a TOML document with the default [Options].
func ReadTOML(data []byte) (*Doc, []*Error) { return Options{}.ReadTOML(data) }

// ReadTOML parses a TOML document. Structural problems (a key defined twice,
// a table redefined, nesting deeper than o.MaxDepth) are all collected, up
// to o.MaxErrors; a syntax error stops the parse. A UTF-8 byte order mark
// is skipped; the Doc's Data is the document without it.
func (o Options) ReadTOML(data []byte) (*Doc, []*Error) {
	data, bad := checkEncoding(data)
	r := tomlReader{doc: &Doc{Format: TOML, Data: data, Root: NewTable()}, errs: newErrList(o), maxDepth: o.depth(), values: newValueCount(o)}
	if bad != nil {
		return r.doc, []*Error{bad}
	}
	if off := longKey(data, r.maxDepth); off >= 0 {
		// Refused before the parser builds a node for each of its parts.
		return r.doc, []*Error{{Off: int32(off), Msg: tooDeep(r.maxDepth), Limit: true}}
	}
	r.doc.Root.def = defExplicit
	r.values.n = 1 // the root, as the other readers count it
	r.parse()
	r.doc.Values = r.values.n
	return r.doc, r.errs.list()
}

// longKey returns the offset of the part that gives a dotted key more
// than max parts, or -1. Outside strings and comments, such a run of dots can
// only be a key: a value holds one dot at most (1.5, a time), and a key
// ends at '=', ']' or a line break.
func longKey(data []byte, max int) int {
	dots := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '.':
			if dots++; dots >= max {
				// At the part past the limit.
				for i+1 < len(data) && (data[i+1] == ' ' || data[i+1] == '\t') {
					i++
				}
				return min(i+1, len(data))
			}
		case '"', '\'':
			i = skipTOMLString(data, i)
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			dots = 0
		case ' ', '\t', '_', '-':
		default:
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				dots = 0
			}
		}
	}
	return -1
}

// skipTOMLString returns the offset of the last byte of the string that
// starts at data[i] (a basic or literal string, on one line or several),
// or of the end of its line, or of data, when it does not end: the parser
// then reports the error.
func skipTOMLString(data []byte, i int) int {
	q := data[i]
	multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	j := i + 1
	if multi {
		j = i + 3
	}
	for ; j < len(data); j++ {
		switch c := data[j]; {
		case c == '\\' && q == '"':
			j++
		case c == '\n' && !multi:
			return j
		case c == q && !multi:
			return j
		case c == q && j+2 < len(data) && data[j+1] == q && data[j+2] == q:
			j += 2
			for j+1 < len(data) && data[j+1] == q { // up to two quotes end the text
				j++
			}
			return j
		}
	}
	return len(data) - 1
}

type tomlReader struct {
	p        unstable.Parser
	doc      *Doc
	errs     errList
	maxDepth int
	values   valueCount
	exprOff  int32 // where the expression being read starts: its first key
	current  *Node
	depth    int      // depth of current: how many keys (and array indexes) lead to it
	path     []string // path of current, for messages
	keys     []string // scratch: parts of the current key
	offs     []int32  // scratch: offsets of the parts
	stack    []string // the key paths being read; see push
	slab
	block []*Node // the entries of tables and arrays; see room
	used  int     // how much of block is taken
	last  *Node   // the node whose entries were last taken from block
}

// room makes room for one more entry in n.Entries, taking the array from
// a block the reader allocates, as node does nodes: a table or an array
// grows without an allocation of its own. The array of the node that
// took the block's last one grows in place, a slot at a time, which is
// how a table under its [header] or an inline value grows: its array ends
// up the size of its entries. Another node's array moves to the end of
// the block, half as large again; past maxRoom entries it grows as append
// does.
func (r *tomlReader) room(n *Node) {
	l := len(n.Entries)
	if l < cap(n.Entries) {
		return
	}
	if l > 0 && n == r.last && l <= r.used && r.used < len(r.block) && &n.Entries[0] == &r.block[r.used-l] {
		r.used++
		n.Entries = r.block[r.used-1-l : r.used-1 : r.used]
		return
	}
	c := l + l/2 + 1
	if c > maxRoom {
		return
	}
	if len(r.block)-r.used < c {
		r.block, r.used = make([]*Node, min(max(2*len(r.block), minBlock), maxBlock)), 0
	}
	e := r.block[r.used : r.used+c : r.used+c] // its own capacity: an append never reaches the next
	r.used += c
	n.Entries = e[:copy(e, n.Entries)]
	r.last = n
}

// maxRoom is the largest entries array room takes from a block. A block
// holds minBlock entries, then twice as many as the one before, up to
// maxBlock.
const maxRoom, minBlock, maxBlock = 64, 128, 1024

// table returns a new table. It counts as a value: past the limit, the
// problem is placed at the key of the expression being read, and parse
// reads no further expression.
func (r *tomlReader) table() *Node {
	r.values.add(&r.errs, r.exprOff)
	n := r.node()
	n.Kind = Table
	return n
}

func (r *tomlReader) parse() {
	r.p.Reset(r.doc.Data)
	r.current = r.doc.Root
	for r.p.NextExpression() {
		if r.values.over {
			return // past Options.MaxValues, which a problem says
		}
		e := r.p.Expression()
		r.exprOff = -1
		if e.Kind != unstable.Comment {
			r.exprOff = r.keyOff(e)
		}
		switch e.Kind {
		case unstable.KeyValue:
			r.keyValue(r.current, r.path, r.depth, e, false)
		case unstable.Table:
			r.header(e)
		case unstable.ArrayTable:
			r.arrayTable(e)
		}
	}
	if err := r.p.Error(); err != nil {
		off := int32(-1)
		var perr *unstable.ParserError
		if errors.As(err, &perr) && perr.Highlight != nil {
			off = r.offsetOf(perr.Highlight)
			if strings.Contains(perr.Message, "nested more than the maximum") {
				// The parser's own bound on inline values, which is ours
				// unless a host raised ours above it.
				msg := tooDeep(r.maxDepth)
				if r.maxDepth >= tomlParserNesting {
					msg = fmt.Sprintf("inline tables and arrays nest deeper than %s levels, the TOML parser's limit", diag.Count(tomlParserNesting))
				}
				r.errs.addLimit(off, msg)
				return
			}
			r.fail(off, nil, "TOML syntax: %s%s", perr.Message, syntaxHint(r.doc.Data, off, perr.Message))
			return
		}
		r.fail(off, nil, "TOML syntax: %v", err)
	}
}

// maxHintWord is how much of a bare word a hint quotes.
const maxHintWord = 40

// syntaxHint suggests the fix of the TOML syntax mistakes people make
// most, from the parser's message and the text at off: a string left
// unquoted (run = unattended), True for true, an array or inline table
// left open.
func syntaxHint(data []byte, off int32, msg string) string {
	switch {
	case strings.Contains(msg, "at start of value") && off >= 0 && int(off) < len(data):
		rest := string(data[off:])
		rest, _, _ = strings.Cut(rest, "\n")
		rest, _, _ = strings.Cut(rest, " #")
		word := strings.TrimSpace(rest)
		switch strings.ToLower(word) {
		case "true", "false":
			return "; true and false are lower case: " + strings.ToLower(word)
		}
		if word == "" || !unicode.IsLetter(rune(word[0])) {
			return ""
		}
		if len(word) > maxHintWord {
			return `; a string is quoted: "…"`
		}
		return "; a string is quoted: " + strconv.Quote(word)
	case strings.Contains(msg, "after array value"), strings.Contains(msg, "array is incomplete"):
		return `; an array is closed with "]" after its last value (values separated by ","): is one left open?`
	case strings.Contains(msg, "inline table is incomplete"):
		return `; an inline table is closed with "}" on the line it opens`
	}
	return ""
}

func (r *tomlReader) fail(off int32, path []string, format string, args ...any) {
	r.errs.add(off, path, fmt.Sprintf(format, args...))
}

// tomlParserNesting is how deep go-toml's parser nests inline tables and
// arrays before it gives up.
const tomlParserNesting = 10_000

// push returns path followed by keys. Every key path the reader works
// with is a prefix of one stack, which push writes keys onto after it:
// no level copies the path before it (a copy per level makes deep tables
// quadratic). A path is used until the next one is made, and problems
// copy theirs.
func (r *tomlReader) push(path []string, keys ...string) []string {
	r.stack = append(r.stack[:len(path)], keys...)
	return r.stack
}

// tooDeep reports a key at off that makes the document nest deeper than
// the limit when depth exceeds it.
func (r *tomlReader) tooDeep(off int32, depth int) bool {
	if depth <= r.maxDepth {
		return false
	}
	r.errs.addLimit(off, tooDeep(r.maxDepth))
	return true
}

// keyOff returns the offset of the first key of expression e, or -1.
func (r *tomlReader) keyOff(e *unstable.Node) int32 {
	it := e.Key()
	if it.Next() {
		return r.rangeOff(it.Node())
	}
	return -1
}

func (r *tomlReader) offsetOf(b []byte) int32 {
	off := cap(r.doc.Data) - cap(b)
	if off < 0 || off > len(r.doc.Data) {
		return -1
	}
	return int32(off)
}

func (r *tomlReader) rangeOff(n *unstable.Node) int32 {
	if n.Raw.Length == 0 && n.Raw.Offset == 0 {
		return -1
	}
	return int32(n.Raw.Offset)
}

// str returns the text the parser gives for a key or a string without
// copying it: a slice of the document, or of a buffer of the parser's own
// that it does not reuse (the text of a string with escapes). See [Doc].
func (r *tomlReader) str(b []byte) string { return view(b) }

// view returns the bytes of b as a string without copying them: the
// string is valid as long as b is not changed.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// splitKey fills r.keys and r.offs with the parts of e's key.
func (r *tomlReader) splitKey(e *unstable.Node) {
	r.keys, r.offs = r.keys[:0], r.offs[:0]
	it := e.Key()
	for it.Next() {
		part := it.Node()
		r.keys = append(r.keys, r.str(part.Data))
		r.offs = append(r.offs, r.rangeOff(part))
	}
}

// headerTarget reads the key of a [header] or [[header]] and walks to the
// table that holds its last part, at depth.
func (r *tomlReader) headerTarget(e *unstable.Node) (parent *Node, last string, off int32, path []string, depth int, ok bool) {
	r.splitKey(e)
	parent, path, depth, ok = r.walkHeader()
	if !ok {
		r.current = nil
		return nil, "", 0, nil, 0, false
	}
	last, off = r.keys[len(r.keys)-1], r.offs[len(r.offs)-1]
	r.stack = append(path, last)
	return parent, last, off, r.stack, depth, true
}

func (r *tomlReader) header(e *unstable.Node) {
	parent, last, off, path, depth, ok := r.headerTarget(e)
	if !ok {
		return
	}
	if r.tooDeep(off, depth+1) {
		r.current = nil
		return
	}
	r.depth = depth + 1
	switch n := parent.Get(last); {
	case n == nil:
		t := r.table()
		t.Key, t.KeyOff, t.Off, t.def = last, off, off, defExplicit
		r.room(parent)
		parent.add(t)
		r.current = t
	case n.Kind == Table && !n.Inline && n.def == defImplicit:
		n.def, n.KeyOff, n.Off = defExplicit, off, off
		r.current = n
	case n.Kind == Table && !n.Inline && n.def == defExplicit:
		r.fail(off, path, "table [%s] is defined twice (first at %s)", r.errs.key(path), r.where(n.KeyOff))
		r.current = nil
	case n.Kind == Table && n.def == defDotted:
		r.fail(off, path, "table [%s] was already defined by dotted keys at %s", r.errs.key(path), r.where(n.KeyOff))
		r.current = nil
	case n.Kind == Array && n.def == defArrayTable:
		r.fail(off, path, "[%s] is an array of tables ([[%s]]) and cannot be redefined as a table", r.errs.key(path), r.errs.key(path))
		r.current = nil
	default:
		r.fail(off, path, "%s is already defined as a value at %s", r.errs.key(path), r.where(n.KeyOff))
		r.current = nil
	}
	r.path = path
}

func (r *tomlReader) arrayTable(e *unstable.Node) {
	parent, last, off, path, depth, ok := r.headerTarget(e)
	if !ok {
		return
	}
	if r.tooDeep(off, depth+2) { // the array, then its new table
		r.current = nil
		return
	}
	r.depth = depth + 2
	elem := r.table()
	elem.KeyOff, elem.Off, elem.def = off, off, defExplicit
	switch n := parent.Get(last); {
	case n == nil:
		a := NewArray()
		a.Inline = false
		a.Key, a.KeyOff, a.Off, a.def = last, off, off, defArrayTable
		r.room(a)
		a.Append(elem)
		r.room(parent)
		parent.add(a)
	case n.Kind == Array && n.def == defArrayTable:
		r.room(n)
		n.Append(elem)
	default:
		r.fail(off, path, "[[%s]] cannot append to %s, which is already defined at %s", r.errs.key(path), r.errs.key(path), r.where(n.KeyOff))
		r.current = nil
		r.path = path
		return
	}
	r.current = elem
	r.path = path
}

// walkHeader walks all but the last part of a [header] key from the root,
// creating implicit tables; it returns the table that holds the last part
// and its depth.
func (r *tomlReader) walkHeader() (*Node, []string, int, bool) {
	n := r.doc.Root
	path := r.stack[:0]
	defer func() { r.stack = path[:0] }() // keep a grown array
	depth := 0
	for i, k := range r.keys[:len(r.keys)-1] {
		path = append(path, k)
		if depth++; r.tooDeep(r.offs[i], depth) {
			return nil, nil, 0, false
		}
		c := n.Get(k)
		switch {
		case c == nil:
			c = r.table()
			c.Key, c.KeyOff, c.Off, c.def = k, r.offs[i], r.offs[i], defImplicit
			r.room(n)
			n.add(c)
		case c.Kind == Table && !c.Inline:
		case c.Kind == Array && c.def == defArrayTable:
			c = c.Entries[len(c.Entries)-1]
			depth++ // the array's last table
		default:
			r.fail(r.offs[i], path, "%s is already defined as a value at %s, not a table", r.errs.key(path), r.where(c.KeyOff))
			return nil, nil, 0, false
		}
		n = c
	}
	return n, path, depth, true
}

// keyValue adds the key-value expression e to table t, at depth. Inside
// inline tables (inline=true) the created tables are inline too.
func (r *tomlReader) keyValue(t *Node, tpath []string, depth int, e *unstable.Node, inline bool) {
	if t == nil {
		return // under a table header that failed; already reported
	}
	value := e.Value()
	// The key's parts go to the scratch buffers, at every level: an inline
	// table's key-values reuse them, but only once its value is read, and
	// by then the parts have been copied into the path and last.
	keys, offs := r.keys[:0], r.offs[:0]
	it := e.Key()
	keyEnd := -1
	for it.Next() {
		part := it.Node()
		keys = append(keys, r.str(part.Data))
		offs = append(offs, r.rangeOff(part))
		if part.Raw.Length > 0 {
			keyEnd = int(part.Raw.Offset + part.Raw.Length)
		}
	}
	r.keys, r.offs = keys, offs
	if depth+len(keys) > r.maxDepth {
		r.tooDeep(offs[max(0, r.maxDepth-depth)], depth+len(keys))
		return
	}
	path := r.push(tpath, keys...)
	for i, k := range keys[:len(keys)-1] {
		c := t.Get(k)
		switch {
		case c == nil:
			c = r.table()
			c.Key, c.KeyOff, c.Off, c.def, c.Inline = k, offs[i], offs[i], defDotted, inline
			r.room(t)
			t.add(c)
		case c.Kind == Table && c.def == defDotted && c.Inline == inline:
		default:
			p := path[:len(tpath)+i+1]
			if c.Kind == Table {
				r.fail(offs[i], p, "%s is already defined at %s and cannot be extended with a dotted key", r.errs.key(p), r.where(c.KeyOff))
			} else {
				r.fail(offs[i], p, "%s is already defined as a value at %s, not a table", r.errs.key(p), r.where(c.KeyOff))
			}
			return
		}
		t = c
	}
	last, off := keys[len(keys)-1], offs[len(offs)-1]
	if prev := t.Get(last); prev != nil {
		r.fail(off, path, "%s is defined twice (first at %s)", r.errs.key(path), r.where(prev.KeyOff))
		return
	}
	v := r.value(value, path, depth+len(keys), r.afterEquals(keyEnd))
	if v == nil {
		return
	}
	if v.Kind == Array {
		// The parser gives arrays no position; the value starts after '='.
		if off := r.afterEquals(keyEnd); off >= 0 {
			v.Off = off
		}
	}
	v.Key, v.KeyOff = last, off
	r.room(t)
	t.add(v)
}

// afterEquals returns the offset of the value that follows "= " at offset
// i, or -1.
func (r *tomlReader) afterEquals(i int) int32 {
	if i < 0 {
		return -1
	}
	b := r.doc.Data
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i >= len(b) || b[i] != '=' {
		return -1
	}
	for i++; i < len(b) && (b[i] == ' ' || b[i] == '\t'); i++ {
	}
	return int32(i)
}

func (r *tomlReader) where(off int32) string {
	line, col := r.doc.Position(off)
	if line == 0 {
		return "an earlier line"
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}

// value converts a value node at depth; it returns nil after reporting a
// problem. at is the offset of the enclosing value, for problems with
// arrays, which the parser gives no position.
func (r *tomlReader) value(v *unstable.Node, path []string, depth int, at int32) *Node {
	off := r.rangeOff(v)
	if off >= 0 {
		at = off
	}
	if r.tooDeep(at, depth) || r.values.over || !r.values.add(&r.errs, at) {
		return nil
	}
	n := r.node()
	n.Off = off
	switch v.Kind {
	case unstable.String:
		n.Kind, n.Str = String, r.str(v.Data)
	case unstable.Bool:
		n.Kind, n.Bool = Bool, len(v.Data) == 4 // "true"
	case unstable.Integer:
		i, err := parseTOMLInt(v.Data)
		if err != nil {
			r.fail(off, path, "%s: %v", r.errs.key(path), err)
			return nil
		}
		n.SetInt(i)
	case unstable.Float:
		f, err := parseTOMLFloat(v.Data)
		if err != nil {
			r.fail(off, path, "%s: %v", r.errs.key(path), err)
			return nil
		}
		n.SetFloat(f)
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		if err := checkDatetime(v.Kind, v.Data); err != nil {
			r.fail(off, path, "%s: invalid datetime %q: %v", r.errs.key(path), v.Data, err)
			return nil
		}
		n.Kind, n.Str = Datetime, r.str(v.Data)
	case unstable.Array:
		n.Kind, n.Inline = Array, true
		it := v.Children()
		for i := 0; it.Next(); {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			e := r.value(c, r.push(path, strconv.Itoa(i)), depth+1, at)
			if e == nil {
				return nil
			}
			if n.Off < 0 {
				n.Off = e.Off
			}
			r.room(n)
			n.Append(e)
			i++
		}
	case unstable.InlineTable:
		n.Kind, n.Inline, n.def = Table, true, defValue
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind != unstable.KeyValue {
				continue
			}
			before := r.errs.count()
			r.keyValue(n, path, depth, c, true)
			if r.errs.count() > before {
				return nil
			}
		}
	default:
		r.fail(off, path, "%s: unsupported TOML value", r.errs.key(path))
		return nil
	}
	return n
}

func checkDatetime(k unstable.Kind, b []byte) error {
	switch k {
	case unstable.LocalDate:
		var d toml.LocalDate
		return d.UnmarshalText(b)
	case unstable.LocalTime:
		var t toml.LocalTime
		return t.UnmarshalText(b)
	case unstable.LocalDateTime:
		var t toml.LocalDateTime
		return t.UnmarshalText(b)
	default:
		var v struct{ T time.Time }
		return toml.Unmarshal(append([]byte("T = "), b...), &v)
	}
}

func parseTOMLInt(b []byte) (int64, error) {
	if bytes.IndexByte(b, '_') < 0 && len(b) < 19 && (len(b) < 2 || b[0] != '0') {
		// A plain decimal that fits, the common case: parsed without
		// copying it into a string (strconv does not keep its argument).
		if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return i, nil
		}
	}
	s := strings.ReplaceAll(string(b), "_", "")
	base := 10
	if len(s) > 2 && s[0] == '0' {
		switch s[1] {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 10 {
			s = s[2:]
		}
	}
	if base != 10 {
		u, err := strconv.ParseUint(s, base, 64)
		if err != nil || u > math.MaxInt64 {
			return 0, fmt.Errorf("integer %s does not fit in 64 bits", b)
		}
		return int64(u), nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("integer %s does not fit in 64 bits", b)
	}
	return i, nil
}

func parseTOMLFloat(b []byte) (float64, error) {
	s := strings.ReplaceAll(string(b), "_", "")
	switch strings.TrimLeft(s, "+-") {
	case "inf":
		if s[0] == '-' {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid float %s", b)
	}
	return f, nil
}
