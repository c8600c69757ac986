package policy_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
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

// TestParseDigest: a launch's sha256 is 64 hexadecimal digits, in either
// case, alone or after "sha256:" as a pin writes it; it reads as a pin
// writes it. Anything else fails the policy at its key, with how to
// compute the digest: the README's placeholder too, which once loaded and
// then matched no program.
func TestParseDigest(t *testing.T) {
	const hexDigits = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	hint := `write the SHA-256 of the program's content, as 64 hexadecimal digits: sha256sum "$(command -v npx)" prints them`
	// A key inside an array of tables is placed at the array's header, as
	// the package places a url there.
	problem := func(list, value string) *diag.Error {
		return &diag.Error{Code: diag.CodeInvalid, Source: "policy.toml", Line: 1, Column: 11, Path: []string{"servers", list, "0", "sha256"},
			Msg: fmt.Sprintf("%q is not a SHA-256 digest: 64 hexadecimal digits, alone or after sha256:", value), Hint: hint}
	}
	for _, c := range []struct {
		name, list, sha256 string
		want               string      // the digest read
		wantErr            *diag.Error // or the problem
	}{
		{name: "lower case", list: "allow", sha256: hexDigits, want: "sha256:" + hexDigits},
		{name: "upper case", list: "allow", sha256: strings.ToUpper(hexDigits), want: "sha256:" + hexDigits},
		{name: "as a pin writes it", list: "allow", sha256: "sha256:" + hexDigits, want: "sha256:" + hexDigits},
		{name: "as a pin writes it, upper case", list: "allow", sha256: "SHA256:" + strings.ToUpper(hexDigits), want: "sha256:" + hexDigits},
		{name: "in a deny list", list: "deny", sha256: strings.ToUpper(hexDigits), want: "sha256:" + hexDigits},
		{name: "the README's placeholder", list: "allow", sha256: "…", wantErr: problem("allow", "…")},
		{name: "not hexadecimal", list: "allow", sha256: "nothex", wantErr: problem("allow", "nothex")},
		{name: "63 digits", list: "allow", sha256: hexDigits[1:], wantErr: problem("allow", hexDigits[1:])},
		{name: "65 digits", list: "allow", sha256: hexDigits + "0", wantErr: problem("allow", hexDigits+"0")},
		{name: "a letter past f", list: "allow", sha256: hexDigits[1:] + "g", wantErr: problem("allow", hexDigits[1:]+"g")},
		{name: "a prefix and too few digits", list: "allow", sha256: "sha256:" + hexDigits[:8], wantErr: problem("allow", "sha256:"+hexDigits[:8])},
		{name: "another hash's prefix", list: "allow", sha256: "sha512:" + hexDigits, wantErr: problem("allow", "sha512:"+hexDigits)},
		{name: "a bad one in a deny list", list: "deny", sha256: "nothex", wantErr: problem("deny", "nothex")},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := fmt.Sprintf("[[servers.%s]]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]\nsha256 = %q\n", c.list, c.sha256)
			p, err := policy.Parse("policy.toml", []byte(text))
			if c.wantErr != nil {
				if diff := cmp.Diff(diag.Errors{c.wantErr}, err); diff != "" {
					t.Errorf("Parse's problem (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := append(p.Servers.Allow, p.Servers.Deny...)[0].SHA256
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("the digest read (-want +got):\n%s", diff)
			}
		})
	}
	// A source that is no file (a koanf provider) has the same check,
	// without a position.
	_, err := policy.FromMap("policy etcd", map[string]any{"servers": map[string]any{"allow": []any{map[string]any{"command": "npx", "sha256": "nothex"}}}})
	want := diag.Errors{&diag.Error{Code: diag.CodeInvalid, Source: "policy etcd", Path: []string{"servers", "allow", "0", "sha256"},
		Msg: `"nothex" is not a SHA-256 digest: 64 hexadecimal digits, alone or after sha256:`, Hint: hint}}
	if diff := cmp.Diff(want, err); diff != "" {
		t.Errorf("FromMap's problem (-want +got):\n%s", diff)
	}
}

// TestClampServerDigest: a server whose launch an allow entry names but
// for the program's digest is left out, and the reason says that the
// program's digest is not the policy's; the digest as a pin writes it,
// or in upper case, admits it as the bare one does.
func TestClampServerDigest(t *testing.T) {
	program := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(program, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("#!/bin/sh\nexit 0\n"))
	digest := hex.EncodeToString(sum[:])
	other := strings.Repeat("0", 64)
	for _, c := range []struct {
		name, policy string
		args         []string
		want         []string // the details of what is left out
	}{
		{name: "its digest", policy: digest, args: []string{"-v"}},
		{name: "its digest in upper case", policy: strings.ToUpper(digest), args: []string{"-v"}},
		{name: "its digest as a pin writes it", policy: "sha256:" + digest, args: []string{"-v"}},
		{name: "another digest", policy: other, args: []string{"-v"},
			want: []string{"mcp_servers.s servers.allow.0.sha256 at policy.toml:1:11: left out: its launch (" + program + " -v) is in the policy's allow list but for its digest: the program " + program + " is sha256:" + digest + ", not the policy's sha256:" + other}},
		{name: "another digest and other arguments", policy: other, args: []string{"-w"},
			want: []string{"mcp_servers.s servers.allow at policy.toml:1:11: left out: its launch (" + program + " -w) is not in the policy's allow list, which names servers by program, arguments and digest, or URL origin, never by their key"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := parse(t, fmt.Sprintf("[[servers.allow]]\ncommand = %q\nargs = [\"-v\"]\nsha256 = %q\n", program, c.policy))
			cfg := config.Config{MCPServers: config.MCPServers{"s": {Command: secret.Plain(program), Args: secret.Plains(c.args...)}}}
			got, clamps := policy.Set{p}.Clamp(cfg, os.Environ())
			var details []string
			for _, cl := range clamps {
				details = append(details, cl.Key.String()+" "+cl.Policy.String()+" at "+cl.At()+": "+cl.Detail)
			}
			if diff := cmp.Diff(c.want, details); diff != "" {
				t.Errorf("clamps (-want +got):\n%s", diff)
			}
			if got.MCPServers["s"].IsEnabled() != (len(c.want) == 0) {
				t.Errorf("enabled = %v, want %v", got.MCPServers["s"].IsEnabled(), len(c.want) == 0)
			}
		})
	}
}
