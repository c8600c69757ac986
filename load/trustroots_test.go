package load_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/trust"
)

// TestTrustNamesExactRoots: an entry trusts its directory exactly; a
// repository nested in a trusted workspace, and a directory file outside
// any workspace, need trust of their own; the warnings name the directory
// to trust and never suggest the home directory.
func TestTrustNamesExactRoots(t *testing.T) {
	root, err := filepath.EvalSymlinks(tree(t, map[string]string{
		"w/.strata/config.toml":           "[tools.t]\nsource = \"builtin\"\n",
		"w/.git/":                         "",
		"w/plain/.strata.toml":            "",
		"w/sub/.git":                      "gitdir: ../.git/modules/sub\n",
		"w/sub/.strata.toml":              "",
		"w/vendor/lib/.git/":              "",
		"w/vendor/lib/inner/.strata.toml": "",
		"home/.strata.toml":               "",
		"home/proj/.strata.toml":          "",
		"home/proj/sub/.strata.toml":      "",
		"homews/.strata/config.toml":      "",
		"homews/proj/.strata.toml":        "",
		"w-evil/.strata/config.toml":      "",
		"cfg/":                            "",
	}))
	if err != nil {
		t.Fatal(err)
	}
	hint := func(u load.Untrusted) string {
		return "DIR " + u.Dir + map[bool]string{true: " RECURSIVE"}[u.Nested] + map[bool]string{true: " OUTSIDE"}[u.Outside]
	}
	tests := []struct {
		name             string
		dir, home        string
		exact, recursive []string
		untrusted        []string
		warnings         []string
	}{
		{
			name: "nested repositories", dir: "w/vendor/lib/inner", exact: []string{"w"},
			untrusted: []string{"w/vendor/lib/inner/.strata.toml"},
			warnings:  []string{"ROOT/w/vendor/lib: layers of a nested repository not applied: ROOT/w/vendor/lib holds a repository of its own (.git), which the trust of the workspace ROOT/w does not reach (ROOT/w/vendor/lib/inner/.strata.toml); DIR ROOT/w/vendor/lib RECURSIVE"},
		},
		{
			name: "a submodule", dir: "w/sub", exact: []string{"w"},
			untrusted: []string{"w/sub/.strata.toml"},
			warnings:  []string{"ROOT/w/sub: layers of a nested repository not applied: ROOT/w/sub holds a repository of its own (.git), which the trust of the workspace ROOT/w does not reach (ROOT/w/sub/.strata.toml); DIR ROOT/w/sub RECURSIVE"},
		},
		{name: "a plain directory", dir: "w/plain", exact: []string{"w"}},
		{name: "the workspace recursive", dir: "w/vendor/lib/inner", recursive: []string{"w"}},
		{name: "the nested repository recursive", dir: "w/vendor/lib/inner", exact: []string{"w"}, recursive: []string{"w/vendor/lib"}},
		{
			name: "a nested repository trusted, its workspace not", dir: "w/vendor/lib/inner", recursive: []string{"w/vendor/lib"},
			untrusted: []string{"w/.strata/config.toml", "w/vendor/lib/inner/.strata.toml"},
			warnings:  []string{"ROOT/w: workspace layers not applied: untrusted (ROOT/w/.strata/config.toml, ROOT/w/vendor/lib/inner/.strata.toml); DIR ROOT/w"},
		},
		{
			name: "a sibling", dir: "w-evil", exact: []string{"w"},
			untrusted: []string{"w-evil/.strata/config.toml"},
			warnings:  []string{"ROOT/w-evil: workspace layers not applied: untrusted (ROOT/w-evil/.strata/config.toml); DIR ROOT/w-evil"},
		},
		{
			name: "outside a workspace, below home", dir: "home/proj/sub", home: "home",
			untrusted: []string{"home/.strata.toml", "home/proj/.strata.toml", "home/proj/sub/.strata.toml"},
			warnings: []string{
				"ROOT/home: directory layers not applied: untrusted, outside any workspace (ROOT/home/.strata.toml); ROOT/home is your home directory, which is not trusted as a workspace: put settings of your own in your user file (ROOT/cfg/config.toml), and a project's in a .strata/ directory at the project's root",
				"ROOT/home/proj: directory layers not applied: untrusted, outside any workspace (ROOT/home/proj/.strata.toml); DIR ROOT/home/proj OUTSIDE",
				"ROOT/home/proj/sub: directory layers not applied: untrusted, outside any workspace (ROOT/home/proj/sub/.strata.toml); DIR ROOT/home/proj/sub OUTSIDE",
			},
		},
		{
			name: "outside a workspace, one directory trusted", dir: "home/proj/sub", home: "home", exact: []string{"home/proj"},
			untrusted: []string{"home/.strata.toml", "home/proj/sub/.strata.toml"},
			warnings: []string{
				"ROOT/home: directory layers not applied: untrusted, outside any workspace (ROOT/home/.strata.toml); ROOT/home is your home directory, which is not trusted as a workspace: put settings of your own in your user file (ROOT/cfg/config.toml), and a project's in a .strata/ directory at the project's root",
				"ROOT/home/proj/sub: directory layers not applied: untrusted, outside any workspace (ROOT/home/proj/sub/.strata.toml); DIR ROOT/home/proj/sub OUTSIDE",
			},
		},
		{
			name: "an old entry for home", dir: "home/proj", home: "home", exact: []string{"home"},
			untrusted: []string{"home/proj/.strata.toml"},
			warnings:  []string{"ROOT/home/proj: directory layers not applied: untrusted, outside any workspace (ROOT/home/proj/.strata.toml); DIR ROOT/home/proj OUTSIDE"},
		},
		{
			name: "a workspace at home", dir: "homews/proj", home: "homews",
			untrusted: []string{"homews/.strata/config.toml", "homews/proj/.strata.toml"},
			warnings:  []string{"ROOT/homews: workspace layers not applied: untrusted (ROOT/homews/.strata/config.toml, ROOT/homews/proj/.strata.toml); ROOT/homews is your home directory, which is not trusted as a workspace: put settings of your own in your user file (ROOT/cfg/config.toml), and a project's in a .strata/ directory at the project's root"},
		},
	}
	abs := func(dirs []string) []string {
		var out []string
		for _, d := range dirs {
			out = append(out, filepath.Join(root, d))
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			environ := []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "cfg")}
			if tt.home != "" {
				environ = append(environ, "HOME="+filepath.Join(root, tt.home))
			}
			a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, tt.dir), Environ: environ,
				Trust: trust.List{Workspaces: abs(tt.exact), Recursive: abs(tt.recursive)}, TrustHint: hint}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var untrusted []string
			for _, p := range res.Probes {
				if p.Untrusted {
					r, _ := filepath.Rel(root, p.Path)
					untrusted = append(untrusted, r)
				}
			}
			if diff := cmp.Diff(tt.untrusted, untrusted); diff != "" {
				t.Errorf("untrusted probes (-want +got):\n%s", diff)
			}
			var warnings []string
			for _, w := range res.Warnings {
				warnings = append(warnings, strings.ReplaceAll(w.Error(), root, "ROOT"))
			}
			if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBroad: the home directory and the root of the file system are too
// broad to trust by themselves; a link to home is home.
func TestBroad(t *testing.T) {
	root, err := filepath.EvalSymlinks(tree(t, map[string]string{"home/proj/": ""}))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	environ := []string{"HOME=" + home}
	for dir, want := range map[string]string{
		home:                        "your home directory",
		home + "/proj/..":           "your home directory",
		filepath.Join(home, "proj"): "",
		root:                        "",
		string(filepath.Separator):  "the root of the file system",
	} {
		if got := load.Broad(dir, environ); got != want {
			t.Errorf("Broad(%s) = %q, want %q", dir, got, want)
		}
	}
}
