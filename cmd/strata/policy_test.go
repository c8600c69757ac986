package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/protocol"
)

// Policy (issue 37): server-filesystem's write_file and JP's
// fs_modify_file under the same run policy (fixtures/policy): .env is
// skipped with a reason, src/ runs unattended, everything else asks.

// policyWorkspace copies fixtures/policy into a new directory, beside
// links to fixtures/mcp and fixtures/workspace (which its relative paths
// name), and returns the copy's root and an environment of the test's.
func policyWorkspace(t *testing.T) (root string, environ []string) {
	t.Helper()
	requireNode(t)
	dir := t.TempDir()
	root = filepath.Join(dir, "policy")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(repoRoot, "fixtures/policy"))); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mcp", "workspace"} {
		if err := os.Symlink(filepath.Join(repoRoot, "fixtures", name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	return root, environ
}

// policyCall is one call of the done-when scenario.
type policyCall struct {
	name, tool, args string
}

// policyCalls are the six calls: each tool, in src/, .env and README.md.
var policyCalls = []policyCall{
	{"write_file in src", "write_file", `{"path": "src/a.txt", "content": "written\n"}`},
	{"fs_modify_file in src", "fs_modify_file", `{"path": "src/a.txt", "start_line": 1, "end_line": 1, "content": "modified"}`},
	{"write_file of .env", "write_file", `{"path": ".env", "content": "TOKEN=stolen\n"}`},
	{"fs_modify_file of .env", "fs_modify_file", `{"path": ".env", "start_line": 1, "end_line": 1, "content": "TOKEN=stolen"}`},
	{"write_file of README.md", "write_file", `{"path": "README.md", "content": "gone\n"}`},
	{"fs_modify_file of README.md", "fs_modify_file", `{"path": "README.md", "start_line": 1, "end_line": 1, "content": "gone"}`},
}

// read returns the text of a file of the workspace.
func read(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPolicyDryRunGolden: strata call --dry-run prints a call's decision
// and runs nothing, with an exit status for each outcome.
func TestPolicyDryRunGolden(t *testing.T) {
	root, environ := policyWorkspace(t)
	dir := filepath.Dir(root)
	run := func(name string, args ...string) {
		t.Helper()
		stdout, stderr, code := strataIn(t, root, environ, append([]string{"call", "--trust", "--dry-run"}, args...)...)
		golden(t, name, result{code: code, stdout: strings.ReplaceAll(stdout, dir, "<dir>"), stderr: strings.ReplaceAll(stderr, dir, "<dir>")})
	}
	run("policy-dry-run-allowed", "write_file", `{"path": "src/a.txt", "content": "x"}`)
	run("policy-dry-run-asked", "write_file", `{"path": "README.md", "content": "x"}`)
	run("policy-dry-run-skipped", "fs_modify_file", `{"path": "./src/../.env", "start_line": 1, "end_line": 1, "content": "x"}`)
	run("policy-dry-run-bound-refused", "fs_modify_file", `{"path": "src/a.txt", "start_line": 0, "end_line": 1, "content": "x"}`)
	run("policy-dry-run-unknown", "write_fil", `{}`)
	// A policy layer, outside the workspace, allows write_file no mode
	// but skip: the workspace's rules are clamped to it; and it bounds
	// fs_modify_file's end_line, which the config does not bound.
	org := filepath.Join(dir, "org-policy.toml")
	if err := os.WriteFile(org, []byte("[tools.write_file]\nrun = [\"skip\"]\nreason = \"writes go through review\"\n\n"+
		"[tools.fs_modify_file]\nreason = \"change control\"\nparameters.end_line.maximum = 100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run("policy-dry-run-policy-refused", "--policy", org, "write_file", `{"path": "src/a.txt", "content": "x"}`)
	run("policy-dry-run-policy-bound-refused", "--policy", org, "fs_modify_file", `{"path": "src/a.txt", "start_line": 1, "end_line": 500, "content": "x"}`)
	deny := filepath.Join(dir, "deny-policy.toml")
	if err := os.WriteFile(deny, []byte("reason = \"no writes\"\ndeny_tools = [\"mcp.fs.write_*\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run("policy-dry-run-policy-left-out", "--policy", deny, "write_file", `{"path": "src/a.txt", "content": "x"}`)
	// The lock holds a tool back once its definition changed.
	if _, stderr, code := strataIn(t, root, environ, "lock", "--trust"); code != 0 {
		t.Fatalf("strata lock: %s", stderr)
	}
	run("policy-dry-run-lock-held", "--cfg", "tools.fs_modify_file.summary=Replace some lines.", "fs_modify_file", `{"path": "src/a.txt", "start_line": 1, "end_line": 1, "content": "x"}`)
	for name, want := range map[string]string{"src/a.txt": "one\n", ".env": "TOKEN=not-a-secret\n", "README.md": "# A project\n"} {
		if got := read(t, root, name); got != want {
			t.Errorf("a dry run changed %s: %q", name, got)
		}
	}
}

// TestPolicyCall: strata call without a terminal runs what src/ holds
// without --yes, refuses .env naming the rule's place and reason, and
// refuses README.md without --yes; through strata serve, the same three
// with a real MCP client (a tool error, or an elicitation for ask), each
// result's _meta holding the decision that strata call --dry-run prints.
func TestPolicyCall(t *testing.T) {
	t.Parallel()
	root, environ := policyWorkspace(t)
	const config = ".strata/config.toml" // as messages print it, relative to where strata runs
	if _, stderr, code := strataIn(t, root, environ, "config", "--trust", "--check"); code != 0 {
		t.Fatalf("strata config --check: %s", stderr)
	}
	t.Run("strata call", func(t *testing.T) {
		for _, c := range policyCalls {
			stdout, stderr, code := strataIn(t, root, environ, "call", "--trust", c.tool, c.args)
			switch {
			case strings.Contains(c.args, "src/"):
				if code != 0 || stderr != "" {
					t.Errorf("%s: exit %d, %s%s", c.name, code, stdout, stderr)
				}
			case strings.Contains(c.args, ".env"):
				policy := "tools." + c.tool + ".policy.run.0"
				want := fmt.Sprintf("strata: call %s: not run: the rule %s (%s:%d:3) says skip: secrets stay out of the model's reach; strata call --dry-run shows the decision; change the rule to run it\n",
					c.tool, policy, config, map[string]int{"write_file": 17, "fs_modify_file": 38}[c.tool])
				if code != 1 || stderr != want {
					t.Errorf("%s: exit %d, stderr:\n%s\nwant:\n%s", c.name, code, stderr, want)
				}
			default:
				want := fmt.Sprintf("strata: call %s: not run: the rule tools.%s.policy.run.2 (%s:%d:3) says ask, so strata asks first, and stdin is not a terminal; pass --yes to run it, or set run = \"unattended\" under [tools.%s] (or a rule that says unattended before the one that asks)\n",
					c.tool, c.tool, config, map[string]int{"write_file": 19, "fs_modify_file": 40}[c.tool], c.tool)
				if code != 1 || stdout != "" || stderr != want {
					t.Errorf("%s: exit %d, %s, stderr:\n%s\nwant:\n%s", c.name, code, stdout, stderr, want)
				}
			}
		}
		if got := read(t, root, "src/a.txt"); got != "modified\n" {
			t.Errorf("src/a.txt is %q: the calls in src/ did not both run", got)
		}
		if got := read(t, root, ".env"); got != "TOKEN=not-a-secret\n" {
			t.Errorf(".env was written: %q", got)
		}
		if got := read(t, root, "README.md"); got != "# A project\n" {
			t.Errorf("README.md was written: %q", got)
		}
	})

	t.Run("strata serve", func(t *testing.T) {
		for _, elicit := range []bool{false, true} {
			if err := os.WriteFile(filepath.Join(root, "src/a.txt"), []byte("one\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var asked []string
			opts := &mcp.ClientOptions{}
			if elicit {
				opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"run": true}}, nil
				}
			}
			cmd := exec.Command(strataBin, "serve", "--trust")
			cmd.Dir, cmd.Env = root, environ
			var stderr strings.Builder
			cmd.Stderr = &stderr
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "policy-test", Version: "1"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				cancel()
				t.Fatalf("%v; stderr:\n%s", err, stderr.String())
			}
			for _, c := range policyCalls {
				if elicit && !strings.Contains(c.args, "README") {
					continue // a client that elicits changes only what asks
				}
				var args map[string]any
				if err := json.Unmarshal([]byte(c.args), &args); err != nil {
					t.Fatal(err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: args})
				if err != nil {
					t.Fatalf("%s: %v; stderr:\n%s", c.name, err, stderr.String())
				}
				text := res.Content[0].(*mcp.TextContent).Text
				switch {
				case strings.Contains(c.args, "src/"), elicit:
					if res.IsError {
						t.Errorf("%s (elicitation %v): a tool error: %s", c.name, elicit, text)
					}
				case strings.Contains(c.args, ".env"):
					if !res.IsError || !strings.Contains(text, "was not run: the config says skip (tools."+c.tool+".policy.run.0: secrets stay out of the model's reach)") {
						t.Errorf("%s: isError %v, %s", c.name, res.IsError, text)
					}
				default:
					if want := "not run: its run mode is \"ask\", so strata asks the user first, and this client cannot be asked (it declared no elicitation) (tools." + c.tool + ".policy.run.2)"; !res.IsError || !strings.Contains(text, want) {
						t.Errorf("%s: isError %v, %s\nwant it to hold %s", c.name, res.IsError, text, want)
					}
				}
				// The decision the client gets is the one strata call
				// --dry-run prints.
				stdout, _, _ := strataIn(t, root, environ, "call", "--trust", "--dry-run", c.tool, c.args)
				var want, got any
				if err := json.Unmarshal([]byte(stdout), &want); err != nil {
					t.Fatalf("%s: the dry run printed %q: %v", c.name, stdout, err)
				}
				b, _ := json.Marshal(res.Meta[protocol.MetaDecision])
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: the _meta decision differs from the dry run's (-dry-run +_meta):\n%s", c.name, diff)
				}
			}
			cs.Close()
			cancel()
			if elicit {
				if len(asked) != 2 || read(t, root, "README.md") != "gone\n" {
					t.Errorf("elicitation: asked %q, README.md %q", asked, read(t, root, "README.md"))
				}
				continue
			}
			if read(t, root, "src/a.txt") != "modified\n" || read(t, root, ".env") != "TOKEN=not-a-secret\n" || read(t, root, "README.md") != "# A project\n" {
				t.Errorf("files after serve: src/a.txt %q, .env %q, README.md %q", read(t, root, "src/a.txt"), read(t, root, ".env"), read(t, root, "README.md"))
			}
		}
	})
}

// TestPolicyLoadErrors: a rule after a broader one that can never match
// fails strata config, naming both; an example that does not behave as
// written fails the catalog (strata config --check, resolve, call, serve).
func TestPolicyLoadErrors(t *testing.T) {
	t.Parallel()
	root, environ := policyWorkspace(t)
	dir := filepath.Dir(root)
	layer := filepath.Join(root, ".strata.toml")
	for _, c := range []struct {
		name, layer string
		args        []string
	}{
		{"policy-unreachable", "[tools.write_file]\npolicy.run = [{ arg = \"/path\", prefix = \"src/\", mode = \"ask\" }, { arg = \"/path\", prefix = \"src/gen/\", mode = \"skip\" }]\n", []string{"config", "--trust"}},
		{"policy-not-match", "[tools.write_file]\npolicy.run = [{ arg = \"/path\", prefix = \"docs/\", mode = \"ask\", not_match = [{ path = \"./docs/b\" }] }]\n", []string{"config", "--trust", "--check"}},
	} {
		if err := os.WriteFile(layer, []byte(c.layer), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := strataIn(t, root, environ, c.args...)
		if c.name == "policy-not-match" {
			stdout = "" // the count of tools
		}
		golden(t, c.name, result{code: code, stdout: stdout, stderr: strings.ReplaceAll(stderr, dir, "<dir>")})
	}
}

// TestPolicyLayer: the done-when scenario of the policy layer (issue
// 37). A policy file allows run modes ask and skip for every tool (reason
// SOC2) and one server by what it launches: the user's run = "unattended"
// resolves to ask, with the policy in config --explain; the allowed server
// starts under another name; another server is left out with the reason;
// the allowed server with other arguments is refused.
func TestPolicyLayer(t *testing.T) {
	t.Parallel()
	requireNode(t)
	dir := t.TempDir()
	home, work, data := filepath.Join(dir, "home"), filepath.Join(dir, "work"), filepath.Join(dir, "data")
	for _, d := range []string{filepath.Join(home, "strata"), work, data} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	fs := filepath.Join(repoRoot, "fixtures/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	everything := filepath.Join(repoRoot, "fixtures/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	org := filepath.Join(dir, "policy.toml")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(org, fmt.Sprintf("reason = \"SOC2\"\n\n[tools.'*']\nrun = [\"ask\", \"skip\"]\n\n[[servers.allow]]\ncommand = \"node\"\nargs = [%q, %q]\n", fs, data))
	write(filepath.Join(home, "strata", "config.toml"), fmt.Sprintf(`[tools.'*']
run = "unattended"

[mcp_servers.files]   # the allowed server, under a name of the user's
command = "node"
args = [%q, %q]
expose = ["write_file"]

[mcp_servers.everything]
command = "node"
args = [%q]

[mcp_servers.wide]    # the allowed server's program, with other arguments
command = "node"
args = [%q, "/"]
`, fs, data, everything, fs))
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata"), "STRATA_POLICY=" + org}

	stdout, stderr, code := strataIn(t, work, environ, "config", "--explain", "tools.'*'.run")
	if code != 0 {
		t.Fatalf("config --explain: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`tools.'*'.run = "ask"`, `set "unattended"`, "policy    " + org + ":4:1: tools.'*'.run clamps tools.'*'.run.0: \"unattended\" falls back to \"ask\"", "(SOC2)  <- wins"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("config --explain lacks %q:\n%s", want, stdout)
		}
	}

	stdout, stderr, code = strataIn(t, work, environ, "resolve")
	if code != 0 {
		t.Fatalf("resolve: exit %d: %s", code, stderr)
	}
	var cat struct {
		Tools []struct{ Name, Source, Run string }
	}
	if err := json.Unmarshal([]byte(stdout), &cat); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range cat.Tools {
		got = append(got, tool.Name+" "+tool.Source+" "+tool.Run)
	}
	if diff := cmp.Diff([]string{"write_file mcp.files ask"}, got); diff != "" {
		t.Errorf("the catalog (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"mcp_servers.everything: left out: its launch (node " + everything + ") is not in the policy's allow list",
		"mcp_servers.wide: left out: its launch (node " + fs + " /) is not in the policy's allow list",
		"(SOC2)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("resolve's warnings lack %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "mcp_servers.files: left out") {
		t.Errorf("the allowed server, renamed, was left out:\n%s", stderr)
	}

	// A second policy only narrows: its deny list leaves write_file out.
	deny := filepath.Join(dir, "deny.toml")
	write(deny, "reason = \"no writes\"\ndeny_tools = [\"mcp.files.write_*\"]\n")
	stdout, stderr, code = strataIn(t, work, environ, "resolve", "--policy", deny)
	if code != 0 || strings.Contains(stdout, "write_file") || !strings.Contains(stderr, "tools.write_file: left out: the policy's deny_tools \"mcp.files.write_*\" matches it (mcp.files.write_file) (no writes)") {
		t.Errorf("resolve with a deny list: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// --strict: a value outside the policy is an error.
	if _, stderr, code := strataIn(t, work, environ, "resolve", "--strict"); code != 1 || !strings.Contains(stderr, "strata: "+org+":4:1: tools.'*'.run: tools.'*'.run.0: \"unattended\" is outside the policy") {
		t.Errorf("resolve --strict: exit %d:\n%s", code, stderr)
	}
	// A workspace cannot provide a policy.
	inside := filepath.Join(work, "policy.toml")
	write(inside, "[tools.'*']\nrun = [\"unattended\"]\n")
	if _, stderr, code := strataIn(t, work, environ, "config", "--policy", inside); code != 1 || !strings.Contains(stderr, "a policy file inside the workspace") {
		t.Errorf("a policy in the workspace: exit %d:\n%s", code, stderr)
	}
}

// TestPolicyLayerServe: through strata serve, a call a policy layer
// refuses (a mode clamped to skip, an argument past a policy's bound) is
// a tool error that names the policy, and the decision in the result's
// _meta is the one strata call --dry-run prints.
func TestPolicyLayerServe(t *testing.T) {
	t.Parallel()
	root, environ := policyWorkspace(t)
	org := filepath.Join(filepath.Dir(root), "org-policy.toml")
	if err := os.WriteFile(org, []byte("[tools.write_file]\nrun = [\"skip\"]\nreason = \"writes go through review\"\n\n"+
		"[tools.fs_modify_file]\nreason = \"change control\"\nparameters.end_line.maximum = 100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	environ = append(environ, "STRATA_POLICY="+org)
	cmd := exec.Command(strataBin, "serve", "--trust")
	cmd.Dir, cmd.Env = root, environ
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "policy-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	defer cs.Close()
	for _, c := range []struct{ tool, args, text string }{
		{"write_file", `{"path": "src/a.txt", "content": "x"}`, "writes go through review"},
		{"fs_modify_file", `{"path": "src/a.txt", "start_line": 1, "end_line": 500, "content": "x"}`, "maximum"},
	} {
		var args map[string]any
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v; stderr:\n%s", c.tool, err, stderr.String())
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, c.text) {
			t.Errorf("%s: isError %v, %s", c.tool, res.IsError, text)
		}
		stdout, _, _ := strataIn(t, root, environ, "call", "--trust", "--dry-run", c.tool, c.args)
		var want, got any
		if err := json.Unmarshal([]byte(stdout), &want); err != nil {
			t.Fatalf("%s: the dry run printed %q: %v", c.tool, stdout, err)
		}
		b, _ := json.Marshal(res.Meta[protocol.MetaDecision])
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the _meta decision differs from the dry run's (-dry-run +_meta):\n%s", c.tool, diff)
		}
	}
	if read(t, root, "src/a.txt") != "one\n" {
		t.Errorf("a refused call changed src/a.txt: %q", read(t, root, "src/a.txt"))
	}
}

// TestPolicyPlaces: a policy file is refused where a workspace could
// write it (the workspace, outside one the repository around the working
// directory, from whichever of its directories strata runs), and nowhere
// else: strata works in / (a container's usual working directory), and
// a user in their home directory, which is no workspace, keeps policies
// of their own there.
func TestPolicyPlaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	for _, p := range []string{filepath.Join(home, "strata"), filepath.Join(dir, "repo", ".git"), filepath.Join(dir, "repo", "src")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const text = "reason = \"the organisation's\"\ndeny_tools = [\"nothing_here\"]\n"
	mine, theirs := filepath.Join(home, "org.toml"), filepath.Join(dir, "repo", "policy.toml")
	for _, p := range []string{mine, theirs} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	tests := []struct {
		name    string
		dir     string   // where strata runs
		args    []string // after the command
		refused string   // the workspace the refusal names, or "" for none
	}{
		{name: "in /", dir: "/"},
		{name: "in /, a policy of the user's", dir: "/", args: []string{"--policy", mine}},
		{name: "in the home directory, a policy of the user's", dir: home, args: []string{"--policy", mine}},
		{name: "in a repository, a policy in it", dir: filepath.Join(dir, "repo"), args: []string{"--policy", theirs}, refused: filepath.Join(dir, "repo")},
		{name: "below a repository's root, a policy at the root", dir: filepath.Join(dir, "repo", "src"), args: []string{"--policy", theirs}, refused: filepath.Join(dir, "repo")},
		{name: "in a repository, a policy of the user's", dir: filepath.Join(dir, "repo", "src"), args: []string{"--policy", mine}},
	}
	for _, tt := range tests {
		for _, command := range []string{"config", "resolve"} {
			t.Run(tt.name+"/"+command, func(t *testing.T) {
				t.Parallel()
				_, stderr, code := strataIn(t, tt.dir, environ, append([]string{command}, tt.args...)...)
				if tt.refused == "" {
					if code != 0 || strings.Contains(stderr, "policy") {
						t.Errorf("strata %s in %s: exit %d; want 0 and no word of a policy:\n%s", command, tt.dir, code, stderr)
					}
					return
				}
				if want := "a policy file inside the workspace (" + tt.refused + ")"; code != 1 || !strings.Contains(stderr, want) {
					t.Errorf("strata %s in %s: exit %d; want 1 and %q:\n%s", command, tt.dir, code, want, stderr)
				}
			})
		}
	}
}

// TestPolicyDigest: a launch's sha256 in a policy that is no SHA-256
// digest (the README's placeholder, copied) fails where the policy is
// read, at its key, with how to compute the digest, where it once loaded
// and left the server out as if its launch were not in the allow list; a
// server whose program's digest is not the policy's is left out, saying
// so; the digest in upper case, or as strata trust --pin writes digests,
// admits it.
func TestPolicyDigest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	for name, text := range map[string]string{
		filepath.Join(home, "strata", "config.toml"): fmt.Sprintf("[mcp_servers.fs]\ncommand = %q\nargs = [\"-tools\", \"2\"]\n", mcpfake),
		filepath.Join(project, "README.md"):          "# A project\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	program, err := os.ReadFile(mcpfake)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(program)
	digest, other := hex.EncodeToString(sum[:]), strings.Repeat("0", 64)
	for i, c := range []struct {
		name, sha256 string
		wantCode     int
		wantStderr   string
	}{
		{name: "the README's placeholder", sha256: "…", wantCode: 1,
			wantStderr: `strata: <policy>:1:11: servers.allow.0.sha256: "…" is not a SHA-256 digest: 64 hexadecimal digits, alone or after sha256:; write the SHA-256 of the program's content, as 64 hexadecimal digits: sha256sum "$(command -v <mcpfake>)" prints them` + "\n"},
		{name: "not hexadecimal", sha256: "nothex", wantCode: 1,
			wantStderr: `strata: <policy>:1:11: servers.allow.0.sha256: "nothex" is not a SHA-256 digest: 64 hexadecimal digits, alone or after sha256:; write the SHA-256 of the program's content, as 64 hexadecimal digits: sha256sum "$(command -v <mcpfake>)" prints them` + "\n"},
		{name: "another program's digest", sha256: other,
			wantStderr: "strata: warning: <policy>:1:11: servers.allow.0.sha256: mcp_servers.fs: left out: its launch (<mcpfake> -tools 2) is in the policy's allow list but for its digest: the program <mcpfake> is sha256:<digest>, not the policy's sha256:" + other +
				"; the policy servers.allow.0.sha256 (<policy>:1:11) decides this; if the program's change is expected (an update), the policy needs its new digest\n"},
		{name: "its digest", sha256: digest},
		{name: "its digest in upper case", sha256: strings.ToUpper(digest)},
		{name: "its digest as a pin writes it", sha256: "sha256:" + digest},
	} {
		t.Run(c.name, func(t *testing.T) {
			policy := filepath.Join(dir, fmt.Sprintf("policy%d.toml", i))
			text := fmt.Sprintf("[[servers.allow]]\ncommand = %q\nargs = [\"-tools\", \"2\"]\nsha256 = %q\n", mcpfake, c.sha256)
			if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := strataIn(t, project, environ, "config", "--policy", policy)
			stderr = strings.NewReplacer(policy, "<policy>", mcpfake, "<mcpfake>", digest, "<digest>").Replace(stderr)
			if diff := cmp.Diff(result{code: c.wantCode, stderr: c.wantStderr}, result{code: code, stderr: stderr}, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("strata config --policy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDryRunSaysWhy: a configured tool that did not resolve is unknown
// to strata call --dry-run as to strata call, and both say why: the
// tool's own problem, on stderr and in the decision's message.
func TestDryRunSaysWhy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "STRATA_CONFIG_HOME=" + filepath.Join(dir, "strata"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	const why = "tools.broken.command: cannot get the tool's schema"
	stdout, stderr, code := strataIn(t, dir, environ, "call", "--dry-run", "--cfg", "tools.broken.command=false", "broken", "{}")
	var d struct{ Outcome, Message string }
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("--dry-run printed no decision: %v\n%s\n%s", err, stdout, stderr)
	}
	if code != 8 || d.Outcome != "unknown" || !strings.Contains(d.Message, why) || !strings.Contains(stderr, why) {
		t.Errorf("--dry-run of a tool that did not resolve: exit %d, decision %+v, stderr:\n%s\nwant exit 8, unknown, and %q in the message and on stderr", code, d, stderr, why)
	}
	if _, stderr, code := strataIn(t, dir, environ, "call", "--cfg", "tools.broken.command=false", "broken", "{}"); code != 1 || !strings.Contains(stderr, why) {
		t.Errorf("call of a tool that did not resolve: exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, why)
	}
}
