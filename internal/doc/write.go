package doc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/strata-config/strata/internal/tomltext"
)

// WriteTOML renders a tree as a TOML document. Scalars and inline values of
// a table come first, then its sub-tables as [headers]; a table is given a
// header when it has values of its own or no entries at all (an empty table
// is meaningful). Entries keep their order. Null nodes cannot be written.
func WriteTOML(root *Node) ([]byte, error) {
	w := tomlWriter{}
	if err := w.table(root, true); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// tomlWriter writes TOML. path is the key path of the value being written,
// a stack that each level pushes its key onto and pops: no level copies
// it, which would make deep tables quadratic.
type tomlWriter struct {
	buf  bytes.Buffer
	path []string
}

func (w *tomlWriter) push(key string) { w.path = append(w.path, key) }
func (w *tomlWriter) pop()            { w.path = w.path[:len(w.path)-1] }

// InlineTOML renders a value as TOML writes it after "key = ": tables and
// arrays inline.
func InlineTOML(n *Node) (string, error) {
	w := tomlWriter{}
	if err := w.value(n); err != nil {
		return "", err
	}
	return w.buf.String(), nil
}

func isSection(n *Node) bool {
	return n.Kind == Table && !n.Inline
}

// table writes table t, at w.path.
func (w *tomlWriter) table(t *Node, root bool) error {
	hasValues := false
	for _, e := range t.Entries {
		if !isSection(e) {
			hasValues = true
			break
		}
	}
	if !root && (hasValues || len(t.Entries) == 0) {
		if w.buf.Len() > 0 {
			w.buf.WriteByte('\n')
		}
		w.buf.WriteByte('[')
		for i, k := range w.path {
			if i > 0 {
				w.buf.WriteByte('.')
			}
			w.buf.WriteString(tomltext.Key(k))
		}
		w.buf.WriteString("]\n")
	}
	for _, e := range t.Entries {
		if isSection(e) {
			continue
		}
		w.buf.WriteString(tomltext.Key(e.Key))
		w.buf.WriteString(" = ")
		w.push(e.Key)
		if err := w.value(e); err != nil {
			return err
		}
		w.pop()
		w.buf.WriteByte('\n')
	}
	for _, e := range t.Entries {
		if isSection(e) {
			w.push(e.Key)
			if err := w.table(e, false); err != nil {
				return err
			}
			w.pop()
		}
	}
	return nil
}

// value writes n inline, at w.path.
func (w *tomlWriter) value(n *Node) error {
	switch n.Kind {
	case String:
		w.buf.WriteString(tomlString(n.Str))
	case Integer:
		w.buf.WriteString(strconv.FormatInt(n.Int(), 10))
	case Float:
		w.buf.WriteString(tomlFloat(n.Float()))
	case Bool:
		w.buf.WriteString(strconv.FormatBool(n.Bool))
	case Datetime:
		w.buf.WriteString(n.Str)
	case Array:
		w.buf.WriteByte('[')
		for i, e := range n.Entries {
			if i > 0 {
				w.buf.WriteString(", ")
			}
			w.push(strconv.Itoa(i))
			if err := w.value(e); err != nil {
				return err
			}
			w.pop()
		}
		w.buf.WriteByte(']')
	case Table:
		if len(n.Entries) == 0 {
			w.buf.WriteString("{}")
			return nil
		}
		w.buf.WriteString("{ ")
		for i, e := range n.Entries {
			if i > 0 {
				w.buf.WriteString(", ")
			}
			w.buf.WriteString(tomltext.Key(e.Key))
			w.buf.WriteString(" = ")
			w.push(e.Key)
			if err := w.value(e); err != nil {
				return err
			}
			w.pop()
		}
		w.buf.WriteString(" }")
	default:
		return fmt.Errorf("%s: a %s value cannot be written in TOML", tomltext.Path(w.path), n.Kind)
	}
	return nil
}

func tomlFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// tomlString quotes s. Text with line breaks and nothing a literal string
// cannot hold becomes a multi-line literal string; the rest a basic string.
func tomlString(s string) string {
	if strings.Contains(s, "\n") && tomltext.CanLiteralMultiline(s) {
		return "'''\n" + s + "'''"
	}
	return tomltext.String(s, '"')
}

// WriteJSON renders a tree as indented JSON with entries in order (levels
// deeper than 100 are indented as the 100th). Float values that are whole
// numbers keep a fraction so that they read back as floats. NaN and
// infinities cannot be written.
func WriteJSON(root *Node) ([]byte, error) {
	var w jsonWriter
	if err := w.value(root, 0); err != nil {
		return nil, err
	}
	w.buf.WriteByte('\n')
	return w.buf.Bytes(), nil
}

// jsonWriter writes indented JSON; path is a stack, as in tomlWriter.
type jsonWriter struct {
	buf    bytes.Buffer
	path   []string
	blanks []byte // the deepest indentation written so far, reused
}

// maxIndent is the deepest level the JSON writer indents for: deeper
// levels line up with it, so that the output stays linear in the size of
// the tree (a tree 30,000 levels deep, indented in full, is 1.8 GB of
// blanks).
const maxIndent = 100

// newline starts a line indented for depth.
func (w *jsonWriter) newline(depth int) {
	depth = min(depth, maxIndent)
	for len(w.blanks) < 2*depth {
		w.blanks = append(w.blanks, ' ')
	}
	w.buf.WriteByte('\n')
	w.buf.Write(w.blanks[:2*depth])
}

// value writes n at depth, at w.path.
func (w *jsonWriter) value(n *Node, depth int) error {
	buf := &w.buf
	switch n.Kind {
	case String, Datetime:
		buf.WriteString(jsonString(n.Str))
	case Integer:
		buf.WriteString(strconv.FormatInt(n.Int(), 10))
	case Float:
		if math.IsNaN(n.Float()) || math.IsInf(n.Float(), 0) {
			return fmt.Errorf("%s: %v cannot be written in JSON", tomltext.Path(w.path), n.Float())
		}
		s := strconv.FormatFloat(n.Float(), 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		buf.WriteString(s)
	case Bool:
		buf.WriteString(strconv.FormatBool(n.Bool))
	case Null:
		buf.WriteString("null")
	case Array:
		if len(n.Entries) == 0 {
			buf.WriteString("[]")
			return nil
		}
		buf.WriteString("[")
		for i, e := range n.Entries {
			if i > 0 {
				buf.WriteByte(',')
			}
			w.newline(depth + 1)
			w.path = append(w.path, strconv.Itoa(i))
			if err := w.value(e, depth+1); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
		}
		w.newline(depth)
		buf.WriteByte(']')
	case Table:
		if len(n.Entries) == 0 {
			buf.WriteString("{}")
			return nil
		}
		buf.WriteString("{")
		for i, e := range n.Entries {
			if i > 0 {
				buf.WriteByte(',')
			}
			w.newline(depth + 1)
			buf.WriteString(jsonString(e.Key))
			buf.WriteString(": ")
			w.path = append(w.path, e.Key)
			if err := w.value(e, depth+1); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
		}
		w.newline(depth)
		buf.WriteByte('}')
	default:
		return fmt.Errorf("%s: invalid node", tomltext.Path(w.path))
	}
	return nil
}

// jsonString quotes s as JSON without escaping HTML characters.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
