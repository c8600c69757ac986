// Package codec reads and writes layers: a layer document in TOML, JSON
// or YAML parsed into a positioned tree ([Parse], [Limits.Parse],
// [Limits.ReadFile]) and decoded strictly into a partial ([Decode],
// [Document.Decode]: every unknown key, wrong type and bad value reported
// at its line and column, with a did-you-mean), problems given their
// positions ([LocateErrors]), a layer's extends list
// ([Document.Extends]), a partial written back as a layer that reads back
// the same ([Encode], [Text]; a value that came from a variable is a
// secret.String, written as its reference), and the JSON Schema of a file format for editors
// ([JSONSchema]). Where layers come from, their precedence and trust are
// package load's.
package codec

import (
	"bytes"
	"cmp"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/decode"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/partial"
)

// FormatOf returns the format named by a file's extension: .toml, .json,
// .yaml or .yml.
func FormatOf(name string) (partial.Format, bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".toml":
		return partial.TOML, true
	case ".json":
		return partial.JSON, true
	case ".yaml", ".yml":
		return partial.YAML, true
	}
	return partial.TOML, false
}

// Document is a parsed layer document: its tree and its bytes, kept to give
// the position of any key, and the limits it was read within.
//
// The tree's strings, and those of the partial decoded from it, share the
// memory of the bytes. A file layer's tree is dropped once the layer is
// decoded, and read again, the same, from the bytes when something asks
// where a key is.
type Document struct {
	name    string
	format  partial.Format
	jsonc   bool   // JSON read as JSONC
	data    []byte // without a byte order mark
	lim     Limits
	d       *doc.Doc // the tree; nil once released, until tree reads it again
	changed bool     // the tree is no longer as read: see release
	once    sync.Once
	// checked is the key path whose unknown keys Decode reports; nil is
	// every key (see [Document.StrictUnder]).
	checked partial.Path
}

func init() { doc.TreeOf = func(d any) *doc.Doc { return d.(*Document).tree() } }

// tree returns the document's tree, reading it again if it was released.
func (d *Document) tree() *doc.Doc {
	d.once.Do(func() {
		if d.d == nil {
			// The document was read without a problem within d.lim, with
			// documents before it: alone it is too.
			d.d, _ = read(d.data, d.format, d.jsonc, d.lim.docOptions(0))
		}
	})
	return d.d
}

// Release drops the tree of a document that has been decoded, unless it
// was changed since it was read (see [Document.Take]): a node for every
// key and value, which costs more memory than the partial decoded from
// it, and which only the positions of keys need after decoding. tree
// reads it again, the same, when one is asked for. It is called before
// the document is shared.
func (d *Document) Release() {
	if !d.changed {
		d.d, d.once = nil, sync.Once{}
	}
}

// Equal reports whether d and o are the same document: the same name,
// format and bytes. It lets go-cmp compare layers.
func (d *Document) Equal(o *Document) bool {
	if d == nil || o == nil {
		return d == o
	}
	return d.name == o.name && d.format == o.format && bytes.Equal(d.data, o.data)
}

// Parse reads a layer document within the default [Limits]. name labels
// the layer in messages (a file path, or "--cfg #2"); format is the
// document's format. Syntax and structure problems (a key defined twice,
// nesting deeper than the limit, bytes that are not UTF-8) are returned as
// [diag.Errors]. A UTF-8 byte order mark is skipped. The document keeps a
// copy of data.
func Parse(name string, data []byte, format partial.Format) (*Document, error) {
	d, _, err := parse(name, bytes.Clone(data), format, Limits{}.WithDefaults(), false, 0)
	return d, err
}

// parse is Parse within lim, whose fields are set, reading JSON as JSONC
// (comments and trailing commas) when jsonc is set, after documents of the
// same load that hold valuesBefore values. It returns how many values the
// document holds, also when it fails. The document keeps data, which must
// not change afterwards.
func parse(name string, data []byte, format partial.Format, lim Limits, jsonc bool, valuesBefore int) (*Document, int, error) {
	d, errs := read(data, format, jsonc, lim.docOptions(valuesBefore))
	if len(errs) > 0 {
		c := diag.Collector{Max: lim.Problems}
		for _, e := range errs {
			if e.More > 0 {
				c.Omit(e.More)
				continue
			}
			var p partial.Path
			if len(e.Path) > 0 {
				p = e.Path
			}
			code := diag.CodeSyntax
			if e.Limit {
				code = diag.CodeLimit
			}
			c.AddError(decode.At(&diag.Error{Code: code, Source: name, Path: p, Msg: stripPath(e.Msg, e.Path)}, d, e.Off))
		}
		return nil, d.Values, c.Err()
	}
	return &Document{name: name, format: format, jsonc: jsonc, data: d.Data, lim: lim, d: d}, d.Values, nil
}

// read reads data with the reader of its format within o.
func read(data []byte, format partial.Format, jsonc bool, o doc.Options) (*doc.Doc, []*doc.Error) {
	switch {
	case format == partial.JSON && jsonc:
		return o.ReadJSONC(data)
	case format == partial.JSON:
		return o.ReadJSON(data)
	case format == partial.YAML:
		return o.ReadYAML(data)
	default:
		return o.ReadTOML(data)
	}
}

// stripPath removes a leading "path: " from a reader's message, since the
// Error prints the path itself.
func stripPath(msg string, path []string) string {
	if len(path) == 0 {
		return msg
	}
	return strings.TrimPrefix(msg, tomltext.Path(path)+": ")
}

// Name returns the name the document was parsed with.
func (d *Document) Name() string { return d.name }

// Format returns the document's format.
func (d *Document) Format() partial.Format { return d.format }

// Has reports whether the document mentions path p.
func (d *Document) Has(p partial.Path) bool { return d.node(p) != nil }

func (d *Document) node(p partial.Path) *doc.Node {
	n := d.tree().Root
	for _, k := range p {
		if n == nil {
			return nil
		}
		n = n.Get(k)
	}
	return n
}

// Locate returns the 1-based line and column where path p is defined, or
// where the unset list names p or a key enclosing it, or else the position
// of p's nearest enclosing key that is defined; ok is false when the
// document mentions no part of p.
func (d *Document) Locate(p partial.Path) (line, col int, ok bool) {
	off, ok := d.locate(p)
	if !ok {
		return 0, 0, false
	}
	line, col = d.tree().Position(off)
	return line, col, line > 0
}

// locate is Locate as a byte offset.
func (d *Document) locate(p partial.Path) (int32, bool) {
	n := d.tree().Root
	var best *doc.Node
	depth := 0
	for _, k := range p {
		c := n.Get(k)
		if c == nil {
			break
		}
		n, best = c, c
		depth++
	}
	if depth < len(p) {
		if u := d.unsetEntry(p); u != nil {
			return u.ValuePos(), u.ValuePos() >= 0
		}
	}
	if best == nil {
		return 0, false
	}
	return best.Pos(), best.Pos() >= 0
}

// unsetEntry returns the entry of the unset list that names p or a key
// enclosing it, the deepest, or nil.
func (d *Document) unsetEntry(p partial.Path) *doc.Node {
	list := d.tree().Root.Get(partial.UnsetKey)
	if list == nil || list.Kind != doc.Array {
		return nil
	}
	var found *doc.Node
	deepest := -1
	for _, e := range list.Entries {
		if e.Kind != doc.String {
			continue
		}
		q, err := partial.ParsePath(e.Str)
		if err == nil && p.HasPrefix(q) && len(q) > deepest {
			found, deepest = e, len(q)
		}
	}
	return found
}

// Problem returns an error about path p positioned where the document
// defines p (or its nearest enclosing key).
func (d *Document) Problem(p partial.Path, msg, hint string) *diag.Error {
	e := &diag.Error{Code: diag.CodeInvalid, Source: d.name, Path: p, Msg: msg, Hint: hint}
	if off, ok := d.locate(p); ok {
		decode.At(e, d.tree(), off)
	}
	return e
}

// errAt returns an error about path p at the value of node n.
func (d *Document) errAt(code diag.Code, n *doc.Node, p partial.Path, msg, hint string) *diag.Error {
	return decode.At(&diag.Error{Code: code, Source: d.name, Path: p, Msg: msg, Hint: hint}, d.tree(), n.ValuePos())
}

// errAtKey returns an error about path p at the key of node n.
func (d *Document) errAtKey(code diag.Code, n *doc.Node, p partial.Path, msg, hint string) *diag.Error {
	return decode.At(&diag.Error{Code: code, Source: d.name, Path: p, Msg: msg, Hint: hint}, d.tree(), n.Pos())
}

// StrictUnder has [Document.Decode] report the unknown keys under the key
// path p alone, leaving the others to the host's own reader (its mount of
// strata's model beside keys of its own); nil, the default, reports every
// unknown key. Wrong types and bad values are reported everywhere.
func (d *Document) StrictUnder(p partial.Path) { d.checked = p }

// Take removes the root entry key from the document and returns its plain
// value (string, int64, float64, bool, []any or map[string]any) and
// whether it was there. Loaders use it for directives such as extends that
// are not part of the partial.
func (d *Document) Take(key string) (any, bool) {
	n := d.tree().Root.Get(key)
	if n == nil {
		return nil, false
	}
	d.tree().Root.Delete(key)
	d.changed = true
	return decode.Plain(n), true
}

// Decode decodes the document into v, a pointer to a partial struct. Every
// problem is reported, each with its position: unknown keys (with a
// did-you-mean), values of the wrong type, invalid values, bad unset paths.
// On error v may hold part of the document; use a fresh value.
func (d *Document) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &diag.Error{Code: diag.CodeUsage, Source: d.name, Msg: "Decode needs a non-nil pointer to a partial struct"}
	}
	t, err := shape.OfPartial(rv.Type().Elem())
	if err != nil {
		return err
	}
	lim := d.lim.WithDefaults()
	dec := decode.Decoder{Doc: d.tree(), Source: d.name, MaxErrors: lim.Problems, MaxQuote: lim.Quote, MaxDepth: lim.Depth, Checked: d.checked}
	dec.Root(d.tree().Root, rv.Elem(), t)
	// The tree is walked table by table and the unset list last; report the
	// problems in document order.
	slices.SortStableFunc(dec.Errs, func(a, b *diag.Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return dec.Err()
}

// Decode parses data and decodes it into v, a pointer to a partial struct;
// see [Document.Decode].
func Decode(name string, data []byte, format partial.Format, v any) error {
	d, err := Parse(name, data, format)
	if err != nil {
		return err
	}
	return d.Decode(v)
}
