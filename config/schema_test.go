package config_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/doc"
)

// compileSchema compiles the JSON Schema of the config file.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	b, err := codec.JSONSchema[config.Partial]("strata")
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("strata.json", s); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("strata.json")
	if err != nil {
		t.Fatalf("the generated schema does not compile: %v", err)
	}
	return schema
}

// asJSON reads a layer file of any format and returns it as a JSON value.
func asJSON(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d *doc.Doc
	var errs []*doc.Error
	switch filepath.Ext(path) {
	case ".json":
		d, errs = doc.ReadJSON(data)
	case ".yaml":
		d, errs = doc.ReadYAML(data)
	default:
		d, errs = doc.ReadTOML(data)
	}
	if len(errs) > 0 {
		t.Fatalf("%s: %v", path, errs[0])
	}
	out, err := doc.WriteJSON(d.Root)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchemaAcceptsFixtures: every fixture layer, in every format, is valid
// against the schema, as an editor would check it.
func TestSchemaAcceptsFixtures(t *testing.T) {
	schema := compileSchema(t)
	paths, _ := filepath.Glob("../fixtures/layers/*.*")
	for _, p := range paths {
		if filepath.Base(p) == "README" {
			continue
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			if err := schema.Validate(asJSON(t, p)); err != nil {
				t.Errorf("schema rejects %s: %v", p, err)
			}
		})
	}
}

// TestSchemaRejectsBadLayers: the schema catches what the decoder catches
// that a schema can express.
func TestSchemaRejectsBadLayers(t *testing.T) {
	schema := compileSchema(t)
	tests := []struct {
		name, file, want string
	}{
		{"unknown key", "typo.toml", "additional properties 'rnu' not allowed"},
		{"bad enum", "several.toml", "at '/tools/a/enable'"},
		{"bad strategy", "several.toml", "at '/discover/dirs/strategy'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.Validate(asJSON(t, filepath.Join("../fixtures/bad", tt.file)))
			if err == nil {
				t.Fatalf("schema accepts %s", tt.file)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("schema error does not mention %q: %v", tt.want, err)
			}
		})
	}
}
