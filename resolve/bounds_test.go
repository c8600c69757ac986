package resolve_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/resolve"
)

// TestBounds: a parameter override may tighten every JSON Schema bound
// of the discovered schema, never loosen it, with errors that say what
// the tool's schema says and the fix (issue 24, point 8).
func TestBounds(t *testing.T) {
	const params = `{"type":"object","properties":{` +
		`"count":{"type":"number","minimum":0,"maximum":100},` +
		`"n":{"type":"integer"},` +
		`"step":{"type":"integer","multipleOf":2},` +
		`"title":{"type":"string","minLength":1,"maxLength":80},` +
		`"code":{"type":"string","pattern":"^[A-Z]+$"},` +
		`"url":{"type":"string","format":"uri"},` +
		`"mail":{"type":"string"},` +
		`"tags":{"type":"array","items":{"type":"string"},"maxItems":10,"uniqueItems":true},` +
		`"level":{"type":"integer","enum":[1,2,3]},` +
		`"any":{}` +
		`}}`
	const draft4 = `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"old":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`
	found := resolve.Found{Described: map[string]resolve.Described{
		"tool":   {Path: "/t/tool", Discovered: resolve.Discovered{Name: "tool", Description: "A tool.", InputSchema: resolve.MustSchema(params)}},
		"legacy": {Path: "/t/legacy", Discovered: resolve.Discovered{Name: "legacy", Description: "An old tool.", InputSchema: resolve.MustSchema(draft4)}},
	}}
	prop := func(name, with string) string {
		start := strings.Index(params, `"`+name+`":`)
		end := start + len(`"`+name+`":`)
		depth := 0
		for i := end; ; i++ {
			switch params[i] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				return params[:end] + with + params[i+1:]
			}
		}
	}
	tests := []struct {
		name   string
		tool   string // "tool" when ""
		toml   string // under [tools.<tool>.parameters]
		schema string
		errs   []string
	}{
		{name: "maximum lowers", toml: "count.maximum = 50", schema: prop("count", `{"type":"number","minimum":0,"maximum":50}`)},
		{name: "minimum rises", toml: "count.minimum = 0.5", schema: prop("count", `{"type":"number","minimum":0.5,"maximum":100}`)},
		{name: "the same bound changes nothing", toml: "count.maximum = 100", schema: params},
		{name: "maximum cannot rise", toml: "count.maximum = 200", errs: []string{
			"tools.tool.parameters.count.maximum: cannot raise the maximum to 200; the tool's maximum is 100; an override may only lower it: write maximum = 100 or less"}},
		{name: "minimum cannot drop", toml: "count.minimum = -1", errs: []string{
			"tools.tool.parameters.count.minimum: cannot lower the minimum to -1; the tool's minimum is 0; an override may only raise it: write minimum = 0 or more"}},
		{name: "bounds where the tool has none", toml: "n = { minimum = 1, exclusive_maximum = 10 }", schema: prop("n", `{"type":"integer","minimum":1,"exclusiveMaximum":10}`)},
		{name: "no number fits", toml: "count.minimum = 60\ncount.maximum = 50", errs: []string{
			"tools.tool.parameters.count: no number fits between minimum 60 and maximum 50; an override may only narrow the range the tool's schema allows"}},
		{name: "exclusive bounds meet", toml: "n = { exclusive_minimum = 3, maximum = 3 }", errs: []string{
			"tools.tool.parameters.n: no number fits between exclusiveMinimum 3 and maximum 3; an override may only narrow the range the tool's schema allows"}},
		{name: "draft 4's exclusive flag", tool: "legacy", toml: "old.exclusive_minimum = 1", errs: []string{
			"tools.legacy.parameters.old.exclusive_minimum: the tool's schema writes exclusiveMinimum as draft 4's flag of minimum; set minimum instead"}},
		{name: "multiple_of added", toml: "n.multiple_of = 5", schema: prop("n", `{"type":"integer","multipleOf":5}`)},
		{name: "multiple_of of the tool's", toml: "step.multiple_of = 4", schema: prop("step", `{"type":"integer","multipleOf":4}`)},
		{name: "multiple_of not of the tool's", toml: "step.multiple_of = 3", errs: []string{
			"tools.tool.parameters.step.multiple_of: 3 is not a multiple of the tool's multipleOf 2; an override may only ask for multiples of the tool's: 2, or a multiple of it"}},
		{name: "multiple_of positive", toml: "n.multiple_of = 0", errs: []string{
			"tools.tool.parameters.n.multiple_of: must be more than 0, found 0; numbers are multiples of a positive number"}},
		{name: "lengths tighten", toml: "title = { min_length = 3, max_length = 50 }", schema: prop("title", `{"type":"string","minLength":3,"maxLength":50}`)},
		{name: "max_length cannot rise", toml: "title.max_length = 100", errs: []string{
			"tools.tool.parameters.title.max_length: cannot raise the maximum length to 100; the tool's maxLength is 80; an override may only lower it: write max_length = 80 or less"}},
		{name: "min_length cannot drop", toml: "title.min_length = 0", errs: []string{
			"tools.tool.parameters.title.min_length: cannot lower the minimum length to 0; the tool's minLength is 1; an override may only raise it: write min_length = 1 or more"}},
		{name: "a negative length", toml: "mail.max_length = -1", errs: []string{
			"tools.tool.parameters.mail.max_length: must be 0 or more, found -1; a length is never negative"}},
		{name: "no string fits", toml: "title = { min_length = 60, max_length = 50 }", errs: []string{
			"tools.tool.parameters.title: no string fits between minLength 60 and maxLength 50; an override may only narrow the range the tool's schema allows"}},
		{name: "a pattern where the tool has none", toml: "mail.pattern = '@example\\.com$'", schema: prop("mail", `{"type":"string","pattern":"@example\\.com$"}`)},
		{name: "a pattern besides the tool's: both hold", toml: "code.pattern = '^.{2,4}$'", schema: prop("code", `{"type":"string","pattern":"^[A-Z]+$","allOf":[{"pattern":"^.{2,4}$"}]}`)},
		{name: "the tool's own pattern changes nothing", toml: "code.pattern = '^[A-Z]+$'", schema: params},
		{name: "not a regular expression", toml: "code.pattern = '(['", errs: []string{
			"tools.tool.parameters.code.pattern: \"([\" is not a regular expression: missing closing ]: `[`; write it as Go's regexp reads it (RE2: no lookaround or backreferences), in single quotes in TOML: '^[a-z]+$'"}},
		{name: "a format where the tool has none", toml: "mail.format = \"email\"", schema: prop("mail", `{"type":"string","format":"email"}`)},
		{name: "the tool's own format", toml: "url.format = \"uri\"", schema: params},
		{name: "a format cannot change", toml: "url.format = \"email\"", errs: []string{
			"tools.tool.parameters.url.format: cannot change the format to email; the tool's format is \"uri\"; an override may add a format only where the tool's schema gives none; remove format, or add a pattern"}},
		{name: "an unknown format", toml: "mail.format = \"emial\"", errs: []string{
			"tools.tool.parameters.mail.format: strata does not check the format \"emial\"; did you mean email?"}},
		{name: "items tighten", toml: "tags = { min_items = 1, max_items = 5 }", schema: prop("tags", `{"type":"array","items":{"type":"string"},"maxItems":5,"uniqueItems":true,"minItems":1}`)},
		{name: "max_items cannot rise", toml: "tags.max_items = 11", errs: []string{
			"tools.tool.parameters.tags.max_items: cannot raise the maximum number of items to 11; the tool's maxItems is 10; an override may only lower it: write max_items = 10 or less"}},
		{name: "items cannot repeat where the tool says they differ", toml: "tags.unique_items = false", errs: []string{
			"tools.tool.parameters.tags.unique_items: cannot let items repeat; the tool's schema says uniqueItems; remove unique_items = false"}},
		{name: "the bounds of the items", toml: "tags.items.max_length = 20", schema: prop("tags", `{"type":"array","items":{"type":"string","maxLength":20},"maxItems":10,"uniqueItems":true}`)},
		{name: "a bound of another type", toml: "title.minimum = 1", errs: []string{
			"tools.tool.parameters.title.minimum: minimum bounds a number; the parameter is string; numbers take minimum, maximum, exclusive_minimum, exclusive_maximum and multiple_of; strings min_length, max_length, pattern and format; arrays min_items, max_items and unique_items"}},
		{name: "a parameter without a type takes any bound", toml: "any = { maximum = 3, max_length = 2 }", schema: prop("any", `{"maximum":3,"maxLength":2}`)},
		{name: "a default must fit the new bounds", toml: "count = { maximum = 50, default = 60 }", errs: []string{
			"tools.tool.parameters.count.default: the default 60 does not fit the parameter's schema: maximum: got 60, want 50; give a default the tool accepts"}},
		{name: "an enum must fit the new bounds", toml: "level = { maximum = 2, enum = [3] }", errs: []string{
			"tools.tool.parameters.level.enum: 3 does not fit the parameter's schema: maximum: got 3, want 2; list values the bounds allow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := tt.tool
			if tool == "" {
				tool = "tool"
			}
			cfg, err := layerConfig("[tools." + tool + ".parameters]\n" + tt.toml + "\n")
			if err != nil {
				t.Fatal(err)
			}
			c, err := resolve.Build(cfg, found)
			if diff := cmp.Diff(tt.errs, errLines(err)); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			d, ok := c.Tool(tool)
			if tt.errs != nil {
				if ok {
					t.Error("a tool with a violation was kept")
				}
				return
			}
			if got := d.InputSchema.String(); got != tt.schema {
				t.Errorf("schema\n got %s\nwant %s", got, tt.schema)
			}
		})
	}
}

// TestBoundsOfADefinedTool: a tool the config defines whole writes its
// bounds into its schema, checked as an override's are.
func TestBoundsOfADefinedTool(t *testing.T) {
	cfg, err := layerConfig(`[tools.greet]
command = "greet {{tool.arguments.name}}"
parameters.name = { type = "string", required = true, max_length = 20, pattern = '^[A-Za-z ]+$' }
parameters.times = { type = "integer", minimum = 1, maximum = 3 }
parameters.bad = { type = "integer", minimum = 5, maximum = 1 }
`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = resolve.Build(cfg, resolve.Found{})
	want := []string{"tools.greet.parameters.bad: no number fits between minimum 5 and maximum 1; an override may only narrow the range the tool's schema allows"}
	if diff := cmp.Diff(want, errLines(err)); diff != "" {
		t.Fatalf("problems (-want +got):\n%s", diff)
	}
	cfg, _ = layerConfig(`[tools.greet]
command = "greet {{tool.arguments.name}}"
parameters.name = { type = "string", required = true, max_length = 20, pattern = '^[A-Za-z ]+$' }
parameters.times = { type = "integer", minimum = 1, maximum = 3 }
`)
	c, err := resolve.Build(cfg, resolve.Found{})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Tool("greet")
	want1 := `{"type":"object","properties":{"name":{"type":"string","maxLength":20,"pattern":"^[A-Za-z ]+$"},"times":{"type":"integer","minimum":1,"maximum":3}},"required":["name"]}`
	if got := d.InputSchema.String(); got != want1 {
		t.Errorf("schema\n got %s\nwant %s", got, want1)
	}
}
