package resolve_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

const fsServer = "[mcp_servers.fs]\ncommand = \"x\"\nexpose = \"all\"\n"

// layersConfig merges TOML layers, lowest first, and finalizes them.
func layersConfig(t *testing.T, layers ...string) config.Config {
	t.Helper()
	var acc config.Partial
	for i, text := range layers {
		var p config.Partial
		if err := codec.Decode(fmt.Sprintf("layer%d.toml", i), []byte(text), partial.TOML, &p); err != nil {
			t.Fatal(err)
		}
		merge.Into(&acc, &p)
	}
	c, err := config.Finalize(&acc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSelect: which tools a set holds (patterns over names and sources,
// includes, excludes, a lower layer's list replaced or added to), and how
// each loads.
func TestSelect(t *testing.T) {
	tests := []struct {
		name   string
		layers []string
		set    string
		want   []string // name=load
	}{
		{
			name:   "no set: every tool, always",
			layers: []string{fsServer},
			want:   []string{"list.dir=", "read_file=", "word count=", "write_file="},
		},
		{
			name:   "patterns over names and sources",
			layers: []string{fsServer + "[toolsets.r]\ntools = [\"read_*\", \"local.*\"]\n"},
			set:    "r",
			want:   []string{"read_file=", "word count="},
		},
		{
			name:   "a server's tools by source, less an exclude",
			layers: []string{fsServer + "[toolsets.fs]\ntools = [\"mcp.fs.*\"]\nexclude = [\"write_*\"]\n"},
			set:    "fs",
			want:   []string{"list.dir=", "read_file="},
		},
		{
			name:   "include, and the including set's exclude wins",
			layers: []string{fsServer + "[toolsets.base]\ntools = [\"*_file\"]\n[toolsets.top]\ninclude = [\"base\"]\ntools = [\"list.dir\"]\nexclude = [\"write_file\"]\n"},
			set:    "top",
			want:   []string{"list.dir=", "read_file="},
		},
		{
			name:   "a plain array replaces what a lower layer listed",
			layers: []string{fsServer + "[toolsets.r]\ntools = [\"read_*\", \"write_*\"]\n", "[toolsets.r]\ntools = [\"list.*\"]\n"},
			set:    "r",
			want:   []string{"list.dir="},
		},
		{
			name:   "an empty array clears it",
			layers: []string{fsServer + "[toolsets.r]\ntools = [\"read_*\"]\n", "[toolsets.r]\ntools = []\n"},
			set:    "r",
			want:   nil,
		},
		{
			name:   "append adds to it",
			layers: []string{fsServer + "[toolsets.r]\ntools = [\"read_*\"]\n", "[toolsets.r]\ntools = { value = [\"list.*\"], strategy = \"append\" }\n"},
			set:    "r",
			want:   []string{"list.dir=", "read_file="},
		},
		{
			name:   "the toolset key selects",
			layers: []string{"toolset = \"r\"\n" + fsServer + "[toolsets.r]\ntools = [\"read_*\"]\n"},
			want:   []string{"read_file="},
		},
		{
			name: "load: the tool's own, its server's, the set's, then '*'s",
			layers: []string{fsServer + "load = \"deferred\"\n[tools.read_file]\nload = \"always\"\n" +
				"[toolsets.all]\ninclude = [\"inner\"]\n[toolsets.inner]\ntools = [\"*\"]\n"},
			set:  "all",
			want: []string{"list.dir=deferred", "read_file=", "word count=", "write_file=deferred"},
		},
		{
			name:   "a set's load beats '*'s, and reaches the tools of the sets it includes",
			layers: []string{fsServer + "[tools.'*']\nload = \"deferred\"\n[toolsets.a]\ntools = [\"read_*\"]\nload = \"always\"\ninclude = [\"b\"]\n[toolsets.b]\ntools = [\"*\"]\n"},
			set:    "a",
			want:   []string{"list.dir=", "read_file=", "word count=", "write_file="},
		},
		{
			name:   "'*'s load",
			layers: []string{fsServer + "[tools.'*']\nload = \"deferred\"\n[toolsets.a]\ntools = [\"*\"]\n"},
			set:    "a",
			want:   []string{"list.dir=deferred", "read_file=deferred", "word count=deferred", "write_file=deferred"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := layersConfig(t, tt.layers...)
			full, err := resolve.Build(cfg, found())
			if err != nil {
				t.Fatal(err)
			}
			set := tt.set
			if set == "" {
				set = cfg.Toolset
			}
			c, err := full.Select(cfg, set)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range c.Tools {
				got = append(got, d.Name+"="+string(d.Load))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSelectKeepsTheCatalog: a selection of every tool as it is shares
// the catalog's tools (a catalog of 10,000 tools is not held twice) and
// has its fingerprint, which is the fingerprint of a catalog made of the
// same tools; one that changes a tool copies them, and leaves the
// catalog as it was.
func TestSelectKeepsTheCatalog(t *testing.T) {
	cfg := layersConfig(t, fsServer)
	full, err := resolve.Build(cfg, found())
	if err != nil {
		t.Fatal(err)
	}
	all, err := full.Select(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	remade := full.Filter(func(resolve.Definition) bool { return true })
	if &all.Tools[0] != &full.Tools[0] || all.Fingerprint != full.Fingerprint || all.Fingerprint != remade.Fingerprint {
		t.Errorf("selecting every tool: shares the tools %v, fingerprint %s, want the catalog's %s (remade: %s)", &all.Tools[0] == &full.Tools[0], all.Fingerprint, full.Fingerprint, remade.Fingerprint)
	}

	deferred := layersConfig(t, fsServer+"[tools.'*']\nload = \"deferred\"\n[toolsets.a]\ntools = [\"*\"]\n")
	full, err = resolve.Build(deferred, found())
	if err != nil {
		t.Fatal(err)
	}
	before := full.Fingerprint
	some, err := full.Select(deferred, "a")
	if err != nil {
		t.Fatal(err)
	}
	if &some.Tools[0] == &full.Tools[0] || some.Fingerprint == before || full.Fingerprint != before || full.Tools[0].Load != "" {
		t.Errorf("selecting deferred tools: shares the tools %v, fingerprint %s (the catalog's %s, before %s), the catalog's first load %q: want a copy, another fingerprint, the catalog unchanged", &some.Tools[0] == &full.Tools[0], some.Fingerprint, full.Fingerprint, before, full.Tools[0].Load)
	}
}

// TestChooseSaysWhy: the reasons --explain prints.
func TestChooseSaysWhy(t *testing.T) {
	cfg := layersConfig(t, fsServer+"[toolsets.top]\ninclude = [\"base\"]\nexclude = [\"write_*\"]\n[toolsets.base]\ntools = [\"mcp.fs.*\"]\nload = \"deferred\"\n")
	full, err := resolve.Build(cfg, found())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, name := range []string{"read_file", "write_file", "word count"} {
		d, _ := full.Tool(name)
		ch := resolve.Choose(cfg, "top", d)
		got = append(got, fmt.Sprintf("%s: %v, %s; %s from %s", name, ch.In, ch.Why, ch.Load, ch.LoadFrom))
	}
	want := []string{
		`read_file: true, top includes base: base's tools pattern "mcp.fs.*"; deferred from toolsets.base.load`,
		`write_file: false, left out by top's exclude "write_*"; always from the default`,
		`word count: false, no pattern of top's tools matches, nor does a set it includes (base); always from the default`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestToolsetErrors: sets that cannot be chosen are errors at their keys.
func TestToolsetErrors(t *testing.T) {
	for _, tt := range []struct{ name, layer, want string }{
		{"unknown include", "[toolsets.a]\ninclude = [\"revew\"]\n[toolsets.review]\ntools = [\"x\"]\n", `toolsets.a.include.0: no tool set named "revew"; did you mean review?`},
		{"a cycle", "[toolsets.a]\ninclude = [\"b\"]\n[toolsets.b]\ninclude = [\"a\"]\n", "toolsets.a.include: the set includes itself: a -> b -> a"},
		{"a bad pattern", "[toolsets.a]\ntools = [\"[x\"]\n", `toolsets.a.tools.0: "[x" is not a pattern`},
		{"an unknown selected set", "toolset = \"nope\"\n[toolsets.a]\ntools = [\"x\"]\n", `toolset: no tool set named "nope"; the sets: a`},
		{"a bad load", "[tools.x]\nload = \"lazy\"\n", `tools.x.load: expected one of always, deferred, found "lazy"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := layerConfig(tt.layer)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to hold %q", err, tt.want)
			}
		})
	}
}
