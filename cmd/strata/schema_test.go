package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/strata-config/strata/internal/schemacheck"
)

// TestSchemaAcceptsWhatLoads: strata schema accepts exactly what the
// loader reads: every layer of the fixtures (the demo's, extends
// included) and every TOML example of the README validates against it,
// and a key the loader does not know is refused.
func TestSchemaAcceptsWhatLoads(t *testing.T) {
	out := runCLI(t, "schema")
	if out.code != 0 {
		t.Fatalf("strata schema: %s", out)
	}
	schema, err := schemacheck.Compile([]byte(out.stdout), "")
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string][]byte{}
	for _, pattern := range []string{"fixtures/layers/*.*", "fixtures/home/strata/*.toml", "fixtures/workspace/.strata/*.toml", "fixtures/workspace/.strata/config.d/*.toml", "fixtures/workspace/project/.strata.toml", "fixtures/workspace/project/src/.strata.yaml", "fixtures/inject/.strata/*.toml", "fixtures/inject/*.toml"} {
		files, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v, no files", pattern, err)
		}
		for _, f := range files {
			if filepath.Base(f) == "README" {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(repoRoot, f)
			layers[rel] = b
		}
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(blocks) < 5 {
		t.Fatalf("README.md has %d TOML examples", len(blocks))
	}
	for i, b := range blocks {
		layers["README.md example "+string(rune('A'+i))+".toml"] = b[1]
	}
	layers["unknown key.toml"] = []byte("[tools.grep]\nrnu = \"ask\"\n")
	layers["extends, a bad strategy.toml"] = []byte("extends = [{ path = \"a.toml\", strategy = \"later\" }]\n")
	for name, b := range layers {
		var v any
		switch filepath.Ext(name) {
		case ".toml":
			err = toml.Unmarshal(b, &v)
		case ".yaml":
			err = yaml.Unmarshal(b, &v)
		case ".json":
			err = json.Unmarshal(b, &v)
		default:
			t.Fatalf("%s: what format?", name)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		doc, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		problems, err := schema.Validate(doc)
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.HasPrefix(name, "unknown key") || strings.HasPrefix(name, "extends, a bad")
		switch {
		case bad && len(problems) == 0:
			t.Errorf("%s: the schema accepts it", name)
		case !bad && len(problems) > 0:
			t.Errorf("%s: the schema refuses what strata loads: %v", name, problems)
		}
	}
}
