package cache

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/launcher"
)

// writeFiles writes files under dir; a content "-> target" makes a
// symbolic link.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "-> "); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func pkgJSON(name, version string) string {
	return `{"name":"` + name + `","version":"` + version + `"}`
}

func TestNpxPackages(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	npx := func(specs ...string) string { return filepath.Join(home, ".npm", "_npx", launcher.NpxHash(specs)) }
	writeFiles(t, root, map[string]string{
		// npx's cache, for three invocations
		strings.TrimPrefix(npx("srv"), root) + "/node_modules/srv/package.json":                            pkgJSON("srv", "1.4.0"),
		strings.TrimPrefix(npx("@scope/srv@^2"), root) + "/node_modules/@scope/srv/package.json":           pkgJSON("@scope/srv", "2.3.1"),
		strings.TrimPrefix(npx("@scope/srv@^2", "helper"), root) + "/node_modules/@scope/srv/package.json": pkgJSON("@scope/srv", "2.0.0"),
		// another cache
		"othercache/_npx/" + launcher.NpxHash([]string{"srv"}) + "/node_modules/srv/package.json": pkgJSON("srv", "9.9.9"),
		// a project with srv installed, and a bin of another package
		"project/package.json":                   `{"name":"project"}`,
		"project/node_modules/srv/package.json":  pkgJSON("srv", "1.2.0"),
		"project/node_modules/tool/package.json": pkgJSON("tool", "0.3.0"),
		"project/node_modules/tool/bin/cli.js":   "#!/usr/bin/env node\n",
		"project/node_modules/.bin/tool-cli":     "-> ../tool/bin/cli.js",
		"project/sub/dir/.keep":                  "",
		"elsewhere/.keep":                        "",
	})
	project := filepath.Join(root, "project")
	environ := []string{"HOME=" + home, "PATH=/usr/bin"}
	binID := func() string {
		id, info, err := identify(filepath.Join(project, "node_modules/tool/bin/cli.js"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join([]string{itoa(info.Size()), itoa(info.ModTime().UnixNano()), id.identity + id.sha256}, ":")
	}
	for _, tt := range []struct {
		name    string
		program string
		args    []string
		dir     string
		environ []string
		want    map[string]string
	}{
		{name: "not npx", program: "/usr/bin/node", args: []string{"srv"}, dir: project},
		{name: "npx cache only", program: "/usr/bin/npx", args: []string{"-y", "srv"}, dir: filepath.Join(root, "elsewhere"),
			want: map[string]string{"npx " + npx("srv") + "/node_modules/srv/package.json": "1.4.0"}},
		{name: "local and npx cache", program: "npx", args: []string{"--yes", "srv", "--port", "1"}, dir: filepath.Join(project, "sub", "dir"),
			want: map[string]string{
				"local " + project + "/node_modules/srv/package.json":  "1.2.0",
				"npx " + npx("srv") + "/node_modules/srv/package.json": "1.4.0",
			}},
		{name: "scoped range", program: "npx", args: []string{"-y", "@scope/srv@^2"}, dir: filepath.Join(root, "elsewhere"),
			want: map[string]string{"npx " + npx("@scope/srv@^2") + "/node_modules/@scope/srv/package.json": "2.3.1"}},
		{name: "packages and a command", program: "npx", args: []string{"-p", "@scope/srv@^2", "--package=helper", "srv-cli"}, dir: filepath.Join(root, "elsewhere"),
			want: map[string]string{"npx " + npx("@scope/srv@^2", "helper") + "/node_modules/@scope/srv/package.json": "2.0.0"}},
		{name: "a bin of the project", program: "npx", args: []string{"tool-cli"}, dir: project,
			want: map[string]string{
				"bin " + project + "/node_modules/.bin/tool-cli":     binID(),
				"bin " + project + "/node_modules/tool/package.json": "0.3.0",
			}},
		{name: "npm exec", program: "npm", args: []string{"exec", "--yes", "--", "srv"}, dir: filepath.Join(root, "elsewhere"),
			want: map[string]string{"npx " + npx("srv") + "/node_modules/srv/package.json": "1.4.0"}},
		{name: "npm run is not npx", program: "npm", args: []string{"run", "srv"}, dir: project},
		{name: "cache flag", program: "npx", args: []string{"--cache", filepath.Join(root, "othercache"), "srv"}, dir: filepath.Join(root, "elsewhere"),
			want: map[string]string{"npx " + filepath.Join(root, "othercache/_npx", launcher.NpxHash([]string{"srv"})) + "/node_modules/srv/package.json": "9.9.9"}},
		{name: "cache variable", program: "npx", args: []string{"srv"}, dir: filepath.Join(root, "elsewhere"), environ: []string{"HOME=" + home, "NPM_CONFIG_CACHE=" + filepath.Join(root, "othercache")},
			want: map[string]string{"npx " + filepath.Join(root, "othercache/_npx", launcher.NpxHash([]string{"srv"})) + "/node_modules/srv/package.json": "9.9.9"}},
		{name: "nothing installed", program: "npx", args: []string{"-y", "other"}, dir: filepath.Join(root, "elsewhere")},
		{name: "a call", program: "npx", args: []string{"-c", "srv --port 1"}, dir: project},
		{name: "a git spec", program: "npx", args: []string{"github:someone/srv"}, dir: project},
		{name: "a directory", program: "npx", args: []string{"./srv"}, dir: project},
		{name: "an alias", program: "npx", args: []string{"srv@npm:other@1"}, dir: project},
		{name: "no command", program: "npx", args: []string{"-y"}, dir: project},
		{name: "a missing value", program: "npx", args: []string{"-p"}, dir: project},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := environ
			if tt.environ != nil {
				env = tt.environ
			}
			got := NpxPackages(tt.program, tt.args, tt.dir, env)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NpxPackages (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestAddPackage: a key of a server run through npx changes when the
// version npx would run does, and says so.
func TestAddPackage(t *testing.T) {
	home := t.TempDir()
	pkg := filepath.Join(home, ".npm", "_npx", launcher.NpxHash([]string{"srv"}), "node_modules", "srv", "package.json")
	writeFiles(t, "/", map[string]string{pkg: pkgJSON("srv", "1.0.0")})
	environ := []string{"HOME=" + home}
	var k Key
	if !k.AddPackage("npx", []string{"-y", "srv"}, t.TempDir(), environ) {
		t.Error("the first package was not news")
	}
	before := k.id()
	if k.AddPackage("npx", []string{"-y", "srv"}, t.TempDir(), environ) || k.id() != before {
		t.Error("the same package changed the key")
	}
	writeFiles(t, "/", map[string]string{pkg + ".new": pkgJSON("srv", "1.1.0")})
	if err := os.Rename(pkg+".new", pkg); err != nil {
		t.Fatal(err)
	}
	if !k.AddPackage("npx", []string{"-y", "srv"}, t.TempDir(), environ) || k.id() == before {
		t.Error("an upgrade did not change the key")
	}
	var plain Key
	plain.AddPackage("node", []string{"server.js"}, t.TempDir(), environ)
	if plain.Packages != nil {
		t.Errorf("a program that is not npx: %v", plain.Packages)
	}
}
