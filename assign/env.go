package assign

import (
	"errors"
	"fmt"
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
		if !ok || len(name) < len(head) || !strings.EqualFold(name[:len(head)], head) {
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
		path, err := envPath(name[len(head):], t, base, a.Op, o)
		if err != nil {
			errs = append(errs, &diag.Error{Code: diag.CodeUnknownKey, Source: source, Msg: limits.CutQuoted(err.msg, o.quote), Hint: limits.CutQuoted(err.hint, o.quote), Err: ErrUnknownName})
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

type envErr struct{ msg, hint string }

// envPath reads a variable name (without the prefix) as a key path.
func envPath(rest string, t *shape.Type, base reflect.Value, op Op, o options) (partial.Path, *envErr) {
	var tokens []string
	explicit := strings.Contains(rest, "__")
	if explicit {
		tokens = strings.Split(rest, "__")
	} else {
		tokens = strings.Split(rest, "_")
	}
	for _, tok := range tokens {
		if tok == "" {
			return nil, &envErr{msg: "the name has an empty key", hint: "separate keys with one '_', or all of them with '__'"}
		}
	}
	if len(tokens) > o.depth {
		return nil, &envErr{msg: tooDeep(len(tokens), o.depth).Error()}
	}
	r := envResolver{explicit: explicit, json: op == SetJSON || op == MergeJSON, budget: envBudget, rest: rest, tokens: tokens}
	for i, off := 0, 0; i < len(tokens); i++ {
		r.starts = append(r.starts, off)
		off += len(tokens[i]) + 1
	}
	r.resolve(tokens, t, base, nil, 0)
	if r.budget < 0 {
		return nil, &envErr{msg: "the name reads as too many key paths to try them all", hint: "separate the keys with '__'"}
	}
	if len(r.found) == 0 {
		if r.miss != nil {
			return nil, r.miss
		}
		return nil, &envErr{msg: "no key path matches the name"}
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
	return nil, &envErr{
		msg:  "the name is ambiguous: it reads as " + strings.Join(paths, " or "),
		hint: "separate the keys with '__', as in " + strings.Join(envNames(top[0].path), "__"),
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
	existing int // how many map keys of the path p already has
}

type envResolver struct {
	explicit bool // keys are separated by "__", one token each
	json     bool // the value is JSON, so tables can be targets
	found    []envCandidate
	miss     *envErr // the deepest failure, for the message
	missAt   int
	budget   int // work left; below 0, the name is given up
	rest     string
	tokens   []string // rest split at '_' (not explicit)
	starts   []int    // where each token starts in rest
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

func (r *envResolver) fail(depth int, msg, hint string) {
	if r.miss == nil || depth > r.missAt {
		r.miss, r.missAt = &envErr{msg: msg, hint: hint}, depth
	}
}

func (r *envResolver) resolve(tokens []string, t *shape.Type, base reflect.Value, path partial.Path, existing int) {
	if r.budget -= len(path) + 1; r.budget < 0 { // a step, and the path it copies
		return
	}
	if len(tokens) == 0 {
		if r.json || t.Kind == shape.Value || t.Kind == shape.List || t.Kind == shape.Any || !t.Kind.IsPartial() || t.Kind == shape.Struct && t.ValueCodec || t.Kind == shape.Nested && t.Elem.ValueCodec {
			r.found = append(r.found, envCandidate{path: path.Append(), existing: existing})
		} else {
			r.fail(len(path), path.String()+" is a table", "set one of its keys, or give a JSON object with ':'")
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
					fv = base.Field(f.Index)
				}
				r.resolve(tokens[k+1:], f.Type, fv, path.Append(f.Key), existing)
			}
		}
		if !matched {
			where := "the root"
			if len(path) > 0 {
				where = path.String()
			}
			guess := strings.ToLower(tokens[0])
			hint := ""
			for _, name := range r.spans(tokens) {
				if s := suggest.Closest(strings.ToLower(name), t.Keys); s != "" {
					hint = "did you mean " + path.Append(s).String() + "?"
					guess = strings.ToLower(name)
					break
				}
			}
			r.fail(len(path), fmt.Sprintf("%s has no key %s", where, guess), hint)
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
				r.fail(len(path), path.String()+" holds a single value", "")
				return
			}
		}
		r.entries(tokens, t, entries, path, existing)
	case shape.List:
		if _, err := strconv.Atoi(tokens[0]); err == nil {
			r.resolve(tokens[1:], t.Elem, reflect.Value{}, path.Append(tokens[0]), existing)
		} else {
			r.fail(len(path), path.String()+" is a list; name an item by its number", "")
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
			r.fail(len(path), path.String()+" is a list; name an item by its number", "")
		case shape.GoMap:
			for k, name := range r.spans(tokens) {
				r.resolve(tokens[k+1:], st.Elem, reflect.Value{}, path.Append(strings.ToLower(name)), existing)
			}
		default:
			r.fail(len(path), path.String()+" is a single value; nothing is inside it", "")
		}
	}
}

// entries resolves a map key: an entry the layer has (matched in any case)
// or a new, lowercased one.
func (r *envResolver) entries(tokens []string, elem *shape.Type, entries reflect.Value, path partial.Path, existing int) {
	for k, name := range r.spans(tokens) {
		key, found := strings.ToLower(name), false
		var ev reflect.Value
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
