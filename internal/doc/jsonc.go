package doc

// ReadJSONC parses a JSONC document: JSON with // and /* */ comments and
// trailing commas, as VS Code reads its settings and mcp.json. Comments and
// trailing commas are blanked rather than removed (see [BlankJSONC]), so
// every key and value keeps its byte offset, and the document keeps the
// original bytes for messages.
func ReadJSONC(data []byte) (*Doc, []*Error) { return Options{}.ReadJSONC(data) }

// ReadJSONC is [ReadJSONC] within o's limits.
func (o Options) ReadJSONC(data []byte) (*Doc, []*Error) {
	clean, err := BlankJSONC(data)
	if err != nil {
		return &Doc{Format: JSON, Data: data}, []*Error{err}
	}
	d, errs := o.ReadJSON(clean)
	d.Data = data
	return d, errs
}

// BlankJSONC returns a copy of data in which every comment, every
// trailing comma (one that only whitespace and comments separate from the
// closing } or ]) and a leading byte order mark are replaced by spaces;
// line breaks inside block comments are kept. The result has the length
// of data, and is JSON when data is JSONC; anything else is left for the
// JSON reader to report. A block comment that is not closed is an error.
func BlankJSONC(data []byte) ([]byte, *Error) {
	out := make([]byte, len(data))
	copy(out, data)
	i := 0
	if len(out) >= 3 && out[0] == 0xEF && out[1] == 0xBB && out[2] == 0xBF {
		out[0], out[1], out[2] = ' ', ' ', ' '
		i = 3
	}
	// prev is the last byte outside strings, comments and whitespace; a
	// comma after {, [, : or another comma is not a trailing one.
	var prev byte
	for i < len(out) {
		c := out[i]
		switch {
		case c == '"':
			i = skipString(out, i)
			prev = '"'
			continue
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			end := lineEnd(out, i)
			blank(out, i, end)
			i = end
			continue
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end, ok := blockEnd(out, i)
			if !ok {
				return nil, &Error{Off: int32(i), Msg: "JSONC syntax: a /* comment is not closed"}
			}
			blank(out, i, end)
			i = end
			continue
		case c == ',' && prev != '{' && prev != '[' && prev != ',' && prev != ':' && prev != 0:
			if j := nextToken(out, i+1); j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
				i++
				continue
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		}
		prev = c
		i++
	}
	return out, nil
}

// skipString returns the offset after the string that starts at i (or the
// end of b for one that is not closed).
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// lineEnd returns the offset of the line break that ends the line comment
// at i, or the end of b.
func lineEnd(b []byte, i int) int {
	for j := i; j < len(b); j++ {
		if b[j] == '\n' || b[j] == '\r' {
			return j
		}
	}
	return len(b)
}

// blockEnd returns the offset after the */ that closes the block comment
// at i; ok is false when none does.
func blockEnd(b []byte, i int) (int, bool) {
	for j := i + 2; j+1 < len(b); j++ {
		if b[j] == '*' && b[j+1] == '/' {
			return j + 2, true
		}
	}
	return len(b), false
}

// nextToken returns the offset of the first byte at or after i that is not
// whitespace or inside a comment (len(b) when there is none, or when an
// unclosed comment hides the rest).
func nextToken(b []byte, i int) int {
	for i < len(b) {
		switch {
		case b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r':
			i++
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			i = lineEnd(b, i)
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end, ok := blockEnd(b, i)
			if !ok {
				return len(b)
			}
			i = end
		default:
			return i
		}
	}
	return i
}

// blank replaces b[from:to] by spaces, keeping line breaks.
func blank(b []byte, from, to int) {
	for k := from; k < to; k++ {
		if b[k] != '\n' && b[k] != '\r' {
			b[k] = ' '
		}
	}
}
