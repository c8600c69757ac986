package clients

import "strings"

// expandRefs replaces each ${body} reference in s by what resolve returns
// for its body. A reference resolve declines (ok false) stays as written;
// one it fails on stays too, and its error is returned with the others. A
// reference ends at the first } after its ${, so references do not nest,
// as in the clients that write them; a ${ without a } is text. $NAME
// without braces is text.
func expandRefs(s string, resolve func(body string) (value string, ok bool, err error)) (string, []error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	var errs []error
	rest := s
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+2:], '}')
		if j < 0 {
			break
		}
		body := rest[i+2 : i+2+j]
		b.WriteString(rest[:i])
		v, ok, err := resolve(body)
		switch {
		case err != nil:
			errs = append(errs, err)
			b.WriteString(rest[i : i+3+j])
		case ok:
			b.WriteString(v)
		default:
			b.WriteString(rest[i : i+3+j])
		}
		rest = rest[i+3+j:]
	}
	b.WriteString(rest)
	return b.String(), errs
}

// validVarName reports whether name is a variable name as Claude Code
// and shells read one: a letter or _, then letters, digits and _.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
