package codec_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// TestFileTreeReleased: a file layer keeps its bytes, not its tree, once
// decoded, and gives every position as before, reading its tree again;
// a tree changed after reading (extends taken out, another client's file
// mapped) is kept.
func TestFileTreeReleased(t *testing.T) {
	root := writeTree(t, map[string]string{
		"plain.toml":   "[tools.t]\nsource = \"builtin\"\n\n[tools.t.parameters.p]\ntype = \"string\"\n",
		"plain.json":   "{\n  \"tools\": {\"t\": {\"source\": \"builtin\",\n    \"parameters\": {\"p\": {\"type\": \"string\"}}}}\n}\n",
		"plain.yaml":   "tools:\n  t:\n    source: builtin\n    parameters:\n      p:\n        type: string\n",
		"extends.toml": "extends = [\"base.toml\"]\n[tools.t]\nsource = \"builtin\"\n\n[tools.t.parameters.p]\ntype = \"string\"\n",
		"base.toml":    "[tools.u]\nsource = \"builtin\"\n",
		".mcp.json":    "{\"mcpServers\": {\"fs\": {\n  \"command\": \"node\"}}}\n",
	})
	tests := []struct {
		file      string
		held      bool // the tree is kept once the layer is decoded
		path      string
		line, col int
	}{
		{"plain.toml", false, "tools.t.parameters.p.type", 5, 1},
		{"plain.json", false, "tools.t.parameters.p.type", 3, 26},
		{"plain.yaml", false, "tools.t.parameters.p.type", 6, 9},
		{"extends.toml", true, "tools.t.parameters.p.type", 6, 1},
		{".mcp.json", true, "mcp_servers.fs.command", 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			a := load.App[config.Partial, config.Config]{Name: "strata", MCPServers: partial.Path{"mcp_servers"}}
			layers, _, err := a.File(context.Background(), filepath.Join(root, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			d := layers[len(layers)-1].Doc
			if got := d.HoldsTree(); got != tt.held {
				t.Errorf("holds its tree: %v, want %v", got, tt.held)
			}
			p, err := partial.ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			line, col, ok := d.Locate(p)
			if !ok || line != tt.line || col != tt.col {
				t.Errorf("Locate(%s) = %d, %d, %v; want %d, %d", tt.path, line, col, ok, tt.line, tt.col)
			}
			if !d.HoldsTree() {
				t.Error("no tree after a position was asked for")
			}
			if d.Has(partial.Path{codec.ExtendsKey}) {
				t.Error("the tree read again has the extends entry")
			}
		})
	}
}

// TestDecodeCopiesItsInput: strings decoded from a document share the
// memory of its bytes, so Parse and Decode keep a copy of what they are
// given: a caller that reuses its buffer changes neither the partial nor
// the positions.
func TestDecodeCopiesItsInput(t *testing.T) {
	for _, f := range []partial.Format{partial.TOML, partial.JSON, partial.YAML} {
		t.Run(f.String(), func(t *testing.T) {
			src := map[partial.Format]string{
				partial.TOML: "[tools.grep]\nsummary = \"Search files.\"\n",
				partial.JSON: `{"tools": {"grep": {"summary": "Search files."}}}`,
				partial.YAML: "tools:\n  grep:\n    summary: Search files.\n",
			}[f]
			buf := []byte(src)
			var p config.Partial
			if err := codec.Decode("layer", buf, f, &p); err != nil {
				t.Fatal(err)
			}
			d, err := codec.Parse("layer", buf, f)
			if err != nil {
				t.Fatal(err)
			}
			line, col, _ := d.Locate(partial.Path{"tools", "grep", "summary"})
			for i := range buf {
				buf[i] = 'x'
			}
			tool := p.Tools.Get("grep")
			if tool == nil {
				t.Fatalf("after the buffer changed, the partial has no tool grep: %v", p.Tools)
			}
			got, _ := tool.Summary.Get()
			if diff := cmp.Diff("Search files.", got); diff != "" {
				t.Errorf("summary after the buffer changed (-want +got):\n%s", diff)
			}
			var again config.Partial
			if err := d.Decode(&again); err != nil {
				t.Fatalf("the document after the buffer changed: %v", err)
			}
			if l, c, _ := d.Locate(partial.Path{"tools", "grep", "summary"}); l != line || c != col {
				t.Errorf("position after the buffer changed: %d:%d, want %d:%d", l, c, line, col)
			}
		})
	}
}

// writeTree writes files (path -> content) under a new temporary
// directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
