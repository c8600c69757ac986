package codec

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// indentJSON returns what json.MarshalIndent(v, "", "  ") returns for a
// schema tree. The maps, lists and booleans the generator makes are written
// directly, and its strings quoted one by one by encoding/json:
// json.MarshalIndent builds its encoders by reflection and then scans its
// whole output again to indent it, which took a cold strata schema process
// 7.5% of its time. Any other value (a [Schemer] may return numbers or
// types of its own) goes through encoding/json whole, indented in place.
func indentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any, depth int) error {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			b.WriteString("null")
			return nil
		}
		if len(v) == 0 {
			b.WriteString("{}")
			return nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			writeJSONString(b, k)
			b.WriteString(": ")
			if err := writeJSON(b, v[k], depth+1); err != nil {
				return err
			}
		}
		newline(b, depth)
		b.WriteByte('}')
	case []any:
		if v == nil {
			b.WriteString("null")
			return nil
		}
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			if err := writeJSON(b, x, depth+1); err != nil {
				return err
			}
		}
		newline(b, depth)
		b.WriteByte(']')
	case string:
		writeJSONString(b, v)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		prefix := string(bytes.Repeat([]byte("  "), depth))
		return json.Indent(b, raw, prefix, "  ")
	}
	return nil
}

func newline(b *bytes.Buffer, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteString("  ")
	}
}

// writeJSONString writes s quoted as encoding/json quotes it (HTML
// characters escaped, invalid UTF-8 replaced).
func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}
