package doc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/limits"
)

// ReadJSON parses a JSON document with the default [Options].
func ReadJSON(data []byte) (*Doc, []*Error) { return Options{}.ReadJSON(data) }

// ReadJSON parses a JSON document whose top level is an object. A key
// defined twice in one object is an error; null becomes a [Null] node.
// The document must be UTF-8 (a byte order mark is skipped: the Doc's Data
// is the document without it) and nest at most o.MaxDepth levels deep.
func (o Options) ReadJSON(data []byte) (*Doc, []*Error) {
	return o.readJSON(data, true)
}

// ReadJSONValue parses one JSON value with the default [Options].
func ReadJSONValue(data []byte) (*Doc, []*Error) { return Options{}.ReadJSONValue(data) }

// ReadJSONValue parses one JSON value of any kind; the document's Root is
// that value.
func (o Options) ReadJSONValue(data []byte) (*Doc, []*Error) {
	return o.readJSON(data, false)
}

// jsonOptions are the tokenizer's options for a layer. Keys given twice
// are the reader's to report, every one of them with its position, not
// the tokenizer's, which stops at the first; the bytes are checked to be
// UTF-8 before they are read, so what is left to allow is what
// encoding/json allows too: an escaped surrogate that is not half of a
// pair (read as U+FFFD).
var jsonOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

func (o Options) readJSON(data []byte, object bool) (*Doc, []*Error) {
	data, bad := checkEncoding(data)
	d := &Doc{Format: JSON, Data: data}
	if bad != nil {
		return d, []*Error{bad}
	}
	r := jsonReader{data: data, dec: jsontext.NewDecoder(bytes.NewBuffer(data), jsonOptions...), errs: newErrList(o), maxDepth: o.depth(), values: newValueCount(o)}
	root, err := r.value(nil)
	d.Values = r.values.n
	if err == nil && object && root.Kind != Table {
		err = &Error{Off: root.Off, Msg: "a JSON layer must be an object at the top level, found " + root.Kind.String()}
	}
	if off := r.skip(false); err == nil && int(off) < len(data) {
		// Another value, or bytes the tokenizer would not take for one.
		err = &Error{Off: off, Msg: "JSON syntax: unexpected data after the top-level object"}
	}
	if err != nil {
		return d, []*Error{r.wrap(err)}
	}
	d.Root = root
	return d, r.errs.list()
}

// jsonTokenizerNesting is how deep the tokenizer lets objects and arrays nest.
const jsonTokenizerNesting = 10_000

type jsonReader struct {
	slab
	data     []byte
	dec      *jsontext.Decoder
	errs     errList
	maxDepth int
	values   valueCount
}

// start returns the offset where the next token begins.
func (r *jsonReader) start() int32 { return r.skip(true) }

// skip returns the offset of the first byte after what the tokenizer read
// that is not whitespace, nor, with delims, a ',' or ':'; or len(r.data).
func (r *jsonReader) skip(delims bool) int32 {
	off := int(r.dec.InputOffset())
	for off < len(r.data) {
		switch r.data[off] {
		case ' ', '\t', '\n', '\r':
		case ',', ':':
			if !delims {
				return int32(off)
			}
		default:
			return int32(off)
		}
		off++
	}
	return int32(off)
}

// token returns the offset and the text of what the tokenizer just read:
// raw, which is a slice of r.data.
func (r *jsonReader) token(raw []byte) (int32, []byte) {
	end := int(r.dec.InputOffset())
	return int32(end - len(raw)), r.data[end-len(raw) : end : end]
}

func (r *jsonReader) wrap(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		e.Msg = limits.CutQuoted(e.Msg, r.errs.quote)
		if e.Path != nil {
			e.Path = limits.CutPath(e.Path, r.errs.quote)
		}
		return e
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &Error{Off: int32(len(r.data)), Msg: "JSON syntax: unexpected end of input"}
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && se.Err != nil {
		return &Error{Off: int32(se.ByteOffset), Msg: limits.CutQuoted("JSON syntax: "+se.Err.Error(), r.errs.quote)}
	}
	return &Error{Off: r.start(), Msg: "JSON syntax: " + err.Error()}
}

func (r *jsonReader) value(path []string) (*Node, error) {
	off := r.start()
	if len(path) > r.maxDepth {
		return nil, &Error{Off: off, Msg: tooDeep(r.maxDepth), Limit: true}
	}
	if r.values.n++; r.values.n > r.values.left {
		return nil, &Error{Off: off, Msg: r.values.msg(), Limit: true}
	}
	n := r.node()
	n.Off = off
	switch r.dec.PeekKind() {
	case '{', '[':
		if r.dec.StackDepth() >= jsonTokenizerNesting {
			return nil, &Error{Off: off, Msg: fmt.Sprintf("objects and arrays nest deeper than %s levels, the JSON tokenizer's limit", diag.Count(jsonTokenizerNesting))}
		}
		tok, err := r.dec.ReadToken()
		if err != nil {
			return nil, err
		}
		if tok.Kind() == '{' {
			return n, r.object(n, path)
		}
		n.Kind, n.Inline = Array, true
		for i := 0; r.dec.PeekKind() != ']'; i++ {
			e, err := r.value(append(path, strconv.Itoa(i)))
			if err != nil {
				return nil, err
			}
			n.Append(e)
		}
		_, err = r.dec.ReadToken() // ]
		return n, err
	}
	raw, err := r.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	_, raw = r.token(raw)
	switch raw[0] {
	case '"':
		n.Kind, n.Str = String, r.str(raw)
	case 't', 'f':
		n.Kind, n.Bool = Bool, raw[0] == 't'
	case 'n':
		n.Kind = Null
	default:
		s := view(raw)
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, &Error{Off: off, Path: path, Msg: r.errs.key(path) + ": number " + limits.Cut(s, r.errs.quote) + " is out of range"}
			}
			n.SetFloat(f)
		} else {
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, &Error{Off: off, Path: path, Msg: r.errs.key(path) + ": integer " + limits.Cut(s, r.errs.quote) + " does not fit in 64 bits"}
			}
			n.SetInt(i)
		}
	}
	return n, nil
}

// object reads the members of object n, whose '{' was read, and its '}'.
func (r *jsonReader) object(n *Node, path []string) error {
	n.Kind = Table
	for r.dec.PeekKind() != '}' {
		raw, err := r.dec.ReadValue()
		if err != nil {
			return err
		}
		koff, raw := r.token(raw)
		key := r.str(raw)
		kpath := append(path, key)
		e, err := r.value(kpath)
		if err != nil {
			return err
		}
		e.Key, e.KeyOff = key, koff
		if prev := n.Get(key); prev != nil {
			r.errs.add(koff, kpath, r.errs.key(kpath)+" is defined twice in the same object")
			continue
		}
		n.add(e)
	}
	_, err := r.dec.ReadToken() // }
	return err
}

// str returns the text of string raw, a valid JSON string of the
// document: without escapes, a slice of the document (see [Doc]).
func (r *jsonReader) str(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return view(inner)
	}
	// An escaped surrogate that is not half of a pair is U+FFFD, as
	// encoding/json reads it: the error that says so is not one here.
	b, _ := jsontext.AppendUnquote(nil, raw)
	return view(b)
}
