package strata_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// TestTypedHostLayer: a host passes a layer built in Go as a typed
// value (strata's partial, or a struct of its own with toml tags), not as
// a map: what it sets and unsets applies, a key the config does not have
// is an error that names the source, and Explain names it.
func TestTypedHostLayer(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".myagent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".myagent", "config.toml"), []byte("[tools.old]\ncommand = \"true\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The host's own format (servers as its YAML file has them), typed.
	type server struct {
		Command string   `toml:"command"`
		Args    []string `toml:"args"`
	}
	type hostFile struct {
		MCPServers map[string]server `toml:"mcp_servers"`
	}
	own := load.Typed("~/.myagent/servers.yml", &hostFile{MCPServers: map[string]server{"fs": {Command: "npx", Args: []string{"-y", "server-filesystem", "."}}}})
	// strata's partial, above the user's file: it unsets what that sets.
	var p config.Partial
	p.Tools.Set("grep", config.ToolPartial{Command: partial.Of(config.Command{Program: "grep"}), Run: partial.Replace(config.RunRule{Mode: config.RunUnattended})})
	p.Tools.Remove("old")
	typed := load.Typed("host settings", &p)
	typed.Above = load.KindUser

	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Name("myagent"), strata.ConfigHome("~/.myagent"),
		strata.Dir(t.TempDir()), strata.Environ([]string{"HOME=" + home}), strata.Sources(own, typed))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := w.Model()
	if fs := m.MCPServers["fs"]; fs.Command.String() != "npx" || len(fs.Args) != 3 {
		t.Errorf("the host's own typed layer: %+v", fs)
	}
	grep, _ := m.Tools.Effective("grep")
	if _, old := m.Tools["old"]; old || grep.Run() != config.RunUnattended {
		t.Errorf("the partial: old left %v, grep runs %s", old, grep.Run())
	}
	if ex, _ := w.Explain("tools.grep.run"); !strings.Contains(ex.String(), "host settings") {
		t.Errorf("Explain does not name the layer:\n%s", ex)
	}

	type wrong struct {
		MCPServer map[string]server `toml:"mcp_server"`
	}
	_, err = strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(t.TempDir()), strata.Environ([]string{"HOME=" + home}),
		strata.Sources(load.Typed("servers.yml", &wrong{MCPServer: map[string]server{"fs": {Command: "npx"}}})))
	if err == nil || !strings.Contains(err.Error(), "servers.yml") || !strings.Contains(err.Error(), "did you mean mcp_servers") {
		t.Errorf("a key the config does not have: %v", err)
	}
}

// TestSchemaAccessors: an agent library gets a tool's schema as the map,
// properties and required it takes, and its annotations typed.
func TestSchemaAccessors(t *testing.T) {
	s := resolve.MustSchema(`{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["path"]}`)
	want := map[string]any{"path": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer", "minimum": 1.0}}
	if diff := cmp.Diff(want, s.Properties()); diff != "" {
		t.Errorf("Properties (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"path"}, s.Required()); diff != "" {
		t.Errorf("Required (-want +got):\n%s", diff)
	}
	if m := s.Map(); m["type"] != "object" || len(m) != 3 {
		t.Errorf("Map = %v", m)
	}
	s.Map()["type"] = "changed" // a new map each time
	if s.Map()["type"] != "object" {
		t.Error("Map shares its value")
	}
	var none resolve.Schema
	if none.Map() != nil || none.Properties() != nil || none.Required() != nil {
		t.Error("no schema has no map")
	}

	yes, no := true, false
	tests := []struct {
		name        string
		annotations string
		want        resolve.Annotations
		destructive bool
	}{
		{"none", ``, resolve.Annotations{}, true},
		{"read-only", `{"title":"Read","readOnlyHint":true,"x-vendor":1}`, resolve.Annotations{Title: "Read", ReadOnlyHint: &yes}, false},
		{"not destructive", `{"destructiveHint":false,"openWorldHint":false}`, resolve.Annotations{DestructiveHint: &no, OpenWorldHint: &no}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := resolve.Definition{Annotations: []byte(tt.annotations)}
			got := d.Hints()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Hints (-want +got):\n%s", diff)
			}
			if got.Destructive() != tt.destructive {
				t.Errorf("Destructive() = %v", got.Destructive())
			}
		})
	}
}
