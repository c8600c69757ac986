package load_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// fileLayer is what TestFile compares of a layer: names relative to the
// test's directory.
type fileLayer struct {
	Kind    load.Kind
	Name    string
	Extends []string
	Summary string
}

// TestFile reads one file with what it extends, as Load reads each of its
// files, from a working directory that is not the file's.
func TestFile(t *testing.T) {
	root := tree(t, map[string]string{
		"conf/top.toml": `extends = ["d/*.toml", { path = "after.toml", strategy = "after" }, { path = ".mcp.json", format = "claude" }]
[tools.t]
source = "builtin"
summary = "top"
`,
		"conf/d/20-b.toml":  "extends = \"../base.toml\"\n[tools.t]\nsummary = \"b\"\n",
		"conf/d/10-a.toml":  "[tools.t]\nsummary = \"a\"\n",
		"conf/base.toml":    "[tools.t]\nsummary = \"base\"\n",
		"conf/after.toml":   "[tools.t]\nsummary = \"after\"\n",
		"conf/.mcp.json":    `{"mcpServers": {"fs": {"command": "node"}, "web": {"url": "https://example.com/mcp"}}}`,
		"elsewhere/.keep/":  "",
		"conf/unused.toml":  "[tools.t]\nsummary = \"unused\"\n",
		"conf/d/not-a-toml": "ignored",
	})
	t.Chdir(filepath.Join(root, "elsewhere"))
	a := app{Name: "strata", MCPServers: partial.Path{"mcp_servers"}}
	layers, warnings, err := a.File(context.Background(), filepath.Join(root, "conf/top.toml"))
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string { return strings.TrimPrefix(p, root+"/") }
	var got []fileLayer
	for _, l := range layers {
		fl := fileLayer{Kind: l.Kind, Name: rel(l.Name)}
		for _, x := range l.Extends {
			fl.Extends = append(fl.Extends, rel(x))
		}
		if tool := l.Partial.Tools.Get("t"); tool != nil {
			fl.Summary, _ = tool.Summary.Get()
		}
		if l.Doc == nil {
			t.Errorf("layer %s has no document", fl.Name)
		}
		got = append(got, fl)
	}
	want := []fileLayer{
		{Kind: load.KindCfg, Name: "conf/d/10-a.toml", Extends: []string{"conf/top.toml"}, Summary: "a"},
		{Kind: load.KindCfg, Name: "conf/base.toml", Extends: []string{"conf/top.toml", "conf/d/20-b.toml"}, Summary: "base"},
		{Kind: load.KindCfg, Name: "conf/d/20-b.toml", Extends: []string{"conf/top.toml"}, Summary: "b"},
		{Kind: load.KindCfg, Name: "conf/.mcp.json", Extends: []string{"conf/top.toml"}},
		{Kind: load.KindCfg, Name: "conf/top.toml", Summary: "top"},
		{Kind: load.KindCfg, Name: "conf/after.toml", Extends: []string{"conf/top.toml"}, Summary: "after"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	// The remote server of the Claude file is a server like the others.
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if web := layers[3].Partial.MCPServers.Get("web"); web == nil || web.URL.V != secret.Plain("https://example.com/mcp") {
		t.Errorf("the remote server of the Claude file: %+v", web)
	}
}

// TestFileErrors reports every problem of a file and of what it extends.
func TestFileErrors(t *testing.T) {
	root := tree(t, map[string]string{
		"top.toml": "extends = [\"a.toml\", \"gone.toml\", { path = \"x.json\", format = \"claude\" }, \"c.toml\"]\n",
		"a.toml":   "extends = [\"b.toml\"]\n",
		"b.toml":   "extends = [\"a.toml\"]\n",
		"c.toml":   "[tools.t]\nrnu = \"ask\"\n",
		"x.json":   "{}",
	})
	a := app{Name: "strata"}
	layers, _, err := a.File(context.Background(), filepath.Join(root, "top.toml"))
	if layers != nil {
		t.Errorf("layers came back with the error: %v", layers)
	}
	want := strings.ReplaceAll(strings.Join([]string{
		"ROOT/a.toml: extends itself: ROOT/top.toml -> ROOT/a.toml -> ROOT/b.toml -> ROOT/a.toml; remove one of the extends",
		"ROOT/top.toml:1:22: extends.1: extends a missing file ROOT/gone.toml (extended by ROOT/top.toml); the path is relative to ROOT/top.toml",
		"ROOT/x.json: this application does not read claude files",
		"ROOT/c.toml:2:1: tools.t.rnu: unknown key; did you mean run?",
	}, "\n"), "ROOT", root)
	if got := errText(err); got != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
}
