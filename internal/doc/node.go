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
	"sort"
	"unicode/utf8"
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
// for key lookups.
const indexThreshold = 8

// Node is one value of a document: a table, an array or a scalar.
type Node struct {
	Kind Kind
	// Inline marks a table or array written inline. Readers set it for TOML
	// inline tables (which are immutable); writers honour it when choosing
	// between an inline table and a [header].
	Inline bool
	Bool   bool
	def    definition // how a TOML table came to be; see toml.go
	// Key is the node's name in its parent table; empty for array elements
	// and for the root.
	Key string
	// KeyOff is the byte offset of the key that defines the node, or -1.
	KeyOff int32
	// Off is the byte offset of the value, or -1.
	Off int32

	Str   string // String; the raw text of a Datetime
	Int   int64
	Float float64

	// Entries are a table's entries in document order, or an array's
	// elements.
	Entries []*Node

	index map[string]*Node
}

// NewTable returns an empty table node without position.
func NewTable() *Node { return &Node{Kind: Table, KeyOff: -1, Off: -1} }

// NewArray returns an empty array node without position.
func NewArray() *Node { return &Node{Kind: Array, KeyOff: -1, Off: -1, Inline: true} }

// NewString returns a string node without position.
func NewString(s string) *Node { return &Node{Kind: String, Str: s, KeyOff: -1, Off: -1} }

// NewInt returns an integer node without position.
func NewInt(i int64) *Node { return &Node{Kind: Integer, Int: i, KeyOff: -1, Off: -1} }

// NewFloat returns a float node without position.
func NewFloat(f float64) *Node { return &Node{Kind: Float, Float: f, KeyOff: -1, Off: -1} }

// NewBool returns a boolean node without position.
func NewBool(b bool) *Node { return &Node{Kind: Bool, Bool: b, KeyOff: -1, Off: -1} }

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
type Doc struct {
	Format Format
	Data   []byte
	Root   *Node

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

func (d *Doc) lineStarts() []int32 {
	if d.lines == nil {
		d.lines = append(d.lines, 0)
		for i, c := range d.Data {
			if c == '\n' {
				d.lines = append(d.lines, int32(i+1))
			}
		}
	}
	return d.lines
}

// Error is a problem found while reading a document.
type Error struct {
	Off  int32    // byte offset of the problem, or -1
	Path []string // key path of the problem, when known
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func decodeRune(b []byte) (rune, int) { return utf8.DecodeRune(b) }
