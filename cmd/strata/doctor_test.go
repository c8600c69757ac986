package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDoctorFix: for each server that fails, strata doctor's FAIL line
// says what went wrong and its fix: line what to do, once. A launch that
// no longer matches its pin gets the fix strata resolve gives it (pin it
// again once the change is checked), not "run its command by hand"; a
// server that exits during its start is told to check its command and
// args on the fix: line alone, even where the fix goes on to name the
// host's credentials it was not given.
func TestDoctorFix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "GITHUB_TOKEN=not-a-token"}
	layer := filepath.Join(ws, ".strata", "config.toml")
	config := func(fsArgs string) {
		t.Helper()
		text := fmt.Sprintf("[mcp_servers.fs]\ncommand = %q\nargs = [%s]\n\n[mcp_servers.bad]\ncommand = %q\nargs = [\"-crash-after-init\"]\n", mcpfake, fsArgs, mcpfake)
		if err := os.MkdirAll(filepath.Dir(layer), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(layer, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config(`"-tools", "2"`)
	for _, args := range [][]string{{"trust"}, {"trust", "--pin", "mcp_servers.fs"}} {
		if out, stderr, code := strataIn(t, ws, environ, args...); code != 0 {
			t.Fatalf("strata %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
		}
	}
	config(`"-tools", "3"`) // fs no longer matches its pin
	doctor, doctorErr, doctorCode := strataIn(t, ws, environ, "doctor")
	_, resolveErr, resolveCode := strataIn(t, ws, environ, "resolve")
	out := fmt.Sprintf("$ strata doctor (exit %d)\n%s%s$ strata resolve (exit %d)\n%s", doctorCode, doctor, doctorErr, resolveCode, resolveErr)
	out = regexpDuration.ReplaceAllString(strings.ReplaceAll(cleanOutput(out), dir, "<dir>"), "$1 (<time>)")
	golden(t, "doctor-fix", result{code: max(doctorCode, resolveCode), stdout: out})

	// Each server's FAIL line and the fix: line after it.
	fail, fix := map[string]string{}, map[string]string{}
	lines := strings.Split(doctor, "\n")
	for i, l := range lines {
		name, _, ok := strings.Cut(strings.TrimPrefix(l, "FAIL "), " ")
		if !strings.HasPrefix(l, "FAIL ") || !ok || i+1 == len(lines) {
			continue
		}
		fail[name], fix[name] = l, strings.TrimPrefix(lines[i+1], "     fix: ")
	}
	repin := "check what changed; if the change is yours, run strata trust --pin mcp_servers.fs again"
	for _, c := range []struct {
		name, server string
		wantFix      string
		// repeated is what the FAIL line must not say: the fix's.
		repeated string
	}{
		{name: "a launch that differs from its pin", server: "fs", wantFix: repin, repeated: "check what changed"},
		{name: "a server that exits during its start", server: "bad",
			wantFix: "check command and args under [mcp_servers.bad] in " + layer + "; run that command line yourself to see it fail; " +
				`it gets only the base environment and the variables mcp_servers.bad.env_vars names, not GITHUB_TOKEN: name those it needs there, or write env_vars = ["*"] to give it all of yours`,
			repeated: "run that command line yourself"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.wantFix, fix[c.server]); diff != "" {
				t.Errorf("doctor's fix of %s (-want +got):\n%s", c.server, diff)
			}
			if strings.Contains(fail[c.server], c.repeated) {
				t.Errorf("doctor's FAIL line of %s says the fix too: %s", c.server, fail[c.server])
			}
		})
	}
	// resolve gives the launch that differs from its pin the same fix.
	if !strings.Contains(resolveErr, "mcp_servers.fs: cannot start ") || !strings.Contains(resolveErr, "; "+repin+"\n") {
		t.Errorf("strata resolve does not give mcp_servers.fs the fix %q:\n%s", repin, resolveErr)
	}
}
