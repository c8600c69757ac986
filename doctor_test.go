package strata_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/trust"
)

// TestDoctor: strata doctor starts each server, lists and times it, and
// names the fix of one that fails, exiting 1.
func TestDoctor(t *testing.T) {
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.good]
command = "MCPFAKE"
args = ["-tools", "3"]

[mcp_servers.down]
command = "MCPFAKE"
args = ["-fail-if", "DIR/down", "-stderr", "cannot reach the database"]

[mcp_servers.off]
command = "MCPFAKE"
enabled = false
`})
	if err := os.WriteFile(filepath.Join(s.dir, "down"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got := s.open(t, nil...).CheckServers(context.Background())
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"down", "good"}, names); diff != "" {
		t.Fatalf("servers checked (-want +got):\n%s", diff)
	}
	if got[1].Err != nil || got[1].Tools != 3 || got[1].Duration <= 0 {
		t.Errorf("good: %+v", got[1])
	}
	if got[0].Err == nil || !strings.Contains(got[0].Err.Error(), "cannot reach the database") || !strings.Contains(got[0].Fix, "check command and args under [mcp_servers.down] in "+filepath.Join(s.dir, "home/strata/config.toml")) {
		t.Errorf("down: %+v", got[0])
	}
	// A server that fails is told of the credentials it was not given.
	s.environ = append(s.environ, "GITHUB_TOKEN=ghp-1", "OPENAI_API_KEY=sk-1", "EDITOR=vi")
	got = s.open(t, nil...).CheckServers(context.Background())
	if want := `; it gets only the base environment and the variables mcp_servers.down.env_vars names, not GITHUB_TOKEN, OPENAI_API_KEY: name those it needs there, or write env_vars = ["*"] to give it all of yours`; !strings.HasSuffix(got[0].Fix, want) || strings.Contains(got[0].Fix, "ghp-1") {
		t.Errorf("down: fix %q, want it to end %q", got[0].Fix, want)
	}

	cmd := exec.Command(strataBin, "doctor", "--root", s.repo, "--trust")
	cmd.Env = append(slices.Clone(s.environ), "XDG_CACHE_HOME="+filepath.Join(s.dir, "cache"))
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("strata doctor: %v, want exit status 1", err)
	}
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "FAIL down") || !strings.HasPrefix(lines[2], "ok   good: 3 tools in ") {
		t.Errorf("strata doctor said:\n%s", out)
	}
}

// TestDoctorNothingToCheck: strata doctor with no enabled server says so
// rather than print nothing.
func TestDoctorNothingToCheck(t *testing.T) {
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.off]
command = "MCPFAKE"
enabled = false
`})
	cmd := exec.Command(strataBin, "doctor", "--root", s.repo, "--trust")
	cmd.Env = append(slices.Clone(s.environ), "XDG_CACHE_HOME="+filepath.Join(s.dir, "cache"))
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("strata doctor: %v", err)
	}
	if !strings.HasPrefix(string(out), "no MCP server to check: ") {
		t.Errorf("strata doctor said:\n%s", out)
	}
}

// TestDoctorFixOnce: a server's check says what went wrong in its
// error and what to do in its fix, without the fix in both: a server
// that exits during its start, told of the host's credentials it was not
// given, and a launch that no longer matches its pin, whose fix is to
// check what changed and pin it again (not "run its command by hand").
func TestDoctorFixOnce(t *testing.T) {
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.down]
command = "MCPFAKE"
args = ["-crash-after-init"]

[mcp_servers.pinned]
command = "MCPFAKE"
args = ["-tools", "2"]
`})
	s.environ = append(s.environ, "GITHUB_TOKEN=ghp-1")
	if err := s.store.Update(func(l *trust.List) error { l.AddWorkspace(s.repo); return nil }); err != nil {
		t.Fatal(err)
	}
	launch, err := s.open(t).Launch(context.Background(), "mcp_servers.pinned")
	if err != nil {
		t.Fatal(err)
	}
	pin, err := launch.Pin()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Update(func(l *trust.List) error { l.Pins = map[string]trust.Pin{"mcp_servers.pinned": pin}; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.repo, ".strata", "config.toml"), []byte("[mcp_servers.pinned]\nargs = [\"-tools\", \"3\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type check struct{ Name, Msg, Fix string }
	var got []check
	for _, c := range s.open(t).CheckServers(context.Background()) {
		if c.Err == nil {
			t.Fatalf("%s did not fail", c.Name)
		}
		got = append(got, check{c.Name, c.Err.Msg, c.Fix})
	}
	config := filepath.Join(s.dir, "home/strata/config.toml")
	want := []check{
		{"down", "cannot start " + mcpfake + " -crash-after-init: exited during its start (exit status 3)",
			"check command and args under [mcp_servers.down] in " + config + "; run that command line yourself to see it fail; " +
				`it gets only the base environment and the variables mcp_servers.down.env_vars names, not GITHUB_TOKEN: name those it needs there, or write env_vars = ["*"] to give it all of yours`},
		{"pinned", "cannot start " + mcpfake + " -tools 3: the launch differs from the one pinned: its arguments differ: argument 2 changed",
			"check what changed; if the change is yours, pin mcp_servers.pinned again"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
}
