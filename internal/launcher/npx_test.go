package launcher

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestNpxHash: the directory npx (npm 11) made in its cache for
// `npx -y @modelcontextprotocol/server-everything@2026.8.31`, and for
// `npx -y @modelcontextprotocol/server-filesystem`, whatever the order
// of the specs.
func TestNpxHash(t *testing.T) {
	if got := NpxHash([]string{"@modelcontextprotocol/server-everything@2026.8.31"}); got != "a705c79b42eea4c8" {
		t.Errorf("NpxHash = %s", got)
	}
	if got := NpxHash([]string{"@modelcontextprotocol/server-filesystem"}); got != "a3241bba59c344f5" {
		t.Errorf("NpxHash = %s", got)
	}
	if NpxHash([]string{"a", "b"}) != NpxHash([]string{"b", "a"}) {
		t.Error("the order of the specs counts")
	}
}

// FuzzParseNpx: any arguments are read without a panic; the command is
// one of them, and so is every package of a -p.
func FuzzParseNpx(f *testing.F) {
	for _, args := range []string{"-y srv", "-p a --package=b cmd", "--cache /c -- srv x", "-c x", "-p", "--registry", "--x=y -q @s/n@1"} {
		f.Add(args)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		inv, ok := ParseNpx(args)
		if inv.Command != "" && !slices.Contains(args, inv.Command) {
			t.Fatalf("command %q is not an argument of %q", inv.Command, args)
		}
		for _, p := range inv.FlagPackages {
			if !slices.Contains(args, p) && !slices.Contains(args, "--package="+p) {
				t.Fatalf("package %q is not an argument of %q", p, args)
			}
		}
		if ok && len(inv.Packages) == 0 {
			t.Fatalf("ok with no packages: %q", args)
		}
		for _, p := range inv.Packages {
			if name, ok := NpmName(p); ok && (name == "" || !strings.HasPrefix(p, name)) {
				t.Fatalf("name %q of spec %q", name, p)
			}
		}
	})
}

// writeFiles writes files under dir ("name/": a directory).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
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

// TestNpxInstalled: npx's package is installed when npx would find it
// without the registry: a node_modules/.bin of the directory or above, the
// local project, or its own cache; not installed in an empty cache.
func TestNpxInstalled(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	environ := []string{"HOME=" + home}
	fs := filepath.Join(home, ".npm/_npx", NpxHash([]string{"@modelcontextprotocol/server-filesystem"}))
	writeFiles(t, root, map[string]string{
		"home/.npm/_npx/" + NpxHash([]string{"@modelcontextprotocol/server-filesystem"}) + "/node_modules/@modelcontextprotocol/server-filesystem/package.json": `{}`,
		"project/package.json":                  `{}`,
		"project/node_modules/srv/package.json": `{}`,
		"bins/node_modules/.bin/tool":           "",
		"bins/sub/":                             "",
		"elsewhere/":                            "",
	})
	for _, c := range []struct {
		name string
		args []string
		dir  string
		want Launch
	}{
		{"in npx's cache", []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, "elsewhere",
			Launch{Launcher: "npx", Package: "@modelcontextprotocol/server-filesystem", Installed: Yes, Dir: fs}},
		{"not installed", []string{"-y", "@modelcontextprotocol/server-everything"}, "elsewhere",
			Launch{Launcher: "npx", Package: "@modelcontextprotocol/server-everything", Installed: No, Dir: filepath.Join(home, ".npm/_npx", NpxHash([]string{"@modelcontextprotocol/server-everything"}))}},
		{"a version not installed", []string{"-y", "srv@2"}, "elsewhere",
			Launch{Launcher: "npx", Package: "srv", Installed: No, Dir: filepath.Join(home, ".npm/_npx", NpxHash([]string{"srv@2"}))}},
		{"in the local project", []string{"srv"}, "project",
			Launch{Launcher: "npx", Package: "srv", Installed: Yes, Dir: filepath.Join(home, ".npm/_npx", NpxHash([]string{"srv"}))}},
		{"a bin above", []string{"tool"}, "bins/sub",
			Launch{Launcher: "npx", Package: "tool", Installed: Yes, Dir: filepath.Join(home, ".npm/_npx", NpxHash([]string{"tool"}))}},
		{"a git spec", []string{"-y", "github:a/b"}, "elsewhere",
			Launch{Launcher: "npx", Package: "github:a/b", Installed: Unknown, Dir: filepath.Join(home, ".npm/_npx", NpxHash([]string{"github:a/b"}))}},
		{"a -c command", []string{"-c", "srv"}, "elsewhere", Launch{Launcher: "npx"}},
	} {
		got, ok := Of("/usr/bin/npx", c.args, filepath.Join(root, c.dir), environ)
		if !ok {
			t.Errorf("%s: not a launcher", c.name)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestOf: the launchers that install, and the package each runs, past
// their options; programs that do not install are none.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		name   string
		line   string
		want   Launch
		notOne bool
	}{
		{"npm exec", "npm exec -y -- srv --flag", Launch{Launcher: "npm exec", Package: "srv", Installed: No}, false},
		{"bunx", "bunx --bun @scope/srv@1 --port 1", Launch{Launcher: "bunx", Package: "@scope/srv@1"}, false},
		{"bun x", "bun x -p pkg cmd", Launch{Launcher: "bunx", Package: "pkg"}, false},
		{"pnpm dlx", "pnpm dlx --package=pkg cmd", Launch{Launcher: "pnpm dlx", Package: "pkg"}, false},
		{"yarn dlx", "yarn dlx srv", Launch{Launcher: "yarn dlx", Package: "srv"}, false},
		{"uvx", "uvx --python 3.12 mcp-server-git --repository .", Launch{Launcher: "uvx", Package: "mcp-server-git"}, false},
		{"uvx --from", "uvx --from git+https://x/y srv", Launch{Launcher: "uvx", Package: "git+https://x/y"}, false},
		{"uv tool run", "uv tool run mcp-server-time", Launch{Launcher: "uv tool run", Package: "mcp-server-time"}, false},
		{"pipx run", "pipx run --spec pkg==1 app", Launch{Launcher: "pipx run", Package: "pkg==1"}, false},
		{"docker run", "docker run -i --rm -e TOKEN -v /a:/b mcp/github serve", Launch{Launcher: "docker run", Package: "mcp/github"}, false},
		{"docker run --pull never", "docker run --pull=never -i img", Launch{Launcher: "docker run", Package: "img", Installed: Yes}, false},
		{"podman run", "podman run --name x img", Launch{Launcher: "podman run", Package: "img"}, false},
		{"docker exec", "docker exec c srv", Launch{}, true},
		{"uv run", "uv run server.py", Launch{}, true},
		{"node", "node server.js", Launch{}, true},
	} {
		args := strings.Fields(c.line)
		got, ok := Of("/usr/local/bin/"+args[0], args[1:], t.TempDir(), []string{"HOME=" + t.TempDir()})
		if ok == c.notOne {
			t.Errorf("%s: a launcher: %v", c.name, ok)
			continue
		}
		got.Dir = ""
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestInstalling: an install is under way while npm touches its lock,
// or, without one, while node_modules changes before npm wrote its list
// of what it installed.
func TestInstalling(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name  string
		files map[string]string
		age   map[string]time.Duration
		want  bool
	}{
		{"nothing there", nil, nil, false},
		{"a fresh lock", map[string]string{"concurrency.lock/": ""}, map[string]time.Duration{"concurrency.lock": time.Second}, true},
		{"a stale lock", map[string]string{"concurrency.lock/": ""}, map[string]time.Duration{"concurrency.lock": time.Minute}, false},
		{"unpacking without a lock", map[string]string{"node_modules/a/package.json": "{}"}, map[string]time.Duration{"node_modules": time.Minute, "node_modules/a": time.Second}, true},
		{"stopped without a lock", map[string]string{"node_modules/a/package.json": "{}"}, map[string]time.Duration{"node_modules": time.Minute, "node_modules/a": time.Minute}, false},
		{"installed", map[string]string{"node_modules/a/package.json": "{}", "node_modules/.package-lock.json": "{}"}, map[string]time.Duration{}, false},
	} {
		dir := filepath.Join(t.TempDir(), "_npx", "h")
		writeFiles(t, dir, c.files)
		for name, age := range c.age {
			if err := os.Chtimes(filepath.Join(dir, name), now.Add(-age), now.Add(-age)); err != nil {
				t.Fatal(err)
			}
		}
		if got := (Launch{Launcher: "npx", Package: "a", Dir: dir}).Installing(now); got != c.want {
			t.Errorf("%s: Installing = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestBroken: what an install that was stopped leaves, as npx left
// server-filesystem's when it was killed midway (97 of its 102 packages,
// zod among those missing, four unpacked without their package.json);
// a whole copy is not broken, nor one not installed.
func TestBroken(t *testing.T) {
	whole := map[string]string{
		"node_modules/srv/package.json":                  `{"dependencies": {"zod": "^3", "ajv": "^8", "opt": "1"}, "optionalDependencies": {"opt": "1"}}`,
		"node_modules/zod/package.json":                  `{}`,
		"node_modules/ajv/package.json":                  `{"dependencies": {"uri": "1"}}`,
		"node_modules/ajv/node_modules/uri/package.json": `{"dependencies": {"punycode": "2"}}`,
		"node_modules/punycode/package.json":             `{}`,
		"node_modules/@scope/x/package.json":             `{}`,
		"node_modules/.package-lock.json":                `{}`,
	}
	change := func(add map[string]string, drop ...string) map[string]string {
		m := map[string]string{}
		for k, v := range whole {
			if !slices.Contains(drop, k) {
				m[k] = v
			}
		}
		maps.Copy(m, add)
		return m
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		said  []string
		want  string
	}{
		{"whole", whole, nil, ""},
		{"whole, as the server says", whole, []string{"code: 'ERR_MODULE_NOT_FOUND'", "Error: Cannot find package 'DIR/node_modules/zod/index.js' imported from DIR/node_modules/srv/dist/index.js"},
			"npx's copy of srv is incomplete (the server cannot find a file of it): an install that was stopped midway left it, and npx runs it as it is"},
		{"whole, and another error", whole, []string{"Error: Cannot find module '/elsewhere/x.js'"}, ""},
		{"not installed", map[string]string{"node_modules/other/package.json": "{}"}, nil, ""},
		{"a dependency missing", change(nil, "node_modules/zod/package.json"), nil,
			"npx's copy of srv is incomplete (zod is missing): an install that was stopped midway left it, and npx runs it as it is"},
		{"half unpacked", change(map[string]string{"node_modules/zod/README.md": ""}, "node_modules/zod/package.json"), nil,
			"npx's copy of srv is incomplete (zod has no package.json): an install that was stopped midway left it, and npx runs it as it is"},
		{"deep, found above", change(map[string]string{"node_modules/punycode/lib/x.js": ""}, "node_modules/punycode/package.json"), nil,
			"npx's copy of srv is incomplete (punycode has no package.json): an install that was stopped midway left it, and npx runs it as it is"},
		{"many", change(nil, "node_modules/zod/package.json", "node_modules/@scope/x/package.json", "node_modules/punycode/package.json", "node_modules/ajv/package.json"), nil,
			"npx's copy of srv is incomplete (ajv has no package.json, zod is missing): an install that was stopped midway left it, and npx runs it as it is"},
		{"more than three", change(map[string]string{"node_modules/srv/package.json": `{"dependencies": {"a": "1", "b": "1", "c": "1", "d": "1"}}`}), nil,
			"npx's copy of srv is incomplete (a is missing, b is missing, c is missing and 1 more): an install that was stopped midway left it, and npx runs it as it is"},
		{"a stale lock", change(map[string]string{"concurrency.lock/": ""}), nil,
			"an install that was stopped left its lock, DIR/concurrency.lock, which npx waits a minute for at each start"},
	} {
		dir := filepath.Join(t.TempDir(), "_npx", "h")
		writeFiles(t, dir, c.files)
		var said []string
		for _, l := range c.said {
			said = append(said, strings.ReplaceAll(l, "DIR", dir))
		}
		old := time.Now().Add(-time.Minute)
		os.Chtimes(filepath.Join(dir, "concurrency.lock"), old, old)
		got := Launch{Launcher: "npx", Package: "srv", Dir: dir}.Broken(context.Background(), time.Now(), said)
		if diff := cmp.Diff(strings.ReplaceAll(c.want, "DIR", dir), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// FuzzOf: any command line of a launcher is read without a panic, and
// the package it names is one of its arguments, or the value of one
// written --name=value.
func FuzzOf(f *testing.F) {
	for _, line := range []string{"npx -y srv", "npm exec -- srv", "bunx -p a b", "pnpm dlx --package=p c", "uvx --from x y", "uv tool run --python 3 s", "pipx run --spec s a", "docker run -i --rm -e A img", "podman run --pull=never i", "docker run --", "uvx --from"} {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 {
			return
		}
		l, ok := Of(args[0], args[1:], t.TempDir(), []string{"HOME=/nonexistent"})
		if !ok || l.Package == "" {
			return
		}
		if !slices.ContainsFunc(args[1:], func(a string) bool {
			return a == l.Package || strings.HasSuffix(a, "="+l.Package) || strings.HasPrefix(a, l.Package+"@")
		}) {
			t.Fatalf("package %q is not an argument of %q", l.Package, args)
		}
	})
}
