package schemacheck

import (
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		ptr    string
		value  string
		want   []string
	}{
		{name: "valid", schema: `{"type":"object","properties":{"a":{"type":"string"}}}`, value: `{"a":"x"}`},
		{name: "type", schema: `{"type":"string"}`, value: `1`, want: []string{"$: got number, want string"}},
		{name: "types", schema: `{"type":["string","null"]}`, value: `1`, want: []string{"$: got number, want null or string"}},
		{name: "integer", schema: `{"type":"integer"}`, value: `1.5`, want: []string{"$: got number, want integer"}},
		{name: "enum of one", schema: `{"enum":["celsius"]}`, value: `"kelvin"`, want: []string{"$: value must be 'celsius'"}},
		{name: "enum", schema: `{"enum":["a",1,null]}`, value: `"c"`, want: []string{"$: value must be one of 'a', 1, <nil>"}},
		{name: "const", schema: `{"const":"a"}`, value: `"b"`, want: []string{"$: value must be 'a'"}},
		{name: "const object", schema: `{"const":{"a":1}}`, value: `{}`, want: []string{"$: 'const' failed"}},
		{name: "required", schema: `{"required":["a"]}`, value: `{}`, want: []string{"$: missing property 'a'"}},
		{name: "required several", schema: `{"required":["a","b"]}`, value: `{}`, want: []string{"$: missing properties 'a', 'b'"}},
		{name: "additional properties", schema: `{"properties":{"a":{}},"additionalProperties":false}`, value: `{"a":1,"c d":3}`, want: []string{"$: additional properties 'c d' not allowed"}},
		{name: "additional properties, sorted", schema: `{"additionalProperties":false}`, value: `{"b":1,"c d":2,"a":3,"B":4}`, want: []string{"$: additional properties 'B', 'a', 'b', 'c d' not allowed"}},
		{name: "property names", schema: `{"propertyNames":{"maxLength":2}}`, value: `{"abc":1}`, want: []string{"$: maxLength: got 3, want 2"}},
		{name: "min and max properties", schema: `{"anyOf":[{"minProperties":2},{"maxProperties":0}]}`, value: `{"a":1}`, want: []string{
			"$: maxProperties: got 1, want 0",
			"$: minProperties: got 1, want 2",
		}},
		{name: "dependent required", schema: `{"dependentRequired":{"a":["b"]}}`, value: `{"a":1}`, want: []string{"$: properties 'b' required, if 'a' exists"}},
		{name: "minimum", schema: `{"minimum":0}`, value: `-1`, want: []string{"$: minimum: got -1, want 0"}},
		{name: "maximum", schema: `{"maximum":10}`, value: `11`, want: []string{"$: maximum: got 11, want 10"}},
		{name: "large numbers as JSON writes them", schema: `{"maximum":1000}`, value: `1500`, want: []string{"$: maximum: got 1500, want 1000"}},
		{name: "huge numbers", schema: `{"maximum":1e300}`, value: `1e308`, want: []string{"$: maximum: got 1e+308, want 1e+300"}},
		{name: "fractions", schema: `{"minimum":0.5}`, value: `0.25`, want: []string{"$: minimum: got 0.25, want 0.5"}},
		{name: "exclusive minimum", schema: `{"exclusiveMinimum":1000}`, value: `1000`, want: []string{"$: exclusiveMinimum: got 1000, want 1000"}},
		{name: "exclusive maximum", schema: `{"exclusiveMaximum":0}`, value: `0`, want: []string{"$: exclusiveMaximum: got 0, want 0"}},
		{name: "multiple of", schema: `{"multipleOf":1500}`, value: `2000`, want: []string{"$: multipleOf: got 2000, want 1500"}},
		{name: "min length", schema: `{"minLength":1000}`, value: `""`, want: []string{"$: minLength: got 0, want 1000"}},
		{name: "max length", schema: `{"maxLength":1}`, value: `"ab"`, want: []string{"$: maxLength: got 2, want 1"}},
		{name: "pattern", schema: `{"pattern":"^[a-z]+$"}`, value: `"A"`, want: []string{"$: 'A' does not match pattern '^[a-z]+$'"}},
		{name: "min items", schema: `{"minItems":2000}`, value: `[]`, want: []string{"$: minItems: got 0, want 2000"}},
		{name: "max items", schema: `{"maxItems":1}`, value: `[1,2]`, want: []string{"$: maxItems: got 2, want 1"}},
		{name: "unique items", schema: `{"uniqueItems":true}`, value: `[1,2,1]`, want: []string{"$: items at 0 and 2 are equal"}},
		{name: "contains", schema: `{"contains":{"const":1}}`, value: `[2]`, want: []string{"$[0]: value must be 1"}},
		{name: "min contains", schema: `{"contains":{"const":1},"minContains":2}`, value: `[1,2]`, want: []string{"$[1]: value must be 1"}},
		{name: "max contains", schema: `{"contains":{"const":1},"maxContains":1}`, value: `[1,2,1]`, want: []string{"$: max 1 items required to match contains schema, but matched 2 items at 0 2"}},
		{name: "unique items far apart", schema: `{"uniqueItems":true}`, value: "[" + count(1200) + ",1100]", want: []string{"$: items at 1100 and 1200 are equal"}},
		{name: "additional items", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`, value: "[" + strings.Repeat("0,", 1500) + "0]", want: []string{"$: last 1500 additionalItem(s) not allowed"}},
		{name: "not", schema: `{"not":{"type":"string"}}`, value: `"a"`, want: []string{"$: 'not' failed"}},
		{name: "false schema", schema: `{"properties":{"a":false}}`, value: `{"a":1}`, want: []string{"$.a: false schema"}},
		{name: "one of, none", schema: `{"oneOf":[{"type":"string"},{"type":"boolean"}]}`, value: `1`, want: []string{
			"$: got number, want boolean",
			"$: got number, want string",
		}},
		{name: "one of, two", schema: `{"oneOf":[{"type":"number"},{"minimum":0}]}`, value: `1`, want: []string{"$: 'oneOf' failed, subschemas 0, 1 matched"}},
		{name: "every problem at its path", schema: `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"array","items":{"type":"string"}}}},"odd key":{"type":"string"},"":{"type":"string"}}}`,
			value: `{"a":{"b":["x",1,true]},"odd key":1,"":2}`, want: []string{
				"$.a.b[1]: got number, want string",
				"$.a.b[2]: got boolean, want string",
				`$[""]: got number, want string`,
				`$["odd key"]: got number, want string`,
			}},
		{name: "an index key of an object", schema: `{"properties":{"0":{"type":"string"}}}`, value: `{"0":1}`, want: []string{`$["0"]: got number, want string`}},
		{name: "a repeated problem once", schema: `{"anyOf":[{"type":"string"},{"type":"string","minLength":1}]}`, value: `1`, want: []string{"$: got number, want string"}},
		{name: "ref to defs", schema: `{"$defs":{"n":{"enum":[1,2,3]}},"properties":{"x":{"$ref":"#/$defs/n"}}}`, value: `{"x":4}`, want: []string{"$.x: value must be one of 1, 2, 3"}},
		{name: "subschema at a pointer", schema: `{"$defs":{"n":{"enum":[1,2,3]}},"properties":{"x":{"properties":{"y":{"$ref":"#/$defs/n"}}}}}`, ptr: "/properties/x", value: `{"y":4}`, want: []string{"$.y: value must be one of 1, 2, 3"}},
		{name: "2020-12 without $schema: prefixItems", schema: `{"prefixItems":[{"type":"string"}],"items":false}`, value: `[1,2]`, want: []string{
			"$[0]: got number, want string",
			"$[1]: false schema",
		}},
		{name: "2020-12: format asserted, as in draft-07", schema: `{"format":"email"}`, value: `"nope"`, want: []string{"$: 'nope' is not valid email: missing @"}},
		{name: "an unknown format is not", schema: `{"format":"emial"}`, value: `"nope"`},
		{name: "draft-07: items as a list", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, value: `[1,2]`, want: []string{
			"$: last 1 additionalItem(s) not allowed",
			"$[0]: got number, want string",
		}},
		{name: "draft-07: definitions", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}}}`, value: `{"a":1}`, want: []string{"$.a: got number, want string"}},
		{name: "draft-07: dependencies", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`, value: `{"a":1}`, want: []string{"$: properties 'b' required, if 'a' exists"}},
		{name: "draft-07: if then else", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","if":{"type":"string"},"then":{"minLength":2},"else":{"type":"number"}}`, value: `true`, want: []string{"$: got boolean, want number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema), tt.ptr)
			if err != nil {
				t.Fatal(err)
			}
			problems, err := s.Validate([]byte(tt.value))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.ptr != "" {
				return
			}
			// A Doc compiles from the value it read, not the text: the
			// same problems.
			d, err := NewDoc([]byte(tt.schema)).Compiled()
			if err != nil {
				t.Fatal(err)
			}
			again, err := d.Validate([]byte(tt.value))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(problems, again); diff != "" {
				t.Errorf("compiled from a Doc (-text +doc):\n%s", diff)
			}
		})
	}
}

// count writes the numbers 0 to n-1 as a list's items.
func count(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// TestDescribe holds the messages schemacheck writes itself to upstream's
// words, and their numbers to JSON's form.
func TestDescribe(t *testing.T) {
	r := func(s string) *big.Rat {
		x, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("bad number %s", s)
		}
		return x
	}
	tests := []struct {
		name  string
		small jsonschema.ErrorKind // numbers under 1,000: upstream's message is the same
		large jsonschema.ErrorKind
		want  string // of large
	}{
		{"minimum", &kind.Minimum{Got: r("-1"), Want: r("0.5")}, &kind.Minimum{Got: r("-12345"), Want: r("1e300")}, "minimum: got -12345, want 1e+300"},
		{"maximum", &kind.Maximum{Got: r("11"), Want: r("10")}, &kind.Maximum{Got: r("1500"), Want: r("1000")}, "maximum: got 1500, want 1000"},
		{"exclusive minimum", &kind.ExclusiveMinimum{Got: r("1"), Want: r("1")}, &kind.ExclusiveMinimum{Got: r("1000"), Want: r("1000")}, "exclusiveMinimum: got 1000, want 1000"},
		{"exclusive maximum", &kind.ExclusiveMaximum{Got: r("2.5"), Want: r("2")}, &kind.ExclusiveMaximum{Got: r("2500.5"), Want: r("2000")}, "exclusiveMaximum: got 2500.5, want 2000"},
		{"multiple of", &kind.MultipleOf{Got: r("7"), Want: r("2")}, &kind.MultipleOf{Got: r("7000"), Want: r("2000")}, "multipleOf: got 7000, want 2000"},
		{"min length", &kind.MinLength{Got: 0, Want: 1}, &kind.MinLength{Got: 999, Want: 1000}, "minLength: got 999, want 1000"},
		{"max length", &kind.MaxLength{Got: 2, Want: 1}, &kind.MaxLength{Got: 1001, Want: 1000}, "maxLength: got 1001, want 1000"},
		{"min items", &kind.MinItems{Got: 0, Want: 1}, &kind.MinItems{Got: 0, Want: 1000}, "minItems: got 0, want 1000"},
		{"max items", &kind.MaxItems{Got: 2, Want: 1}, &kind.MaxItems{Got: 1001, Want: 1000}, "maxItems: got 1001, want 1000"},
		{"min properties", &kind.MinProperties{Got: 0, Want: 1}, &kind.MinProperties{Got: 0, Want: 1000}, "minProperties: got 0, want 1000"},
		{"max properties", &kind.MaxProperties{Got: 2, Want: 1}, &kind.MaxProperties{Got: 1001, Want: 1000}, "maxProperties: got 1001, want 1000"},
		{"additional items", &kind.AdditionalItems{Count: 2}, &kind.AdditionalItems{Count: 1500}, "last 1500 additionalItem(s) not allowed"},
		{"unique items", &kind.UniqueItems{Duplicates: [2]int{0, 2}}, &kind.UniqueItems{Duplicates: [2]int{1000, 2000}}, "items at 1000 and 2000 are equal"},
		{"one of", &kind.OneOf{Subschemas: []int{0, 1}}, &kind.OneOf{Subschemas: []int{1000, 1001}}, "'oneOf' failed, subschemas 1000, 1001 matched"},
		{"one of, none", &kind.OneOf{}, &kind.OneOf{}, "'oneOf' failed, none matched"},
		{"min contains", &kind.MinContains{Got: []int{1, 3}, Want: 3}, &kind.MinContains{Got: []int{1000, 1001}, Want: 3000}, "min 3000 items required to match contains schema, but matched 2 items at 1000 1001"},
		{"min contains, none", &kind.MinContains{Want: 3}, &kind.MinContains{Want: 3000}, "min 3000 items required to match contains schema, but none matched"},
		{"max contains", &kind.MaxContains{Got: []int{0, 2}, Want: 1}, &kind.MaxContains{Got: []int{0, 2000}, Want: 1000}, "max 1000 items required to match contains schema, but matched 2 items at 0 2000"},
		{"additional properties", &kind.AdditionalProperties{Properties: []string{"a"}}, &kind.AdditionalProperties{Properties: []string{"b", "a"}}, "additional properties 'a', 'b' not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.small.LocalizedString(english()), describe(tt.small)); diff != "" {
				t.Errorf("describe differs from upstream (-upstream +describe):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, describe(tt.large)); diff != "" {
				t.Errorf("describe (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	doc := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(wd, "tool.json"))}).String()
	tests := []struct {
		name   string
		schema string
		ptr    string
		want   string // DOC stands for the document's URL
	}{
		{name: "not JSON", schema: `{"type":`, want: "unexpected EOF"},
		{name: "not a schema", schema: `{"type":"strin"}`, want: `the schema cannot be compiled: "DOC#" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'`},
		{name: "draft-07 checked against draft-07", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":1}`, want: `the schema cannot be compiled: "DOC#" is not valid against metaschema: jsonschema validation failed with 'http://json-schema.org/draft-07/schema#'`},
		{name: "a bad pattern", schema: `{"pattern":"("}`, want: `the schema cannot be compiled: "DOC#" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'`},
		{name: "a reference outside", schema: `{"$ref":"https://example.com/s.json"}`, want: `the schema cannot be compiled: failing loading "https://example.com/s.json": https://example.com/s.json is outside the schema; only references within it are followed`},
		{name: "a missing definition", schema: `{"$ref":"#/$defs/nowhere"}`, want: `the schema cannot be compiled: json-pointer in "DOC#/$defs/nowhere" not found`},
		{name: "no such pointer", schema: `{}`, ptr: "/properties/x", want: `the schema cannot be compiled: json-pointer in "DOC#/properties/x" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]byte(tt.schema), tt.ptr)
			if err == nil {
				t.Fatal("compiled")
			}
			if diff := cmp.Diff(tt.want, strings.ReplaceAll(err.Error(), doc, "DOC")); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConcurrent compiles and validates from several goroutines at once,
// for the race detector.
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			schema := `{"type":"string"}`
			if i%2 == 1 {
				schema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`
			}
			s, err := Compile([]byte(schema), "")
			if err != nil {
				t.Error(err)
				return
			}
			if p, err := s.Validate([]byte(`1`)); err != nil || len(p) != 1 {
				t.Errorf("got %v, %v, want one problem", p, err)
			}
		}()
	}
	wg.Wait()
}

// TestFormats: every format of Formats is checked, in a schema of any
// draft; a format the checker does not know is not.
func TestFormats(t *testing.T) {
	for _, draft := range []string{``, `"$schema":"http://json-schema.org/draft-07/schema#",`, `"$schema":"https://json-schema.org/draft/2020-12/schema",`} {
		for _, f := range Formats {
			s, err := Compile([]byte(`{`+draft+`"type":"string","format":"`+f+`"}`), "")
			if err != nil {
				t.Fatal(err)
			}
			if problems, err := s.Validate([]byte(`"(%%% not a value of any format"`)); err != nil || len(problems) != 1 {
				t.Errorf("%s %s: %v, %v; want one problem", draft, f, problems, err)
			}
		}
	}
	s, err := Compile([]byte(`{"type":"string","format":"emial"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if problems, err := s.Validate([]byte(`"x"`)); err != nil || len(problems) != 0 {
		t.Errorf("an unknown format: %v, %v", problems, err)
	}
}
