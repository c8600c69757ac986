package doc

import "github.com/pelletier/go-toml/v2/unstable"

// TOMLStream reads a TOML document one expression at a time, for a decoder
// that puts each value where it goes as it reads it, instead of building
// the document's tree first (a node for every key and value, which for a
// large layer costs more than the partial it decodes into).
//
// It does what ReadTOML does with a document's bytes and values: it checks
// the encoding, the length of dotted keys and the syntax, converts each
// value as ReadTOML does (its inline tables and arrays checked the same
// way), and counts values against Options.MaxValues and MaxDepth. What the
// keys define, tables and keys given twice, is the caller's to check, and
// so is counting the tables that headers and dotted keys create (see
// [TOMLStream.Table]), so that [TOMLStream.Values] is what ReadTOML's
// [Doc.Values] would be.
//
// It says nothing about problems: at the first one it stops and
// [TOMLStream.Failed] is true. A document with problems is read again with
// ReadTOML, which reports them with their positions.
type TOMLStream struct {
	r      tomlReader
	e      *unstable.Node // the expression Next moved to
	keys   []string       // its key's parts
	failed bool
}

// Expr is the kind of a TOML expression, as [TOMLStream.Next] gives it.
type Expr uint8

// Expression kinds.
const (
	ExprKeyValue    Expr = 1 + iota // key = value
	ExprHeader                      // [table]
	ExprArrayHeader                 // [[array of tables]]
)

// TOMLStream returns a stream over TOML document data; it returns false
// when ReadTOML would refuse data before parsing it (its encoding, a
// dotted key with more parts than MaxDepth).
func (o Options) TOMLStream(data []byte) (*TOMLStream, bool) {
	data, bad := checkEncoding(data)
	if bad != nil || longKey(data, o.depth()) >= 0 {
		return nil, false
	}
	s := &TOMLStream{r: tomlReader{doc: &Doc{Format: TOML, Data: data}, errs: newErrList(o), maxDepth: o.depth(), values: newValueCount(o), reuse: true}}
	s.r.values.n = 1 // the root, as ReadTOML counts it
	s.r.p.Reset(data)
	return s, true
}

// Next moves to the next key-value or header and returns its kind and its
// key's parts; ok is false at the end of the document and at a syntax
// error (see Failed). The parts share the memory of the document or the
// parser: they are valid until the next call, and a part that is kept
// must be copied with Keep.
func (s *TOMLStream) Next() (kind Expr, keys []string, ok bool) {
	for s.r.p.NextExpression() {
		e := s.r.p.Expression()
		switch e.Kind {
		case unstable.KeyValue:
			kind = ExprKeyValue
		case unstable.Table:
			kind = ExprHeader
		case unstable.ArrayTable:
			kind = ExprArrayHeader
		default:
			continue
		}
		s.e, s.keys = e, s.keys[:0]
		it := e.Key()
		for it.Next() {
			s.keys = append(s.keys, view(it.Node().Data))
		}
		return kind, s.keys, true
	}
	if s.r.p.Error() != nil {
		s.failed = true
	}
	return 0, nil, false
}

// Value converts the value of the key-value Next moved to, which lies
// depth keys deep (the depth of its table and the parts of its key). The
// nodes are the stream's, reused by the next call; the strings in them
// are not. It returns nil at a problem: the value is invalid, nests deeper
// than MaxDepth or goes past MaxValues.
func (s *TOMLStream) Value(depth int) *Node {
	if s.failed || s.e == nil || s.e.Kind != unstable.KeyValue {
		s.failed = true
		return nil
	}
	s.r.reset()
	n := s.r.value(s.e.Value(), s.r.stack[:0], depth, -1)
	if n == nil || s.r.errs.count() > 0 {
		s.failed = true
		return nil
	}
	return n
}

// Keep returns a copy of k, a key part Next gave, that stays valid. Keys
// that repeat are copied once.
func (s *TOMLStream) Keep(k string) string { return s.r.keep(k) }

// Table counts a table that a header or a dotted key creates; it returns
// false past MaxValues.
func (s *TOMLStream) Table() bool {
	if !s.r.values.add(&s.r.errs, -1) {
		s.failed = true
		return false
	}
	return true
}

// MaxDepth is how deep the document may nest (see Options.MaxDepth).
func (s *TOMLStream) MaxDepth() int { return s.r.maxDepth }

// Values is how many values the document holds so far, counted as
// ReadTOML counts them (with the tables given to Table).
func (s *TOMLStream) Values() int { return s.r.values.n }

// Failed reports whether the stream met a problem.
func (s *TOMLStream) Failed() bool { return s.failed }

// Data is the document without its byte order mark, if it had one.
func (s *TOMLStream) Data() []byte { return s.r.doc.Data }
