package policy_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/policy"
	"github.com/strata-config/strata/secret"
)

const soc2 = `reason = "SOC2"

[tools.'*']
run = ["ask", "skip"]

[[servers.allow]]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
`

func parse(t *testing.T, text string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse("policy.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClampModes: a mode outside the policy falls back to the nearest
// allowed one, with the policy's reason.
func TestClampModes(t *testing.T) {
	c := config.Default()
	c.Tools = config.Tools{config.EveryTool: {Run: config.Always(config.RunUnattended)}, "grep": {Run: config.RunRules{{Arg: "/path", Match: config.Matcher{Op: "prefix", Value: "src/"}, Mode: config.RunEdit}}}}
	got, clamps := policy.Set{parse(t, soc2)}.Clamp(c, nil)
	if m, _ := got.Tools[config.EveryTool].Run.Fixed(); m != config.RunAsk {
		t.Errorf("tools.'*'.run = %v, want ask", got.Tools[config.EveryTool].Run)
	}
	if r := got.Tools["grep"].Run; len(r) != 1 || r[0].Mode != config.RunAsk {
		t.Errorf("tools.grep.run = %v, want one rule of ask", r)
	}
	var keys []string
	for _, c := range clamps {
		keys = append(keys, c.Key.String()+" "+c.From+"->"+c.To+" "+c.Reason+" at "+c.At())
	}
	want := []string{`tools.'*'.run.0 unattended->ask SOC2 at policy.toml:4:1`, `tools.grep.run.0 edit->ask SOC2 at policy.toml:4:1`}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("clamps (-want +got):\n%s", diff)
	}
}

// TestClampKeepsPolicyNamespace: a tool's policy namespace is clamped in
// a copy; the config given, whose tools may share it with the defaults
// they were finalized from, keeps its own.
func TestClampKeepsPolicyNamespace(t *testing.T) {
	c := config.Default()
	pol := &config.Policy{Run: config.Always(config.RunUnattended)}
	c.Tools = config.Tools{"grep": {Policy: pol}}
	got, clamps := policy.Set{parse(t, soc2)}.Clamp(c, nil)
	if m, _ := got.Tools["grep"].Policy.Run.Fixed(); m != config.RunAsk {
		t.Errorf("tools.grep.policy.run = %v, want ask", got.Tools["grep"].Policy.Run)
	}
	if len(clamps) != 1 || clamps[0].Key.String() != "tools.grep.policy.run.0" {
		t.Errorf("clamps = %v, want tools.grep.policy.run.0", clamps)
	}
	if m, _ := pol.Run.Fixed(); m != config.RunUnattended || c.Tools["grep"].Policy != pol {
		t.Errorf("the config given was changed: tools.grep.policy.run = %v", c.Tools["grep"].Policy.Run)
	}
}

// TestClampImplicit: where ask is not allowed, the implicit rule after a
// list is written out as the nearest mode allowed.
func TestClampImplicit(t *testing.T) {
	c := config.Config{Tools: config.Tools{"grep": {Run: config.RunRules{{Arg: "/path", Match: config.Matcher{Op: "prefix", Value: "src/"}, Mode: config.RunUnattended}}}}}
	got, _ := policy.Set{parse(t, "[tools.grep]\nrun = [\"unattended\", \"skip\"]\n")}.Clamp(c, nil)
	r := got.Tools["grep"].Run
	if len(r) != 2 || r[1].Mode != config.RunSkip || !r[1].IsCatchAll() {
		t.Errorf("tools.grep.run = %v, want the rule and a catch-all skip", r)
	}
}

// TestClampServers: servers by launch identity, never by key.
func TestClampServers(t *testing.T) {
	npx := func(args ...string) config.MCPServer {
		return config.MCPServer{Command: secret.Plain("npx"), Args: secret.Plains(args...)}
	}
	c := config.Config{MCPServers: config.MCPServers{
		"renamed": npx("-y", "@modelcontextprotocol/server-filesystem", "."),
		"other":   npx("-y", "@modelcontextprotocol/server-everything"),
		"changed": npx("-y", "@modelcontextprotocol/server-filesystem", "/"),
		"remote":  {URL: secret.Plain("https://mcp.example.com/mcp")},
	}}
	got, clamps := policy.Set{parse(t, soc2)}.Clamp(c, os.Environ())
	for name, want := range map[string]bool{"renamed": true, "other": false, "changed": false, "remote": false} {
		if got.MCPServers[name].IsEnabled() != want {
			t.Errorf("%s enabled = %v, want %v", name, !want, want)
		}
	}
	if len(clamps) != 3 || !strings.Contains(clamps[0].Detail, "not in the policy's allow list") || clamps[0].Reason != "SOC2" {
		t.Errorf("clamps = %+v", clamps)
	}
	if c.MCPServers["other"].Enabled != nil {
		t.Error("Clamp changed its argument")
	}
	deny := parse(t, "[[servers.deny]]\nurl = \"https://MCP.example.com:443\"\nreason = \"not reviewed\"\n")
	got, clamps = policy.Set{deny}.Clamp(c, os.Environ())
	if got.MCPServers["remote"].IsEnabled() || !got.MCPServers["other"].IsEnabled() || len(clamps) != 1 || clamps[0].Reason != "not reviewed" {
		t.Errorf("deny by origin: %+v", clamps)
	}
}

// TestReadRefusesWorkspace: a workspace cannot provide a policy.
func TestReadRefusesWorkspace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(path, []byte(soc2), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := policy.FromFile(context.Background(), path, dir, false); err == nil || !strings.Contains(err.Error(), "inside the workspace") {
		t.Errorf("err = %v", err)
	}
	if p, err := policy.FromFile(context.Background(), path, t.TempDir(), false); err != nil || p == nil {
		t.Errorf("outside: %v", err)
	}
	if p, err := policy.FromFile(context.Background(), filepath.Join(dir, "none.toml"), "", true); p != nil || err != nil {
		t.Errorf("a missing optional file: %v %v", p, err)
	}
}

// TestParseErrors: an unknown key is positioned, with a did-you-mean.
func TestParseErrors(t *testing.T) {
	_, err := policy.Parse("policy.toml", []byte("[tools.'*']\nrnu = [\"ask\"]\n"))
	if err == nil || !strings.Contains(err.Error(), "did you mean run") || !strings.Contains(err.Error(), "policy.toml:2") {
		t.Errorf("err = %v", err)
	}
	_, err = policy.Parse("policy.toml", []byte("[tools.x.parameters.n]\nmaximun = 3\n"))
	if err == nil || !strings.Contains(err.Error(), "did you mean maximum") || !strings.Contains(err.Error(), "policy.toml:2") {
		t.Errorf("err = %v", err)
	}
	_, err = policy.Parse("policy.toml", []byte("[tools.'*']\nrun = [\"sometimes\"]\n"))
	if err == nil {
		t.Error("a mode that is none was read")
	}
}

// TestClampBounds: a policy's bounds of a parameter: set where no layer
// set one, a looser one falls back to the policy's, a tighter one stays;
// an enum is intersected; a pattern holds besides the parameter's own.
func TestClampBounds(t *testing.T) {
	p := parse(t, `reason = "change control"
[tools.edit.parameters.lines]
minimum = 1
maximum = 100
[tools.edit.parameters.mode]
enum = ["a", "b"]
[tools.edit.parameters.path]
pattern = '^src/'
max_length = 200
`)
	ten, thousand := 10.0, 1000.0
	c := config.Config{Tools: config.Tools{"edit": {Parameters: map[string]config.Parameter{
		"lines": {Maximum: &thousand, Minimum: &ten},
		"mode":  {Enum: []any{"b", "c"}},
		"path":  {Pattern: "^[a-z]"},
	}}}}
	got, clamps := policy.Set{p}.Clamp(c, nil)
	ps := got.Tools["edit"].Parameters
	if *ps["lines"].Maximum != 100 || *ps["lines"].Minimum != 10 {
		t.Errorf("lines: minimum %v, maximum %v; want 10 and 100", *ps["lines"].Minimum, *ps["lines"].Maximum)
	}
	if diff := cmp.Diff([]any{"b"}, ps["mode"].Enum); diff != "" {
		t.Errorf("mode's enum (-want +got):\n%s", diff)
	}
	if ps["path"].Pattern != "^[a-z]" || !slices.Equal(ps["path"].Bounded.Patterns, []string{"^src/"}) || *ps["path"].MaxLength != 200 {
		t.Errorf("path: %+v %+v", ps["path"], ps["path"].Bounded)
	}
	// Each bound is placed at its own key, not at the parameter's table.
	var ats []string
	for _, b := range []struct{ param, key string }{{"lines", "minimum"}, {"lines", "maximum"}, {"mode", "enum"}, {"path", "max_length"}, {"path", "pattern"}} {
		ats = append(ats, b.param+"."+b.key+" "+ps[b.param].Bounded.AtOf(b.key))
	}
	wantAts := []string{"lines.minimum policy.toml:3:1", "lines.maximum policy.toml:4:1", "mode.enum policy.toml:6:1", "path.max_length policy.toml:9:1", "path.pattern policy.toml:8:1"}
	if diff := cmp.Diff(wantAts, ats); diff != "" {
		t.Errorf("where the bounds are (-want +got):\n%s", diff)
	}
	var keys []string
	for _, c := range clamps {
		keys = append(keys, c.Key.String()+" "+c.From+"->"+c.To+" "+c.Reason)
	}
	want := []string{"tools.edit.parameters.lines.maximum 1000->100 change control", "tools.edit.parameters.mode.enum [b c]->[b] change control"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("clamps (-want +got):\n%s", diff)
	}
	if _, err := policy.Parse("p.toml", []byte("[tools.edit.parameters.x]\ndefault = 1\n")); err == nil || !strings.Contains(err.Error(), "does not set its default") {
		t.Errorf("a default in a policy: %v", err)
	}
}

// TestAdmitsTool: deny lists unite, allow lists intersect, over a tool's
// name or source.
func TestAdmitsTool(t *testing.T) {
	a := parse(t, "reason = \"r\"\nallow_tools = [\"mcp.files.*\", \"grep\"]\ndeny_tools = [\"mcp.files.delete_*\"]\n")
	b := parse(t, "allow_tools = [\"mcp.*.read_*\", \"mcp.files.write_file\"]\n")
	for _, c := range []struct {
		name, source string
		want         bool
	}{
		{"read_file", "mcp.files.read_file", true},
		{"write_file", "mcp.files.write_file", true},
		{"delete_file", "mcp.files.delete_file", false},
		{"grep", "local.grep", false}, // b's allow list leaves it out
		{"read_mail", "mcp.mail.read_mail", false},
	} {
		c2, ok := policy.Set{a, b}.AdmitsTool(c.name, c.source)
		if ok != c.want {
			t.Errorf("%s: admitted %v, want %v (%s)", c.name, ok, c.want, c2.Detail)
		}
	}
	if _, ok := (policy.Set{a}).AdmitsTool("grep", "local.grep"); !ok {
		t.Error("grep is in a's allow list")
	}
	if _, err := policy.Parse("p.toml", []byte("deny_tools = [\"[\"]\n")); err == nil {
		t.Error("a bad pattern was read")
	}
}

// TestReadmePolicies: every policy file of the README (a block fenced
// "toml policy") reads.
func TestReadmePolicies(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```toml policy\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no policy file")
	}
	for i, b := range blocks {
		if _, err := policy.Parse(fmt.Sprintf("README.md policy %d", i+1), b[1]); err != nil {
			t.Errorf("%v", err)
		}
	}
}
