package load_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
)

// FuzzExtends loads a workspace whose config file has a fuzzed extends
// entry, among files that extend each other. It must not panic; a failure
// must be reported with the file it concerns; a success must read only
// files of the tree, each once per extends that names it, with the
// declaring file after the files it extends before it.
func FuzzExtends(f *testing.F) {
	for _, s := range []string{
		`["a.toml"]`, `"a.toml"`, `["d/*.toml"]`, `["d/[12].toml", "b.toml"]`, `[{ path = "a.toml", strategy = "after" }]`,
		`["loop.toml"]`, `["missing.toml"]`, `["d/*.json"]`, `[1, {}]`, `{ path = "a.toml" }`, `["a.toml", "a.toml"]`,
		`[{ path = "b.toml", strategy = "before" }, { path = "d/*", strategy = "after" }]`, `["d/["]`, `["config.toml"]`, `[""]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if strings.Contains(value, "..") || strings.Contains(value, "/\"") || strings.ContainsAny(value, "\x00~$") ||
			strings.Contains(value, `"/`) || strings.Contains(value, `'/`) {
			return // stay inside the tree
		}
		root := tree(t, map[string]string{
			"w/.strata/config.toml": "extends = " + value + "\n[tools.t]\nsource = \"builtin\"\nsummary = \"config\"\n",
			"w/.strata/a.toml":      "[tools.t]\nsummary = \"a\"\n",
			"w/.strata/b.toml":      "extends = [\"a.toml\"]\n[tools.t]\nexamples = \"b\"\n",
			"w/.strata/loop.toml":   "extends = [\"config.toml\"]\n",
			"w/.strata/d/1.toml":    "[tools.t]\nrun = \"ask\"\n",
			"w/.strata/d/2.toml":    "[tools.t]\nrun = \"skip\"\n",
			"w/.strata/d/x.json":    "{}",
		})
		a := load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "w"), Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}}
		res, err := a.Load(context.Background())
		if err != nil {
			if res != nil {
				t.Fatal("a result came back with an error")
			}
			for _, e := range diag.All(err) {
				if e.Source == "" || e.Msg == "" {
					t.Fatalf("a problem without its file or message: %#v", e)
				}
			}
			return
		}
		config := filepath.Join(root, "w/.strata/config.toml")
		seenConfig := false
		for _, l := range res.Layers {
			if !strings.HasPrefix(l.Name, root) {
				t.Fatalf("read %s, outside the tree", l.Name)
			}
			if l.Name == config {
				if seenConfig {
					t.Fatal("config.toml read twice")
				}
				seenConfig = true
			}
		}
		if !seenConfig {
			t.Fatal("config.toml not among the layers")
		}
	})
}
