package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/rules"
	"github.com/strata-config/strata/partial"
)

// Mode is what a policy rule decides: a [RunMode] (what happens when the
// model calls a tool) or a [ResultMode] (what happens with its result).
type Mode interface{ RunMode | ResultMode }

// Rule is one rule of a run or result policy (JP's RFD D25): a condition
// on one argument of a call, and the mode that applies when it holds. A
// rule without a condition is a catch-all. A tool's rules are tried in
// order and the first that holds decides; when none does, the call is
// asked (an implicit { mode = "ask" }).
//
// In a file a rule is a table:
//
//	{ arg = "/path", prefix = "src/", mode = "unattended", reason = "...",
//	  match = [{ path = "src/a.rs" }], not_match = [{ path = "src-old/a.rs" }] }
//
// and a mode alone ("ask") stands for a catch-all of that mode. The list
// of a tool's rules may be written as that mode alone: run = "ask".
type Rule[M Mode] struct {
	// Arg is the JSON Pointer (RFC 6901) of the argument the rule looks
	// at, such as /path or /patterns/paths; "" for a catch-all. An array
	// on its way, or at its end, stands for each of its items: the rule
	// holds when any of them matches.
	Arg string `toml:"arg"`
	// Match is the rule's one matcher; zero for a catch-all. It is
	// written under its keyword (prefix = "src/").
	Match Matcher `toml:"-"`
	// Mode applies when the rule holds.
	Mode M `toml:"mode"`
	// Reason says why, for people: it is in every decision the rule makes.
	Reason string `toml:"reason"`
	// Examples are the rule's examples, nil for none (most rules: a
	// pointer keeps a rule in 128 bytes).
	Examples *Examples `toml:"-"`
	// At is where the rule was written; zero for a rule made in Go (the
	// defaults'). It takes no part in what the rule is ([Rule.Equal]).
	At Position `toml:"-"`
	// Clamped is set when a policy layer changed the rule's mode: the
	// mode the layers gave, and the policy that does not allow it. It
	// takes no part in what the rule is ([Rule.Equal]).
	Clamped *Clamped `toml:"-"`
}

// Clamped says that a policy layer (package policy) moved a rule's mode
// to the nearest mode it allows.
type Clamped struct {
	// From is the mode the layers gave.
	From string
	// Key is the key of the policy that decided (tools.'*'.run), and At
	// where it is: the policy's file (file:line:column) or source.
	Key, At string
	// Allowed are the modes every policy allows, in order.
	Allowed []string
	// Reason is the policy's reason.
	Reason string
}

// Matcher is a condition's test of the argument: a keyword of JSON
// Schema's validation vocabulary (const, enum, pattern, minimum, maximum,
// exclusive_minimum, exclusive_maximum) or of JP's (prefix) and strata's
// (suffix, glob), and its value.
type Matcher struct {
	// Op is the keyword; "" for none.
	Op string
	// Value is its value, as a document gives it: a string, int64,
	// float64, bool, []any or map[string]any.
	Value any
}

// IsZero reports whether m tests nothing.
func (m Matcher) IsZero() bool { return m.Op == "" }

// String writes the matcher as a rule does: prefix = "src/".
func (m Matcher) String() string {
	if m.Op == "" {
		return ""
	}
	v, err := json.Marshal(m.Value)
	if err != nil {
		v = []byte(fmt.Sprint(m.Value))
	}
	return m.Op + " = " + string(v)
}

// Position is where something was written: a file (or another source
// of a layer: --cfg #2, env STRATA_TOOLS_X_RUN) and the 1-based line and
// column in it.
type Position struct {
	Source       string
	Line, Column int
}

// IsZero reports whether p names no place: a default's.
func (p Position) IsZero() bool { return p.Source == "" }

// String writes the position as messages do: file:line:column.
func (p Position) String() string {
	switch {
	case p.Source == "":
		return ""
	case p.Line == 0:
		return p.Source
	}
	return p.Source + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}

// RunRule is a rule of a tool's run policy.
type RunRule = Rule[RunMode]

// ResultRule is a rule of a tool's result policy.
type ResultRule = Rule[ResultMode]

// Rules is a tool's run or result policy: rules in order, the first that
// holds deciding. It is written as its mode alone when it is one
// catch-all that says nothing more (run = "ask").
type Rules[M Mode] []Rule[M]

// Always returns the policy of one catch-all rule of mode m, which run =
// "ask" (or result = "unattended") is.
func Always[M Mode](m M) Rules[M] { return Rules[M]{{Mode: m}} }

// RunRules is a tool's run policy.
type RunRules = Rules[RunMode]

// ResultRules is a tool's result policy.
type ResultRules = Rules[ResultMode]

// Fixed returns the mode every call gets when the first rule holds for
// every call (a catch-all: run = "ask"); ok is false when the mode
// depends on the arguments, or there are no rules.
func (rs Rules[M]) Fixed() (mode M, ok bool) {
	if len(rs) == 0 || !rs[0].IsCatchAll() {
		return "", false
	}
	return rs[0].Mode, true
}

// SetPosition records where the rule was written (see
// [partial.Positioned]).
func (r *Rule[M]) SetPosition(source string, line, column int) {
	r.At = Position{Source: source, Line: line, Column: column}
}

// IsCatchAll reports whether the rule holds for every call.
func (r Rule[M]) IsCatchAll() bool { return r.Arg == "" && r.Match.IsZero() }

// Equal reports whether r and o are the same rule, wherever each was
// written.
func (r Rule[M]) Equal(o Rule[M]) bool {
	return r.Arg == o.Arg && r.Match.Op == o.Match.Op && rules.Equal(r.Match.Value, o.Match.Value) && r.Mode == o.Mode && r.Reason == o.Reason &&
		equalExamples(r.Matches(), o.Matches()) && equalExamples(r.NotMatches(), o.NotMatches())
}

// Examples are arguments of calls that a rule decides (Match), and
// arguments its condition does not hold for (NotMatch): Codex's match and
// not_match, each checked when the tool resolves.
type Examples struct {
	Match    []map[string]any `toml:"match"`
	NotMatch []map[string]any `toml:"not_match"`
}

// Matches returns the arguments of calls that r decides (its match
// examples).
func (r Rule[M]) Matches() []map[string]any {
	if r.Examples == nil {
		return nil
	}
	return r.Examples.Match
}

// NotMatches returns the arguments its condition does not hold for (its
// not_match examples).
func (r Rule[M]) NotMatches() []map[string]any {
	if r.Examples == nil {
		return nil
	}
	return r.Examples.NotMatch
}

func equalExamples(a, b []map[string]any) bool {
	return slices.EqualFunc(a, b, func(x, y map[string]any) bool { return rules.Equal(x, y) })
}

// Shorthand returns the mode of a catch-all that says nothing more,
// which a list of this one rule is written as (see
// [partial.Shorthander]).
func (r Rule[M]) Shorthand() (any, bool) {
	if !r.IsCatchAll() || r.Reason != "" || len(r.Matches()) > 0 || len(r.NotMatches()) > 0 {
		return nil, false
	}
	return string(r.Mode), true
}

// ruleTable is the table form of a rule, written key by key in this
// order; the matcher's keys are pointers, so that const = false is
// written.
type ruleTable struct {
	Arg              string `toml:"arg" json:"arg,omitempty"`
	Prefix           *any   `toml:"prefix" json:"prefix,omitempty"`
	Suffix           *any   `toml:"suffix" json:"suffix,omitempty"`
	Glob             *any   `toml:"glob" json:"glob,omitempty"`
	Pattern          *any   `toml:"pattern" json:"pattern,omitempty"`
	Const            *any   `toml:"const" json:"const,omitempty"`
	Enum             *any   `toml:"enum" json:"enum,omitempty"`
	Minimum          *any   `toml:"minimum" json:"minimum,omitempty"`
	Maximum          *any   `toml:"maximum" json:"maximum,omitempty"`
	ExclusiveMinimum *any   `toml:"exclusive_minimum" json:"exclusive_minimum,omitempty"`
	ExclusiveMaximum *any   `toml:"exclusive_maximum" json:"exclusive_maximum,omitempty"`
	Mode             string `toml:"mode" json:"mode"`
	Reason           string `toml:"reason" json:"reason,omitempty"`
	Match            []any  `toml:"match" json:"match,omitempty"`
	NotMatch         []any  `toml:"not_match" json:"not_match,omitempty"`
}

// table returns the table form of r.
func (r Rule[M]) table() ruleTable {
	t := ruleTable{Arg: r.Arg, Mode: string(r.Mode), Reason: r.Reason, Match: examples(r.Matches()), NotMatch: examples(r.NotMatches())}
	v := &r.Match.Value
	switch r.Match.Op {
	case "prefix":
		t.Prefix = v
	case "suffix":
		t.Suffix = v
	case "glob":
		t.Glob = v
	case "pattern":
		t.Pattern = v
	case "const":
		t.Const = v
	case "enum":
		t.Enum = v
	case "minimum":
		t.Minimum = v
	case "maximum":
		t.Maximum = v
	case "exclusive_minimum":
		t.ExclusiveMinimum = v
	case "exclusive_maximum":
		t.ExclusiveMaximum = v
	}
	return t
}

func examples(ex []map[string]any) []any {
	if len(ex) == 0 {
		return nil
	}
	out := make([]any, len(ex))
	for i, e := range ex {
		out[i] = e
	}
	return out
}

// String writes the rule as a TOML inline table: { arg = "/path",
// prefix = "src/", mode = "unattended" }; a catch-all that says nothing
// more is its mode alone.
func (r Rule[M]) String() string {
	if s, ok := r.Shorthand(); ok {
		return fmt.Sprint(s)
	}
	var parts []string
	add := func(k string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		parts = append(parts, k+" = "+string(b))
	}
	if r.Arg != "" {
		add("arg", r.Arg)
		add(r.Match.Op, r.Match.Value)
	}
	add("mode", string(r.Mode))
	if r.Reason != "" {
		add("reason", r.Reason)
	}
	if ex := r.Matches(); len(ex) > 0 {
		add("match", ex)
	}
	if ex := r.NotMatches(); len(ex) > 0 {
		add("not_match", ex)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// String writes the rules as a file does: a mode alone, or a list of
// rules.
func (rs Rules[M]) String() string {
	if len(rs) == 1 {
		if s, ok := rs[0].Shorthand(); ok {
			return fmt.Sprint(s)
		}
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// MarshalValue writes the rule as its table.
func (r Rule[M]) MarshalValue() (any, error) { return r.table(), nil }

// MarshalJSON writes the rule as its table.
func (r Rule[M]) MarshalJSON() ([]byte, error) { return json.Marshal(r.table()) }

// MarshalValue writes the rules as a mode alone when they are one
// catch-all that says nothing more, else as the list of their tables.
func (rs Rules[M]) MarshalValue() (any, error) {
	if len(rs) == 1 {
		if s, ok := rs[0].Shorthand(); ok {
			return s, nil
		}
	}
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = r.table()
	}
	return out, nil
}

// MarshalJSON writes the rules as [Rules.MarshalValue] does; no rules
// are null.
func (rs Rules[M]) MarshalJSON() ([]byte, error) {
	if len(rs) == 0 {
		return []byte("null"), nil
	}
	v, _ := rs.MarshalValue()
	return json.Marshal(v)
}

// ruleKeys are the keys of a rule's table other than the matchers.
var ruleKeys = []string{"arg", "mode", "reason", "match", "not_match"}

// modeValues lists the values of mode type M, to read, not to change: the
// enum's own slice, not a copy for each rule read.
func modeValues[M Mode]() []string {
	var m M
	switch any(m).(type) {
	case RunMode:
		return enumRunMode
	case ResultMode:
		return enumResultMode
	}
	return any(m).(interface{ EnumValues() []string }).EnumValues()
}

// UnmarshalValue reads a rule: its table, or a mode alone for a
// catch-all. Each problem is at its key.
func (r *Rule[M]) UnmarshalValue(v any) error {
	values := modeValues[M]()
	switch v := v.(type) {
	case string:
		m, err := readMode[M](v, values, nil)
		if err != nil {
			return err
		}
		*r = Rule[M]{Mode: m}
		return nil
	case map[string]any:
		return r.readTable(v, values)
	}
	return &diag.Error{Code: diag.CodeType, Msg: fmt.Sprintf("expected a mode (%s) or a rule ({ arg, <matcher>, mode }), found %s", strings.Join(values, ", "), describe(v))}
}

// readMode reads a mode of type M, one of values; a problem is at path.
func readMode[M Mode](s string, values []string, path partial.Path) (M, error) {
	if !slices.Contains(values, s) {
		return "", &diag.Error{Code: diag.CodeBadValue, Path: path, Msg: fmt.Sprintf("expected one of %s, found %q", strings.Join(values, ", "), s), Hint: didYouMean(s, values)}
	}
	return M(s), nil
}

// readTable reads the table form of a rule.
func (r *Rule[M]) readTable(t map[string]any, values []string) error {
	out := Rule[M]{}
	var ops []string
	for _, k := range slices.Sorted(maps.Keys(t)) { // the first problem by key, every time
		x := t[k]
		at := partial.Path{k}
		switch {
		case k == "arg":
			s, err := asString(x, at, "a JSON Pointer such as /path")
			if err != nil {
				return err
			}
			if _, err := rules.ParsePointer(s); err != nil {
				return &diag.Error{Code: diag.CodeSyntax, Path: at, Msg: err.Error(), Hint: "name the argument by its JSON Pointer: /path, or /patterns/paths for the paths of each pattern"}
			}
			out.Arg = s
		case k == "mode":
			s, err := asString(x, at, "one of "+strings.Join(values, ", "))
			if err != nil {
				return err
			}
			if out.Mode, err = readMode[M](s, values, at); err != nil {
				return err
			}
		case k == "reason":
			s, err := asString(x, at, "a string")
			if err != nil {
				return err
			}
			out.Reason = s
		case k == "match" || k == "not_match":
			ex, err := readExamples(x, at)
			if err != nil {
				return err
			}
			if out.Examples == nil {
				out.Examples = new(Examples)
			}
			if k == "match" {
				out.Examples.Match = ex
			} else {
				out.Examples.NotMatch = ex
			}
		case rules.IsOp(k):
			if _, err := rules.Compile(k, x, false); err != nil {
				code := diag.CodeBadValue
				if rules.ForStrings(k) && rules.Kind(x) != "string" || rules.ForNumbers(k) && !isNumber(x) || k == "enum" && rules.Kind(x) != "array" {
					code = diag.CodeType
				}
				hint := ""
				if k == "pattern" {
					hint = "write it as Go's regexp reads it (RE2: no lookaround or backreferences), in single quotes in TOML: '^src/'"
				}
				return &diag.Error{Code: code, Path: at, Msg: err.Error(), Hint: hint}
			}
			ops = append(ops, k)
			out.Match = Matcher{Op: k, Value: x}
		default:
			return &diag.Error{Code: diag.CodeUnknownKey, Path: at, Msg: "unknown key of a rule", Hint: didYouMean(k, append(slices.Clone(ruleKeys), rules.Ops...))}
		}
	}
	switch {
	case len(ops) > 1:
		return &diag.Error{Code: diag.CodeInvalid, Path: partial.Path{ops[1]}, Msg: fmt.Sprintf("a rule has one matcher, and this one has %s", strings.Join(ops, " and ")),
			Hint: "write one rule for each (the first that holds decides); a rule that needs both is not supported (JP RFD D25: compound conditions)"}
	case out.Mode == "":
		return &diag.Error{Code: diag.CodeInvalid, Msg: "a rule needs a mode", Hint: fmt.Sprintf("add mode = %q (one of %s)", values[0], strings.Join(values, ", "))}
	case out.Arg != "" && out.Match.IsZero():
		return &diag.Error{Code: diag.CodeInvalid, Path: partial.Path{"arg"}, Msg: "arg needs a matcher to test it with", Hint: "add one of " + strings.Join(rules.Ops, ", ") + "; or remove arg for a rule that holds for every call"}
	case out.Arg == "" && !out.Match.IsZero():
		return &diag.Error{Code: diag.CodeInvalid, Path: partial.Path{ops[0]}, Msg: ops[0] + " needs the argument it tests", Hint: `add arg = "/<parameter>", the JSON Pointer of the argument`}
	case out.IsCatchAll() && len(out.NotMatches()) > 0:
		return &diag.Error{Code: diag.CodeExample, Path: partial.Path{"not_match"}, Msg: "a rule without a condition holds for every call: no call can fail to match it", Hint: "remove not_match, or give the rule a condition"}
	}
	*r = out
	return nil
}

func isNumber(x any) bool { k := rules.Kind(x); return k == "integer" || k == "number" }

// readExamples reads match or not_match: an array of tables, each the
// arguments of a call.
func readExamples(x any, at partial.Path) ([]map[string]any, error) {
	items, ok := x.([]any)
	if !ok {
		return nil, &diag.Error{Code: diag.CodeType, Path: at, Msg: "expected an array of call arguments ([{ path = \"src/a.rs\" }]), found " + describe(x)}
	}
	out := make([]map[string]any, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, &diag.Error{Code: diag.CodeType, Path: at.Append(strconv.Itoa(i)), Msg: "expected the arguments of a call, a table ({ path = \"src/a.rs\" }), found " + describe(it)}
		}
		out[i] = m
	}
	return out, nil
}

// ShorthandSchema is the JSON Schema of a mode alone, which a list of
// one catch-all rule is written as.
func (Rule[M]) ShorthandSchema() map[string]any {
	values := modeValues[M]()
	enum := make([]any, len(values))
	for i, v := range values {
		enum[i] = v
	}
	return map[string]any{"enum": enum, "description": "A mode alone: one rule that holds for every call."}
}

// JSONSchema describes a rule in the JSON Schema of the config file.
func (r Rule[M]) JSONSchema() map[string]any {
	props := map[string]any{
		"arg":       map[string]any{"type": "string", "pattern": "^/", "description": "JSON Pointer of the argument the rule tests (/path, /patterns/paths); an array on its way stands for each item."},
		"mode":      r.ShorthandSchema(),
		"reason":    map[string]any{"type": "string", "description": "Why, for people: it is in every decision the rule makes."},
		"match":     map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "description": "Arguments of calls this rule decides, checked when the tool resolves."},
		"not_match": map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "description": "Arguments of calls this rule's condition does not hold for, checked when the tool resolves."},
	}
	for _, op := range rules.Ops {
		var s map[string]any
		switch {
		case rules.ForStrings(op):
			s = map[string]any{"type": "string"}
		case rules.ForNumbers(op):
			s = map[string]any{"type": "number"}
		case op == "enum":
			s = map[string]any{"type": "array", "minItems": 1}
		default:
			s = map[string]any{}
		}
		props[op] = s
	}
	table := map[string]any{"type": "object", "properties": props, "required": []any{"mode"}, "additionalProperties": false}
	return map[string]any{"anyOf": []any{r.ShorthandSchema(), table}}
}

// MaxRules bounds the rules of one list: a list is checked rule against
// rule for rules that can never match.
const MaxRules = 1000

// Policy is D25's namespace of a tool's run and result policies: run and
// result set here take the place of the tool's top-level run and result
// (which are kept for compatibility, and ignored, with a warning, where
// these are set too).
type Policy struct {
	Run    RunRules    `toml:"run"`
	Result ResultRules `toml:"result"`
}

// Get returns the policy namespace p points to, the zero one for nil (a
// tool that sets no policy.run or policy.result): a copy to read or change.
func (p *Policy) Get() Policy {
	if p == nil {
		return Policy{}
	}
	return *p
}

// PolicyPartial is the partial twin of [Policy].
type PolicyPartial struct {
	Run    partial.List[RunRule]    `toml:"run" strata:"prepend" doc:"The run policy: a mode (ask, unattended, edit, skip), or rules tried in order, the first that holds deciding ({ arg = \"/path\", prefix = \"src/\", mode = \"unattended\" }); an implicit { mode = \"ask\" } ends them. A plain array goes before the lower layers' rules. Set here, tools.<name>.run is ignored."`
	Result partial.List[ResultRule] `toml:"result" strata:"prepend" doc:"The result policy, as run: a mode (unattended, ask, edit, skip) or rules. Set here, tools.<name>.result is ignored."`
}

// RunRules returns the tool's run policy and the key path it is written
// at: its own policy.run, else its own run, else those of the [EveryTool]
// entry; nil when none is set (the call is asked: the implicit rule).
func (t EffectiveTool) RunRules() (RunRules, partial.Path) {
	return pick(t.Name, t.Tool.Policy.Get().Run, t.Tool.Run, t.Inherited.Policy.Get().Run, t.Inherited.Run, "run")
}

// ResultRules returns the tool's result policy and the key path it is
// written at, as [EffectiveTool.RunRules].
func (t EffectiveTool) ResultRules() (ResultRules, partial.Path) {
	return pick(t.Name, t.Tool.Policy.Get().Result, t.Tool.Result, t.Inherited.Policy.Get().Result, t.Inherited.Result, "result")
}

// Inherits reports whether path, a key path RunRules or ResultRules
// gave, is the [EveryTool] entry's: its rules are defaults, and one whose
// argument a tool does not have is skipped for that tool.
func Inherits(path partial.Path) bool { return len(path) > 1 && path[1] == EveryTool }

func pick[M Mode](name string, ownPolicy, own, allPolicy, all Rules[M], key string) (Rules[M], partial.Path) {
	switch {
	case len(ownPolicy) > 0:
		return ownPolicy, partial.Path{"tools", name, "policy", key}
	case len(own) > 0:
		return own, partial.Path{"tools", name, key}
	case len(allPolicy) > 0:
		return allPolicy, partial.Path{"tools", EveryTool, "policy", key}
	case len(all) > 0:
		return all, partial.Path{"tools", EveryTool, key}
	}
	return nil, nil
}

// Run returns the mode of the tool's run policy when it decides without
// looking at the arguments (its first rule is a catch-all), else "" (see
// [EffectiveTool.RunRules]); a tool with no policy asks.
func (t EffectiveTool) Run() RunMode {
	rs, _ := t.RunRules()
	if len(rs) == 0 {
		return RunAsk
	}
	m, _ := rs.Fixed()
	return m
}

// Result returns the mode of the tool's result policy when it decides
// without looking at the arguments, as [EffectiveTool.Run].
func (t EffectiveTool) Result() ResultMode {
	rs, _ := t.ResultRules()
	if len(rs) == 0 {
		return ResultUnattended
	}
	m, _ := rs.Fixed()
	return m
}

// validatePolicy finds, in the lists of tool entry t at path p, what can
// be found without the tool's schema: a list longer than [MaxRules], and
// a rule that can never match because an earlier one on the same argument
// takes every call it would, whether that argument is a string or a path
// (see [Unreachable]).
func validatePolicy(t Tool, p partial.Path) diag.Errors {
	var errs diag.Errors
	errs = append(errs, checkList(t.Run, p, "run")...)
	errs = append(errs, checkList(t.Result, p, "result")...)
	errs = append(errs, checkList(t.Policy.Get().Run, p, "policy", "run")...)
	errs = append(errs, checkList(t.Policy.Get().Result, p, "policy", "result")...)
	return errs
}

// checkList checks the rules rs at the key path of keys under parent. A
// list of one rule has nothing to check, and its path is not made (a
// catalog of 50,000 tools would make 200,000).
func checkList[M Mode](rs Rules[M], parent partial.Path, keys ...string) diag.Errors {
	if len(rs) < 2 {
		return nil
	}
	p := parent.Append(keys...)
	if len(rs) > MaxRules {
		return diag.Errors{&diag.Error{Code: diag.CodeLimit, Path: p, Msg: fmt.Sprintf("%s rules, more than the limit of %s", diag.Count(len(rs)), diag.Count(MaxRules)),
			Hint: "a list is checked rule against rule; group the cases with enum, glob or pattern"}}
	}
	var errs diag.Errors
	for _, u := range Unreachable(rs, func(int) (bool, bool) { return true, true }) {
		errs = append(errs, u.Error(p))
	}
	return errs
}

// Shadow is a rule that can never match: every call it would take, an
// earlier rule takes first.
type Shadow struct {
	// Rule and By are the indexes of the rule and of the earlier rule.
	Rule, By int
	// Why says how By takes what Rule would.
	Why string
	// At and ByAt are where the two were written.
	At, ByAt Position
}

// Unreachable finds the rules of rs that can never match (JP RFD D25's
// detection): after a catch-all, any rule; after a rule on the same
// argument, a rule whose every value that one takes first (a longer
// prefix after a shorter one, a const with the prefix, a const in an
// enum, an enum within an enum; strata adds suffixes, equal conditions
// and bounds within bounds). kind tells, for the rule at an index, whether
// its argument may be read as a string and as a path; a shadow is found
// only where it holds for each reading kind allows (with the schema, the
// one the argument has; without it, both).
func Unreachable[M Mode](rs Rules[M], kind func(i int) (asString, asPath bool)) []Shadow {
	var out []Shadow
	for j := 1; j < len(rs); j++ {
		for i := 0; i < j; i++ {
			asString, asPath := kind(j)
			if why := shadows(rs[i], rs[j], asString, asPath); why != "" {
				out = append(out, Shadow{Rule: j, By: i, Why: why, At: rs[j].At, ByAt: rs[i].At})
				break
			}
		}
	}
	return out
}

// shadows says how earlier takes every call later would, or "".
func shadows[M Mode](earlier, later Rule[M], asString, asPath bool) string {
	if earlier.IsCatchAll() {
		return "it holds for every call"
	}
	if later.IsCatchAll() || earlier.Arg != later.Arg {
		return ""
	}
	if !asString && !asPath {
		return ""
	}
	for _, isPath := range []bool{false, true} {
		if isPath && !asPath || !isPath && !asString {
			continue
		}
		e, err1 := rules.Compile(earlier.Match.Op, earlier.Match.Value, isPath)
		l, err2 := rules.Compile(later.Match.Op, later.Match.Value, isPath)
		if err1 != nil || err2 != nil || !rules.Implies(e, l) {
			return ""
		}
	}
	return fmt.Sprintf("every value of %s that %s takes, %s takes first", earlier.Arg, later.Match, earlier.Match)
}

// Error is the problem of the shadowed rule, in the list at key path p:
// at the rule, naming both.
func (s Shadow) Error(p partial.Path) *diag.Error {
	return s.Problem(p.Append(strconv.Itoa(s.Rule)), p.Append(strconv.Itoa(s.By)))
}

// Problem is the problem of the shadowed rule, at key path rule, naming
// the earlier rule by its key path by and its place.
func (s Shadow) Problem(rule, by partial.Path) *diag.Error {
	byText := by.String()
	if !s.ByAt.IsZero() {
		byText += " (" + s.ByAt.String() + ")"
	}
	e := &diag.Error{Code: diag.CodeUnreachable, Path: rule,
		Msg:  fmt.Sprintf("this rule can never match: the earlier rule %s takes every call it would (%s)", byText, s.Why),
		Hint: "put the narrower rule first (the first rule that holds decides), or remove it"}
	return s.At.place(e)
}

// place positions e at p, where a rule was written.
func (p Position) place(e *diag.Error) *diag.Error {
	if p.IsZero() {
		return e
	}
	e.Source, e.Line, e.Column = p.Source, p.Line, p.Column
	return e
}

// Place positions e where the rule was written (e's own position is kept
// when the rule has none: a default's).
func (r Rule[M]) Place(e *diag.Error) *diag.Error { return r.At.place(e) }
