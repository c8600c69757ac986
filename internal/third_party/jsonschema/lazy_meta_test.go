// Added by strata: a test of the fork's patch (see README.md).

package jsonschema_test

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/strata-config/strata/internal/third_party/jsonschema"
)

// TestMetaSchemasCompiledConcurrently compiles and validates from many
// goroutines at once in a fresh process, where the meta-schemas are
// compiled on first use while others compile (run with -race).
func TestMetaSchemasCompiledConcurrently(t *testing.T) {
	if os.Getenv("JSONSCHEMA_FRESH") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMetaSchemasCompiledConcurrently$", "-test.count=1")
		cmd.Env = append(os.Environ(), "JSONSCHEMA_FRESH=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	// A meta-schema of its own, with vocabularies, makes the compiler read
	// the names of a draft's vocabularies (getVocabs) while another
	// goroutine may be compiling the drafts' meta-schemas.
	const meta = `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id": "http://example.com/meta",
		"$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true, "https://json-schema.org/draft/2020-12/vocab/applicator": true, "https://json-schema.org/draft/2020-12/vocab/validation": true},
		"$dynamicAnchor": "meta",
		"allOf": [{"$ref": "https://json-schema.org/draft/2020-12/meta/core"}, {"$ref": "https://json-schema.org/draft/2020-12/meta/applicator"}, {"$ref": "https://json-schema.org/draft/2020-12/meta/validation"}]
	}`
	const doc = `{"$schema": "http://example.com/meta", "type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}`
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := jsonschema.UnmarshalJSON(strings.NewReader(meta))
			if err != nil {
				t.Error(err)
				return
			}
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
			if err != nil {
				t.Error(err)
				return
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource("http://example.com/meta", m); err != nil {
				t.Error(err)
				return
			}
			if i%2 == 0 {
				c.DefaultDraft(jsonschema.Draft7)
			}
			if err := c.AddResource("s.json", v); err != nil {
				t.Error(err)
				return
			}
			s, err := c.Compile("s.json")
			if err != nil {
				t.Error(err)
				return
			}
			if err := s.Validate(map[string]any{"n": 0}); err == nil {
				t.Error("n = 0 is valid, want minimum 1")
			}
			if err := c.AddResource("bad.json", map[string]any{"type": 1}); err != nil {
				t.Error(err)
				return
			}
			if _, err := c.Compile("bad.json"); err == nil {
				t.Error(`{"type": 1} compiles: not checked against the meta-schema`)
			}
		}()
	}
	wg.Wait()
}
