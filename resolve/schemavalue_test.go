package resolve_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/schemacheck"
	"github.com/strata-config/strata/resolve"
)

// TestSchemaText: a Schema is its text, whatever reads it: JSON, the
// strata dialect's encoding, go-cmp; text that is not one JSON value is
// refused; no schema is null, and an absent output schema is left out.
func TestSchemaText(t *testing.T) {
	for _, tt := range []struct {
		name, in, want, err string
	}{
		{name: "kept as written", in: `{"type": "object", "properties": {"n": {"type": "number", "maximum": 1.50}}}`, want: `{"type": "object", "properties": {"n": {"type": "number", "maximum": 1.50}}}`},
		{name: "space around trimmed", in: "\n {\"type\":\"object\"} \n", want: `{"type":"object"}`},
		{name: "not JSON", in: `{"type":`, err: "a schema must be one JSON value"},
		{name: "two values", in: `{} {}`, err: "a schema must be one JSON value"},
		{name: "empty", in: ``, err: "a schema must be one JSON value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := resolve.ParseSchema([]byte(tt.in))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.String(); got != tt.want {
				t.Errorf("text %s, want %s", got, tt.want)
			}
			var back resolve.Schema
			if err := json.Unmarshal([]byte(tt.in), &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s, back); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}
	d := resolve.Definition{Name: "t", InputSchema: resolve.MustSchema(`{"type":"object"}`)}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"t","source":"","summary":"","description":"","examples":"","inputSchema":{"type":"object"},"options":null,"questions":null,"run":null,"result":null}`
	if string(b) != want {
		t.Errorf("definition\n got %s\nwant %s", b, want)
	}
	if b, _ := json.Marshal(resolve.Schema{}); string(b) != "null" {
		t.Errorf("no schema is %s, want null", b)
	}
}

// TestSchemaReadOnce: the schema a definition carries is read and
// compiled once, and every copy of the definition (each catalog lookup,
// each call) shares what was made, the overridden schema included.
func TestSchemaReadOnce(t *testing.T) {
	cfg, err := layerConfig("[mcp_servers.fs]\ncommand = \"x\"\n[tools.read_file.parameters.path]\nenum = [\"a\", \"b\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	f := found()
	discovered := f.Servers["fs"]["read_file"].InputSchema
	before, err := schemacheck.DocOf(discovered).Value() // read before the build: shared
	if err != nil {
		t.Fatal(err)
	}
	text := before.String()
	c, err := resolve.Build(cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if got := before.String(); got != text || discovered.String() != text {
		t.Errorf("the overrides changed the discovered schema, which other builds share:\n got %s\nwant %s", got, text)
	}
	for _, name := range []string{"read_file", "write_file"} {
		t.Run(name, func(t *testing.T) {
			a, _ := c.Tool(name)
			b, _ := c.Tool(name)
			va, err := schemacheck.DocOf(a.InputSchema).Value()
			if err != nil {
				t.Fatal(err)
			}
			vb, _ := schemacheck.DocOf(b.InputSchema).Value()
			if va != vb {
				t.Error("two copies of a definition read its schema twice")
			}
			ca, err := schemacheck.DocOf(a.InputSchema).Compiled()
			if err != nil {
				t.Fatal(err)
			}
			if cb, _ := schemacheck.DocOf(b.InputSchema).Compiled(); ca != cb {
				t.Error("two copies of a definition compiled its schema twice")
			}
			if va.String() != a.InputSchema.String() {
				t.Errorf("the value %s is not the text %s", va, a.InputSchema)
			}
		})
	}
	d, _ := c.Tool("read_file")
	if want := `{"type":"object","properties":{"path":{"type":"string","enum":["a","b"]}}}`; d.InputSchema.String() != want {
		t.Errorf("overridden schema\n got %s\nwant %s", d.InputSchema, want)
	}
}
