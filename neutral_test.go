package strata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/internal/proctest"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/trust"
)

// filesystemServer is the config of the real server-filesystem, rooted at
// "." (the directory it starts in), as a user's own file sets it up. Without
// Node or the package the test is skipped, unless REQUIRE_MCP_SERVERS is
// set, which makes it fail; with -short it is skipped.
func filesystemServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts server-filesystem under Node; runs without -short")
	}
	entry, err := filepath.Abs("fixtures/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(entry); err != nil || nodeErr != nil {
		msg := "Node or server-filesystem is missing; run npm ci --prefix fixtures/mcp"
		if os.Getenv("REQUIRE_MCP_SERVERS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return fmt.Sprintf("[mcp_servers.fs]\ncommand = %q\nargs = [%q, \".\"]\nexpose = \"all\"\n", node, entry)
}

// lsdir is a user's shell tool that prints the directory it starts in and
// what that directory holds.
const lsdir = `
[tools.lsdir]
command = { program = "/bin/sh", args = ["-c", "pwd; ls -A"] }
parameters.why = { type = "string" }
`

// yes confirms every call, as an MCP client whose user approved it does.
var yes = strata.Confirm(func(context.Context, string, json.RawMessage) (bool, error) { return true, nil })

// mustCall calls tool of the workspace with args and returns what it
// answered, failing the test unless it succeeded.
func mustCall(t *testing.T, w *workspace, tool, args string) string {
	t.Helper()
	res, err := w.Call(context.Background(), tool, json.RawMessage(args))
	if err != nil || res.Type != protocol.Success {
		t.Fatalf("%s %s: %+v, %v", tool, args, res, err)
	}
	return res.Content
}

type workspace = strata.Workspace[config.Partial, config.Config]

// allowedDir is the directory server-filesystem, rooted at ".", serves:
// where it started.
func allowedDir(t *testing.T, w *workspace) string {
	t.Helper()
	text := mustCall(t, w, "list_allowed_directories", `{}`)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	dir := strings.TrimSpace(lines[len(lines)-1])
	if !filepath.IsAbs(dir) {
		t.Fatalf("list_allowed_directories: %q", text)
	}
	return dir
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestUntrustedStartIsPrivate is the attack of a prompt injection in one
// untrusted workspace on another: the model has the user's own
// server-filesystem, rooted at ".", write a sitecustomize.py (which the
// next python3 started there imports) and a node_modules/.bin program
// (which the next npx started there, or below, runs) where it starts. The
// user's programs started for another untrusted workspace, while the first
// still runs and after, start in an empty directory of their own, which
// is removed once they end; so is the server's, once it stops.
func TestUntrustedStartIsPrivate(t *testing.T) {
	s := newSetup(t, map[string]string{"home/strata/config.toml": filesystemServer(t) + lsdir})
	repoB := filepath.Join(s.dir, "repoB")
	if err := os.MkdirAll(filepath.Join(repoB, ".strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := s.open(t, yes)
	if a.Trusted() {
		t.Fatal("a workspace nobody trusted is trusted")
	}
	for _, plant := range []struct{ tool, args string }{
		{"write_file", `{"path":"sitecustomize.py","content":"import os\nos.system('touch ` + s.dir + `/pwned')\n"}`},
		{"create_directory", `{"path":"node_modules/.bin"}`},
		{"write_file", `{"path":"node_modules/.bin/mcp-server-x","content":"#!/bin/sh\ntouch ` + s.dir + `/pwned\n"}`},
	} {
		mustCall(t, a, plant.tool, plant.args)
	}
	dirA := allowedDir(t, a)
	if !exists(filepath.Join(dirA, "sitecustomize.py")) {
		t.Fatalf("server-filesystem wrote no sitecustomize.py in %s", dirA)
	}

	// Workspace B, while A's server runs, then after it stopped.
	for _, step := range []string{"A running", "A stopped"} {
		if step == "A stopped" {
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if exists(dirA) {
				t.Errorf("the directory of A's server, %s, is left after it stopped", dirA)
			}
		}
		b := s.open(t, yes, strata.Dir(repoB))
		out := strings.Split(strings.TrimSpace(mustCall(t, b, "lsdir", `{"why":"look"}`)), "\n")
		pwd, listing := out[0], out[1:]
		if len(listing) > 0 {
			t.Errorf("%s: B's tool started in %s, which holds %v", step, pwd, listing)
		}
		if pwd == dirA || strings.HasPrefix(dirA, pwd+string(filepath.Separator)) || strings.HasPrefix(pwd, dirA+string(filepath.Separator)) {
			t.Errorf("%s: B's tool started in %s, related to A's server's %s", step, pwd, dirA)
		}
		if exists(pwd) {
			t.Errorf("%s: the directory of B's call, %s, is left after the call", step, pwd)
		}
		dirB := allowedDir(t, b)
		if dirB == dirA || exists(filepath.Join(dirB, "sitecustomize.py")) || exists(filepath.Join(dirB, "node_modules")) {
			t.Errorf("%s: B's server started in %s, which is A's or holds what A's planted", step, dirB)
		}
		if got := mustCall(t, b, "list_directory", `{"path":"."}`); strings.Contains(got, "sitecustomize") || strings.Contains(got, "node_modules") {
			t.Errorf("%s: B's server sees %q", step, got)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if exists(dirB) {
			t.Errorf("%s: the directory of B's server, %s, is left after it stopped", step, dirB)
		}
	}
	if exists(filepath.Join(s.dir, "pwned")) {
		t.Error("what A planted ran")
	}
}

// TestUntrustedStartRefusesAnotherUsersBase is the attack of another local
// user on a host that has no cache directory (no CacheDir, no HOME nor
// XDG_CACHE_HOME): the place where untrusted programs start is then made
// in $TMPDIR/strata-<uid>, which that user can make first, owned by them,
// open to everyone, or a link to a directory of theirs. strata refuses to
// start anything there, with an error that names the directory and the
// fix; a directory of the user's own, private, is used.
func TestUntrustedStartRefusesAnotherUsersBase(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T, base string)
		want string // in the error; "" runs the tool
		fix  string // in the error too; "" is "remove it"
		tmp  os.FileMode
	}{
		{"private and the user's own", func(t *testing.T, base string) { mkdir(t, base, 0o700) }, "", "", 0},
		{"not made yet", func(t *testing.T, base string) {}, "", "", 0},
		{"owned by another user", func(t *testing.T, base string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a directory to another user; the check is unit-tested in internal/procs")
			}
			mkdir(t, base, 0o700)
			if err := os.Chown(base, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 4242", "", 0},
		{"writable by everyone", func(t *testing.T, base string) { mkdir(t, base, 0o777) }, "writable by others", "", 0},
		{"writable by its group", func(t *testing.T, base string) { mkdir(t, base, 0o770) }, "writable by its group", "", 0},
		{"a link to another directory", func(t *testing.T, base string) {
			other := filepath.Join(filepath.Dir(base), "other")
			mkdir(t, other, 0o700)
			if err := os.Symlink(other, base); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link", "", 0},
		{"a file", func(t *testing.T, base string) {
			if err := os.WriteFile(base, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is not a directory", "", 0},
		// A shared /tmp: whoever writes there plants node_modules, .git or
		// .npmrc above every directory made in it, which npx, git and
		// their kin look for in the directories above where they start.
		{"under a directory anyone may write to", func(t *testing.T, base string) {}, "anyone may write to", "XDG_CACHE_HOME", 0o1777},
		{"made, under a directory anyone may write to", func(t *testing.T, base string) { mkdir(t, base, 0o700) }, "anyone may write to", "XDG_CACHE_HOME", 0o1777},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			if c.tmp != 0 {
				if err := os.Chmod(tmp, c.tmp); err != nil {
					t.Fatal(err)
				}
			}
			base := filepath.Join(tmp, fmt.Sprintf("strata-%d", os.Getuid()))
			c.make(t, base)
			s := newSetup(t, map[string]string{"home/strata/config.toml": `
[tools.mark]
command = { program = "/bin/sh", args = ["-c", "pwd > DIR/ran"] }
parameters.why = { type = "string" }
`})
			// No HOME, no XDG_CACHE_HOME, no CacheDir: nowhere of the user's own.
			s.environ = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "STRATA_CONFIG_HOME=" + filepath.Join(s.home, "strata")}
			w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(s.repo), strata.Environ(s.environ), strata.TrustStore(s.store), yes)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			res, err := w.Call(context.Background(), "mark", json.RawMessage(`{"why":"x"}`))
			if err != nil {
				t.Fatal(err)
			}
			ran := readFile(t, filepath.Join(s.dir, "ran"))
			if c.want == "" {
				if res.Type != protocol.Success || !strings.HasPrefix(ran, base+string(filepath.Separator)) {
					t.Errorf("the tool did not run in a directory of %s: %+v, ran in %q", base, res, ran)
				}
				info, err := os.Lstat(base)
				if err != nil || info.Mode() != os.ModeDir|0o700 {
					t.Errorf("%s: %v, %v; want a private directory", base, info, err)
				}
				return
			}
			if ran != "" {
				t.Errorf("the tool ran, in %s", ran)
			}
			fix := c.fix
			if fix == "" {
				fix = "remove it"
			}
			if res.Type != protocol.Failure || !strings.Contains(res.Message, base) || !strings.Contains(res.Message, c.want) || !strings.Contains(res.Message, fix) {
				t.Errorf("got %+v; want a failure that names %s, says %q and the fix", res.Outcome, base, c.want)
			}
		})
	}
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

// TestUntrustedResolveIsCached: the cache keys a launch of an untrusted
// workspace by the base of its private directories, not by the new
// directory it starts in, so a second resolution runs nothing; and a pin
// made while the workspace is untrusted holds at the next run.
func TestUntrustedResolveIsCached(t *testing.T) {
	s := newSetup(t, map[string]string{
		"tools/hello": "#!/bin/sh\necho '{\"name\":\"hello\",\"description\":\"Hi.\",\"parameters\":{\"type\":\"object\"}}'\n",
		"home/strata/config.toml": `
discover.dirs = ["DIR/tools"]

[tools.count_lines]
source = "local"
command = "JPTOOLS {{tool}} {{context}}"
run = "unattended"

[mcp_servers.fake]
command = "MCPFAKE"
args = ["-tools", "2"]
expose = "all"
`,
	})
	var got []int
	for range 2 {
		r := s.resolveOnce(t)
		if len(r.names) != 4 {
			t.Fatalf("tools %v", r.names)
		}
		got = append(got, r.started)
	}
	if want := []int{3, 0}; !slices.Equal(got, want) {
		t.Errorf("programs started by two resolutions: %v; want %v", got, want)
	}

	launch, err := s.open(t).Launch(context.Background(), "tools.count_lines")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(s.dir, "cache", "start"); launch.Dir != want {
		t.Errorf("the launch's directory is %s; want the base %s", launch.Dir, want)
	}
	pin, _ := launch.Pin()
	if err := s.store.Update(func(l *trust.List) error { l.Pins = map[string]trust.Pin{"tools.count_lines": pin}; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.repo, "notes.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := s.open(t, strata.Refresh())
	res, err := w.Call(context.Background(), "count_lines", json.RawMessage(`{"path":"notes.txt"}`))
	if err != nil || res.Type != protocol.Success || !strings.Contains(res.Content, "2") {
		t.Errorf("the pinned tool, untrusted: %+v, %v", res, err)
	}
}

// TestServeRemovesPrivateDirs: strata serve, a real process, over an
// untrusted workspace, runs the user's MCP server in a private directory
// of its own for as long as it serves, and removes it when it ends.
func TestServeRemovesPrivateDirs(t *testing.T) {
	s := newSetup(t, map[string]string{
		"bin/spy":                 spy,
		"home/strata/config.toml": "[mcp_servers.fake]\ncommand = \"DIR/bin/spy\"\nexpose = \"all\"\n",
	})
	cmd := exec.Command(strataBin, "serve", "--root", s.repo)
	cmd.Env = append(slices.Clone(s.environ), "XDG_CACHE_HOME="+filepath.Join(s.dir, "cache"))
	stderr := &proctest.Buffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The client declares no roots (the SDK's default does): strata would
	// declare them to the server, started again with them.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "neutral-test", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v; strata said:\n%s", err, stderr)
	}
	if names := toolNames(t, cs); !slices.Equal(names, []string{"tool_000"}) {
		t.Fatalf("tools %v; strata said:\n%s", names, stderr)
	}
	dir, _, _ := strings.Cut(strings.TrimPrefix(readFile(t, filepath.Join(s.dir, "spy.log")), "dir="), " ")
	base := filepath.Join(s.dir, "cache", "strata", "schemas", "start")
	if filepath.Dir(dir) != base || !exists(dir) {
		t.Fatalf("the server started in %q; want a directory of %s, there while strata serves", dir, base)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if exists(dir) {
		t.Errorf("%s is left after strata serve ended; strata said:\n%s", dir, stderr)
	}
}

// TestUntrustedSweepsWhatACrashLeft: a private directory that a strata
// killed before it could remove it left behind, with what a program wrote
// there, is removed by the next untrusted workspace that runs programs;
// another name in the base, and a recent directory, are left alone.
func TestUntrustedSweepsWhatACrashLeft(t *testing.T) {
	s := newSetup(t, map[string]string{
		"cache/start/run-left/sitecustomize.py": "import os\n",
		"cache/start/run-recent/x":              "",
		"cache/start/mine/x":                    "",
		"home/strata/config.toml":               lsdir,
	})
	base := filepath.Join(s.dir, "cache", "start")
	for _, d := range []string{base, filepath.Join(base, "run-left"), filepath.Join(base, "run-recent"), filepath.Join(base, "mine")} {
		if err := os.Chmod(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * procs.StaleAfter)
	for _, d := range []string{"run-left", "mine"} {
		if err := os.Chtimes(filepath.Join(base, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.open(t).Resolve(context.Background()); err != nil {
		t.Fatal(err)
	}
	var left []string
	es, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		left = append(left, e.Name())
	}
	if want := []string{"mine", "run-recent"}; !slices.Equal(left, want) {
		t.Errorf("left in %s: %v; want %v", base, left, want)
	}
}

// TestUntrustedStartInRuntimeDir: with no cache directory, the programs of
// an untrusted workspace start under $XDG_RUNTIME_DIR, the user's own,
// before any temporary directory.
func TestUntrustedStartInRuntimeDir(t *testing.T) {
	runtimeDir := t.TempDir()
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[tools.mark]
command = { program = "/bin/sh", args = ["-c", "pwd > DIR/ran"] }
parameters.why = { type = "string" }
`})
	s.environ = []string{"PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + runtimeDir, "TMPDIR=/nonexistent", "STRATA_CONFIG_HOME=" + filepath.Join(s.home, "strata")}
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(s.repo), strata.Environ(s.environ), strata.TrustStore(s.store), yes)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, err := w.Call(context.Background(), "mark", json.RawMessage(`{"why":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(runtimeDir, "strata")
	if ran := readFile(t, filepath.Join(s.dir, "ran")); res.Type != protocol.Success || !strings.HasPrefix(ran, base+string(filepath.Separator)) {
		t.Errorf("the tool did not run in a directory of %s: %+v, ran in %q", base, res, ran)
	}
}
