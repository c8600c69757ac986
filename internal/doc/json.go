package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

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

func (o Options) readJSON(data []byte, object bool) (*Doc, []*Error) {
	data, bad := checkEncoding(data)
	d := &Doc{Format: JSON, Data: data}
	if bad != nil {
		return d, []*Error{bad}
	}
	r := jsonReader{data: data, dec: json.NewDecoder(bytes.NewReader(data)), errs: newErrList(o), maxDepth: o.depth(), values: newValueCount(o)}
	r.dec.UseNumber()
	root, err := r.value(nil)
	d.Values = r.values.n
	if err == nil && object && root.Kind != Table {
		err = &Error{Off: root.Off, Msg: "a JSON layer must be an object at the top level, found " + root.Kind.String()}
	}
	if err == nil {
		if _, terr := r.dec.Token(); terr != io.EOF {
			err = &Error{Off: r.start(), Msg: "JSON syntax: unexpected data after the top-level object"}
		}
	}
	if err != nil {
		return d, []*Error{r.wrap(err)}
	}
	d.Root = root
	return d, r.errs.list()
}

type jsonReader struct {
	data     []byte
	dec      *json.Decoder
	errs     errList
	maxDepth int
	values   valueCount
	last     int32 // where the token being read starts
}

// start returns the offset where the next token begins.
func (r *jsonReader) start() int32 {
	off := int(r.dec.InputOffset())
	for off < len(r.data) {
		switch r.data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
			continue
		}
		break
	}
	return int32(off)
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
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The tokenizer may report the start of the enclosing value.
		return &Error{Off: max(int32(se.Offset)-1, r.last), Msg: "JSON syntax: " + se.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &Error{Off: int32(len(r.data)), Msg: "JSON syntax: unexpected end of input"}
	}
	return &Error{Off: r.start(), Msg: "JSON syntax: " + err.Error()}
}

func (r *jsonReader) value(path []string) (*Node, error) {
	off := r.start()
	r.last = off
	if len(path) > r.maxDepth {
		return nil, &Error{Off: off, Msg: tooDeep(r.maxDepth), Limit: true}
	}
	if r.values.n++; r.values.n > r.values.left {
		return nil, &Error{Off: off, Msg: r.values.msg(), Limit: true}
	}
	tok, err := r.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &Node{KeyOff: -1, Off: off}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.Kind = Table
			for r.dec.More() {
				koff := r.start()
				r.last = koff
				ktok, err := r.dec.Token()
				if err != nil {
					return nil, err
				}
				key := ktok.(string)
				kpath := append(path, key)
				e, err := r.value(kpath)
				if err != nil {
					return nil, err
				}
				e.Key, e.KeyOff = key, koff
				if prev := n.Get(key); prev != nil {
					r.errs.add(koff, kpath, r.errs.key(kpath)+" is defined twice in the same object")
					continue
				}
				n.add(e)
			}
		case '[':
			n.Kind, n.Inline = Array, true
			for i := 0; r.dec.More(); i++ {
				e, err := r.value(append(path, strconv.Itoa(i)))
				if err != nil {
					return nil, err
				}
				n.Append(e)
			}
		}
		if _, err := r.dec.Token(); err != nil { // closing delimiter
			return nil, err
		}
	case string:
		n.Kind, n.Str = String, t
	case bool:
		n.Kind, n.Bool = Bool, t
	case nil:
		n.Kind = Null
	case json.Number:
		s := string(t)
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
