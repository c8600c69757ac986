package policy_test

import (
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/policy"
	"github.com/strata-config/strata/secret"
)

// The laws of clamping (issue 37), on configs and policies of any shape:
// the final config is inside every policy; clamping twice is clamping
// once; adding a policy layer never widens anything.

var (
	runModes    = []string{"unattended", "edit", "ask", "skip"}
	resultModes = []string{"unattended", "edit", "ask", "skip"}
	toolNames   = []string{config.EveryTool, "a", "b"}
	launches    = []policy.Launch{
		{Command: "sh", Args: []string{"-c", "x"}},
		{Command: "sh", Args: []string{"-c", "y"}},
		{Command: "true"},
		{URL: "https://a.example.com/mcp"},
		{URL: "https://b.example.com:8443/mcp"},
	}
)

func drawRules[M config.Mode](t *rapid.T, label string, modes []string) config.Rules[M] {
	n := rapid.IntRange(0, 3).Draw(t, label+" count")
	var rs config.Rules[M]
	for i := range n {
		r := config.Rule[M]{Mode: M(rapid.SampledFrom(modes).Draw(t, label+" mode"))}
		if rapid.Bool().Draw(t, label+" conditional") || i < n-1 {
			r.Arg, r.Match = "/path", config.Matcher{Op: "prefix", Value: rapid.SampledFrom([]string{"src/", ".env"}).Draw(t, label+" prefix")}
		}
		rs = append(rs, r)
	}
	return rs
}

func drawConfig(t *rapid.T) config.Config {
	c := config.Config{Tools: config.Tools{}, MCPServers: config.MCPServers{}}
	for _, name := range toolNames {
		if !rapid.Bool().Draw(t, "has "+name) {
			continue
		}
		var tool config.Tool
		tool.Run = drawRules[config.RunMode](t, name+" run", runModes)
		tool.Result = drawRules[config.ResultMode](t, name+" result", resultModes)
		if rapid.Bool().Draw(t, name+" policy") {
			tool.Policy = &config.Policy{Run: drawRules[config.RunMode](t, name+" policy.run", runModes)}
		}
		if rapid.Bool().Draw(t, name+" parameter") {
			tool.Parameters = map[string]config.Parameter{"n": drawParameter(t, name+" n")}
		}
		c.Tools[name] = tool
	}
	for i, l := range launches {
		if !rapid.Bool().Draw(t, "server") {
			continue
		}
		srv := config.MCPServer{Command: secret.Plain(l.Command), Args: secret.Plains(l.Args...), URL: secret.Plain(l.URL)}
		c.MCPServers[string(rune('p'+i))] = srv
	}
	return c
}

// drawParameter draws bounds of a parameter: a minimum, a maximum, a
// max_length, an enum, a pattern, each or not.
func drawParameter(t *rapid.T, label string) config.Parameter {
	var q config.Parameter
	if rapid.Bool().Draw(t, label+" min") {
		x := float64(rapid.IntRange(-5, 5).Draw(t, label+" minimum"))
		q.Minimum = &x
	}
	if rapid.Bool().Draw(t, label+" max") {
		x := float64(rapid.IntRange(-5, 5).Draw(t, label+" maximum"))
		q.Maximum = &x
	}
	if rapid.Bool().Draw(t, label+" len") {
		x := rapid.IntRange(0, 5).Draw(t, label+" max_length")
		q.MaxLength = &x
	}
	if rapid.Bool().Draw(t, label+" enum") {
		q.Enum = []any{}
		for _, v := range []string{"x", "y", "z"} {
			if rapid.Bool().Draw(t, label+" enum "+v) {
				q.Enum = append(q.Enum, v)
			}
		}
	}
	if rapid.Bool().Draw(t, label+" pattern") {
		q.Pattern = rapid.SampledFrom([]string{"^a", "^b"}).Draw(t, label+" pattern")
	}
	return q
}

// boundsInside fails t where the parameter n of tool name is not inside
// the bounds of every policy of set.
func boundsInside(t *rapid.T, set policy.Set, c config.Config, name string) {
	q := c.Tools[name].Parameters["n"]
	for _, p := range set {
		b, ok := p.Tools[name].Parameters["n"]
		if !ok {
			continue
		}
		switch {
		case b.Minimum != nil && (q.Minimum == nil || *q.Minimum < *b.Minimum):
			t.Fatalf("tools.%s n's minimum %v is below the policy's %v", name, q.Minimum, *b.Minimum)
		case b.Maximum != nil && (q.Maximum == nil || *q.Maximum > *b.Maximum):
			t.Fatalf("tools.%s n's maximum %v is above the policy's %v", name, q.Maximum, *b.Maximum)
		case b.MaxLength != nil && (q.MaxLength == nil || *q.MaxLength > *b.MaxLength):
			t.Fatalf("tools.%s n's max_length %v is above the policy's %v", name, q.MaxLength, *b.MaxLength)
		case b.Pattern != "" && q.Pattern != b.Pattern && (q.Bounded == nil || !slices.Contains(q.Bounded.Patterns, b.Pattern)):
			t.Fatalf("tools.%s n's patterns leave out the policy's %s", name, b.Pattern)
		}
		if b.Enum != nil {
			if q.Enum == nil {
				t.Fatalf("tools.%s n has no enum, the policy's is %v", name, b.Enum)
			}
			for _, v := range q.Enum {
				if !slices.Contains(b.Enum, v) {
					t.Fatalf("tools.%s n's enum %v leaves the policy's %v", name, q.Enum, b.Enum)
				}
			}
		}
	}
}

func drawSet(t *rapid.T, label string, modes []string) []string {
	if rapid.Bool().Draw(t, label+" set") {
		return nil
	}
	var out []string
	for _, m := range modes {
		if rapid.Bool().Draw(t, label+" "+m) {
			out = append(out, m)
		}
	}
	return out
}

func drawPolicy(t *rapid.T, n int) *policy.Policy {
	p := &policy.Policy{Source: "policy" + string(rune('0'+n)), Reason: "r", Tools: map[string]policy.Tools{}}
	for _, name := range toolNames {
		if !rapid.Bool().Draw(t, "constrains "+name) {
			continue
		}
		var tl policy.Tools
		for _, m := range drawSet(t, name+" run", runModes) {
			tl.Run = append(tl.Run, config.RunMode(m))
		}
		for _, m := range drawSet(t, name+" result", resultModes) {
			tl.Result = append(tl.Result, config.ResultMode(m))
		}
		if tl.Run == nil && rapid.Bool().Draw(t, "empty run") {
			tl.Run = []config.RunMode{}
		}
		if name != config.EveryTool && rapid.Bool().Draw(t, name+" bounds") {
			tl.Parameters = map[string]config.Parameter{"n": drawParameter(t, name+" bounds n")}
		}
		p.Tools[name] = tl
	}
	if rapid.Bool().Draw(t, "allow list") {
		p.Servers.Allow = []policy.Launch{}
		for _, l := range launches {
			if rapid.Bool().Draw(t, "allow") {
				p.Servers.Allow = append(p.Servers.Allow, l)
			}
		}
	}
	for _, l := range launches {
		if rapid.IntRange(0, 4).Draw(t, "deny") == 0 {
			p.Servers.Deny = append(p.Servers.Deny, l)
		}
	}
	return p
}

func drawPolicies(t *rapid.T) policy.Set {
	n := rapid.IntRange(1, 3).Draw(t, "policies")
	set := make(policy.Set, n)
	for i := range set {
		set[i] = drawPolicy(t, i)
	}
	return set
}

// allows reports whether every policy of set allows mode for the tool
// name (field run or result); an empty common set allows only skip.
func allows(set policy.Set, name, field, mode string) bool {
	common := []string{"unattended", "edit", "ask", "skip"}
	for _, p := range set {
		for _, entry := range []string{config.EveryTool, name} {
			t, ok := p.Tools[entry]
			if !ok {
				continue
			}
			var s []string
			switch {
			case field == "run" && t.Run != nil:
				for _, m := range t.Run {
					s = append(s, string(m))
				}
			case field == "result" && t.Result != nil:
				for _, m := range t.Result {
					s = append(s, string(m))
				}
			default:
				continue
			}
			common = slices.DeleteFunc(common, func(m string) bool { return !slices.Contains(s, m) })
		}
	}
	if len(common) == 0 {
		return mode == "skip"
	}
	return slices.Contains(common, mode)
}

// inside fails t where c leaves a policy of set: a mode a tool may get
// (a rule's, or the implicit ask after rules that may all fail), or a
// server that starts.
//
// With more, a config clamped with more policies than set, skip counts
// as inside too: it runs nothing, the result of policies that allow no
// common mode.
func inside(t *rapid.T, set policy.Set, c config.Config, more bool) {
	allows := func(set policy.Set, name, field, mode string) bool {
		return allows(set, name, field, mode) || more && mode == "skip"
	}
	for _, name := range toolNames {
		e := config.EffectiveTool{Name: name, Tool: c.Tools[name]}
		if name != config.EveryTool {
			e.Inherited = c.Tools[config.EveryTool]
		}
		check := func(field string, modes []string) {
			for _, m := range modes {
				if !allows(set, name, field, m) {
					t.Fatalf("tools.%s.%s gives %q, outside the policies", name, field, m)
				}
			}
		}
		runs, _ := e.RunRules()
		check("run", modeList(runs))
		if !slices.ContainsFunc(runs, func(r config.RunRule) bool { return r.IsCatchAll() }) && !allows(set, name, "run", "ask") {
			t.Fatalf("tools.%s.run ends in the implicit ask, outside the policies: %v", name, runs)
		}
		results, _ := e.ResultRules()
		check("result", modeList(results))
		if !slices.ContainsFunc(results, func(r config.ResultRule) bool { return r.IsCatchAll() }) && !allows(set, name, "result", "ask") {
			t.Fatalf("tools.%s.result ends in the implicit ask, outside the policies: %v", name, results)
		}
	}
	for _, name := range toolNames[1:] {
		boundsInside(t, set, c, name)
	}
	for name, srv := range c.MCPServers {
		if !srv.IsEnabled() {
			continue
		}
		_, clamps := set.Clamp(config.Config{MCPServers: config.MCPServers{name: srv}}, os.Environ())
		for _, c := range clamps {
			if c.Key[0] == "mcp_servers" {
				t.Fatalf("server %s starts, outside the policies: %s", name, c.Detail)
			}
		}
	}
}

func modeList[M config.Mode](rs config.Rules[M]) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Mode))
	}
	return out
}

// TestLawClampInside: the final config is inside every policy.
func TestLawClampInside(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		set := drawPolicies(t)
		got, _ := set.Clamp(drawConfig(t), os.Environ())
		inside(t, set, got, false)
	})
}

// TestLawClampIdempotent: clamping twice equals clamping once, and the
// second clamps nothing.
func TestLawClampIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		set := drawPolicies(t)
		once, _ := set.Clamp(drawConfig(t), os.Environ())
		twice, clamps := set.Clamp(once, os.Environ())
		if diff := cmp.Diff(once, twice); diff != "" {
			t.Fatalf("clamping again changed the config (-once +twice):\n%s", diff)
		}
		if len(clamps) > 0 {
			t.Fatalf("clamping again clamped %v", clamps)
		}
	})
}

// TestLawClampNeverWidens: with one more policy layer, the config is
// still inside every policy of the others (or skip, where the policies
// together allow no mode: it runs nothing), and no server starts that did
// not without it.
func TestLawClampNeverWidens(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		set := drawPolicies(t)
		c := drawConfig(t)
		fewer, _ := set.Clamp(c, os.Environ())
		more, _ := append(slices.Clone(set), drawPolicy(t, 9)).Clamp(c, os.Environ())
		inside(t, set, more, true)
		for name, srv := range more.MCPServers {
			if srv.IsEnabled() && !fewer.MCPServers[name].IsEnabled() {
				t.Fatalf("server %s starts only with one more policy", name)
			}
		}
	})
}
