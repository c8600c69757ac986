package config_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/partial"
)

// load decodes and finalizes a layer of one tool t whose entry is src.
func load(t *testing.T, src string) (config.Config, error) {
	t.Helper()
	p, err := layertest.Decode(t, "c.toml", "[tools.t]\n"+src+"\n", partial.TOML)
	if err != nil {
		return config.Config{}, err
	}
	return config.Finalize(&p)
}

func TestRulesRead(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want config.RunRules
	}{
		{"a mode alone", `run = "skip"`, config.RunRules{{Mode: config.RunSkip, At: config.Position{Source: "c.toml", Line: 2, Column: 7}}}},
		{"D25's rules", `run = [
  { arg = "/path", prefix = "src/sensitive/", mode = "ask" },
  { arg = "/path", prefix = "src/", mode = "unattended", reason = "ours" },
  { mode = "ask" },
]`, config.RunRules{
			{Arg: "/path", Match: config.Matcher{Op: "prefix", Value: "src/sensitive/"}, Mode: config.RunAsk, At: config.Position{Source: "c.toml", Line: 3, Column: 3}},
			{Arg: "/path", Match: config.Matcher{Op: "prefix", Value: "src/"}, Mode: config.RunUnattended, Reason: "ours", At: config.Position{Source: "c.toml", Line: 4, Column: 3}},
			{Mode: config.RunAsk, At: config.Position{Source: "c.toml", Line: 5, Column: 3}},
		}},
		{"a mode alone in a list", `run = [{ arg = "/n", const = false, mode = "edit" }, "skip"]`, config.RunRules{
			{Arg: "/n", Match: config.Matcher{Op: "const", Value: false}, Mode: config.RunEdit, At: config.Position{Source: "c.toml", Line: 2, Column: 8}},
			{Mode: config.RunSkip, At: config.Position{Source: "c.toml", Line: 2, Column: 54}},
		}},
		{"examples", `run = [{ arg = "/path", prefix = "src/", mode = "unattended", match = [{ path = "src/a" }], not_match = [{ path = "b", n = 1 }] }]`, config.RunRules{
			{Arg: "/path", Match: config.Matcher{Op: "prefix", Value: "src/"}, Mode: config.RunUnattended,
				Examples: &config.Examples{Match: []map[string]any{{"path": "src/a"}}, NotMatch: []map[string]any{{"path": "b", "n": int64(1)}}}, At: config.Position{Source: "c.toml", Line: 2, Column: 8}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Tools["t"].Run
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			// A position is no part of what a rule is; it is kept.
			for i := range got {
				if got[i].At != tt.want[i].At {
					t.Errorf("rule %d written at %s, want %s", i, got[i].At, tt.want[i].At)
				}
			}
		})
	}
}

func TestRulesProblems(t *testing.T) {
	const why = "put the narrower rule first (the first rule that holds decides), or remove it"
	tests := []struct {
		name string
		src  string
		want []layertest.Problem
	}{
		{"two matchers", `run = [{ arg = "/path", prefix = "src/", suffix = ".rs", mode = "ask" }]`, []layertest.Problem{{
			Err:  "c.toml:2:42: tools.t.run.0.suffix: a rule has one matcher, and this one has prefix and suffix; write one rule for each (the first that holds decides); a rule that needs both is not supported (JP RFD D25: compound conditions)",
			Line: 2, Column: 42, Path: partial.Path{"tools", "t", "run", "0", "suffix"}, Hint: "write one rule for each (the first that holds decides); a rule that needs both is not supported (JP RFD D25: compound conditions)",
		}}},
		{"no mode", `run = [{ arg = "/path", prefix = "src/" }]`, []layertest.Problem{{
			Err: `c.toml:2:8: tools.t.run.0: a rule needs a mode; add mode = "ask" (one of ask, unattended, edit, skip)`, Line: 2, Column: 8,
			Path: partial.Path{"tools", "t", "run", "0"}, Hint: `add mode = "ask" (one of ask, unattended, edit, skip)`,
		}}},
		{"a mode with a typo", `run = [{ arg = "/path", prefix = "src/", mode = "askk" }]`, []layertest.Problem{{
			Err: `c.toml:2:42: tools.t.run.0.mode: expected one of ask, unattended, edit, skip, found "askk"; did you mean ask?`, Line: 2, Column: 42,
			Path: partial.Path{"tools", "t", "run", "0", "mode"}, Hint: "did you mean ask?",
		}}},
		{"arg without a matcher", `run = [{ arg = "/path", mode = "ask" }]`, []layertest.Problem{{
			Err:  "c.toml:2:10: tools.t.run.0.arg: arg needs a matcher to test it with; add one of prefix, suffix, glob, pattern, const, enum, minimum, maximum, exclusive_minimum, exclusive_maximum; or remove arg for a rule that holds for every call",
			Line: 2, Column: 10, Path: partial.Path{"tools", "t", "run", "0", "arg"}, Hint: "add one of prefix, suffix, glob, pattern, const, enum, minimum, maximum, exclusive_minimum, exclusive_maximum; or remove arg for a rule that holds for every call",
		}}},
		{"a matcher without arg", `run = [{ prefix = "src/", mode = "ask" }]`, []layertest.Problem{{
			Err:  `c.toml:2:10: tools.t.run.0.prefix: prefix needs the argument it tests; add arg = "/<parameter>", the JSON Pointer of the argument`,
			Line: 2, Column: 10, Path: partial.Path{"tools", "t", "run", "0", "prefix"}, Hint: `add arg = "/<parameter>", the JSON Pointer of the argument`,
		}}},
		{"a name where a pointer goes", `run = [{ arg = "path", prefix = "src/", mode = "ask" }]`, []layertest.Problem{{
			Err:  "c.toml:2:10: tools.t.run.0.arg: a JSON Pointer starts with /, as in /path; name the argument by its JSON Pointer: /path, or /patterns/paths for the paths of each pattern",
			Line: 2, Column: 10, Path: partial.Path{"tools", "t", "run", "0", "arg"}, Hint: "name the argument by its JSON Pointer: /path, or /patterns/paths for the paths of each pattern",
		}}},
		{"a matcher of the wrong type", `run = [{ arg = "/path", prefix = 3, mode = "ask" }]`, []layertest.Problem{{
			Err: "c.toml:2:25: tools.t.run.0.prefix: prefix takes a string, found number 3", Line: 2, Column: 25, Path: partial.Path{"tools", "t", "run", "0", "prefix"},
		}}},
		{"a pattern Go cannot read", `run = [{ arg = "/path", pattern = "(?<=a)", mode = "ask" }]`, []layertest.Problem{{
			Err:  "c.toml:2:25: tools.t.run.0.pattern: \"(?<=a)\" is not a regular expression: invalid named capture: `(?<=a)`; write it as Go's regexp reads it (RE2: no lookaround or backreferences), in single quotes in TOML: '^src/'",
			Line: 2, Column: 25, Path: partial.Path{"tools", "t", "run", "0", "pattern"}, Hint: "write it as Go's regexp reads it (RE2: no lookaround or backreferences), in single quotes in TOML: '^src/'",
		}}},
		{"an unknown key", `run = [{ arg = "/path", prefx = "src/", mode = "ask" }]`, []layertest.Problem{{
			Err: "c.toml:2:25: tools.t.run.0.prefx: unknown key of a rule; did you mean prefix?", Line: 2, Column: 25, Path: partial.Path{"tools", "t", "run", "0", "prefx"}, Hint: "did you mean prefix?",
		}}},
		{"not_match of a catch-all", `run = [{ mode = "ask", not_match = [{ path = "a" }] }]`, []layertest.Problem{{
			Err:  "c.toml:2:24: tools.t.run.0.not_match: a rule without a condition holds for every call: no call can fail to match it; remove not_match, or give the rule a condition",
			Line: 2, Column: 24, Path: partial.Path{"tools", "t", "run", "0", "not_match"}, Hint: "remove not_match, or give the rule a condition",
		}}},
		{"an example that is no call", `run = [{ arg = "/path", prefix = "a", mode = "ask", match = ["a"] }]`, []layertest.Problem{{
			Err: `c.toml:2:62: tools.t.run.0.match.0: expected the arguments of a call, a table ({ path = "src/a.rs" }), found string "a"`, Line: 2, Column: 62, Path: partial.Path{"tools", "t", "run", "0", "match", "0"},
		}}},
		{"a list of the wrong type", `run = 3`, []layertest.Problem{{
			Err: "c.toml:2:7: tools.t.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found number 3", Line: 2, Column: 7, Path: partial.Path{"tools", "t", "run"},
		}}},
		// JP RFD D25's table of unreachable rules, each naming both.
		{"D25: a rule after a catch-all", `run = [{ mode = "ask" }, { arg = "/path", prefix = "src/", mode = "unattended" }]`, []layertest.Problem{{
			Err:  "c.toml:2:26: tools.t.run.1: this rule can never match: the earlier rule tools.t.run.0 (c.toml:2:8) takes every call it would (it holds for every call); " + why,
			Line: 2, Column: 26, Path: partial.Path{"tools", "t", "run", "1"}, Hint: why,
		}}},
		{"D25: a longer prefix after a shorter one", `run = [{ arg = "/path", prefix = "src/", mode = "unattended" }, { arg = "/path", prefix = "src/sensitive/", mode = "ask" }, { mode = "ask" }]`, []layertest.Problem{{
			Err:  `c.toml:2:65: tools.t.run.1: this rule can never match: the earlier rule tools.t.run.0 (c.toml:2:8) takes every call it would (every value of /path that prefix = "src/sensitive/" takes, prefix = "src/" takes first); ` + why,
			Line: 2, Column: 65, Path: partial.Path{"tools", "t", "run", "1"}, Hint: why,
		}}},
		{"D25: a const with the prefix", `run = [{ arg = "/path", prefix = "src/", mode = "unattended" }, { arg = "/path", const = "src/lib.rs", mode = "ask" }]`, []layertest.Problem{{
			Err:  `c.toml:2:65: tools.t.run.1: this rule can never match: the earlier rule tools.t.run.0 (c.toml:2:8) takes every call it would (every value of /path that const = "src/lib.rs" takes, prefix = "src/" takes first); ` + why,
			Line: 2, Column: 65, Path: partial.Path{"tools", "t", "run", "1"}, Hint: why,
		}}},
		{"D25: a const in an enum", `run = [{ arg = "/util", enum = ["jq", "wc"], mode = "unattended" }, { arg = "/util", const = "jq", mode = "ask" }]`, []layertest.Problem{{
			Err:  `c.toml:2:69: tools.t.run.1: this rule can never match: the earlier rule tools.t.run.0 (c.toml:2:8) takes every call it would (every value of /util that const = "jq" takes, enum = ["jq","wc"] takes first); ` + why,
			Line: 2, Column: 69, Path: partial.Path{"tools", "t", "run", "1"}, Hint: why,
		}}},
		{"D25: an enum within an enum", `run = [{ arg = "/util", enum = ["jq", "wc", "date"], mode = "unattended" }, { arg = "/util", enum = ["jq", "wc"], mode = "ask" }]`, []layertest.Problem{{
			Err:  `c.toml:2:77: tools.t.run.1: this rule can never match: the earlier rule tools.t.run.0 (c.toml:2:8) takes every call it would (every value of /util that enum = ["jq","wc"] takes, enum = ["jq","wc","date"] takes first); ` + why,
			Line: 2, Column: 77, Path: partial.Path{"tools", "t", "run", "1"}, Hint: why,
		}}},
		{"the same rule twice, in policy.result", `policy.result = [{ arg = "/path", prefix = ".env", mode = "unattended" }, { arg = "/path", prefix = ".env", mode = "skip" }]`, []layertest.Problem{{
			Err:  `c.toml:2:75: tools.t.policy.result.1: this rule can never match: the earlier rule tools.t.policy.result.0 (c.toml:2:18) takes every call it would (every value of /path that prefix = ".env" takes, prefix = ".env" takes first); ` + why,
			Line: 2, Column: 75, Path: partial.Path{"tools", "t", "policy", "result", "1"}, Hint: why,
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.src)
			for i := range tt.want {
				if !strings.Contains(tt.want[i].Err, "can never match") {
					tt.want[i].Snippet = tt.src // a problem of the reader shows its line
				}
			}
			if diff := cmp.Diff(tt.want, layertest.Problems(err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, e := range diag.All(err) {
				if e.Code == "" {
					t.Errorf("a problem without a code: %v", e)
				}
			}
		})
	}
}

// TestUnreachableNeedsTheSchema: a shadow that holds for a string and not
// for a path (src before src-old) is left to the tool's schema, which the
// catalog reads (package resolve); one that holds for both is found at
// load.
func TestUnreachableNeedsTheSchema(t *testing.T) {
	if _, err := load(t, `run = [{ arg = "/path", prefix = "src", mode = "unattended" }, { arg = "/path", prefix = "src-old", mode = "ask" }]`); err != nil {
		t.Errorf("a shadow of strings alone failed the load: %v", err)
	}
}

func TestRulesLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("run = [")
	for i := range config.MaxRules + 1 {
		fmt.Fprintf(&b, `{ arg = "/n", const = %d, mode = "ask" }, `, i)
	}
	b.WriteString("]")
	_, err := load(t, b.String())
	if !errorsIs(err, diag.CodeLimit) || !strings.Contains(fmt.Sprint(err), "1,001 rules, more than the limit of 1,000") {
		t.Errorf("a list past the limit: %v", err)
	}
}

func errorsIs(err error, code diag.Code) bool {
	for _, e := range diag.All(err) {
		if e.Code == code {
			return true
		}
	}
	return false
}

// TestRulesWriteBack: rules are written as a file writes them, and read
// back the same; a list of one plain catch-all is its mode.
func TestRulesWriteBack(t *testing.T) {
	src := `[tools.t]
run = [{ arg = "/a~1b", enum = ["x", 1, true], mode = "unattended", reason = "why", match = [{ "a/b" = "x" }], not_match = [{ "a/b" = "y" }] }, { arg = "/n", const = false, mode = "edit" }, { arg = "/n", exclusive_maximum = 2.5, mode = "skip" }, { mode = "ask" }]
result = "skip"
`
	p := layertest.MustDecode(t, "c.toml", src, partial.TOML)
	for _, f := range []partial.Format{partial.TOML, partial.JSON} {
		text, err := codec.Encode(&p, f)
		if err != nil {
			t.Fatal(err)
		}
		back := layertest.MustDecode(t, "back", string(text), f)
		if diff := cmp.Diff(p, back); diff != "" {
			t.Errorf("%s read back (-want +got):\n%s\n%s", f, diff, text)
		}
		if f == partial.TOML && !strings.Contains(string(text), `result = "skip"`) {
			t.Errorf("a mode alone is not written as one:\n%s", text)
		}
	}
}

// FuzzRule reads any value as a rule: never a panic, and a rule that reads
// writes back to itself.
func FuzzRule(f *testing.F) {
	for _, s := range []string{
		`"ask"`, `{"mode": "ask"}`, `{"arg": "/path", "prefix": "src/", "mode": "unattended", "reason": "r"}`,
		`{"arg": "/a~1b", "enum": ["x", 1, 2.5, true, {"k": [1]}], "mode": "skip", "match": [{"a/b": "x"}]}`,
		`{"arg": "/n", "exclusive_minimum": 1e300, "mode": "edit"}`, `{"arg": "/p", "pattern": "(", "mode": "ask"}`,
		`{"arg": "/p", "glob": "**/[", "mode": "ask"}`, `{"mode": "ask", "not_match": [{}]}`, `3`, `[]`, `{"arg": "x"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		v = partial.Normalize(v)
		var r config.RunRule
		if err := r.UnmarshalValue(v); err != nil {
			return
		}
		x, err := r.MarshalValue()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		var again config.RunRule
		if err := again.UnmarshalValue(partial.Normalize(back)); err != nil {
			t.Fatalf("%s wrote %s, which does not read: %v", s, b, err)
		}
		if !r.Equal(again) {
			t.Fatalf("%s wrote %s, which reads as another rule", s, b)
		}
	})
}

// TestPolicyGet: a tool without a policy namespace reads as the zero one,
// and what Get returns is a copy: changing it leaves the tool's as it was.
func TestPolicyGet(t *testing.T) {
	var none *config.Policy
	if diff := cmp.Diff(config.Policy{}, none.Get()); diff != "" {
		t.Errorf("nil policy (-want +got):\n%s", diff)
	}
	p := &config.Policy{Run: config.Always(config.RunAsk)}
	got := p.Get()
	got.Run = nil
	if len(p.Run) != 1 {
		t.Errorf("changing the copy changed the tool's policy: %v", p.Run)
	}
}
