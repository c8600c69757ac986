package load_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// TestMergedSharesEntries: Result.Merged holds a tool that one layer alone
// sets as that layer's own entry, not a copy (a load of many tools holds
// each once); a tool that a later layer changes, by a file or an
// override, is a copy in Merged, and no layer changes; the host's flags
// are the host's and are copied. Merged is the merge of the layers, as
// merge.Layers makes it.
func TestMergedSharesEntries(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"a.toml": "[tools.x]\nrun = \"ask\"\nsummary = \"x of a\"\n\n[tools.y]\nsummary = \"y of a\"\n\n[tools.o]\nsummary = \"o of a\"\n",
		"b.toml": "[tools.x]\nrun = \"edit\"\n\n[tools.z]\nsummary = \"z of b\"\n",
	}
	var cfg []string
	for _, name := range []string{"a.toml", "b.toml"} {
		p := filepath.Join(home, name) // the user's: not the workspace's content
		if err := os.WriteFile(p, []byte(files[name]), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg = append(cfg, p)
	}
	var flags config.Partial
	flags.Tools.Set("f", config.ToolPartial{Summary: partial.Of("f of the flags")})
	a := app{Name: "strata", Defaults: config.Default(), Dir: dir, Environ: []string{"STRATA_CONFIG_HOME=" + home},
		Cfg: append(cfg, "tools.o.summary=o of an override"), Flags: &flags}
	res, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	layerOf := map[string]*config.Partial{"a": res.Layers[0].Partial, "b": res.Layers[1].Partial, "flags": &flags}
	tests := []struct {
		name, tool string
		owner      string // the layer whose entry Merged holds; "" for a copy
		summary    string // the tool's summary in the config
	}{
		{name: "a tool one file sets is the file's entry", tool: "y", owner: "a", summary: "y of a"},
		{name: "a tool the last file alone sets is its entry", tool: "z", owner: "b", summary: "z of b"},
		{name: "a tool two files set is a copy", tool: "x", summary: "x of a"},
		{name: "a tool an override changes is a copy", tool: "o", summary: "o of an override"},
		{name: "a tool of the host's flags is a copy", tool: "f", summary: "f of the flags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := res.Merged.Tools.Entries[tt.tool]
			if got == nil {
				t.Fatalf("Merged has no tool %s", tt.tool)
			}
			for name, l := range layerOf {
				if shared := l.Tools.Entries[tt.tool] == got; shared != (name == tt.owner) {
					t.Errorf("Merged's tool %s is layer %s's entry: %v, want %v", tt.tool, name, shared, name == tt.owner)
				}
			}
			if s := res.Config.Tools[tt.tool].Summary; s != tt.summary {
				t.Errorf("summary %q, want %q", s, tt.summary)
			}
		})
	}
	if got, want := res.Config.Tools["x"].Run, "edit"; len(got) != 1 || got[0].String() != want {
		t.Errorf("tools.x.run = %v, want %s", got, want)
	}
	// Each file layer is what the file decodes to: neither merging nor
	// finalizing changed one.
	for i, name := range []string{"a.toml", "b.toml"} {
		d, err := codec.Parse(name, []byte(files[name]), partial.TOML)
		if err != nil {
			t.Fatal(err)
		}
		var want config.Partial
		if err := d.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&want, res.Layers[i].Partial); diff != "" {
			t.Errorf("layer %s after the load (-decoded +got):\n%s", name, diff)
		}
	}
	if s, _ := flags.Tools.Entries["f"].Summary.Get(); s != "f of the flags" {
		t.Errorf("the host's flags changed: summary %q", s)
	}
	var ls []*config.Partial
	for _, l := range res.Layers {
		ls = append(ls, l.Partial)
	}
	if diff := cmp.Diff(merge.Layers(ls...), res.Merged); diff != "" {
		t.Errorf("Merged is not the merge of the layers (-merge.Layers +Merged):\n%s", diff)
	}
}

// TestLoadLeavesLayersAsRead: nothing a load and the explanations of its
// result do changes a layer or the merge, which share entries (see
// Result.Merged): each says the same after Explain of every key as it
// did when the load returned. They are compared as text: a copy made with
// merge.Layers shares what a value points to (a list of types), so a
// change made through one would change the copy too.
func TestLoadLeavesLayersAsRead(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, "a.toml") // the user's: not the workspace's content
	if err := os.WriteFile(p, []byte("[tools.x]\nrun = \"ask\"\n\n[tools.x.parameters.path]\nmax_length = 9\ntype = [\"string\", \"null\"]\n\n[tools.y]\nsummary = \"y\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := app{Name: "strata", Defaults: config.Default(), Dir: dir, Provenance: true, Environ: []string{"STRATA_CONFIG_HOME=" + home},
		Cfg: []string{p, "tools.x.parameters.path.max_length=5", "tools.y.summary=z"}}
	res, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	text := func(p *config.Partial) string {
		t.Helper()
		b, err := codec.Encode(p, partial.JSON)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	merged := text(res.Merged)
	var layers []string
	for _, l := range res.Layers {
		layers = append(layers, text(l.Partial))
	}
	for _, key := range []string{"tools.x.run", "tools.x.parameters.path.max_length", "tools.y.summary", "tools.y"} {
		if _, err := res.Explain(key); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(merged, text(res.Merged)); diff != "" {
		t.Errorf("Merged changed (-before +after):\n%s", diff)
	}
	for i, l := range res.Layers {
		if diff := cmp.Diff(layers[i], text(l.Partial)); diff != "" {
			t.Errorf("layer %s changed (-before +after):\n%s", l.Name, diff)
		}
	}
	if got := res.Config.Tools["x"].Parameters["path"].MaxLength; got == nil || *got != 5 {
		t.Errorf("tools.x.parameters.path.max_length = %v, want 5", got)
	}
}
