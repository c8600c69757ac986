package resolve_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/resolve"
)

// jpFound is what discovery found for the policy tests: an MCP server
// with JP's fs_modify_file (RFD D25's example tool), a tool of utilities,
// and server-filesystem's write_file.
func jpFound() resolve.Found {
	tool := func(name, schema string) resolve.Discovered {
		return resolve.Discovered{Name: name, InputSchema: resolve.MustSchema(schema)}
	}
	return resolve.Found{Servers: map[string]map[string]resolve.Discovered{"jp": {
		"fs_modify_file": tool("fs_modify_file", `{"type":"object","properties":{
			"path":{"type":"string"},
			"patterns":{"type":"array","items":{"$ref":"#/$defs/pattern"}},
			"start_line":{"type":"integer"},
			"replace_using_regex":{"type":"boolean"}},
			"$defs":{"pattern":{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"},"paths":{"type":"array","items":{"type":"string"}}}}}}`),
		"run_util":   tool("run_util", `{"type":"object","properties":{"util":{"type":"string"},"args":{"type":"array","items":{"type":"string"}}}}`),
		"write_file": tool("write_file", `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
		"get_time":   tool("get_time", `{"type":"object","properties":{"zone":{"type":"string"}}}`),
	}}}
}

// build resolves layer (after the jp server's entry) against jpFound.
func build(t *testing.T, layer string) (*resolve.Catalog, error) {
	t.Helper()
	cfg, err := layerConfig("[mcp_servers.jp]\ncommand = \"jp\"\n" + layer)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return resolve.Build(cfg, jpFound())
}

// call decodes arguments as a call's are.
func call(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

const (
	anyMatcher = "use a matcher the argument's type takes: prefix, suffix, glob and pattern test strings; minimum, maximum, exclusive_minimum and exclusive_maximum numbers; const and enum any value"
	narrower   = "put the narrower rule first (the first rule that holds decides), or remove it"
	example    = "change the example or the rules: the first rule that holds decides (an example is the arguments of a call)"
)

// TestPolicyProblems: what only the tool's resolved schema can tell, at
// the rule that has it, with its code.
func TestPolicyProblems(t *testing.T) {
	tests := []struct {
		name     string
		layer    string
		errs     []string
		codes    []diag.Code
		warnings []string
		check    func(t *testing.T, c *resolve.Catalog)
	}{
		{
			name:  "an argument the tool does not have",
			layer: "[tools.fs_modify_file]\nrun = [{ arg = \"/paht\", prefix = \"src/\", mode = \"unattended\" }, \"ask\"]",
			errs:  []string{"config.toml:4:8: tools.fs_modify_file.run.0.arg: the tool has no parameter paht; did you mean /path?"},
			codes: []diag.Code{diag.CodeNotFound},
			check: func(t *testing.T, c *resolve.Catalog) {
				if _, ok := c.Tool("fs_modify_file"); ok {
					t.Error("a tool whose rule names no argument of it is in the catalog")
				}
			},
		},
		{
			name:  "a matcher of strings for a number",
			layer: "[tools.fs_modify_file]\nrun = [{ arg = \"/start_line\", prefix = \"1\", mode = \"ask\" }, \"ask\"]",
			errs:  []string{"config.toml:4:8: tools.fs_modify_file.run.0.prefix: prefix tests strings, and the argument is of type integer; " + anyMatcher},
			codes: []diag.Code{diag.CodeType},
		},
		{
			name:  "D25: const = true for a number",
			layer: "[tools.fs_modify_file]\nrun = [{ arg = \"/start_line\", const = true, mode = \"ask\" }, \"ask\"]",
			errs:  []string{"config.toml:4:8: tools.fs_modify_file.run.0.const: const true can never be the argument, which is of type integer; " + anyMatcher},
			codes: []diag.Code{diag.CodeType},
		},
		{
			name:  "an index in a pointer",
			layer: "[tools.fs_modify_file]\nrun = [{ arg = \"/patterns/0/paths\", prefix = \".env\", mode = \"ask\" }, \"ask\"]",
			errs:  []string{"config.toml:4:8: tools.fs_modify_file.run.0.arg: arrays are walked item by item: a pointer of a rule names no index (the tool has no parameter 0 inside /patterns); leave out the index: /patterns/paths tests the paths of every pattern"},
			codes: []diag.Code{diag.CodeType},
		},
		{
			name:  "a prefix of strings after a shorter one",
			layer: "[tools.fs_modify_file]\nrun = [{ arg = \"/path\", prefix = \"src\", mode = \"unattended\" }, { arg = \"/path\", prefix = \"src-old\", mode = \"ask\" }, \"ask\"]",
			errs:  []string{`config.toml:4:64: tools.fs_modify_file.run.1: this rule can never match: the earlier rule tools.fs_modify_file.run.0 (config.toml:4:8) takes every call it would (every value of /path that prefix = "src-old" takes, prefix = "src" takes first); ` + narrower},
			codes: []diag.Code{diag.CodeUnreachable},
		},
		{
			name:  "a prefix of paths is not one of its siblings",
			layer: "[tools.fs_modify_file]\nparameters.path.type = \"path\"\nrun = [{ arg = \"/path\", prefix = \"src\", mode = \"unattended\" }, { arg = \"/path\", prefix = \"src-old\", mode = \"ask\" }, \"ask\"]",
			check: func(t *testing.T, c *resolve.Catalog) {
				d, _ := c.Tool("fs_modify_file")
				if !d.Policy.Run.Rules[0].Path || !strings.Contains(d.InputSchema.String(), `"path":{"type":"string"}`) {
					t.Errorf("the path parameter: rule %+v, schema %s", d.Policy.Run.Rules[0], d.InputSchema)
				}
			},
		},
		{
			name: "examples that do not behave as written",
			layer: "[tools.fs_modify_file]\nrun = [{ arg = \"/path\", prefix = \".env\", mode = \"skip\" }, { arg = \"/path\", prefix = \"src/\", mode = \"unattended\", " +
				"match = [{ path = \"src/a\" }, { path = \".env\" }, { path = \"b\" }], not_match = [{ path = \"src/b\" }, { path = \"c\" }] }, \"ask\"]",
			errs: []string{
				`config.toml:4:59: tools.fs_modify_file.run.1.match.1: the example {"path":".env"} is not decided by this rule: its condition does not hold for it, and the rule tools.fs_modify_file.run.0 (config.toml:4:8) takes it; ` + example,
				`config.toml:4:59: tools.fs_modify_file.run.1.match.2: the example {"path":"b"} is not decided by this rule: its condition does not hold for it, and the rule tools.fs_modify_file.run.2 (config.toml:4:231) takes it; ` + example,
				`config.toml:4:59: tools.fs_modify_file.run.1.not_match.0: the example {"path":"src/b"} is one this rule's condition (/path prefix = "src/") holds for; ` + example,
			},
			codes: []diag.Code{diag.CodeExample, diag.CodeExample, diag.CodeExample},
		},
		{
			name:  "an example an earlier rule takes",
			layer: "[tools.fs_modify_file]\nrun = [{ arg = \"/path\", glob = \"src/*\", mode = \"ask\" }, { arg = \"/path\", prefix = \"src/\", mode = \"unattended\", match = [{ path = \"src/a\" }] }, \"ask\"]",
			errs:  []string{`config.toml:4:57: tools.fs_modify_file.run.1.match.0: the example {"path":"src/a"} is not decided by this rule: the earlier rule tools.fs_modify_file.run.0 (config.toml:4:8) takes it first; ` + example},
			codes: []diag.Code{diag.CodeExample},
		},
		{
			name:     "D25: no catch-all",
			layer:    "[tools.fs_modify_file]\nrun = [{ arg = \"/path\", prefix = \"src/\", mode = \"unattended\" }]",
			warnings: []string{`config.toml:4:8: tools.fs_modify_file.run: no rule holds for every call: a call no rule takes is asked (JP RFD D25's implicit { mode = "ask" }); end the list with a rule without a condition: { mode = "ask" } to say so`},
		},
		{
			name:     "D25: run and policy.run",
			layer:    "[tools.fs_modify_file]\nrun = \"unattended\"\npolicy.run = \"ask\"",
			warnings: []string{"config.toml:4:7: tools.fs_modify_file.run: ignored: tools.fs_modify_file.policy.run is set too, and takes its place (JP RFD D25); remove one of the two; policy.run is the place for rules"},
			check: func(t *testing.T, c *resolve.Catalog) {
				if d, _ := c.Tool("fs_modify_file"); d.Run.String() != "ask" {
					t.Errorf("run = %s, want policy.run's ask", d.Run)
				}
			},
		},
		{
			name:  "D25 open question 5: a default's argument the tool lacks",
			layer: "[tools.'*']\nrun = [{ arg = \"/path\", prefix = \".env\", mode = \"skip\" }]",
			check: func(t *testing.T, c *resolve.Catalog) {
				d, ok := c.Tool("get_time")
				if !ok {
					t.Fatal("get_time, which has no path, is left out")
				}
				want := []resolve.Skipped{{Key: []string{"tools", "*", "run", "0"}, At: config.Position{Source: "config.toml", Line: 4, Column: 8}, Why: "the tool has no parameter path"}}
				if diff := cmp.Diff(want, d.Policy.Run.Skipped); diff != "" {
					t.Errorf("skipped (-want +got):\n%s", diff)
				}
				if got := d.Policy.Run.Decide(call(t, `{"zone": "x"}`)); got.Mode != config.RunAsk || got.Rule == nil || got.Rule.Key.String() != "tools.'*'.run.1" {
					t.Errorf("get_time decided %+v, want the default ask", got)
				}
				w, _ := c.Tool("write_file")
				if got := w.Policy.Run.Decide(call(t, `{"path": ".env", "content": ""}`)); got.Mode != config.RunSkip {
					t.Errorf("write_file decided %s, want skip", got.Mode)
				}
			},
		},
		{
			name:     "a default's shadow for one tool's strings",
			layer:    "[tools.'*']\nrun = [{ arg = \"/path\", prefix = \"src\", mode = \"unattended\" }, { arg = \"/path\", prefix = \"src-old\", mode = \"ask\" }]",
			warnings: []string{"config.toml:4:64: tools.'*'.run.1: for fs_modify_file, this rule can never match: the earlier rule tools.'*'.run.0 (config.toml:4:8) takes every call it would (every value of /path that prefix = \"src-old\" takes, prefix = \"src\" takes first); " + narrower, "config.toml:4:64: tools.'*'.run.1: for write_file, this rule can never match: the earlier rule tools.'*'.run.0 (config.toml:4:8) takes every call it would (every value of /path that prefix = \"src-old\" takes, prefix = \"src\" takes first); " + narrower},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := build(t, tt.layer)
			if diff := cmp.Diff(tt.errs, errLines(err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			var codes []diag.Code
			for _, e := range diag.All(err) {
				codes = append(codes, e.Code)
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, errLines(c.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

// TestD25Examples loads each example of JP's RFD D25 and checks that it
// behaves as the RFD says: which rule decides each call, and with what
// mode. ("" as a rule is the implicit { mode = "ask" } after the rules.)
func TestD25Examples(t *testing.T) {
	type decided struct {
		args string
		mode string
		rule string
	}
	tests := []struct {
		name   string
		layer  string
		tool   string
		result bool // the result policy, rather than the run policy
		calls  []decided
	}{
		{
			name:  "the policy namespace",
			layer: "[tools.fs_modify_file.policy]\nrun = \"ask\"\nresult = \"unattended\"\n",
			tool:  "fs_modify_file",
			calls: []decided{{`{"path": "src/a.rs"}`, "ask", "tools.fs_modify_file.policy.run.0"}},
		},
		{
			name:   "the policy namespace's result",
			layer:  "[tools.fs_modify_file.policy]\nrun = \"ask\"\nresult = \"unattended\"\n",
			tool:   "fs_modify_file",
			result: true,
			calls:  []decided{{`{"path": "src/a.rs"}`, "unattended", "tools.fs_modify_file.policy.result.0"}},
		},
		{
			name:  "run as an alias of policy.run",
			layer: "[tools.fs_modify_file]\nrun = \"ask\"\n",
			tool:  "fs_modify_file",
			calls: []decided{{`{"path": "src/a.rs"}`, "ask", "tools.fs_modify_file.run.0"}},
		},
		{
			name:  "the policy namespace of the defaults",
			layer: "[tools.'*'.policy]\nrun = \"unattended\"\nresult = \"unattended\"\n",
			tool:  "write_file",
			calls: []decided{{`{"path": "a", "content": ""}`, "unattended", "tools.'*'.policy.run.0"}},
		},
		{
			name: "rules: first match wins",
			layer: `[tools.fs_modify_file.policy]
run = [
    { arg = "/path", prefix = "src/sensitive/", mode = "ask" },
    { arg = "/path", prefix = "src/", mode = "unattended" },
    { arg = "/path", prefix = ".env", mode = "ask" },
    { mode = "ask" },
]
`,
			tool: "fs_modify_file",
			calls: []decided{
				{`{"path": "src/sensitive/secret.rs"}`, "ask", "tools.fs_modify_file.policy.run.0"},
				{`{"path": "src/lib.rs"}`, "unattended", "tools.fs_modify_file.policy.run.1"},
				{`{"path": ".env"}`, "ask", "tools.fs_modify_file.policy.run.2"},
				{`{"path": "README.md"}`, "ask", "tools.fs_modify_file.policy.run.3"},
			},
		},
		{
			name: "conditions on a top-level and a nested argument, and a catch-all",
			layer: `[tools.fs_modify_file.policy]
run = [
    { arg = "/patterns/paths", prefix = ".env", mode = "ask" },
    { arg = "/path", prefix = "src/", mode = "unattended" },
    { mode = "ask" },
]
`,
			tool: "fs_modify_file",
			calls: []decided{
				// The RFD's array traversal example: .env is the second
				// pattern's path.
				{`{"patterns": [{"old": "foo", "new": "bar", "paths": ["src/a.rs"]}, {"old": "x", "new": "y", "paths": [".env"]}]}`, "ask", "tools.fs_modify_file.policy.run.0"},
				{`{"path": "src/a.rs", "patterns": [{"old": "foo", "new": "bar", "paths": ["src/a.rs"]}]}`, "unattended", "tools.fs_modify_file.policy.run.1"},
				{`{"path": "b"}`, "ask", "tools.fs_modify_file.policy.run.2"},
			},
		},
		{
			name: "matchers for any type",
			layer: `[tools.run_util.policy]
run = [
    { arg = "/util", const = "jq", mode = "ask" },
    { arg = "/util", enum = ["date", "wc", "head", "tail"], mode = "unattended" },
    { mode = "ask" },
]
`,
			tool: "run_util",
			calls: []decided{
				{`{"util": "jq"}`, "ask", "tools.run_util.policy.run.0"},
				{`{"util": "wc"}`, "unattended", "tools.run_util.policy.run.1"},
				{`{"util": "rm"}`, "ask", "tools.run_util.policy.run.2"},
			},
		},
		{
			name:  "const for a boolean",
			layer: "[tools.fs_modify_file.policy]\nrun = [{ arg = \"/replace_using_regex\", const = true, mode = \"ask\" }, { mode = \"unattended\" }]\n",
			tool:  "fs_modify_file",
			calls: []decided{
				{`{"replace_using_regex": true}`, "ask", "tools.fs_modify_file.policy.run.0"},
				{`{"replace_using_regex": false}`, "unattended", "tools.fs_modify_file.policy.run.1"},
			},
		},
		{
			name:  "matchers for strings: prefix and pattern",
			layer: "[tools.fs_modify_file.policy]\nrun = [{ arg = \"/path\", prefix = \"src/\", mode = \"unattended\" }, { arg = \"/patterns/old\", pattern = \"rm\\\\s+-rf\", mode = \"ask\" }, { mode = \"skip\" }]\n",
			tool:  "fs_modify_file",
			calls: []decided{
				{`{"path": "src/x"}`, "unattended", "tools.fs_modify_file.policy.run.0"},
				{`{"patterns": [{"old": "echo; rm  -rf /"}]}`, "ask", "tools.fs_modify_file.policy.run.1"},
				{`{"patterns": [{"old": "echo"}]}`, "skip", "tools.fs_modify_file.policy.run.2"},
			},
		},
		{
			name:  "matchers for numbers",
			layer: "[tools.fs_modify_file.policy]\nrun = [{ arg = \"/start_line\", minimum = 1000, mode = \"ask\" }, { mode = \"unattended\" }]\n",
			tool:  "fs_modify_file",
			calls: []decided{
				{`{"start_line": 1000}`, "ask", "tools.fs_modify_file.policy.run.0"},
				{`{"start_line": 999}`, "unattended", "tools.fs_modify_file.policy.run.1"},
			},
		},
		{
			name:  "the path type: a prefix by components",
			layer: "[tools.fs_modify_file]\nparameters.path.type = \"path\"\npolicy.run = [{ arg = \"/path\", prefix = \"src/\", mode = \"unattended\" }, { mode = \"ask\" }]\n",
			tool:  "fs_modify_file",
			calls: []decided{
				{`{"path": "src/lib.rs"}`, "unattended", "tools.fs_modify_file.policy.run.0"},
				{`{"path": "src-old/lib.rs"}`, "ask", "tools.fs_modify_file.policy.run.1"},
				{`{"path": "./src//a/../lib.rs"}`, "unattended", "tools.fs_modify_file.policy.run.0"},
				{`{"path": "src/../.env"}`, "ask", "tools.fs_modify_file.policy.run.1"},
			},
		},
		{
			name:  "a string's prefix is bytes (open question 3)",
			layer: "[tools.fs_modify_file.policy]\nrun = [{ arg = \"/path\", prefix = \"src\", mode = \"unattended\" }, { mode = \"ask\" }]\n",
			tool:  "fs_modify_file",
			calls: []decided{{`{"path": "src-old/lib.rs"}`, "unattended", "tools.fs_modify_file.policy.run.0"}},
		},
		{
			name:  "no catch-all: the implicit ask",
			layer: "[tools.fs_modify_file.policy]\nrun = [{ arg = \"/path\", prefix = \"src/\", mode = \"unattended\" }]\n",
			tool:  "fs_modify_file",
			calls: []decided{{`{"path": "README.md"}`, "ask", ""}},
		},
		{
			name:   "the result policy",
			layer:  "[tools.fs_modify_file.policy]\nresult = [{ arg = \"/path\", prefix = \".env\", mode = \"ask\" }, { mode = \"unattended\" }]\n",
			tool:   "fs_modify_file",
			result: true,
			calls: []decided{
				{`{"path": ".env"}`, "ask", "tools.fs_modify_file.policy.result.0"},
				{`{"path": "src/a"}`, "unattended", "tools.fs_modify_file.policy.result.1"},
			},
		},
		{
			name:  "rules of the defaults (open question 5)",
			layer: "[tools.'*'.policy]\nrun = [{ arg = \"/path\", prefix = \".env\", mode = \"skip\" }, { mode = \"unattended\" }]\n",
			tool:  "run_util",
			calls: []decided{{`{"util": ".env"}`, "unattended", "tools.'*'.policy.run.1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := build(t, tt.layer)
			if err != nil {
				t.Fatal(err)
			}
			d, ok := c.Tool(tt.tool)
			if !ok {
				t.Fatalf("no %s", tt.tool)
			}
			for _, want := range tt.calls {
				var mode, rule string
				if tt.result {
					got := d.Policy.Result.Decide(call(t, want.args))
					mode = string(got.Mode)
					if got.Rule != nil {
						rule = got.Rule.Key.String()
					}
				} else {
					got := d.Policy.Run.Decide(call(t, want.args))
					mode = string(got.Mode)
					if got.Rule != nil {
						rule = got.Rule.Key.String()
					}
				}
				if mode != want.mode || rule != want.rule {
					t.Errorf("%s: %s by %q, want %s by %q", want.args, mode, rule, want.mode, want.rule)
				}
			}
		})
	}
}
