// Package doc is the format-neutral document tree that layer files are read
// into before they are decoded into typed partials, and that partials are
// written from.
//
// A tree keeps the byte offset of every key and value, so that any problem
// found later can be reported with its line and column. TOML, JSON and YAML
// documents produce the same tree shape; JSON and YAML nulls become [Null]
// nodes.
package doc

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"unicode/utf8"
	"unsafe"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/tomltext"
)

// Kind is the kind of a [Node].
type Kind uint8

// Kinds of nodes.
const (
	Invalid Kind = iota
	Table
	Array
	String
	Integer
	Float
	Bool
	Datetime
	Null
)

var kindNames = [...]string{
	Invalid:  "invalid",
	Table:    "table",
	Array:    "array",
	String:   "string",
	Integer:  "integer",
	Float:    "float",
	Bool:     "boolean",
	Datetime: "datetime",
	Null:     "null",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// indexThreshold is the number of entries above which a table builds a map
// for key lookups. Below it a scan is about as fast, and a tool's table
// (ten keys or so) builds no map: one per table was most of a layer's
// allocations.
const indexThreshold = 32

// Node is one value of a document: a table, an array or a scalar.
//
// A document holds a node for each of its keys and values, so the fields
// are laid out to keep a node small: an integer and a float share one
// word (see [Node.Int] and [Node.Float]).
type Node struct {
	Kind Kind
	// Inline marks a table or array written inline. Readers set it for TOML
	// inline tables (which are immutable); writers honour it when choosing
	// between an inline table and a [header].
	Inline bool
	Bool   bool
	def    definition // how a TOML table came to be; see toml.go
	// KeyOff is the byte offset of the key that defines the node, or -1.
	KeyOff int32
	// Off is the byte offset of the value, or -1.
	Off int32
	// Key is the node's name in its parent table; empty for array elements
	// and for the root.
	Key string

	Str string // String; the raw text of a Datetime
	num uint64 // Integer: the value; Float: its bits

	// Entries are a table's entries in document order, or an array's
	// elements.
	Entries []*Node

	index map[string]*Node
}

// Int returns the value of an Integer node; 0 for other kinds.
func (n *Node) Int() int64 {
	if n.Kind != Integer {
		return 0
	}
	return int64(n.num)
}

// Float returns the value of a Float node; 0 for other kinds.
func (n *Node) Float() float64 {
	if n.Kind != Float {
		return 0
	}
	return math.Float64frombits(n.num)
}

// SetInt makes n the Integer i.
func (n *Node) SetInt(i int64) { n.Kind, n.num = Integer, uint64(i) }

// SetFloat makes n the Float f.
func (n *Node) SetFloat(f float64) { n.Kind, n.num = Float, math.Float64bits(f) }

// NewTable returns an empty table node without position.
func NewTable() *Node { return &Node{Kind: Table, KeyOff: -1, Off: -1} }

// NewArray returns an empty array node without position.
func NewArray() *Node { return &Node{Kind: Array, KeyOff: -1, Off: -1, Inline: true} }

// NewString returns a string node without position.
func NewString(s string) *Node { return &Node{Kind: String, Str: s, KeyOff: -1, Off: -1} }

// NewInt returns an integer node without position.
func NewInt(i int64) *Node { return &Node{Kind: Integer, num: uint64(i), KeyOff: -1, Off: -1} }

// NewFloat returns a float node without position.
func NewFloat(f float64) *Node {
	return &Node{Kind: Float, num: math.Float64bits(f), KeyOff: -1, Off: -1}
}

// NewBool returns a boolean node without position.
func NewBool(b bool) *Node { return &Node{Kind: Bool, Bool: b, KeyOff: -1, Off: -1} }

// slab hands out the nodes of a reader: they are allocated in blocks,
// which spares the allocator and the garbage collector.
type slab struct {
	free  []Node
	bytes uintptr // the size of the last block
}

// A block of nodes fills minSlab bytes, then twice as many as the one
// before, up to maxSlab: a small document takes little, and a power of
// two is a size the allocator serves without rounding up.
const minSlab, maxSlab = 4 << 10, 32 << 10

// node returns a new node without position.
func (s *slab) node() *Node {
	if len(s.free) == 0 {
		s.bytes = min(max(2*s.bytes, minSlab), maxSlab)
		s.free = make([]Node, s.bytes/unsafe.Sizeof(Node{}))
	}
	n := &s.free[0]
	s.free = s.free[1:]
	n.KeyOff, n.Off = -1, -1
	return n
}

// Get returns the entry of table n named key, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Table {
		return nil
	}
	if n.index != nil {
		return n.index[key]
	}
	for _, e := range n.Entries {
		if e.Key == key {
			return e
		}
	}
	return nil
}

// Set adds entry e to table n under key, replacing an entry of the same
// name.
func (n *Node) Set(key string, e *Node) {
	e.Key = key
	if old := n.Get(key); old != nil {
		for i, x := range n.Entries {
			if x == old {
				n.Entries[i] = e
			}
		}
		if n.index != nil {
			n.index[key] = e
		}
		return
	}
	n.add(e)
}

// add appends e to table n; the caller has checked that e.Key is new.
func (n *Node) add(e *Node) {
	if n.Entries == nil {
		n.Entries = make([]*Node, 0, 4)
	}
	n.Entries = append(n.Entries, e)
	if n.index != nil {
		n.index[e.Key] = e
	} else if len(n.Entries) > indexThreshold {
		n.index = make(map[string]*Node, 2*len(n.Entries))
		for _, x := range n.Entries {
			n.index[x.Key] = x
		}
	}
}

// Delete removes the entry named key from table n.
func (n *Node) Delete(key string) {
	for i, x := range n.Entries {
		if x.Key == key {
			n.Entries = append(n.Entries[:i], n.Entries[i+1:]...)
			if n.index != nil {
				delete(n.index, key)
			}
			return
		}
	}
}

// Append adds an element to array n.
func (n *Node) Append(e *Node) { n.Entries = append(n.Entries, e) }

// Pos returns the offset of the key that defines n, falling back to the
// offset of its value.
func (n *Node) Pos() int32 {
	if n.KeyOff >= 0 {
		return n.KeyOff
	}
	return n.Off
}

// ValuePos returns the offset of n's value, falling back to its key.
func (n *Node) ValuePos() int32 {
	if n.Off >= 0 {
		return n.Off
	}
	return n.KeyOff
}

// Depth returns how deep n nests: the longest key path (array indexes
// included) from n to a value under it; 0 for a scalar or an empty table
// or array.
func (n *Node) Depth() int {
	deepest := 0
	for _, e := range n.Entries {
		deepest = max(deepest, 1+e.Depth())
	}
	return deepest
}

// SortEntries orders a table's entries by key.
func (n *Node) SortEntries() {
	sort.SliceStable(n.Entries, func(i, j int) bool { return n.Entries[i].Key < n.Entries[j].Key })
}

// Format is a document format.
type Format uint8

// Formats.
const (
	TOML Format = iota
	JSON
	YAML
)

func (f Format) String() string {
	switch f {
	case JSON:
		return "JSON"
	case YAML:
		return "YAML"
	default:
		return "TOML"
	}
}

// Doc is a parsed document: its source bytes and its tree.
//
// The readers do not copy what they can point at: the keys and strings of
// a TOML or JSON tree share the memory of the data they were read from
// (those written with escapes excepted), and so do the strings decoded
// from the tree. The data must not change while any of them is in use.
type Doc struct {
	Format Format
	Data   []byte
	Root   *Node
	// Values is how many values the reader made (see Options.MaxValues),
	// also when it stopped with a problem.
	Values int
	// Secrets are the string nodes whose value came from somewhere other
	// than the document (a variable, an input, an envFile), and what each
	// came from, as written: decoding makes each a secret.String that
	// prints as its reference. No reader sets any; internal/clients does,
	// as it expands another client's variables.
	Secrets map[*Node]string

	lines []int32 // offsets of line starts, built on first use
}

// Position returns the 1-based line and column (counted in characters) of
// byte offset off. It returns 0, 0 for a negative offset.
func (d *Doc) Position(off int32) (line, col int) {
	if off < 0 || d == nil {
		return 0, 0
	}
	if int(off) > len(d.Data) {
		off = int32(len(d.Data))
	}
	starts := d.lineStarts()
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	// An offset inside a multi-byte character is that character's position.
	if int(off) < len(d.Data) && !utf8.RuneStart(d.Data[off]) {
		for s := off - 1; s >= starts[i] && s >= off-utf8.UTFMax+1; s-- {
			if utf8.RuneStart(d.Data[s]) {
				if _, size := utf8.DecodeRune(d.Data[s:]); int(s)+size > int(off) {
					off = s
				}
				break
			}
		}
	}
	return i + 1, utf8.RuneCount(d.Data[starts[i]:off]) + 1
}

// Line returns the text of 1-based line n without its line ending.
func (d *Doc) Line(n int) string {
	starts := d.lineStarts()
	if n < 1 || n > len(starts) {
		return ""
	}
	b := d.Data[starts[n-1]:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(bytes.TrimSuffix(b, []byte("\r")))
}

// lineStarts returns the offsets of the lines' starts, made at their
// exact size: a large document's would otherwise grow, and be copied,
// about twenty times.
func (d *Doc) lineStarts() []int32 {
	if d.lines == nil {
		d.lines = make([]int32, 1, 1+bytes.Count(d.Data, []byte{'\n'}))
		for i, c := range d.Data {
			if c == '\n' {
				d.lines = append(d.lines, int32(i+1))
			}
		}
	}
	return d.lines
}

func decodeRune(b []byte) (rune, int) { return utf8.DecodeRune(b) }

// Error is a problem found while reading a document.
type Error struct {
	Off  int32    // byte offset of the problem, or -1
	Path []string // key path of the problem, when known
	Msg  string
	// Limit says the document goes past a limit of [Options] (depth,
	// values) rather than breaking its format.
	Limit bool
	// More is set on the last problem of a list cut short at
	// Options.MaxErrors: it stands for More problems that were found and
	// left out (and has no position or message of its own).
	More int
}

func (e *Error) Error() string {
	if e.More > 0 {
		if e.More == 1 {
			return "and 1 more problem"
		}
		return fmt.Sprintf("and %d more problems", e.More)
	}
	return e.Msg
}

// Options bound what a reader accepts, so that any document, however
// hostile, is read in time and memory linear in its size. The zero Options
// gives the defaults of package limits.
type Options struct {
	// MaxDepth is how deep tables and arrays may nest: a value's key path
	// (array indexes included) has at most MaxDepth parts.
	MaxDepth int
	// MaxErrors is how many problems a reader keeps; it counts the others
	// (see Error.More).
	MaxErrors int
	// MaxQuote is how many characters of a key or value a message quotes.
	MaxQuote int
	// MaxValues is how many values (tables, arrays and scalars, an
	// alias's expansion included) the documents of one load may hold
	// together, and ValuesBefore how many the documents read before this
	// one hold: a document may hold MaxValues - ValuesBefore. Memory
	// follows values, not bytes (half a million numbers fit in 1 MiB), so
	// this bounds what a load of many dense files costs. A document that
	// goes past it stops being read, with one problem.
	MaxValues    int
	ValuesBefore int
}

func (o Options) depth() int  { return limits.Or(o.MaxDepth, limits.Depth) }
func (o Options) quote() int  { return limits.Or(o.MaxQuote, limits.Quote) }
func (o Options) errors() int { return limits.Or(o.MaxErrors, limits.Problems) }

// valueCount counts a reader's values against the limit of [Options].
type valueCount struct {
	n, left     int
	max         int  // Options.MaxValues, or its default
	afterOthers bool // documents before this one hold values
	over        bool // the count went past the limit, which errs holds
}

func newValueCount(o Options) valueCount {
	max := limits.Or(o.MaxValues, limits.Values)
	return valueCount{left: max - o.ValuesBefore, max: max, afterOthers: o.ValuesBefore > 0}
}

// msg is the problem of a document past the limit.
func (c *valueCount) msg() string {
	what := "the file holds"
	if c.afterOthers {
		what = "the layer files of this load hold"
	}
	return fmt.Sprintf("%s more than %s values (tables, arrays and scalars), the limit", what, diag.Count(c.max))
}

// add counts one more value, at off. Past the limit it adds the problem to
// errs the first time and returns false: the reader stops.
func (c *valueCount) add(errs *errList, off int32) bool {
	c.n++
	if c.n <= c.left {
		return true
	}
	if !c.over {
		c.over = true
		errs.addLimit(off, c.msg())
	}
	return false
}

// tooDeep is the message of a document nested deeper than the limit.
func tooDeep(max int) string {
	return fmt.Sprintf("tables and arrays nest deeper than %s levels, the limit", diag.Count(max))
}

// errList collects a reader's problems, keeping the first max.
type errList struct {
	max     int
	quote   int
	errs    []*Error
	omitted int
}

func newErrList(o Options) errList { return errList{max: o.errors(), quote: o.quote()} }

// add adds a problem at off about path; the message is cut where it quotes
// too much, and so are the keys of the path.
func (l *errList) add(off int32, path []string, msg string) {
	if len(l.errs) >= l.max {
		l.omitted++
		return
	}
	var p []string
	if len(path) > 0 {
		p = append([]string(nil), limits.CutPath(path, l.quote)...)
	}
	l.errs = append(l.errs, &Error{Off: off, Path: p, Msg: limits.CutQuoted(msg, l.quote)})
}

// addLimit adds a problem at off of a document past a limit.
func (l *errList) addLimit(off int32, msg string) {
	n := len(l.errs)
	l.add(off, nil, msg)
	if len(l.errs) > n {
		l.errs[n].Limit = true
	}
}

// count returns how many problems were added, those left out included.
func (l *errList) count() int { return len(l.errs) + l.omitted }

// key renders a key path for a message, its keys cut.
func (l *errList) key(path []string) string {
	return tomltext.Path(limits.CutPath(path, l.quote))
}

// list returns the problems, closed by one that counts those left out.
func (l *errList) list() []*Error {
	if l.omitted > 0 {
		return append(l.errs, &Error{Off: -1, More: l.omitted})
	}
	return l.errs
}

// utf8BOM is the byte order mark editors may write at the start of a UTF-8
// file.
var utf8BOM = []byte("\uFEFF")

// checkEncoding checks what every format requires of its bytes: UTF-8,
// without NUL. A UTF-8 byte order mark is skipped: data comes back without
// it. The problem is the first one found, at its offset in the returned
// data; a document in another encoding is refused at its start.
func checkEncoding(data []byte) ([]byte, *Error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	for _, bom := range []struct {
		mark []byte
		name string
	}{
		{[]byte{0, 0, 0xFE, 0xFF}, "UTF-32"}, {[]byte{0xFF, 0xFE, 0, 0}, "UTF-32"},
		{[]byte{0xFE, 0xFF}, "UTF-16"}, {[]byte{0xFF, 0xFE}, "UTF-16"},
	} {
		if bytes.HasPrefix(data, bom.mark) {
			return data, &Error{Off: 0, Msg: "the file is " + bom.name + " (it starts with a " + bom.name + " byte order mark); save it as UTF-8"}
		}
	}
	if i := invalidUTF8(data); i >= 0 {
		return data, &Error{Off: int32(i), Msg: fmt.Sprintf("invalid UTF-8: the byte 0x%02x does not start a character here; save the file as UTF-8", data[i])}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return data, &Error{Off: int32(i), Msg: "a NUL byte (U+0000) is not allowed; write it escaped in a string"}
	}
	return data, nil
}

// invalidUTF8 returns the offset of the first byte of data that is not
// part of a valid UTF-8 character, or -1.
func invalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// TreeOf returns the tree of a *codec.Document, read again if it was
// released, for the packages of the module that rewrite a layer's tree
// (another client's file read as a layer). Package codec sets it: the
// public API does not show the tree.
var TreeOf func(document any) *Doc
