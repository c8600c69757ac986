package load_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/trust"
)

// TestTrustStore: Load reads the user's trust list from App.TrustStore
// and applies what it trusts; TrustWorkspace trusts the workspace root
// (outside one, the directory) for this load, exactly, through links too;
// the result says whether the workspace is trusted.
func TestTrustStore(t *testing.T) {
	root, err := filepath.EvalSymlinks(tree(t, map[string]string{
		"w/.strata/config.toml": "[tools.w]\nsource = \"builtin\"\n",
		"w/sub/.git/":           "",
		"w/sub/.strata.toml":    "[tools.sub]\nsource = \"builtin\"\n",
		"out/.strata.toml":      "[tools.out]\nsource = \"builtin\"\n",
		"cfg/":                  "",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "w"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		dir       string
		list      string // the trust list's file; "" for none
		once      bool
		trusted   bool
		tools     []string
		untrusted []string
	}{
		{name: "nothing trusted", dir: "w/sub", untrusted: []string{"w/.strata/config.toml", "w/sub/.strata.toml"}},
		{name: "the list trusts the workspace", dir: "w/sub", list: "workspaces = [\"ROOT/w\"]\n", trusted: true,
			tools: []string{"w"}, untrusted: []string{"w/sub/.strata.toml"}},
		{name: "the list trusts everything below", dir: "w/sub", list: "recursive = [\"ROOT/w\"]\n", trusted: true, tools: []string{"sub", "w"}},
		{name: "the list trusts another directory", dir: "w/sub", list: "workspaces = [\"ROOT/out\"]\n",
			untrusted: []string{"w/.strata/config.toml", "w/sub/.strata.toml"}},
		{name: "for this load", dir: "w/sub", once: true, trusted: true, tools: []string{"w"}, untrusted: []string{"w/sub/.strata.toml"}},
		{name: "for this load, through a link", dir: "link", once: true, trusted: true, tools: []string{"w"}},
		{name: "for this load and the list", dir: "w/sub", list: "workspaces = [\"ROOT/w/sub\"]\n", once: true, trusted: true, tools: []string{"sub", "w"}},
		{name: "outside a workspace, for this load", dir: "out", once: true, trusted: true, tools: []string{"out"}},
		{name: "a missing list", dir: "out", list: "-", untrusted: []string{"out/.strata.toml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, tt.dir),
				Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "cfg")}, TrustWorkspace: tt.once}
			var want trust.List
			if tt.list != "" {
				a.TrustStore = &trust.Store{Path: filepath.Join(t.TempDir(), trust.File)}
				if tt.list != "-" {
					if err := os.WriteFile(a.TrustStore.Path, []byte(strings.ReplaceAll(tt.list, "ROOT", root)), 0o600); err != nil {
						t.Fatal(err)
					}
					if want, err = a.TrustStore.Read(); err != nil {
						t.Fatal(err)
					}
				}
			}
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
			got := struct {
				Trusted   bool
				Tools     []string
				Untrusted []string
				List      trust.List
			}{res.Trusted, res.Config.Tools.Names(), untrusted, res.TrustList}
			if len(got.Tools) == 0 {
				got.Tools = nil
			}
			if diff := cmp.Diff(struct {
				Trusted   bool
				Tools     []string
				Untrusted []string
				List      trust.List
			}{tt.trusted, tt.tools, tt.untrusted, want}, got); diff != "" {
				t.Errorf("load (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a broken list", func(t *testing.T) {
		store := &trust.Store{Path: filepath.Join(t.TempDir(), trust.File)}
		if err := os.WriteFile(store.Path, []byte("workspaces = 3\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, "w"), Environ: []string{}, TrustStore: store}
		_, err := a.Load(context.Background())
		if want := store.Path + ":1:14: workspaces: expected an array or { value = [...], strategy = ... }, found integer 3"; err == nil || err.Error() != want {
			t.Errorf("err = %v, want %s", err, want)
		}
	})
}

// TestWatch: what a host watches to load again is the trust list and
// every config file read or looked for, absolute, each once.
func TestWatch(t *testing.T) {
	root, err := filepath.EvalSymlinks(tree(t, map[string]string{
		"w/.strata/config.toml": "extends = [\"base.toml\"]\n",
		"w/.strata/base.toml":   "",
		"w/d/":                  "",
		"cfg/config.toml":       "",
		"extra.toml":            "",
	}))
	if err != nil {
		t.Fatal(err)
	}
	store := &trust.Store{Path: filepath.Join(root, "cfg", trust.File)}
	if err := store.Update(func(l *trust.List) error { l.AddWorkspace(filepath.Join(root, "w")); return nil }); err != nil {
		t.Fatal(err)
	}
	a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, "w/d"), TrustStore: store,
		Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "cfg")}, Cfg: []string{filepath.Join(root, "extra.toml")}}
	res, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Watch() {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			got = append(got, r)
		}
	}
	var want []string
	for _, base := range []string{"cfg/config", "w/.strata", "w/.strata/config", "w/d/.strata"} {
		for _, ext := range []string{".json", ".toml", ".yaml", ".yml"} {
			want = append(want, base+ext)
		}
	}
	want = append(want, "cfg/trusted.toml", "extra.toml", "w/.strata/base.toml")
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Watch (-want +got):\n%s", diff)
	}
	if !res.Trusted {
		t.Error("the workspace the list trusts is not trusted")
	}
	if _, err := res.Explain("tools.'*'.rnu"); err == nil || !strings.Contains(err.Error(), "did you mean tools.'*'.run?") {
		t.Errorf("Explain of a typo: %v", err)
	}
}
