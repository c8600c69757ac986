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
	if err := w.table(root, nil, true); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

type tomlWriter struct {
	buf bytes.Buffer
}

// InlineTOML renders a value as TOML writes it after "key = ": tables and
// arrays inline.
func InlineTOML(n *Node) (string, error) {
	w := tomlWriter{}
	if err := w.value(n, nil); err != nil {
		return "", err
	}
	return w.buf.String(), nil
}

func isSection(n *Node) bool {
	return n.Kind == Table && !n.Inline
}

func (w *tomlWriter) table(t *Node, path []string, root bool) error {
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
		w.buf.WriteString("[" + tomltext.Path(path) + "]\n")
	}
	for _, e := range t.Entries {
		if isSection(e) {
			continue
		}
		w.buf.WriteString(tomltext.Key(e.Key))
		w.buf.WriteString(" = ")
		if err := w.value(e, append(path, e.Key)); err != nil {
			return err
		}
		w.buf.WriteByte('\n')
	}
	for _, e := range t.Entries {
		if isSection(e) {
			if err := w.table(e, append(path[:len(path):len(path)], e.Key), false); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *tomlWriter) value(n *Node, path []string) error {
	switch n.Kind {
	case String:
		w.buf.WriteString(tomlString(n.Str))
	case Integer:
		w.buf.WriteString(strconv.FormatInt(n.Int, 10))
	case Float:
		w.buf.WriteString(tomlFloat(n.Float))
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
			if err := w.value(e, append(path, strconv.Itoa(i))); err != nil {
				return err
			}
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
			if err := w.value(e, append(path, e.Key)); err != nil {
				return err
			}
		}
		w.buf.WriteString(" }")
	default:
		return fmt.Errorf("%s: a %s value cannot be written in TOML", tomltext.Path(path), n.Kind)
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

// WriteJSON renders a tree as indented JSON with entries in order. Float
// values that are whole numbers keep a fraction so that they read back as
// floats. NaN and infinities cannot be written.
func WriteJSON(root *Node) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, root, "", nil); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, n *Node, indent string, path []string) error {
	switch n.Kind {
	case String, Datetime:
		buf.WriteString(jsonString(n.Str))
	case Integer:
		buf.WriteString(strconv.FormatInt(n.Int, 10))
	case Float:
		if math.IsNaN(n.Float) || math.IsInf(n.Float, 0) {
			return fmt.Errorf("%s: %v cannot be written in JSON", tomltext.Path(path), n.Float)
		}
		s := strconv.FormatFloat(n.Float, 'g', -1, 64)
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
			buf.WriteString("\n" + indent + "  ")
			if err := writeJSON(buf, e, indent+"  ", append(path, strconv.Itoa(i))); err != nil {
				return err
			}
		}
		buf.WriteString("\n" + indent + "]")
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
			buf.WriteString("\n" + indent + "  ")
			buf.WriteString(jsonString(e.Key))
			buf.WriteString(": ")
			if err := writeJSON(buf, e, indent+"  ", append(path, e.Key)); err != nil {
				return err
			}
		}
		buf.WriteString("\n" + indent + "}")
	default:
		return fmt.Errorf("%s: invalid node", tomltext.Path(path))
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
