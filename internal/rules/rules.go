// Package rules matches the arguments of a call against the conditions
// of policy rules (JP RFD D25): a JSON Pointer walked through the
// arguments, arrays standing for each of their items, and one matcher
// (a prefix, suffix, glob or pattern of a string or a path, a value, a
// set of values, a bound of a number). It also says when every value one
// matcher takes is taken by another ([Implies]), which finds the rules
// that can never match.
//
// A path is matched as JP's path type says: made lexical (., .. and
// repeated and trailing separators resolved, as path.Clean does, "/" the
// only separator) and compared by components, so that src/ is a prefix
// of src/lib.rs and not of src-old/lib.rs, and src/../.env is .env. A
// relative path that climbs out of where it starts (../x) is matched only
// by a condition that names the .. itself. No link is followed: a rule
// is about the argument, not the file it reaches.
package rules

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Ops are the matcher keywords, in the order messages list them.
var Ops = []string{"prefix", "suffix", "glob", "pattern", "const", "enum", "minimum", "maximum", "exclusive_minimum", "exclusive_maximum"}

// IsOp reports whether key is a matcher keyword.
func IsOp(key string) bool { return slices.Contains(Ops, key) }

// ForStrings reports whether op matches strings only (and paths).
func ForStrings(op string) bool {
	switch op {
	case "prefix", "suffix", "glob", "pattern":
		return true
	}
	return false
}

// ForNumbers reports whether op matches numbers only.
func ForNumbers(op string) bool {
	switch op {
	case "minimum", "maximum", "exclusive_minimum", "exclusive_maximum":
		return true
	}
	return false
}

// ParsePointer splits a JSON Pointer (RFC 6901) into its reference
// tokens, unescaped: "/a~1b/c" is ["a/b", "c"]. A pointer of a rule names
// an argument, so it is never empty.
func ParsePointer(s string) ([]string, error) {
	if s == "" {
		return nil, errors.New("an empty pointer names the whole arguments, not one of them")
	}
	if s[0] != '/' {
		return nil, fmt.Errorf("a JSON Pointer starts with /, as in /%s", s)
	}
	parts := strings.Split(s[1:], "/")
	for i, p := range parts {
		if !strings.Contains(p, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(p); j++ {
			if p[j] != '~' {
				b.WriteByte(p[j])
				continue
			}
			if j+1 < len(p) && (p[j+1] == '0' || p[j+1] == '1') {
				b.WriteByte("~/"[p[j+1]-'0'])
				j++
				continue
			}
			return nil, errors.New("~ is written ~0 in a JSON Pointer, and / ~1")
		}
		parts[i] = b.String()
	}
	return parts, nil
}

// Holds reports whether m takes any value at the end of pointer segs in
// v (arguments as decoded from JSON: maps, slices, strings, numbers,
// booleans). An array met on the way, or at the end, stands for each of
// its items; a key that is not there holds nothing.
func (m *Matcher) Holds(v any, segs []string) bool {
	switch x := v.(type) {
	case []any:
		for _, item := range x {
			if m.Holds(item, segs) {
				return true
			}
		}
		return false
	case map[string]any:
		if len(segs) == 0 {
			return m.Match(x)
		}
		next, ok := x[segs[0]]
		return ok && m.Holds(next, segs[1:])
	}
	return len(segs) == 0 && m.Match(v)
}

// Matcher is one compiled condition: a keyword and its value.
type Matcher struct {
	op   string
	path bool // the argument is a path: compared as one
	str  string
	comp []string // a path prefix's or glob's components; a string glob's parts
	re   *regexp.Regexp
	vals []any // const (one) and enum
	lo   bound // the interval of a numeric matcher
	hi   bound
	// ints says that the interval's ends, loI and hiI, are integers: an
	// integer argument is compared without big.Rat.
	ints     bool
	loI, hiI int64
}

// bound is one end of an interval of numbers; a nil value is no bound.
type bound struct {
	v    *big.Rat
	open bool // the end itself is left out
}

// Compile reads one matcher: op, one of [Ops], with its value as read
// from a document (a string, int64, float64, bool, []any or
// map[string]any). path says that the argument is a path.
func Compile(op string, value any, isPath bool) (*Matcher, error) {
	m := &Matcher{op: op, path: isPath}
	switch op {
	case "prefix", "suffix", "glob", "pattern":
		s, ok := value.(string)
		if !ok {
			return nil, fmt.Errorf("%s takes a string, found %s", op, Describe(value))
		}
		m.str = s
		switch op {
		case "prefix":
			if isPath {
				m.comp, m.str = comps(s), Clean(s)
			}
		case "suffix":
			if isPath {
				m.str = cleanSuffix(s)
			}
		case "glob":
			if err := checkGlob(s); err != nil {
				return nil, err
			}
			if isPath {
				m.comp = comps(s)
			} else {
				m.comp = strings.Split(s, "/")
			}
		case "pattern":
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("%q is not a regular expression: %s", s, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
			}
			m.re = re
		}
	case "const":
		m.vals = []any{value}
	case "enum":
		items, ok := value.([]any)
		if !ok {
			return nil, fmt.Errorf("enum takes an array of values, found %s", Describe(value))
		}
		if len(items) == 0 {
			return nil, errors.New("an empty enum matches nothing")
		}
		m.vals = items
	case "minimum", "maximum", "exclusive_minimum", "exclusive_maximum":
		r, ok := Rat(value)
		if !ok {
			return nil, fmt.Errorf("%s takes a number, found %s", op, Describe(value))
		}
		b := bound{v: r, open: strings.HasPrefix(op, "exclusive_")}
		if strings.HasSuffix(op, "minimum") {
			m.lo = b
		} else {
			m.hi = b
		}
		if r.IsInt() && r.Num().IsInt64() {
			m.ints = true
			m.loI, m.hiI = r.Num().Int64(), r.Num().Int64()
		}
	default:
		return nil, fmt.Errorf("unknown matcher %q", op)
	}
	return m, nil
}

// cleanSuffix is a path suffix as it is compared: its separators made
// single and a trailing one dropped, its own . and .. left as written (a
// suffix has no start to resolve them against).
func cleanSuffix(s string) string {
	lead := strings.HasPrefix(s, "/")
	var parts []string
	for p := range strings.SplitSeq(s, "/") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	out := strings.Join(parts, "/")
	if lead {
		out = "/" + out
	}
	return out
}

// checkGlob reports a glob that path.Match cannot read.
func checkGlob(s string) error {
	for p := range strings.SplitSeq(s, "/") {
		if p == "**" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("%q is not a glob: %v", s, err)
		}
	}
	return nil
}

// Op returns the matcher's keyword.
func (m *Matcher) Op() string { return m.op }

// Match reports whether the matcher takes v, one value of the arguments.
// A value of a type the matcher does not take (a number for a prefix) is
// not taken.
func (m *Matcher) Match(v any) bool {
	switch m.op {
	case "prefix", "suffix", "glob", "pattern":
		s, ok := v.(string)
		if !ok {
			return false
		}
		switch m.op {
		case "prefix":
			if m.path {
				return pathPrefix(m.str, Clean(s))
			}
			return strings.HasPrefix(s, m.str)
		case "suffix":
			if m.path {
				return strings.HasSuffix(Clean(s), m.str)
			}
			return strings.HasSuffix(s, m.str)
		case "glob":
			if m.path {
				return globMatch(m.comp, comps(s), true)
			}
			return globMatch(m.comp, strings.Split(s, "/"), false)
		default:
			if m.path {
				s = Clean(s)
			}
			return m.re.MatchString(s)
		}
	case "const", "enum":
		for _, x := range m.vals {
			if m.equal(x, v) {
				return true
			}
		}
		return false
	}
	if n, ok := int64Of(v); ok && m.ints {
		return (!m.lo.set() || n > m.loI || n == m.loI && !m.lo.open) && (!m.hi.set() || n < m.hiI || n == m.hiI && !m.hi.open)
	}
	r, ok := Rat(v)
	return ok && m.holds(r)
}

// int64Of returns an integer of the arguments or a document that fits
// int64.
func int64Of(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
		return 0, false
	case interface{ Int64() (int64, error) }: // json.Number
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

func (b bound) set() bool { return b.v != nil }

// equal compares a value of the matcher with an argument: as paths when
// both are strings of a path argument.
func (m *Matcher) equal(x, v any) bool {
	if m.path {
		xs, ok1 := x.(string)
		vs, ok2 := v.(string)
		if ok1 && ok2 {
			return Clean(xs) == Clean(vs)
		}
	}
	return Equal(x, v)
}

// holds reports whether r lies in the matcher's interval.
func (m *Matcher) holds(r *big.Rat) bool {
	if m.lo.v != nil {
		c := r.Cmp(m.lo.v)
		if c < 0 || c == 0 && m.lo.open {
			return false
		}
	}
	if m.hi.v != nil {
		c := r.Cmp(m.hi.v)
		if c > 0 || c == 0 && m.hi.open {
			return false
		}
	}
	return true
}

// Implies reports whether every value later takes, earlier takes too: a
// rule with later's condition after one with earlier's, on the same
// argument, can never match. It is sure when it says so (no false
// positives); it says nothing of globs and patterns but equal ones.
func Implies(earlier, later *Matcher) bool {
	if earlier.path != later.path {
		return false
	}
	if earlier.op == later.op && earlier.same(later) {
		return true
	}
	switch later.op {
	case "const", "enum":
		for _, v := range later.vals {
			if !earlier.Match(v) {
				return false
			}
		}
		return true
	case "prefix":
		switch earlier.op {
		case "prefix":
			if earlier.path {
				return compPrefix(earlier.comp, later.comp)
			}
			return strings.HasPrefix(later.str, earlier.str)
		}
	case "suffix":
		if earlier.op == "suffix" {
			return strings.HasSuffix(later.str, earlier.str)
		}
	case "minimum", "maximum", "exclusive_minimum", "exclusive_maximum":
		if !ForNumbers(earlier.op) {
			return false
		}
		return within(later.lo, earlier.lo, -1) && within(later.hi, earlier.hi, 1)
	}
	return false
}

// within reports whether the end inner of an interval lies within the end
// outer of another, on the side sign says (-1 low, 1 high).
func within(inner, outer bound, sign int) bool {
	switch {
	case outer.v == nil:
		return true
	case inner.v == nil:
		return false
	}
	c := inner.v.Cmp(outer.v) * sign
	return c < 0 || c == 0 && (inner.open || !outer.open)
}

// same reports whether m and o (of one keyword) are the same condition.
func (m *Matcher) same(o *Matcher) bool {
	switch m.op {
	case "prefix", "glob":
		if m.path {
			return slices.Equal(m.comp, o.comp)
		}
		return m.str == o.str
	case "suffix", "pattern":
		return m.str == o.str
	case "const":
		return m.equal(m.vals[0], o.vals[0])
	case "enum":
		return false // Implies compares the sets
	}
	return within(m.lo, o.lo, -1) && within(o.lo, m.lo, -1) && within(m.hi, o.hi, 1) && within(o.hi, m.hi, 1)
}

// Clean makes a path lexical, as path.Clean does: "src/../.env" is
// ".env", "./src/" is "src".
func Clean(s string) string { return path.Clean(s) }

// comps splits a path into its components after Clean, the first "/"
// for an absolute path and "." for a relative one: src/a is [. src a].
func comps(s string) []string {
	c := Clean(s)
	if c == "/" {
		return []string{"/"}
	}
	if c == "." {
		return []string{"."}
	}
	if rest, ok := strings.CutPrefix(c, "/"); ok {
		return append([]string{"/"}, strings.Split(rest, "/")...)
	}
	return append([]string{"."}, strings.Split(c, "/")...)
}

// pathPrefix is compPrefix of two paths made lexical, without splitting
// them: after Clean, a .. can only lead a relative path.
func pathPrefix(prefix, value string) bool {
	switch prefix {
	case ".":
		return !strings.HasPrefix(value, "/") && value != ".." && !strings.HasPrefix(value, "../")
	case "/":
		return strings.HasPrefix(value, "/")
	}
	if value == prefix {
		return true
	}
	if !strings.HasPrefix(value, prefix) || value[len(prefix)] != '/' {
		return false
	}
	rest := value[len(prefix)+1:] // a prefix of ..: the value may climb further
	return rest != ".." && !strings.HasPrefix(rest, "../")
}

// compPrefix reports whether path components prefix lead value: a value
// that climbs out (its next component is ..) is not under the prefix.
func compPrefix(prefix, value []string) bool {
	if len(prefix) > len(value) || !slices.Equal(prefix, value[:len(prefix)]) {
		return false
	}
	return len(value) == len(prefix) || value[len(prefix)] != ".."
}

// globMatch matches the parts of a glob against those of a value: each
// part as path.Match does (* any run of characters but /, ? one, [abc]),
// ** any number of parts. With path, a .. of the value is matched only by
// a .. of the glob. It takes time in the product of the two lengths,
// whatever the glob: a value the model gives cannot make it backtrack.
func globMatch(glob, value []string, isPath bool) bool {
	next := make([]bool, len(value)+1) // glob[i+1:] against value[j:]
	next[len(value)] = true
	cur := make([]bool, len(value)+1)
	for i := len(glob) - 1; i >= 0; i-- {
		g := glob[i]
		cur[len(value)] = g == "**" && next[len(value)]
		for j := len(value) - 1; j >= 0; j-- {
			v := value[j]
			if g == "**" {
				cur[j] = next[j] || !(isPath && v == "..") && cur[j+1]
				continue
			}
			ok := next[j+1] && !(isPath && v == ".." && g != "..")
			if ok {
				ok, _ = path.Match(g, v)
			}
			cur[j] = ok
		}
		next, cur = cur, next
	}
	return next[0]
}

// Rat returns a number of the arguments or of a document exactly: an
// int64, a float64, or a json.Number's text (any type whose String
// gives a number's text and that has an Int64 method).
func Rat(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), true
	case int:
		return new(big.Rat).SetInt64(int64(x)), true
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(x) == nil {
			return nil, false
		}
		return r, true
	case interface {
		String() string
		Int64() (int64, error)
	}: // json.Number, without importing encoding/json
		if n, err := x.Int64(); err == nil {
			return new(big.Rat).SetInt64(n), true
		}
		return new(big.Rat).SetString(x.String())
	}
	return nil, false
}

// Equal reports whether two values of a document or the arguments are
// the same JSON value: numbers by value, exactly (1 and 1.0 are equal,
// 2^53 and 2^53+1 are not), arrays item by item, objects key by key.
func Equal(a, b any) bool {
	if ra, ok := Rat(a); ok {
		rb, ok := Rat(b)
		return ok && ra.Cmp(rb) == 0
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// Kind is the JSON type of a value: string, integer, number, boolean,
// array, object or null.
func Kind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if r, ok := Rat(v); ok {
		if r.IsInt() {
			return "integer"
		}
		return "number"
	}
	return "unknown"
}

// Describe names a plain value's kind and value for messages: string
// "x", number 3, an array.
func Describe(v any) string {
	switch x := v.(type) {
	case string:
		return "string " + strconv.Quote(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case int64, float64:
		return fmt.Sprintf("number %v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", v)
}
