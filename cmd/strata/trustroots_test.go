package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/strata-config/strata/trust"
)

// trustHome is a home directory of the test's own, with strata's user
// directory, trust list and cache in it, and the environment that points
// there and nowhere else.
type trustHome struct {
	dir, home string
	environ   []string
}

func newTrustHome(t *testing.T) trustHome {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	return trustHome{dir: dir, home: home, environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}}
}

// write writes files under the directory base: a name ending in / is a
// directory.
func writeFiles(t *testing.T, base string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(base, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// list reads the trust list of h.
func (h trustHome) list(t *testing.T) trust.List {
	t.Helper()
	l, err := (&trust.Store{Path: filepath.Join(h.home, ".config", "strata", trust.File)}).Read()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// marker is a layer whose effect strata config shows: a discovery
// directory named name.
func marker(name string) string { return "[discover]\ndirs = [\"" + name + "\"]\n" }

// TestTrustHomeHintAttack: a .strata.toml in the home directory is
// untrusted; the warning about it must not send the user to trust the
// home directory, and doing so anyway (strata trust there, as the old hint
// said) must not trust a repository cloned under it later.
func TestTrustHomeHintAttack(t *testing.T) {
	t.Parallel()
	h := newTrustHome(t)
	writeFiles(t, h.home, map[string]string{".strata.toml": marker("home-marker")})
	_, stderr, code := strataIn(t, h.home, h.environ, "config")
	if code != 0 || !strings.Contains(stderr, "not applied") {
		t.Fatalf("strata config in ~: exit %d, %s", code, stderr)
	}
	if strings.Contains(stderr, "strata trust") {
		t.Errorf("the warning about ~/.strata.toml suggests trusting the home directory: %s", stderr)
	}
	// The old hint: "run strata trust there".
	out, stderr, code := strataIn(t, h.home, h.environ, "trust")
	if code == 0 {
		t.Errorf("strata trust in ~ succeeded: %s%s", out, stderr)
	}
	writeFiles(t, h.home, map[string]string{"clone/.strata/config.toml": marker("cloned-marker"), "clone/.git/": ""})
	out, stderr, _ = strataIn(t, filepath.Join(h.home, "clone"), h.environ, "config")
	if strings.Contains(out, "cloned-marker") {
		t.Errorf("a repository cloned under ~ after following the hint is trusted:\n%s%s", out, stderr)
	}
	if !strings.Contains(stderr, "not applied") {
		t.Errorf("the cloned repository: no warning: %s", stderr)
	}
	for _, w := range h.list(t).Workspaces {
		if w == h.home {
			t.Errorf("the trust list holds the home directory: %v", h.list(t))
		}
	}
}

// TestTrustNestedRepositoryAttack: a submodule (a .git file) and a
// vendored repository (a .git directory) inside a trusted project do not
// apply their directory files; a plain subdirectory does; a recursive
// trust applies them all.
func TestTrustNestedRepositoryAttack(t *testing.T) {
	t.Parallel()
	h := newTrustHome(t)
	p := filepath.Join(h.dir, "project")
	writeFiles(t, p, map[string]string{
		".strata/config.toml":           marker("project-marker"),
		".git/":                         "",
		"plain/.strata.toml":            marker("plain-marker"),
		"sub/.git":                      "gitdir: ../.git/modules/sub\n",
		"sub/.strata.toml":              marker("submodule-marker"),
		"sub/deep/":                     "",
		"vendor/lib/.git/":              "",
		"vendor/lib/inner/.strata.toml": marker("vendored-marker"),
	})
	if out, stderr, code := strataIn(t, p, h.environ, "trust"); code != 0 {
		t.Fatalf("strata trust: exit %d, %s%s", code, out, stderr)
	}
	tests := []struct {
		dir        string
		want, deny []string
	}{
		{"plain", []string{"project-marker", "plain-marker"}, nil},
		{"sub/deep", []string{"project-marker"}, []string{"submodule-marker"}},
		{"vendor/lib/inner", []string{"project-marker"}, []string{"vendored-marker"}},
	}
	for _, tt := range tests {
		out, stderr, code := strataIn(t, filepath.Join(p, tt.dir), h.environ, "config")
		if code != 0 {
			t.Errorf("%s: exit %d, %s", tt.dir, code, stderr)
		}
		for _, m := range tt.want {
			if !strings.Contains(out, m) {
				t.Errorf("%s: %s not applied:\n%s%s", tt.dir, m, out, stderr)
			}
		}
		for _, m := range tt.deny {
			if strings.Contains(out, m) {
				t.Errorf("%s: %s, in a nested repository, applied by the project's trust:\n%s", tt.dir, m, out)
			}
			if !strings.Contains(stderr, "--recursive") {
				t.Errorf("%s: the warning does not say how to trust the nested repository: %s", tt.dir, stderr)
			}
		}
	}
	if out, stderr, code := strataIn(t, p, h.environ, "trust", "--recursive"); code != 0 {
		t.Fatalf("strata trust --recursive: exit %d, %s%s", code, out, stderr)
	}
	for dir, m := range map[string]string{"sub/deep": "submodule-marker", "vendor/lib/inner": "vendored-marker"} {
		if out, stderr, _ := strataIn(t, filepath.Join(p, dir), h.environ, "config"); !strings.Contains(out, m) {
			t.Errorf("%s after strata trust --recursive: %s not applied:\n%s%s", dir, m, out, stderr)
		}
	}
}

// TestTrustSiblingAttack: trusting /x/b trusts neither /x/b-evil nor /x.
func TestTrustSiblingAttack(t *testing.T) {
	t.Parallel()
	h := newTrustHome(t)
	writeFiles(t, h.dir, map[string]string{
		"b/.strata/config.toml":      marker("b-marker"),
		"b-evil/.strata/config.toml": marker("evil-marker"),
		"b-evil/.strata.toml":        marker("evil-dir-marker"),
	})
	if _, stderr, code := strataIn(t, filepath.Join(h.dir, "b"), h.environ, "trust"); code != 0 {
		t.Fatalf("strata trust: %s", stderr)
	}
	if out, _, _ := strataIn(t, filepath.Join(h.dir, "b"), h.environ, "config"); !strings.Contains(out, "b-marker") {
		t.Errorf("the trusted workspace: %s", out)
	}
	if out, _, _ := strataIn(t, filepath.Join(h.dir, "b-evil"), h.environ, "config"); strings.Contains(out, "evil") {
		t.Errorf("a sibling whose name starts with the trusted one's is trusted:\n%s", out)
	}
}

// TestTrustOutsideWorkspaceAttack: strata trust where no .strata/ is
// above records nothing, says what it would trust and how.
func TestTrustOutsideWorkspaceAttack(t *testing.T) {
	t.Parallel()
	h := newTrustHome(t)
	d := filepath.Join(h.dir, "downloads")
	writeFiles(t, d, map[string]string{".strata.toml": marker("download-marker")})
	out, stderr, code := strataIn(t, d, h.environ, "trust")
	if code != 2 {
		t.Errorf("exit %d, want 2: %s%s", code, out, stderr)
	}
	for _, want := range []string{d, "--root", ".strata/"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the message does not name %q: %s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(h.home, ".config", "strata", trust.File)); err == nil {
		t.Errorf("strata trust outside a workspace wrote the trust list: %v", h.list(t))
	}
	// --root names it: that directory alone is trusted.
	writeFiles(t, d, map[string]string{"sub/.strata.toml": marker("sub-marker")})
	if out, stderr, code := strataIn(t, d, h.environ, "trust", "--root", d); code != 0 {
		t.Fatalf("strata trust --root: exit %d, %s%s", code, out, stderr)
	}
	out, _, _ = strataIn(t, filepath.Join(d, "sub"), h.environ, "config")
	if !strings.Contains(out, "download-marker") || strings.Contains(out, "sub-marker") {
		t.Errorf("trusting a directory outside a workspace trusts that directory's file alone:\n%s", out)
	}
}

// TestTrustRepositoryWithoutStrata: in a repository without a .strata/
// directory, what nobody trusted is the repository, from its root
// (its nearest .git), whichever of its directories strata runs in: its
// .strata.toml files do not apply, the warning names its root, and
// strata trust (or --root one of its directories) trusts that root,
// which then applies its files from the root down.
func TestTrustRepositoryWithoutStrata(t *testing.T) {
	t.Parallel()
	h := newTrustHome(t)
	repo := filepath.Join(h.dir, "clone")
	writeFiles(t, repo, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".strata.toml":         marker("root-marker"),
		"src/app/.strata.toml": marker("app-marker"),
	})
	app := filepath.Join(repo, "src", "app")
	out, stderr, _ := strataIn(t, app, h.environ, "config")
	if strings.Contains(out, "marker") || !strings.Contains(stderr, repo+": directory layers not applied") || !strings.Contains(stderr, "strata trust --root "+repo) {
		t.Errorf("untrusted, the repository's files: want none applied and one warning naming %s:\n%s%s", repo, out, stderr)
	}
	out, stderr, code := strataIn(t, app, h.environ, "trust")
	if code != 0 || !strings.Contains(out, "trusted "+repo+", a repository") {
		t.Fatalf("strata trust in the repository: exit %d, want its root trusted:\n%s%s", code, out, stderr)
	}
	if got := h.list(t).Workspaces; len(got) != 1 || got[0] != repo {
		t.Errorf("trusted %v, want %s alone", got, repo)
	}
	out, stderr, _ = strataIn(t, app, h.environ, "config")
	if !strings.Contains(out, "root-marker") || !strings.Contains(out, "app-marker") || strings.Contains(stderr, "not applied") {
		t.Errorf("trusted, the repository's files from its root down: want both applied:\n%s%s", out, stderr)
	}
}

// TestRootMustExist: every command's --root names an existing directory.
func TestRootMustExist(t *testing.T) {
	t.Parallel()
	h := newTrustHome(t)
	missing := filepath.Join(h.dir, "nonexistent")
	file := filepath.Join(h.dir, "file")
	writeFiles(t, h.dir, map[string]string{"file": ""})
	for _, cmd := range [][]string{{"config"}, {"resolve"}, {"call", "x"}, {"serve"}, {"trust"}} {
		for _, root := range []string{missing, file} {
			out, stderr, code := strataIn(t, h.dir, h.environ, append(cmd, "--root", root)...)
			if code != 2 || out != "" || !strings.Contains(stderr, "--root "+root) || !strings.HasPrefix(stderr, "strata: ") {
				t.Errorf("%s --root %s: exit %d, want 2 and an error naming it:\n%s%s", cmd[0], root, code, out, stderr)
			}
		}
	}
}

// hashes are the digests of launches, which hold the test's paths.
var hashes = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// TestTrustGolden runs strata trust and the commands whose output trust
// changes, in order, in a home of the test's own: what each prints.
func TestTrustGolden(t *testing.T) {
	h := newTrustHome(t)
	clearStrataEnv(t)
	t.Setenv("HOME", h.home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(h.dir, "cache"))
	hello := "#!/bin/sh\nif [ \"$1\" = --describe ]; then echo '{\"name\":\"hello\",\"description\":\"Say hello.\",\"parameters\":{\"type\":\"object\"}}'; exit; fi\necho hello\n"
	writeFiles(t, h.dir, map[string]string{
		"w/.strata/config.toml":     "[discover]\ndirs = [\"../tools\"]\n\n[mcp_servers.fs]\ncommand = \"sh\"\nargs = [\"-c\", \"exit 0\"]\nexpose = \"all\"\n",
		"w/vendor/lib/.git/":        "",
		"w/vendor/lib/.strata.toml": marker("vendored"),
		"w/tools/hello":             hello,
		"dl/.strata.toml":           marker("downloaded"),
		"src/":                      "",
		"home/.strata.toml":         marker("home"),
	})
	if err := os.Chmod(filepath.Join(h.dir, "w/tools/hello"), 0o755); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name, dir string
		args      []string
		before    func()
	}{
		{"trust-help", "w", []string{"trust", "--help"}, nil},
		{"trust-list-empty", "w", []string{"trust", "--list"}, nil},
		{"config-untrusted-home", "home", []string{"config"}, nil},
		{"trust-home", "home", []string{"trust"}, nil},
		{"config-trust-home", "home", []string{"config", "--trust"}, nil},
		{"trust-outside", "dl", []string{"trust"}, nil},
		{"trust-root-missing", "w", []string{"trust", "--root", "nope"}, nil},
		{"config-root-missing", "w", []string{"config", "--root", "nope"}, nil},
		{"resolve-root-file", "w", []string{"resolve", "--root", ".strata/config.toml"}, nil},
		{"trust-list-root", "w", []string{"trust", "--list", "--root", "."}, nil},
		{"config-untrusted-workspace", "w/vendor/lib", []string{"config", "--sources"}, nil},
		{"trust-workspace", "w/vendor/lib", []string{"trust"}, nil},
		{"config-untrusted-nested", "w/vendor/lib", []string{"config", "--sources"}, nil},
		{"trust-outside-root", "w", []string{"trust", "--root", "../dl"}, nil},
		{"trust-recursive", "w", []string{"trust", "--root", "../src", "--recursive"}, nil},
		{"trust-pin-typo", "w", []string{"trust", "--pin", "mcp_servers.fss"}, nil},
		{"trust-pin-tool-typo", "w", []string{"trust", "--pin", "tools.helo"}, nil},
		{"trust-pin-discovered", "w", []string{"trust", "--pin", "tools.hello"}, nil},
		{"trust-pin-server", "w", []string{"trust", "--pin", "mcp_servers.fs"}, nil},
		{"trust-list", "w", []string{"trust", "--list"}, nil},
		{"resolve-pin-changed", "w", []string{"resolve"}, func() {
			if err := os.WriteFile(filepath.Join(h.dir, "w/tools/hello"), []byte(hello+"# changed\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, h.dir, map[string]string{"w/.strata/config.toml": "[discover]\ndirs = [\"../tools\"]\n\n[mcp_servers.fs]\ncommand = \"sh\"\nargs = [\"-c\", \"exit 1\"]\nexpose = \"all\"\n"})
		}},
		{"trust-forget-unknown", "w", []string{"trust", "--forget", "../ww"}, nil},
		{"trust-forget", "w", []string{"trust", "--forget", "."}, nil},
		{"trust-list-forgotten", "w", []string{"trust", "--list"}, nil},
	}
	for _, s := range steps {
		if !t.Run(s.name, func(t *testing.T) {
			if s.before != nil {
				s.before()
			}
			t.Chdir(filepath.Join(h.dir, s.dir))
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), s.args, strings.NewReader(""), &stdout, &stderr)
			r := result{code: code, stdout: stdout.String(), stderr: stderr.String()}
			sh, err := exec.LookPath("sh")
			if err != nil {
				t.Fatal(err)
			}
			for _, out := range []*string{&r.stdout, &r.stderr} {
				*out = hashes.ReplaceAllString(strings.NewReplacer(h.dir, "<tmp>", sh+" ", "<sh> ", sh+",", "<sh>,").Replace(*out), "sha256:<hash>")
			}
			golden(t, s.name, r)
		}) {
			break // each step builds on the one before
		}
	}
}
