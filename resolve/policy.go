package resolve

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/rules"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
)

// Policies are a tool's run and result policies (JP RFD D25) made ready to
// decide calls: each rule's argument found in the tool's resolved schema
// (the discovered one with the config's overrides; a path where the
// config says type = "path") and its matcher made for that argument's
// type. The same rules hold for local and MCP tools, whatever found the
// tool for the model (a search for deferred tools included): a rule names
// the tool and its own arguments.
type Policies struct {
	Run    RuleList[config.RunMode]
	Result RuleList[config.ResultMode]
}

// Equal reports whether p and o are the same policies: the same rules,
// written at the same keys, leaving the same rules of '*' out. It lets
// go-cmp compare definitions.
func (p *Policies) Equal(o *Policies) bool {
	if p == nil || o == nil {
		return p == o
	}
	return p.Run.Equal(o.Run) && p.Result.Equal(o.Result)
}

// Equal reports whether rs and o are the same rules, written at the same
// keys, leaving out the same rules of '*'.
func (rs RuleList[M]) Equal(o RuleList[M]) bool {
	return slices.Equal(rs.Key, o.Key) &&
		slices.EqualFunc(rs.Skipped, o.Skipped, func(a, b Skipped) bool { return slices.Equal(a.Key, b.Key) && a.At == b.At && a.Why == b.Why }) &&
		slices.EqualFunc(rs.Rules, o.Rules, PolicyRule[M].Equal)
}

// Equal reports whether r and o are the same rule, written at the same
// key and place, for an argument of the same kind.
func (r PolicyRule[M]) Equal(o PolicyRule[M]) bool {
	return r.Rule.Equal(o.Rule) && r.At == o.At && slices.Equal(r.Key, o.Key) && r.Path == o.Path
}

// RuleList is one policy of a tool: its rules in order, the first that holds
// deciding, and the implicit { mode = "ask" } after them.
type RuleList[M config.Mode] struct {
	// Key is the key path of the list (tools.<name>.policy.run,
	// tools.'*'.run, ...); nil when no layer and no default gives one.
	Key partial.Path
	// Rules are the rules that apply to the tool.
	Rules []PolicyRule[M]
	// Skipped are the rules of the '*' entry left out for this tool,
	// because it does not have their argument (or not of a type their
	// matcher takes): JP RFD D25's open question 5.
	Skipped []Skipped
	// written are the rules as the config has them, when none is left
	// out (see Config).
	written config.Rules[M]
}

// PolicyRule is one rule, ready to decide.
type PolicyRule[M config.Mode] struct {
	config.Rule[M]
	// Key is the rule's key path: tools.<name>.run.2.
	Key   partial.Path
	segs  []string
	match *rules.Matcher
	// Path says that the rule's argument is a path.
	Path bool
	// texts are Key, At and the rule as text, written once for the
	// decisions of every call (see Texts).
	texts [3]string
}

// Texts returns the rule's key path, where it was written ("" for a
// default) and the rule as the config writes it: what a decision names,
// written once.
func (r *PolicyRule[M]) Texts() (key, at, rule string) {
	if r.texts[0] == "" {
		return r.Key.String(), r.At.String(), r.Rule.String()
	}
	return r.texts[0], r.texts[1], r.texts[2]
}

// Clamp returns what a policy layer did to the rule: nil for none, or
// for a nil rule (the implicit one).
func (r *PolicyRule[M]) Clamp() *config.Clamped {
	if r == nil {
		return nil
	}
	return r.Clamped
}

// Skipped is a rule of the '*' entry that does not apply to a tool.
type Skipped struct {
	Key partial.Path
	At  config.Position
	Why string
}

// Decided is what a policy decides for one call.
type Decided[M config.Mode] struct {
	// Mode is the mode that applies.
	Mode M
	// Rule is the rule that decided; nil for the implicit { mode = "ask" }
	// that ends every list.
	Rule *PolicyRule[M]
}

// Decide returns what the rules decide for a call with args (the
// arguments as decoded from JSON: maps, slices, strings, json.Number or
// float64, booleans). A policy whose first rule holds for every call
// decides without looking at them.
func (rs RuleList[M]) Decide(args any) Decided[M] {
	for i := range rs.Rules {
		r := &rs.Rules[i]
		if r.Holds(args) {
			return Decided[M]{Mode: r.Mode, Rule: r}
		}
	}
	return Decided[M]{Mode: implicit[M]()}
}

// implicit is the mode of the rule that ends every list: ask.
func implicit[M config.Mode]() M { return M(config.RunAsk) }

// Holds reports whether the rule's condition holds for a call with args:
// a catch-all always; otherwise when any value at its argument's pointer
// (an array standing for each of its items) is one its matcher takes.
func (r *PolicyRule[M]) Holds(args any) bool {
	if r.match == nil {
		return true
	}
	return r.match.Holds(args, r.segs)
}

// MarshalJSON writes the rules that apply as a file would.
func (rs RuleList[M]) MarshalJSON() ([]byte, error) { return json.Marshal(rs.Config()) }

// Config returns the rules as the config writes them; the implicit rule
// alone when there are none.
func (rs RuleList[M]) Config() config.Rules[M] {
	if len(rs.Rules) == 0 {
		return config.Always(implicit[M]())
	}
	if len(rs.written) == len(rs.Rules) {
		return rs.written
	}
	out := make(config.Rules[M], len(rs.Rules))
	for i, r := range rs.Rules {
		out[i] = r.Rule
	}
	return out
}

// policyOf makes the policies of tool t ready for its input schema (the
// resolved one); params are the config's parameters of the tool, which
// say what is a path. Problems of the tool's own rules are errors;
// problems of the '*' entry's rules leave them out for this tool.
func (b *builder) policyOf(t config.EffectiveTool, schema Schema, params map[string]config.Parameter) (*Policies, bool) {
	// The schema is read only for a rule that looks at an argument: most
	// tools have none, and a schema is read once, when something needs
	// more than its text.
	var root *jsonv.Value
	read := func() *jsonv.Value {
		if root == nil {
			var err error
			if root, err = schema.checker().Value(); err != nil || root == nil {
				root = jsonv.NewObject()
			}
		}
		return root
	}
	p := &Policies{}
	before := len(b.errs)
	runs, runKey := t.RunRules()
	p.Run = compile(b, t.Name, runs, runKey, read, params)
	results, resultKey := t.ResultRules()
	p.Result = compile(b, t.Name, results, resultKey, read, params)
	for _, entry := range [...]struct {
		name string
		t    config.Tool
	}{{t.Name, t.Tool}, {config.EveryTool, t.Inherited}} {
		pol := entry.t.Policy.Get()
		b.ignored(entry.name, len(pol.Run) > 0, written(entry.t.Run), "run")
		b.ignored(entry.name, len(pol.Result) > 0, written(entry.t.Result), "result")
	}
	return p, len(b.errs) == before
}

// ignored warns, once, of a top-level run or result of a tool's own entry
// that a layer wrote and that its policy.run or policy.result sets aside
// (JP RFD D25: policy.run wins, with a warning).
func (b *builder) ignored(name string, policy bool, top config.Position, key string) {
	if !policy || top.IsZero() {
		return // the defaults' rules are no layer's
	}
	k := partial.Path{"tools", name, key}.String()
	if b.said[k] {
		return
	}
	b.said[k] = true
	e := &diag.Error{Code: diag.CodeInvalid, Severity: diag.SeverityWarning, Path: partial.Path{"tools", name, key},
		Msg:  fmt.Sprintf("ignored: %s is set too, and takes its place (JP RFD D25)", partial.Path{"tools", name, "policy", key}),
		Hint: "remove one of the two; policy." + key + " is the place for rules"}
	e.Source, e.Line, e.Column = top.Source, top.Line, top.Column
	b.warnings = append(b.warnings, e)
}

// written returns where the first rule of list that a layer wrote was
// written; zero when none was.
func written[M config.Mode](list config.Rules[M]) config.Position {
	for _, r := range list {
		if !r.At.IsZero() {
			return r.At
		}
	}
	return config.Position{}
}

// compile makes the rules rs, written at key, ready for the tool name.
func compile[M config.Mode](b *builder, name string, rs config.Rules[M], key partial.Path, schema func() *jsonv.Value, params map[string]config.Parameter) RuleList[M] {
	defaults := config.Inherits(key)
	conditional := slices.ContainsFunc(rs, func(r config.Rule[M]) bool { return !r.IsCatchAll() })
	if !defaults || conditional {
		return compileList(b, name, rs, key, schema, params)
	}
	// The '*' entry's rules without conditions are the same for every
	// tool: made once.
	k := key.String()
	if l, ok := b.sharedPolicy[k].(RuleList[M]); ok {
		return l
	}
	l := compileList(b, name, rs, key, schema, params)
	b.sharedPolicy[k] = l
	return l
}

// compileList is compile without sharing.
func compileList[M config.Mode](b *builder, name string, rs config.Rules[M], key partial.Path, schema func() *jsonv.Value, params map[string]config.Parameter) RuleList[M] {
	defaults := config.Inherits(key)
	out := RuleList[M]{Key: key, written: rs}
	var errs diag.Errors
	for i, r := range rs {
		rk := key.Append(strconv.Itoa(i))
		c := PolicyRule[M]{Rule: r, Key: rk, texts: [3]string{rk.String(), r.At.String(), r.String()}}
		if !r.IsCatchAll() {
			segs, _ := rules.ParsePointer(r.Arg) // read at load
			c.segs = segs
			root := schema()
			types, isPath, why := argType(root, params, segs)
			if why == "" {
				why = fits(r.Match, types)
			}
			if why == "" {
				m, err := rules.Compile(r.Match.Op, r.Match.Value, isPath)
				if err != nil {
					why = err.Error()
				}
				c.match, c.Path = m, isPath
			}
			if why != "" {
				if defaults {
					out.Skipped = append(out.Skipped, Skipped{Key: rk, At: r.At, Why: why})
					continue
				}
				code, at := diag.CodeType, "arg"
				if strings.HasPrefix(why, "the tool has no") {
					code = diag.CodeNotFound
				} else if !strings.HasPrefix(why, "arrays") {
					at = r.Match.Op
				}
				errs = append(errs, r.Place(&diag.Error{Code: code, Path: rk.Append(at), Msg: why, Hint: argHint(why, r.Arg, root)}))
				continue
			}
		}
		out.Rules = append(out.Rules, c)
	}
	if len(errs) > 0 {
		b.errs = append(b.errs, errs...)
		return out
	}
	// Rules that can never match, now that each argument's type is known.
	list := make(config.Rules[M], len(out.Rules))
	for i, r := range out.Rules {
		list[i] = r.Rule
	}
	for _, s := range config.Unreachable(list, func(i int) (bool, bool) { return !out.Rules[i].Path, out.Rules[i].Path }) {
		e := s.Problem(out.Rules[s.Rule].Key, out.Rules[s.By].Key)
		if defaults {
			// The '*' entry's rules were checked for every type at load;
			// what is left holds for this tool alone.
			e.Severity = diag.SeverityWarning
			e.Msg = fmt.Sprintf("for %s, %s", name, e.Msg)
			b.warn(e)
			continue
		}
		b.errs = append(b.errs, e)
	}
	examples(b, name, out, defaults)
	if len(out.Rules) > 0 && !out.Rules[len(out.Rules)-1].IsCatchAll() {
		last := out.Rules[len(out.Rules)-1]
		b.warn(last.Place(&diag.Error{Code: diag.CodeInvalid, Severity: diag.SeverityWarning, Path: key,
			Msg:  fmt.Sprintf("no rule holds for every call: a call no rule takes is asked (JP RFD D25's implicit { mode = %q })", implicit[M]()),
			Hint: fmt.Sprintf("end the list with a rule without a condition: { mode = %q } to say so", implicit[M]())}))
	}
	return out
}

// warn adds warning e once: a '*' entry's problem is met by every tool.
func (b *builder) warn(e *diag.Error) {
	k := e.Error()
	if b.said[k] {
		return
	}
	b.said[k] = true
	b.warnings = append(b.warnings, e)
}

// examples checks the examples of rs (Codex's match and not_match): an
// example of match is decided by its rule, one of not_match is not taken
// by its rule's condition. A '*' entry's example that fails for a tool
// says so, naming the tool.
func examples[M config.Mode](b *builder, name string, rs RuleList[M], defaults bool) {
	fail := func(r *PolicyRule[M], key partial.Path, msg string) {
		if defaults {
			msg = "for " + name + ", " + msg
		}
		b.errs = append(b.errs, r.Place(&diag.Error{Code: diag.CodeExample, Path: key, Msg: msg,
			Hint: "change the example or the rules: the first rule that holds decides (an example is the arguments of a call)"}))
	}
	for i := range rs.Rules {
		r := &rs.Rules[i]
		for j, ex := range r.Matches() {
			d := rs.Decide(ex)
			if d.Rule == r {
				continue
			}
			var by string
			switch {
			case r.Holds(ex):
				by = "the earlier rule " + ruleName(d.Rule.Key, d.Rule.At) + " takes it first"
			case d.Rule == nil:
				by = fmt.Sprintf("its condition does not hold for it, and no rule takes it (the implicit { mode = %q } would)", implicit[M]())
			default:
				by = "its condition does not hold for it, and the rule " + ruleName(d.Rule.Key, d.Rule.At) + " takes it"
			}
			fail(r, r.Key.Append("match", strconv.Itoa(j)), fmt.Sprintf("the example %s is not decided by this rule: %s", jsonText(ex), by))
		}
		for j, ex := range r.NotMatches() {
			if r.Holds(ex) {
				fail(r, r.Key.Append("not_match", strconv.Itoa(j)), fmt.Sprintf("the example %s is one this rule's condition (%s %s) holds for", jsonText(ex), r.Arg, r.Match))
			}
		}
	}
}

// ruleName names a rule by its key path and, when it was written, its
// place.
func ruleName(key partial.Path, at config.Position) string {
	if at.IsZero() {
		return key.String()
	}
	return key.String() + " (" + at.String() + ")"
}

// argType finds the argument at pointer segs in the input schema root: an
// array on the way, or at the end, stands for its items. It returns the
// JSON Schema types of the argument (none when the schema gives none),
// whether the config makes it a path (type = "path" in params), or why
// there is no such argument.
func argType(root *jsonv.Value, params map[string]config.Parameter, segs []string) ([]string, bool, string) {
	cur := root
	var cp *config.Parameter
	cprops := params
	for i, seg := range segs {
		cur, cp = items(root, cur, cp)
		props := properties(root, cur)
		next, ok := props[seg]
		if !ok {
			where := "the tool has no parameter " + seg
			if i > 0 {
				where = fmt.Sprintf("the tool has no parameter %s inside %s", seg, pointerText(segs[:i]))
			}
			if _, err := strconv.Atoi(seg); err == nil {
				return nil, false, "arrays are walked item by item: a pointer of a rule names no index (" + where + ")"
			}
			return nil, false, where
		}
		cur = next
		cp = nil
		if p, ok := cprops[seg]; ok {
			cp = &p
		}
		cprops = nil
		if cp != nil {
			cprops = cp.Properties
		}
	}
	cur, cp = items(root, cur, cp)
	return typesAt(root, cur), cp != nil && cp.Type.Has("path"), ""
}

// items follows an array schema (and the config's items with it) to its
// items, as often as it is one.
func items(root, s *jsonv.Value, cp *config.Parameter) (*jsonv.Value, *config.Parameter) {
	for range 64 {
		s = deref(root, s)
		if !slices.Contains(typesAt(root, s), "array") || s.Get("items") == nil || s.Get("items").Kind() != jsonv.Object {
			return s, cp
		}
		s = s.Get("items")
		if cp != nil {
			cp = cp.Items
		}
	}
	return s, cp
}

// deref follows a schema's local $ref ("#/..."), a bounded number of
// times.
func deref(root, s *jsonv.Value) *jsonv.Value {
	for range 32 {
		ref, ok := s.Get("$ref").Str()
		if !ok || !strings.HasPrefix(ref, "#") {
			return s
		}
		segs, err := rules.ParsePointer(strings.TrimPrefix(ref, "#"))
		if ref == "#" {
			segs, err = nil, nil
		}
		if err != nil {
			return s
		}
		t := root
		for _, seg := range segs {
			if t = t.Get(seg); t == nil {
				return s
			}
		}
		s = t
	}
	return s
}

// properties returns the properties schema s declares, its own and those
// of its anyOf, oneOf and allOf branches.
func properties(root, s *jsonv.Value) map[string]*jsonv.Value {
	out := map[string]*jsonv.Value{}
	var walk func(s *jsonv.Value, depth int)
	walk = func(s *jsonv.Value, depth int) {
		s = deref(root, s)
		if depth > 8 || s == nil {
			return
		}
		props := s.Get("properties")
		for _, k := range props.Keys() {
			if _, ok := out[k]; !ok {
				out[k] = props.Get(k)
			}
		}
		for _, key := range []string{"anyOf", "oneOf", "allOf"} {
			for _, b := range s.Get(key).Items() {
				walk(b, depth+1)
			}
		}
	}
	walk(s, 0)
	return out
}

// typesAt returns the type names schema s allows, its branches' too; none
// when it names none.
func typesAt(root, s *jsonv.Value) []string {
	var out []string
	var walk func(s *jsonv.Value, depth int)
	walk = func(s *jsonv.Value, depth int) {
		s = deref(root, s)
		if depth > 8 || s == nil {
			return
		}
		for _, t := range typesOf(s) {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		for _, key := range []string{"anyOf", "oneOf"} {
			for _, b := range s.Get(key).Items() {
				walk(b, depth+1)
			}
		}
	}
	walk(s, 0)
	return out
}

// fits says why matcher m cannot test an argument of types, or "".
func fits(m config.Matcher, types []string) string {
	if len(types) == 0 {
		return "" // the schema says nothing: any value may come
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if slices.Contains(types, n) {
				return true
			}
		}
		return false
	}
	what := strings.Join(types, " or ")
	switch {
	case rules.ForStrings(m.Op):
		if !has("string") {
			return fmt.Sprintf("%s tests strings, and the argument is of type %s", m.Op, what)
		}
	case rules.ForNumbers(m.Op):
		if !has("number", "integer") {
			return fmt.Sprintf("%s tests numbers, and the argument is of type %s", m.Op, what)
		}
	default:
		vals := []any{m.Value}
		if m.Op == "enum" {
			vals, _ = m.Value.([]any)
		}
		for _, v := range vals {
			k := rules.Kind(v)
			ok := has(k) || k == "integer" && has("number")
			if k == "array" {
				ok = false // arrays are walked: their items are tested
			}
			if !ok {
				return fmt.Sprintf("%s %s can never be the argument, which is of type %s", m.Op, jsonText(v), what)
			}
		}
	}
	return ""
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// pointerText writes segs as a JSON Pointer.
func pointerText(segs []string) string { return pointer(segs...) }

// argHint is the fix of a rule whose argument is not one the tool has.
func argHint(why, arg string, root *jsonv.Value) string {
	if !strings.HasPrefix(why, "the tool has no parameter") {
		if strings.HasPrefix(why, "arrays") {
			return "leave out the index: /patterns/paths tests the paths of every pattern"
		}
		return "use a matcher the argument's type takes: prefix, suffix, glob and pattern test strings; minimum, maximum, exclusive_minimum and exclusive_maximum numbers; const and enum any value"
	}
	names := make([]string, 0)
	for k := range properties(root, root) {
		names = append(names, "/"+k)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "it takes no parameters"
	}
	if c := suggest.Closest(arg, names); c != "" {
		return "did you mean " + c + "?"
	}
	return "its parameters are " + strings.Join(names, ", ")
}
