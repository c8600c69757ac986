package partial

import (
	"cmp"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/shape"
)

// Format is the format of a layer document.
type Format uint8

// Formats. TOML, JSON and YAML documents have the same shape.
const (
	TOML Format = Format(doc.TOML)
	JSON Format = Format(doc.JSON)
	YAML Format = Format(doc.YAML)
)

func (f Format) String() string { return doc.Format(f).String() }

// FormatOf returns the format named by a file's extension: .toml, .json,
// .yaml or .yml.
func FormatOf(name string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".toml":
		return TOML, true
	case ".json":
		return JSON, true
	case ".yaml", ".yml":
		return YAML, true
	}
	return TOML, false
}

// UnsetKey is the reserved root key that lists the paths a layer unsets:
//
//	unset = ["tools.grep.run", "tools.old_tool"]
//
// An unset brings back what the defaults give, dropping what lower layers
// said: an unset field takes its default; an unset table unsets all of its
// fields; an unset entry of a map (a tool, an option) is removed, or, when
// the defaults define it, goes back to the defaults' entry. When the same
// document also defines the entry, it starts again from its defaults. In
// JSON and YAML a null value unsets too.
const UnsetKey = "unset"

// Document is a parsed layer document: its tree and its bytes, kept to give
// the position of any key.
type Document struct {
	name string
	d    *doc.Doc
}

// Parse reads a layer document. name labels the layer in messages (a file
// path, or "--cfg #2"); format is the document's format. Syntax and
// structure problems (a key defined twice) are returned as [Errors].
func Parse(name string, data []byte, format Format) (*Document, error) {
	var d *doc.Doc
	var errs []*doc.Error
	switch format {
	case JSON:
		d, errs = doc.ReadJSON(data)
	case YAML:
		d, errs = doc.ReadYAML(data)
	default:
		d, errs = doc.ReadTOML(data)
	}
	if len(errs) > 0 {
		out := make(Errors, len(errs))
		for i, e := range errs {
			out[i] = at(&Error{Source: name, Path: Path(e.Path).clip(), Msg: stripPath(e.Msg, e.Path)}, d, e.Off)
		}
		return nil, out
	}
	return &Document{name: name, d: d}, nil
}

// clip returns nil for an empty path.
func (p Path) clip() Path {
	if len(p) == 0 {
		return nil
	}
	return p
}

// stripPath removes a leading "path: " from a reader's message, since the
// Error prints the path itself.
func stripPath(msg string, path []string) string {
	if len(path) == 0 {
		return msg
	}
	return strings.TrimPrefix(msg, doc.JoinKey(path)+": ")
}

// Name returns the name the document was parsed with.
func (d *Document) Name() string { return d.name }

// Format returns the document's format.
func (d *Document) Format() Format { return Format(d.d.Format) }

// Has reports whether the document mentions path p.
func (d *Document) Has(p Path) bool { return d.node(p) != nil }

func (d *Document) node(p Path) *doc.Node {
	n := d.d.Root
	for _, k := range p {
		if n == nil {
			return nil
		}
		n = n.Get(k)
	}
	return n
}

// Locate returns the 1-based line and column where path p is defined, or
// the position of its nearest enclosing key that is; ok is false when the
// document does not mention any part of p.
func (d *Document) Locate(p Path) (line, col int, ok bool) {
	n := d.d.Root
	var best *doc.Node
	for _, k := range p {
		c := n.Get(k)
		if c == nil {
			break
		}
		n, best = c, c
	}
	if best == nil {
		return 0, 0, false
	}
	line, col = d.d.Position(best.Pos())
	return line, col, line > 0
}

// Errorf returns an error about path p positioned where the document
// defines p (or its nearest enclosing key).
func (d *Document) Errorf(p Path, msg, hint string) *Error {
	e := &Error{Source: d.name, Path: p, Msg: msg, Hint: hint}
	if line, col, ok := d.Locate(p); ok {
		e.Line, e.Column, e.Snippet = line, col, d.d.Line(line)
	}
	return e
}

// Take removes the root entry key from the document and returns its plain
// value (string, int64, float64, bool, []any or map[string]any) and
// whether it was there. Loaders use it for directives such as extends that
// are not part of the partial.
func (d *Document) Take(key string) (any, bool) {
	n := d.d.Root.Get(key)
	if n == nil {
		return nil, false
	}
	d.d.Root.Delete(key)
	return plainValue(n), true
}

// Decode decodes the document into v, a pointer to a partial struct. Every
// problem is reported, each with its position: unknown keys (with a
// did-you-mean), values of the wrong type, invalid values, bad unset paths.
// On error v may hold part of the document; use a fresh value.
func (d *Document) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &Error{Source: d.name, Msg: "Decode needs a non-nil pointer to a partial struct"}
	}
	t, err := shape.OfPartial(rv.Type().Elem())
	if err != nil {
		return err
	}
	dec := decoder{d: d.d, source: d.name}
	dec.root(d.d.Root, rv.Elem(), t)
	// The tree is walked table by table and the unset list last; report the
	// problems in document order.
	slices.SortStableFunc(dec.errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return errorsOrNil(dec.errs)
}

// Decode parses data and decodes it into v, a pointer to a partial struct;
// see [Document.Decode].
func Decode(name string, data []byte, format Format, v any) error {
	d, err := Parse(name, data, format)
	if err != nil {
		return err
	}
	return d.Decode(v)
}
