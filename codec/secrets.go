package codec

import (
	"reflect"
	"slices"
	"strings"

	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/partial"
)

// Secrets are string values that [Secrets.Encode] and [Secrets.Text] write
// as something else: values a loader took from a variable or an input (a
// token, a password), which must not reach output. A value is hidden where
// it stands at its path; an item of a list, at any index of that list,
// since layers that prepend to a list move its items. A nil *Secrets
// hides nothing.
type Secrets struct {
	hidden map[string][]hidden // by the path's text, without a last index
}

type hidden struct{ value, shown string }

// Hide records that the string value at path is shown as shown. An empty
// value hides nothing.
func (s *Secrets) Hide(path partial.Path, value, shown string) {
	if value == "" {
		return
	}
	if s.hidden == nil {
		s.hidden = map[string][]hidden{}
	}
	k := secretKey(path)
	for _, h := range s.hidden[k] {
		if h.value == value {
			return
		}
	}
	s.hidden[k] = append(s.hidden[k], hidden{value, shown})
}

// Add records what o hides as well.
func (s *Secrets) Add(o *Secrets) {
	if o == nil {
		return
	}
	for k, hs := range o.hidden {
		for _, h := range hs {
			if s.hidden == nil {
				s.hidden = map[string][]hidden{}
			}
			if !containsValue(s.hidden[k], h.value) {
				s.hidden[k] = append(s.hidden[k], h)
			}
		}
	}
}

func containsValue(hs []hidden, v string) bool {
	for _, h := range hs {
		if h.value == v {
			return true
		}
	}
	return false
}

// Equal reports whether s and o hide the same values at the same paths,
// shown the same way.
func (s *Secrets) Equal(o *Secrets) bool {
	if s.Len() != o.Len() {
		return false
	}
	if s == nil || o == nil {
		return true // both hide nothing
	}
	for k, hs := range s.hidden {
		for _, h := range hs {
			if !slices.Contains(o.hidden[k], h) {
				return false
			}
		}
	}
	return true
}

// Len is the number of values hidden.
func (s *Secrets) Len() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, hs := range s.hidden {
		n += len(hs)
	}
	return n
}

// Shown returns what is written for the string value at path: what stands
// for it when it is hidden there, else value itself.
func (s *Secrets) Shown(path partial.Path, value string) (string, bool) {
	if s == nil || len(s.hidden) == 0 || value == "" {
		return value, false
	}
	for _, h := range s.hidden[secretKey(path)] {
		if h.value == value {
			return h.shown, true
		}
	}
	return value, false
}

// secretKey is the text of path without a last key that is a list index.
func secretKey(path partial.Path) string {
	if n := len(path); n > 0 && isIndex(path[n-1]) {
		path = path[:n-1]
	}
	return strings.Join(path, "\x00")
}

func isIndex(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Encode is [Encode] with the values of s hidden.
func (s *Secrets) Encode(v any, f partial.Format) ([]byte, error) {
	root, err := treeOf(v, s)
	if err != nil {
		return nil, err
	}
	return write(root, f)
}

// Text is [Text] of the value v at path at, with the values of s hidden.
func (s *Secrets) Text(at partial.Path, v any) (string, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return "", nil
	}
	t, err := shape.Of(rv.Type())
	if err != nil {
		return "", err
	}
	enc := encoder{secrets: s, stack: append([]string(nil), at...)}
	n := enc.plain(rv, t, enc.stack, true)
	if enc.err != nil {
		return "", enc.err
	}
	if n == nil {
		return "", nil
	}
	return doc.InlineTOML(n)
}

// str makes the node of string value x at path, hidden where s says.
func (enc *encoder) str(path []string, x string) *doc.Node {
	if enc.secrets != nil {
		x, _ = enc.secrets.Shown(path, x)
	}
	return doc.NewString(x)
}
