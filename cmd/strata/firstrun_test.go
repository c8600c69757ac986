package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/launcher"
)

// firstRun is a project of a user who comes from Claude Code: a
// directory with a .mcp.json of one server, nobody's workspace, and a
// fresh home. PATH starts with bin, where a test puts its launchers.
func firstRun(t *testing.T, mcpJSON string) (dir, home, bin string, environ []string) {
	t.Helper()
	base := t.TempDir()
	dir, home, bin = filepath.Join(base, "project"), filepath.Join(base, "home"), filepath.Join(base, "bin")
	for _, d := range []string{dir, home, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(strings.ReplaceAll(mcpJSON, "MCPFAKE", mcpfake)), 0o644); err != nil {
		t.Fatal(err)
	}
	environ = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home}
	return dir, home, bin, environ
}

// slowNpx writes bin/npx, a launcher fixture that installs as npx does
// on a first run: into $HOME/.npm/_npx/<hash of the spec>, holding
// concurrency.lock (touched every 0.2 s, as npm touches it every
// second) for ticks × 0.2 s before it writes the package's
// package.json; then, installed or not, it runs mcpfake with the
// arguments after the spec. With ticks 0 it runs what the cache holds.
// broken, when not "", is a line it writes to stderr before it exits 1
// instead, as node does when npx's copy lacks a package.
func slowNpx(t *testing.T, bin string, ticks int, broken string) {
	t.Helper()
	script := `#!/bin/sh
# npx -y PKG ARGS...: install PKG (slowly) unless installed, then run it
pkg=$2
shift 2
dir="$HOME/.npm/_npx/$(printf %s "$pkg" | sha512sum | cut -c1-16)"
if [ ! -f "$dir/node_modules/$pkg/package.json" ]; then
	mkdir -p "$dir/concurrency.lock" "$dir/node_modules/$pkg"
	i=0
	while [ $i -lt TICKS ]; do
		touch "$dir/concurrency.lock"
		sleep 0.2
		i=$((i+1))
	done
	printf '{"name": "%s", "version": "1.0.0"}\n' "$pkg" > "$dir/node_modules/$pkg/package.json"
	: > "$dir/node_modules/.package-lock.json"
	rmdir "$dir/concurrency.lock"
fi
BROKEN
exec MCPFAKE "$@"
`
	b := ""
	if broken != "" {
		b = fmt.Sprintf("echo %q >&2; exit 1", broken)
	}
	script = strings.NewReplacer("TICKS", fmt.Sprint(ticks), "MCPFAKE", mcpfake, "BROKEN", b).Replace(script)
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// regexpDuration is the time a line of doctor reports: "FAIL fs (807ms)".
var regexpDuration = regexp.MustCompile(`(FAIL \S+) \(\d[0-9.hmµn]*s\)`)

// firstRunOutput makes what a first run printed the same on every
// machine: the project, home, the launchers' directory and mcpfake by
// name.
func firstRunOutput(s, dir, home string) string {
	bin := filepath.Join(filepath.Dir(dir), "bin")
	return strings.NewReplacer(dir, "<project>", home, "<home>", bin, "<bin>", mcpfake, "<mcpfake>").Replace(cleanOutput(s))
}

// TestFirstRunWaitsForInstall: a start whose launcher goes on installing
// when its startup time is over waits for the install to end (a kill
// midway can leave npx's copy broken for good), then has its startup
// time; before, "did not start within 2s" and npx's copy half written.
func TestFirstRunWaitsForInstall(t *testing.T) {
	t.Parallel()
	dir, home, bin, environ := firstRun(t, `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@fake/server-fs", "-tools", "2"]}}}`)
	slowNpx(t, bin, 25, "") // 5 s of install
	stdout, stderr, code := strataIn(t, dir, environ, "resolve", "--trust", "--cfg", ".mcp.json", "--cfg", "mcp_servers.fs.startup_timeout_sec=2")
	if code != 0 || catalogLines(t, stdout) == "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, firstRunOutput(stderr, dir, home))
	}
	if got := catalogLines(t, stdout); !strings.Contains(got, "=mcp.fs ") {
		t.Errorf("the catalog has no tool of fs:\n%s", got)
	}
	if l, _ := launcher.Of("npx", []string{"-y", "@fake/server-fs"}, dir, environ); l.Installed != launcher.Yes || l.Broken(t.Context(), time.Now(), nil) != "" {
		t.Errorf("npx's copy after the run: installed %v, broken %q", l.Installed, l.Broken(t.Context(), time.Now(), nil))
	}
}

// TestFirstRunInstallTime: a server run through npx whose package is not
// in npx's cache, with no startup_timeout_sec of the user's, gets five
// minutes: an install of 12 s (past the 10 s programs get) goes through,
// and without a terminal strata says what it waits for once it has
// waited 10 s. The full run only: it takes the install's time.
func TestFirstRunInstallTime(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a 12 s install; TestFirstRunWaitsForInstall waits for an install in the short run")
	}
	dir, home, bin, environ := firstRun(t, `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@fake/server-fs", "-tools", "2"]}}}`)
	slowNpx(t, bin, 60, "") // 12 s of install
	stdout, stderr, code := strataIn(t, dir, environ, "resolve", "--trust", "--cfg", ".mcp.json")
	if code != 0 || catalogLines(t, stdout) == "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, firstRunOutput(stderr, dir, home))
	}
	want := "strata: waiting for the MCP server fs to start: npx installs @fake/server-fs first (timeout 5m0s, longer while npx installs)\n"
	if got := firstRunOutput(stderr, dir, home); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

// TestFirstRunBrokenCopy: npx's copy of a server that an install stopped
// midway left without a dependency fails at every start ("Cannot find
// package 'zod'"); resolve and doctor name the directory to delete, where
// they said to check the command and its arguments.
func TestFirstRunBrokenCopy(t *testing.T) {
	t.Parallel()
	dir, home, bin, environ := firstRun(t, `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@fake/server-fs"]}}}`)
	npxDir := filepath.Join(home, ".npm/_npx", launcher.NpxHash([]string{"@fake/server-fs"}))
	for name, content := range map[string]string{
		"node_modules/@fake/server-fs/package.json": `{"name": "@fake/server-fs", "version": "1.0.0", "dependencies": {"zod": "^3", "ajv": "^8"}}`,
		"node_modules/ajv/package.json":             `{"name": "ajv", "version": "8.0.0"}`,
		"node_modules/.package-lock.json":           `{}`,
		"package.json":                              `{"_npx": {"packages": ["@fake/server-fs"]}}`,
	} {
		p := filepath.Join(npxDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slowNpx(t, bin, 0, "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from "+npxDir+"/node_modules/@fake/server-fs/dist/index.js")
	var out strings.Builder
	code := 0
	for _, args := range [][]string{
		{"resolve", "--trust", "--cfg", ".mcp.json"},
		{"doctor", "--trust", "--cfg", ".mcp.json"},
	} {
		stdout, stderr, rc := strataIn(t, dir, environ, args...)
		fmt.Fprintf(&out, "$ strata %s (exit %d)\n%s%s", strings.Join(args, " "), rc, stdout, stderr)
		code = max(code, rc)
	}
	got := strings.ReplaceAll(firstRunOutput(out.String(), dir, home), launcher.NpxHash([]string{"@fake/server-fs"}), "<hash>")
	golden(t, "first-run-broken-copy", result{code: code, stdout: regexpDuration.ReplaceAllString(got, "$1 (<time>)")})
}

// TestFirstRunHintForClient: a Claude Code server that does not start in
// time gets a fix that Claude Code's JSON can take: --cfg for one run,
// the user file for good; a server of strata's own TOML, the key in that
// file. doctor names a server's place by the client's key.
func TestFirstRunHintForClient(t *testing.T) {
	t.Parallel()
	dir, home, _, environ := firstRun(t, `{"mcpServers": {"slow": {"command": "MCPFAKE", "args": ["-hang-init"]}, "web": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}`)
	toml := filepath.Join(dir, "servers.toml")
	if err := os.WriteFile(toml, []byte("[mcp_servers.slow]\ncommand = \""+mcpfake+"\"\nargs = [\"-hang-init\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code := 0
	for _, args := range [][]string{
		{"resolve", "--trust", "--cfg", ".mcp.json", "--cfg", "mcp_servers.slow.startup_timeout_sec=0.5"},
		{"resolve", "--trust", "--cfg", "servers.toml", "--cfg", "mcp_servers.slow.startup_timeout_sec=0.5"},
		{"doctor", "--trust", "--cfg", ".mcp.json", "--cfg", "mcp_servers.slow.startup_timeout_sec=0.5"},
	} {
		stdout, stderr, rc := strataIn(t, dir, environ, args...)
		fmt.Fprintf(&out, "$ strata %s (exit %d)\n%s%s", strings.Join(args, " "), rc, stdout, stderr)
		code = max(code, rc)
	}
	golden(t, "first-run-hint-for-client", result{code: code, stdout: regexpDuration.ReplaceAllString(firstRunOutput(out.String(), dir, home), "$1 (<time>)")})
}

// TestFirstRunStdout: a run that failed writes no catalog on stdout (a
// script would take it for the whole), unless --partial asks for what
// resolved; a file named with --cfg that lies in a directory nobody
// trusted is a failure of the run, where a workspace's own file found
// by its place is a warning.
func TestFirstRunStdout(t *testing.T) {
	t.Parallel()
	dir, home, _, environ := firstRun(t, `{"mcpServers": {"fs": {"command": "MCPFAKE", "args": ["-tools", "1"]}, "down": {"command": "MCPFAKE", "args": ["-crash-after-init"]}}}`)
	if err := os.MkdirAll(filepath.Join(dir, ".strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".strata/config.toml"), []byte("[tools.'*']\nrun = \"unattended\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code := 0
	for _, args := range [][]string{
		{"resolve", "--trust", "--cfg", ".mcp.json"},
		{"resolve", "--trust", "--cfg", ".mcp.json", "--partial"},
		{"resolve", "--cfg", ".mcp.json"},
		{"resolve", "--cfg", ".mcp.json", "--partial"},
		{"resolve"},
		{"doctor", "--cfg", ".mcp.json"},
	} {
		stdout, stderr, rc := strataIn(t, dir, environ, args...)
		fmt.Fprintf(&out, "$ strata %s (exit %d)\n%s%s", strings.Join(args, " "), rc, catalogLines(t, stdout), stderr)
		code = max(code, rc)
	}
	golden(t, "first-run-stdout", result{code: code, stdout: firstRunOutput(out.String(), dir, home)})
}

// TestFirstRunRealNpx: the first command of a Claude Code user, against
// the real npx and the npm registry, in a fresh home (npm's cache is
// ~/.npm): server-filesystem installs, strata waits for it, and its
// tools resolve. The full run only, and only where the registry answers.
func TestFirstRunRealNpx(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs server-filesystem from the npm registry; TestFirstRunWaitsForInstall has a launcher that installs in the short run")
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("no npx")
	}
	dir, home, _, environ := firstRun(t, `{"mcpServers":{"filesystem":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","."]}}}`)
	ping := exec.Command("npm", "ping")
	ping.Env = environ
	if out, err := ping.CombinedOutput(); err != nil {
		t.Skipf("the npm registry does not answer: %v\n%s", err, out)
	}
	stdout, stderr, code := strataIn(t, dir, environ, "resolve", "--trust", "--cfg", ".mcp.json")
	if code != 0 || !strings.Contains(catalogLines(t, stdout), "read_text_file=mcp.filesystem ") {
		t.Fatalf("exit %d, catalog:\n%s\nstderr:\n%s", code, catalogLines(t, stdout), firstRunOutput(stderr, dir, home))
	}
	l, _ := launcher.Of("npx", []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, dir, environ)
	if l.Installed != launcher.Yes || l.Broken(t.Context(), time.Now(), nil) != "" {
		t.Errorf("npx's copy after the run: installed %v, broken %q", l.Installed, l.Broken(t.Context(), time.Now(), nil))
	}
}
