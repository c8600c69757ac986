package assign

import (
	"errors"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
)

// Env returns the assignments that environment variables make over layer p
// (usually the merge of the layers below the environment). environ holds
// NAME=VALUE entries, as os.Environ returns; only names that start with
// prefix and '_' (PREFIX_) count, in any case.
//
// The rest of the name is the key path with '_' between keys:
// PREFIX_TOOLS_GREP_RUN=ask is tools.grep.run=ask. Since keys hold '_'
// themselves (fs_modify_file, mcp_servers), the name is read against the
// model's keys and the map entries p already has, so
// PREFIX_TOOLS_FS_MODIFY_FILE_RUN reaches tools.fs_modify_file.run. When
// more than one reading remains, the one that uses entries p has wins; if
// that still leaves several, the variable is an error that lists them, and
// '__' can separate the keys instead: PREFIX_TOOLS__FS_MODIFY_FILE__RUN.
// New map keys are lowercased (use a JSON value for other keys:
// PREFIX_MCP_SERVERS_FS_ENV=':+{"LOG_LEVEL": "warn"}').
//
// The value is text (key=value), or starts with '+' to append (key+=value),
// ':' for JSON (key:=json), or '+:' or ':+' to merge JSON (key:+=json). A
// backslash before a first '+' or ':' makes it literal: '\+1' is the text
// "+1".
//
// A name with nothing after the prefix (PREFIX_=x), a name or value that
// is not UTF-8, and a name of more keys than the limit (see [MaxDepth])
// are errors; so is a name that reads in more ways than strata tries
// before giving up (a long run of '_' through free-form tables), which
// '__' settles. A variable whose name reaches no key is an error whose
// cause is [ErrUnknownName], so that a host can choose to ignore it.
func Env[P any](p *P, prefix string, environ []string, opts ...Option) ([]Assignment, error) {
	o := newOptions(opts)
	t := partialType[P]()
	base := reflect.ValueOf(p).Elem()
	head := strings.ToUpper(prefix) + "_"
	var out []Assignment
	var errs diag.Errors
	names := make([]string, 0, len(environ))
	values := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || len(name) < len(head) || !strings.EqualFold(name[:len(head)], head) || o.excepts(name) {
			continue
		}
		if _, dup := values[name]; !dup {
			names = append(names, name)
		}
		values[name] = value
	}
	sort.Strings(names) // deterministic order, whatever the environment's
	for _, name := range names {
		a := Assignment{Source: "env " + name}
		// Messages name the variable as it can be printed.
		source := "env " + limits.Cut(strings.ToValidUTF8(name, "\uFFFD"), o.quote)
		switch {
		case !utf8.ValidString(name):
			errs = append(errs, &diag.Error{Code: diag.CodeSyntax, Source: source, Msg: "the name is not valid UTF-8", Hint: "key paths in names are ASCII letters, digits and '_'"})
			continue
		case len(name) == len(head):
			errs = append(errs, &diag.Error{Code: diag.CodeSyntax, Source: source, Msg: "the name has no key after " + head, Hint: "name the key path, as in " + head + "TOOLS_GREP_RUN=ask"})
			continue
		case !utf8.ValidString(values[name]):
			errs = append(errs, &diag.Error{Code: diag.CodeSyntax, Source: source, Msg: "the value is not valid UTF-8"})
			continue
		}
		a.Op, a.Value = envValue(values[name])
		path, miss := envPath(name[:len(head)], name[len(head):], t, base, a.Op, o)
		if miss != nil {
			if miss.hint == "" && miss.fix == "" {
				// Compared without the prefix they share, which
				// would make any two names close.
				var own []string
				for _, n := range o.exceptNames() {
					if len(n) > len(head) && strings.EqualFold(n[:len(head)], head) {
						own = append(own, n[len(head):])
					}
				}
				if s := suggest.Closest(name[len(head):], own); s != "" {
					miss.hint = "did you mean " + name[:len(head)] + s + " (the application's own, not a key path)?"
				}
			}
			cause := ErrUnknownName
			if miss.below {
				cause = errors.Join(ErrUnknownName, ErrBelow)
			}
			errs = append(errs, &diag.Error{Code: diag.CodeUnknownKey, Source: source, Path: limits.CutPath(miss.path, o.quote), Msg: limits.CutQuoted(miss.msg, o.quote), Hint: limits.CutQuoted(miss.hint, o.quote), Err: cause})
			continue
		}
		a.Path = path
		out = append(out, a)
	}
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}

// envValue reads the operator prefix of an environment value.
func envValue(v string) (Op, string) {
	switch {
	case strings.HasPrefix(v, `\+`), strings.HasPrefix(v, `\:`):
		return Set, v[1:]
	case strings.HasPrefix(v, "+:"), strings.HasPrefix(v, ":+"):
		return MergeJSON, v[2:]
	case strings.HasPrefix(v, "+"):
		return Merge, v[1:]
	case strings.HasPrefix(v, ":"):
		return SetJSON, v[1:]
	}
	return Set, v
}

// ErrUnknownName is the cause of the error of a variable whose name
// reaches no key of the model.
var ErrUnknownName = errors.New("the variable's name reaches no key")

// envPath reads a variable name (without the prefix, which is head as
// the name writes it) as a key path.
func envPath(head, rest string, t *shape.Type, base reflect.Value, op Op, o options) (partial.Path, *envMiss) {
	path, miss := readEnvPath(rest, t, base, op, o)
	// The name with each key that is not found replaced by the one it is
	// closest to, while that mends it: the name meant, and its path.
	fix := miss
	for range envMends {
		if fix == nil || fix.fix == "" {
			break
		}
		p, m := readEnvPath(fix.fix, t, base, op, o)
		if m == nil {
			miss.hint = "did you mean " + head + fix.fix + " (" + p.String() + ")?"
			break
		}
		fix = m
	}
	return path, miss
}

// envMends is how many misspelt keys of one name are mended for a
// did-you-mean.
const envMends = 3

// readEnvPath reads rest, a name without its prefix, as a key path.
func readEnvPath(rest string, t *shape.Type, base reflect.Value, op Op, o options) (partial.Path, *envMiss) {
	var tokens []string
	sep := "_"
	if strings.Contains(rest, "__") {
		sep = "__"
	}
	tokens = strings.Split(rest, sep)
	for _, tok := range tokens {
		if tok == "" {
			return nil, &envMiss{msg: "the name has an empty key", hint: "separate keys with one '_', or all of them with '__'"}
		}
	}
	if len(tokens) > o.depth {
		return nil, &envMiss{msg: tooDeep(len(tokens), o.depth).Error()}
	}
	r := envResolver{explicit: sep == "__", json: op == SetJSON || op == MergeJSON, budget: envBudget, rest: rest, tokens: tokens, known: o.known}
	for i, off := 0, 0; i < len(tokens); i++ {
		r.starts = append(r.starts, off)
		off += len(tokens[i]) + len(sep)
	}
	r.resolve(tokens, t, base, nil, 0)
	if r.budget < 0 {
		return nil, &envMiss{msg: "the name reads as too many key paths to try them all", hint: "separate the keys with '__'"}
	}
	if len(r.found) == 0 {
		if r.miss != nil {
			return nil, r.miss
		}
		return nil, &envMiss{msg: "no key path matches the name"}
	}
	best := 0
	for _, c := range r.found {
		best = max(best, c.existing)
	}
	var top []envCandidate
	for _, c := range r.found {
		if c.existing == best {
			top = append(top, c)
		}
	}
	if len(top) == 1 {
		return top[0].path, nil
	}
	var paths []string
	for _, c := range top {
		paths = append(paths, c.path.String())
	}
	sort.Strings(paths)
	return nil, &envMiss{
		below: true,
		msg:   "the name is ambiguous: it reads as " + strings.Join(paths, " or "),
		hint:  "separate the keys with '__', as in " + strings.Join(envNames(top[0].path), "__"),
	}
}

// envNames renders a path as upper-case name parts.
func envNames(p partial.Path) []string {
	out := make([]string, len(p))
	for i, k := range p {
		out[i] = strings.ToUpper(k)
	}
	return out
}

type envCandidate struct {
	path     partial.Path
	existing int // how many map keys of the path p already has, or are known
}

// envMiss is why a reading of a name fails: at path (the key not found,
// or what cannot hold the value), with a message and a hint.
type envMiss struct {
	path      partial.Path
	msg, hint string
	// fix is the name (without the prefix) with the key not found
	// replaced by the key it is closest to; "" when none is close.
	fix string
	// existing counts the map keys of the reading that p has or that are
	// known; depth is how many keys it read before failing.
	existing, depth int
	// below is set when entries p does not have would settle the name.
	below bool
}

// better reports whether m says more of what the name meant than o: a
// reading that a close key would mend, then one through more of the
// entries p has or that are known (tools by their names), then one that
// went deeper.
func (m *envMiss) better(o *envMiss) bool {
	switch {
	case o == nil:
		return true
	case (m.fix != "") != (o.fix != ""):
		return m.fix != ""
	case m.existing != o.existing:
		return m.existing > o.existing
	}
	return m.depth > o.depth
}

type envResolver struct {
	explicit bool // keys are separated by "__", one token each
	json     bool // the value is JSON, so tables can be targets
	found    []envCandidate
	miss     *envMiss // the failure that says most of what the name meant
	budget   int      // work left; below 0, the name is given up
	rest     string
	tokens   []string // rest split at its separator
	starts   []int    // where each token starts in rest
	known    map[string][]string
}

// envBudget is how much work reading one name may take: the steps taken,
// the keys they copy, and the bytes of the keys tried. Each '_' may
// separate keys or be part of one, so a name of n tokens through
// free-form tables reads in 2^(n-1) ways; a real name takes a few
// thousand.
const envBudget = 1 << 18

// spans returns the key made of tokens[:k] for each k the name allows,
// and charges them to the budget. tokens is a suffix of r.tokens, and
// the keys are cut from r.rest, the name they were split from.
func (r *envResolver) spans(tokens []string) []string {
	if r.explicit {
		r.budget -= len(tokens[0]) + 1
		return []string{tokens[0]}
	}
	i := len(r.tokens) - len(tokens)
	out := make([]string, 0, len(tokens))
	for k := range tokens {
		end := r.starts[i+k] + len(tokens[k])
		if r.budget -= end - r.starts[i] + 1; r.budget < 0 {
			break
		}
		out = append(out, r.rest[r.starts[i]:end])
	}
	return out
}

// mend returns the name with the key that tokens[:k+1] spell (tokens a
// suffix of r.tokens) replaced by key, in the case the name writes.
func (r *envResolver) mend(tokens []string, k int, key string) string {
	i := len(r.tokens) - len(tokens)
	start, end := r.starts[i], r.starts[i+k]+len(tokens[k])
	if span := r.rest[start:end]; span != strings.ToLower(span) {
		key = strings.ToUpper(key)
	}
	return r.rest[:start] + key + r.rest[end:]
}

func (r *envResolver) fail(m *envMiss) {
	if m.better(r.miss) {
		r.miss = m
	}
}

func (r *envResolver) resolve(tokens []string, t *shape.Type, base reflect.Value, path partial.Path, existing int) {
	if r.budget -= len(path) + 1; r.budget < 0 { // a step, and the path it copies
		return
	}
	miss := func(msg, hint string) {
		r.fail(&envMiss{path: path.Append(), msg: msg, hint: hint, existing: existing, depth: len(path)})
	}
	if len(tokens) == 0 {
		if r.json || t.Kind == shape.Value || t.Kind == shape.List || t.Kind == shape.Any || !t.Kind.IsPartial() || t.Kind == shape.Struct && t.ValueCodec || t.Kind == shape.Nested && t.Elem.ValueCodec {
			r.found = append(r.found, envCandidate{path: path.Append(), existing: existing})
		} else {
			miss("a table, not a value", "set one of its keys, or give a JSON object with ':'")
		}
		return
	}
	switch t.Kind {
	case shape.Struct:
		matched := false
		for k, name := range r.spans(tokens) {
			if f, ok := t.Field(strings.ToLower(name)); ok {
				matched = true
				fv := reflect.Value{}
				if base.IsValid() {
					fv = base.FieldByIndex(f.Index)
				}
				r.resolve(tokens[k+1:], f.Type, fv, path.Append(f.Key), existing)
			}
		}
		if !matched {
			m := &envMiss{path: path.Append(strings.ToLower(tokens[0])), msg: "unknown key", existing: existing, depth: len(path)}
			// The key closest to one the name may spell, the longer
			// one of two as close.
			best := -1
			for k, name := range r.spans(tokens) {
				name = strings.ToLower(name)
				if s := suggest.Closest(name, t.Keys); s != "" {
					if d := suggest.Distance(name, s); best < 0 || d <= best {
						best = d
						m.path, m.hint, m.fix = path.Append(name), "did you mean "+path.Append(s).String()+"?", r.mend(tokens, k, s)
					}
				}
			}
			r.fail(m)
		}
	case shape.Map:
		entries := reflect.Value{}
		if base.IsValid() {
			entries = base.Field(t.At.Entries)
		}
		r.entries(tokens, t.Elem, entries, path, existing)
	case shape.Nested:
		var p reflect.Value
		if base.IsValid() && base.Field(t.At.State).Uint() == shape.StatePresent {
			p = base.Field(t.At.V).Elem()
		}
		r.resolve(tokens, t.Elem, p, path, existing)
	case shape.Any:
		var entries reflect.Value
		if base.IsValid() && base.Field(t.At.State).Uint() == shape.StatePresent {
			if tbl := base.Field(t.At.Table); !tbl.IsNil() {
				entries = tbl.Elem().Field(t.Elem.At.Entries)
			} else {
				miss("a single value, not a table", "")
				return
			}
		}
		r.entries(tokens, t, entries, path, existing)
	case shape.List:
		if _, err := strconv.Atoi(tokens[0]); err == nil {
			r.resolve(tokens[1:], t.Elem, reflect.Value{}, path.Append(tokens[0]), existing)
		} else {
			miss("a list: name an item by its number", "")
		}
	case shape.Value:
		r.resolve(tokens, t.Elem, reflect.Value{}, path, existing)
	default: // plain values inside a Value
		st := t
		if t.Kind == shape.Custom {
			if s, err := shape.Structure(t.Go); err == nil && (s.Kind != shape.Struct || len(s.Fields) > 0) {
				st = s
			}
		}
		switch st.Kind {
		case shape.Struct:
			r.resolve(tokens, st, reflect.Value{}, path, existing)
		case shape.Slice:
			if _, err := strconv.Atoi(tokens[0]); err == nil {
				r.resolve(tokens[1:], st.Elem, reflect.Value{}, path.Append(tokens[0]), existing)
				return
			}
			miss("a list: name an item by its number", "")
		case shape.GoMap:
			for k, name := range r.spans(tokens) {
				r.resolve(tokens[k+1:], st.Elem, reflect.Value{}, path.Append(strings.ToLower(name)), existing)
			}
		default:
			miss("a single value: nothing is inside it", "")
		}
	}
}

// entries resolves a map key: an entry the layer has or a known one
// (matched in any case), or a new, lowercased one.
func (r *envResolver) entries(tokens []string, elem *shape.Type, entries reflect.Value, path partial.Path, existing int) {
	var known []string
	if r.known != nil {
		known = r.known[path.String()]
	}
	for k, name := range r.spans(tokens) {
		key, found := strings.ToLower(name), false
		var ev reflect.Value
		for _, kk := range known {
			if strings.EqualFold(kk, name) {
				key, found = kk, true
				break
			}
		}
		r.budget -= len(known)
		if entries.IsValid() {
			r.budget -= entries.Len()
			iter := entries.MapRange()
			for iter.Next() {
				if strings.EqualFold(iter.Key().String(), name) {
					key, found = iter.Key().String(), true
					if !iter.Value().IsNil() {
						ev = iter.Value().Elem()
					}
					break
				}
			}
		}
		n := existing
		if found {
			n++
		}
		r.resolve(tokens[k+1:], elem, ev, path.Append(key), n)
	}
}
