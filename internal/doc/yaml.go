package doc

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/strata-config/strata/internal/limits"
	yaml "go.yaml.in/yaml/v3"
)

// ReadYAML parses a YAML document with the default [Options].
func ReadYAML(data []byte) (*Doc, []*Error) { return Options{}.ReadYAML(data) }

// ReadYAML parses a YAML document whose top level is a mapping. Aliases are
// expanded; merge keys (<<) and non-string keys are errors; a key defined
// twice in one mapping is an error; null becomes a [Null] node. The
// document must be UTF-8 of characters YAML allows (a byte order mark is
// skipped: the Doc's Data is the document without it) and nest at most
// o.MaxDepth levels deep.
func (o Options) ReadYAML(data []byte) (*Doc, []*Error) {
	data, bad := checkEncoding(data)
	d := &Doc{Format: YAML, Data: data}
	if bad == nil {
		bad = yamlCharacters(data)
	}
	if bad != nil {
		return d, []*Error{bad}
	}
	r := yamlReader{doc: d, errs: newErrList(o), maxDepth: o.depth(), values: newValueCount(o)}
	var top yaml.Node
	if err := yaml.Unmarshal(data, &top); err != nil {
		if strings.Contains(err.Error(), "exceeded max depth") {
			// The parser's own bound, above ours, says no more than that.
			return d, []*Error{{Off: yamlDeepAt(data, r.maxDepth), Msg: tooDeep(r.maxDepth), Limit: true}}
		}
		return d, []*Error{{Off: yamlErrOff(d, err.Error()), Msg: limits.CutQuoted("YAML syntax: "+strings.TrimPrefix(err.Error(), "yaml: "), r.errs.quote)}}
	}
	if top.Kind == 0 { // empty document
		d.Root = NewTable()
		return d, nil
	}
	body := &top
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		body = top.Content[0]
	}
	if body.Kind == yaml.ScalarNode && body.Tag == "!!null" {
		d.Root = NewTable()
		return d, nil
	}
	root := r.node(body, nil, 0)
	d.Values = r.values.n
	if root == nil {
		return d, r.errs.list()
	}
	if root.Kind != Table {
		return d, []*Error{{Off: root.Off, Msg: "a YAML layer must be a mapping at the top level, found " + root.Kind.String()}}
	}
	d.Root = root
	return d, r.errs.list()
}

// yamlDeepAt returns the offset where data nests deeper than max, for a
// document the YAML parser found too deep: where its flow collections ([
// and {) or the sequences a line opens ("- - - x") go deeper than max
// (quoted scalars and comments skipped), or 0 when neither does.
func yamlDeepAt(data []byte, max int) int32 {
	flow, dashes, lineStart := 0, 0, true
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			dashes, lineStart = 0, true
			continue
		case '[', '{':
			if flow++; flow > max {
				return int32(i)
			}
		case ']', '}':
			flow--
		case '-':
			if lineStart && flow == 0 && (i+1 == len(data) || data[i+1] == ' ' || data[i+1] == '\t') {
				if dashes++; dashes > max {
					return int32(i)
				}
				continue
			}
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
			continue
		case '"', '\'':
			for i++; i < len(data) && data[i] != c; i++ {
				if c == '"' && data[i] == '\\' {
					i++
				}
			}
		case ' ', '\t':
			continue
		}
		lineStart = false
	}
	return 0
}

// yamlCharacters returns a problem at the first character of data that
// YAML does not allow (control characters but tab and line breaks, and
// U+FFFE and U+FFFF), or nil. data is valid UTF-8.
func yamlCharacters(data []byte) *Error {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7F {
				return unprintable(i, rune(c))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r >= 0x80 && r < 0xA0 && r != 0x85 || r == 0xFFFE || r == 0xFFFF {
			return unprintable(i, r)
		}
		i += size
	}
	return nil
}

func unprintable(off int, r rune) *Error {
	return &Error{Off: int32(off), Msg: fmt.Sprintf("the character U+%04X is not allowed in YAML; write it escaped in a double-quoted string (\\u%04X)", r, r)}
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// yamlErrOff returns the offset of the line a YAML parser error names. The
// parser leaves the line out of its message when it is the first one (its
// lines count from 0, and 0 means "no line"); its errors without a line
// (bad bytes) are refused before it runs.
func yamlErrOff(d *Doc, msg string) int32 {
	m := yamlLine().FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	line, _ := strconv.Atoi(m[1])
	starts := yamlLineStarts(d.Data)
	if line < 1 || line > len(starts) {
		return -1
	}
	return starts[line-1]
}

// yamlLineStarts returns the offsets of the lines as the YAML parser counts
// them: besides \n, a \r on its own and the characters NEL, LS and PS end a
// line, and a byte order mark is not part of the first line.
func yamlLineStarts(data []byte) []int32 {
	starts := []int32{0}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		starts[0] = 3
	}
	for i := 0; i < len(data); i++ {
		switch {
		case data[i] == '\n',
			data[i] == '\r' && (i+1 == len(data) || data[i+1] != '\n'):
		case data[i] == 0xC2 && i+1 < len(data) && data[i+1] == 0x85: // NEL
			i++
		case data[i] == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9): // LS, PS
			i += 2
		default:
			continue
		}
		starts = append(starts, int32(i+1))
	}
	return starts
}

type yamlReader struct {
	doc      *Doc
	errs     errList
	maxDepth int
	lines    []int32                      // line starts as the YAML parser counts lines
	ascii    bool                         // the document is ASCII: a column is a byte
	at       struct{ line, col, off int } // the last position found

	inAlias  int // depth of alias expansion
	expanded int // nodes made by expanding aliases
	values   valueCount
}

func (r *yamlReader) off(n *yaml.Node) int32 {
	if r.lines == nil {
		r.lines = yamlLineStarts(r.doc.Data)
		r.ascii = !hasNonASCII(r.doc.Data)
	}
	starts := r.lines
	if n.Line < 1 {
		return -1
	}
	if n.Line > len(starts) { // an empty value implied at the end: "? key"
		return int32(len(r.doc.Data))
	}
	// yaml columns count characters; convert to a byte offset.
	if r.ascii {
		return min(starts[n.Line-1]+int32(n.Column)-1, int32(len(r.doc.Data)))
	}
	// Nodes come mostly in order: go on from the last one when it is on
	// the same line, before this one (a line of many values is not walked
	// again for each).
	off, col := int(starts[n.Line-1]), 1
	if r.at.line == n.Line && r.at.col <= n.Column {
		off, col = r.at.off, r.at.col
	}
	for ; col < n.Column && off < len(r.doc.Data); col++ {
		_, size := decodeRune(r.doc.Data[off:])
		off += size
	}
	r.at.line, r.at.col, r.at.off = n.Line, col, off
	return int32(off)
}

// hasNonASCII reports whether data holds a byte outside ASCII.
func hasNonASCII(data []byte) bool {
	for _, c := range data {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

func (r *yamlReader) fail(n *yaml.Node, path []string, format string, args ...any) {
	r.errs.add(r.off(n), path, fmt.Sprintf(format, args...))
}

// maxYAMLExpansion bounds the nodes that aliases expand to, beyond one per
// input byte: nested aliases grow a small document exponentially (the
// "billion laughs").
const maxYAMLExpansion = 10000

func (r *yamlReader) node(y *yaml.Node, path []string, depth int) *Node {
	if depth > r.maxDepth {
		r.errs.addLimit(r.off(y), tooDeep(r.maxDepth))
		return nil
	}
	if y.Kind == yaml.AliasNode {
		r.inAlias++
		defer func() { r.inAlias-- }()
		return r.node(y.Alias, path, depth+1)
	}
	if r.inAlias > 0 {
		if r.expanded++; r.expanded > maxYAMLExpansion+len(r.doc.Data) {
			r.fail(y, path, "%s: YAML aliases expand to too many values; write the values out", r.errs.key(path))
			return nil
		}
	}
	if r.values.over || !r.values.add(&r.errs, r.off(y)) {
		return nil
	}
	n := &Node{KeyOff: -1, Off: r.off(y)}
	switch y.Kind {
	case yaml.MappingNode:
		n.Kind = Table
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			if k.Tag == "!!merge" {
				r.fail(k, path, "%s: YAML merge keys (<<) are not supported; write the keys out", r.errs.key(path))
				return nil
			}
			if k.Kind != yaml.ScalarNode {
				r.fail(k, path, "%s: keys must be strings", r.errs.key(path))
				return nil
			}
			kp := append(path, k.Value)
			e := r.node(v, kp, depth+1)
			if e == nil {
				return nil
			}
			e.Key, e.KeyOff = k.Value, r.off(k)
			if prev := n.Get(k.Value); prev != nil {
				r.fail(k, kp, "%s is defined twice in the same mapping", r.errs.key(kp))
				continue
			}
			n.add(e)
		}
	case yaml.SequenceNode:
		n.Kind, n.Inline = Array, true
		for i, c := range y.Content {
			e := r.node(c, append(path, strconv.Itoa(i)), depth+1)
			if e == nil {
				return nil
			}
			n.Append(e)
		}
	case yaml.ScalarNode:
		if !r.scalar(y, n, path) {
			return nil
		}
	default:
		r.fail(y, path, "%s: unsupported YAML node", r.errs.key(path))
		return nil
	}
	return n
}

// plainInt reads a decimal integer written plainly (an optional minus,
// no leading zero, no underscore), which is most of them, without the
// decoder yaml.v3 builds for each value. Any other form, and one that does
// not fit, is left to yaml.v3 (ok is false), which reads 0o17, 0x1F, +1
// and 1_000 as YAML says.
func plainInt(s string) (i int64, ok bool) {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 1 && d[0] == '0' {
		return 0, false
	}
	for _, c := range []byte(d) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}

func (r *yamlReader) scalar(y *yaml.Node, n *Node, path []string) bool {
	switch y.ShortTag() {
	case "!!str":
		n.Kind, n.Str = String, y.Value
	case "!!null":
		n.Kind = Null
	case "!!bool":
		b, plain := y.Value == "true", y.Value == "true" || y.Value == "false"
		if !plain && y.Decode(&b) != nil {
			r.fail(y, path, "%s: invalid boolean %q", r.errs.key(path), y.Value)
			return false
		}
		n.Kind, n.Bool = Bool, b
	case "!!int":
		i, plain := plainInt(y.Value)
		if !plain && y.Decode(&i) != nil {
			r.fail(y, path, "%s: integer %s does not fit in 64 bits", r.errs.key(path), y.Value)
			return false
		}
		n.SetInt(i)
	case "!!float":
		var f float64
		if err := y.Decode(&f); err != nil {
			r.fail(y, path, "%s: invalid float %q", r.errs.key(path), y.Value)
			return false
		}
		if math.IsNaN(f) {
			f = math.NaN()
		}
		n.SetFloat(f)
	case "!!timestamp":
		n.Kind, n.Str = Datetime, y.Value
	default:
		r.fail(y, path, "%s: unsupported YAML tag %s", r.errs.key(path), y.Tag)
		return false
	}
	return true
}
