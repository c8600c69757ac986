package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	google "github.com/google/jsonschema-go/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// suiteDir holds the JSON-Schema-Test-Suite's tests of the drafts strata
// validates (draft-07 and 2020-12: the required ones, and optional/format
// for the formats of Formats) and the remote schemas they refer to (served
// at http://localhost:1234/); see its README.
const suiteDir = "testdata/suite"

// suiteCase is one test of the suite: a schema, a value, and whether the
// value is valid.
type suiteCase struct {
	file, group, test string
	format            bool // of optional/format: formats are asserted
	schema, data      json.RawMessage
	valid             bool
}

// suiteCases reads the cases of draft (a directory of the suite).
func suiteCases(t testing.TB, draft string) []suiteCase {
	var files []string
	for _, pattern := range []string{"*.json", "optional/format/*.json"} {
		m, err := filepath.Glob(filepath.Join(suiteDir, draft, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatalf("no tests of %s under %s", draft, suiteDir)
	}
	var out []suiteCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var groups []struct {
			Description string
			Schema      json.RawMessage
			Tests       []struct {
				Description string
				Data        json.RawMessage
				Valid       bool
			}
		}
		if err := json.Unmarshal(b, &groups); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rel, _ := filepath.Rel(filepath.Join(suiteDir, draft), f)
		for _, g := range groups {
			for _, c := range g.Tests {
				out = append(out, suiteCase{file: rel, group: g.Description, test: c.Description, format: strings.HasPrefix(rel, "optional"), schema: g.Schema, data: c.Data, valid: c.Valid})
			}
		}
	}
	return out
}

// remote returns the remote schema at u (http://localhost:1234/...), from
// the suite's remotes.
func remote(u string) ([]byte, error) {
	p, ok := strings.CutPrefix(u, "http://localhost:1234/")
	if !ok {
		return nil, fmt.Errorf("%s is not a remote of the suite", u)
	}
	p, _, _ = strings.Cut(p, "#")
	return os.ReadFile(filepath.Join(suiteDir, "remotes", filepath.FromSlash(p)))
}

// suiteLoader loads the suite's remotes for jsonschema/v6.
type suiteLoader struct{}

func (suiteLoader) Load(u string) (any, error) {
	b, err := remote(u)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// validators are the candidates, each a function that reports whether
// data is valid against schema in draft (an error: the schema was refused).
var validators = []struct {
	name     string
	validate func(draft string, c suiteCase) (bool, error)
}{
	{"santhosh-tekuri/jsonschema/v6", func(draft string, c suiteCase) (bool, error) {
		comp := jsonschema.NewCompiler()
		comp.DefaultDraft(jsonschema.Draft2020)
		if draft == "draft7" {
			comp.DefaultDraft(jsonschema.Draft7)
		}
		if c.format {
			comp.AssertFormat()
		}
		comp.UseLoader(suiteLoader{})
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.schema))
		if err != nil {
			return false, err
		}
		if err := comp.AddResource("http://localhost:1234/test.json", doc); err != nil {
			return false, err
		}
		s, err := comp.Compile("http://localhost:1234/test.json")
		if err != nil {
			return false, err
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.data))
		if err != nil {
			return false, err
		}
		return s.Validate(inst) == nil, nil
	}},
	{"google/jsonschema-go", func(draft string, c suiteCase) (bool, error) {
		var s google.Schema
		if err := json.Unmarshal(c.schema, &s); err != nil {
			return false, err
		}
		if draft == "draft7" && s.Schema == "" {
			s.Schema = "http://json-schema.org/draft-07/schema#"
		}
		load := func(u *url.URL) (*google.Schema, error) {
			b, err := remote(u.String())
			if err != nil {
				return nil, err
			}
			var r google.Schema
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, err
			}
			return &r, nil
		}
		r, err := s.Resolve(&google.ResolveOptions{BaseURI: "http://localhost:1234/test.json", Loader: load})
		if err != nil {
			return false, err
		}
		var inst any
		if err := json.Unmarshal(c.data, &inst); err != nil {
			return false, err
		}
		return r.Validate(inst) == nil, nil
	}},
}

// suiteFloor is how many tests of each draft the validator strata uses
// passes (of the suite's tests committed here): the count may grow with
// the library, never fall.
var suiteFloor = map[string]int{"draft7": 1425, "draft2020-12": 1882}

// TestSuite runs the JSON-Schema-Test-Suite (draft-07 and 2020-12, the
// formats strata checks) with each candidate library and reports how many
// tests each passes; the library strata validates with must pass at least
// suiteFloor's count, and the cases it fails are listed.
//
//	go test ./internal/schemacheck -run TestSuite -v
func TestSuite(t *testing.T) {
	for _, draft := range []string{"draft7", "draft2020-12"} {
		cases := suiteCases(t, draft)
		for i, v := range validators {
			var failed []string
			total, failedBy := map[bool]int{}, map[bool]int{} // by format
			for _, c := range cases {
				total[c.format]++
				valid, err := safely(func() (bool, error) { return v.validate(draft, c) })
				if err != nil || valid != c.valid {
					why := "wrong answer"
					if err != nil {
						why = firstLine(err.Error())
					}
					failed = append(failed, fmt.Sprintf("%s: %s: %s (%s)", c.file, c.group, c.test, why))
					failedBy[c.format]++
				}
			}
			passed := len(cases) - len(failed)
			t.Logf("%s %s: %d of %d tests pass (%.1f%%); required %d of %d, formats %d of %d", draft, v.name, passed, len(cases), 100*float64(passed)/float64(len(cases)),
				total[false]-failedBy[false], total[false], total[true]-failedBy[true], total[true])
			if i == 0 {
				sort.Strings(failed)
				for _, f := range failed {
					t.Logf("  fails %s", f)
				}
				if passed < suiteFloor[draft] {
					t.Errorf("%s: %s passes %d tests, fewer than the %d it passed", draft, v.name, passed, suiteFloor[draft])
				}
			}
		}
	}
}

// safely runs f, turning a panic into an error.
func safely(f func() (bool, error)) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New(fmt.Sprint("panic: ", r))
		}
	}()
	return f()
}
