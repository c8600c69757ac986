package discover_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/internal/testbin"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

var jptools, mcpfake string // the built fixture binaries

func TestMain(m *testing.M) {
	testbin.Main(m, map[string]*string{testbin.JPTools: &jptools, testbin.MCPFake: &mcpfake})
}

var (
	fixtures, _ = filepath.Abs("../../fixtures")
	environ     = []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent"}
)

// configOf decodes a layer and finalizes it; JPTOOLS and MCPFAKE in it
// stand for the built fixture binaries.
func configOf(t *testing.T, src string) config.Config {
	t.Helper()
	src = strings.NewReplacer("JPTOOLS", jptools, "MCPFAKE", mcpfake).Replace(src)
	p := layertest.MustDecode(t, "test.toml", src, partial.TOML)
	c, err := config.Finalize(&p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func resolveIn(t *testing.T, r discover.Resolver, src string) (*resolve.Catalog, error) {
	t.Helper()
	if r.Root == "" {
		r.Root = t.TempDir()
	}
	if r.Environ == nil {
		r.Environ = environ
	}
	return build(context.Background(), &r, configOf(t, src))
}

// build discovers the tools of c and builds their catalog, as the root's
// Workspace does.
func build(ctx context.Context, r *discover.Resolver, c config.Config) (*resolve.Catalog, error) {
	f, err := r.Discover(ctx, c)
	if err != nil {
		return nil, err
	}
	return resolve.Build(c, f)
}

func errLines(err error) []string {
	var out []string
	for _, e := range diag.All(err) {
		out = append(out, e.Error())
	}
	return out
}

func schemaOf(t *testing.T, c *resolve.Catalog, name string) string {
	t.Helper()
	d, ok := c.Tool(name)
	if !ok {
		t.Fatalf("no tool %s in %v", name, c.Tools)
	}
	return d.InputSchema.String()
}

func TestSchemaAction(t *testing.T) {
	c, err := resolveIn(t, discover.Resolver{}, `
[tools.count_lines]
source = "local"
command = "JPTOOLS {{tool}} {{context}}"

[tools.grep]
source = "local.search_text"
command = "JPTOOLS {{tool}} {{context}}"
`)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Tool("count_lines")
	if d.Summary != "Count the lines of a file in the workspace." || d.Exec.Kind != resolve.ExecJP || d.Exec.Tool != "count_lines" {
		t.Errorf("count_lines: %+v", d)
	}
	want := `{"type":"object","properties":{"case_sensitive":{"type":"boolean","default":false,"description":"Whether letter case must match."},"max_results":{"type":"integer","description":"Most matches to report.\n\nMost matches to report; the search stops there and says so.","default":100},"path":{"type":"string","default":".","description":"File or directory to search, relative to the workspace root."},"pattern":{"type":"string","description":"Regular expression to search for.\n\nRegular expression in RE2 syntax, matched against each line."}},"required":["pattern"]}`
	if got := schemaOf(t, c, "grep"); got != want {
		t.Errorf("a parameter without a default is required, the others not:\n got %s\nwant %s", got, want)
	}
	if d, _ := c.Tool("grep"); d.Source != "local.search_text" || d.Exec.Tool != "search_text" {
		t.Errorf("renamed tool: source %q, upstream %q", d.Source, d.Exec.Tool)
	}
}

func TestSchemaActionMissingTool(t *testing.T) {
	_, err := resolveIn(t, discover.Resolver{}, `
[tools.nope]
source = "local"
command = "JPTOOLS {{tool}} {{context}}"
`)
	want := []string{`tools.nope.source: the program describes no tool named nope; it offers count_lines, fs_modify_file, search_text; pick one with source = "local.<tool>"`}
	if diff := cmp.Diff(want, errLines(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestConfigDefinedTool: parameters with types define the schema, and the
// command is never run to ask for one.
func TestConfigDefinedTool(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	c, err := resolveIn(t, discover.Resolver{}, `
[tools.commit]
source = "local"
command = "touch `+marker+`"
description = "Commit the staged changes. Uses git."

[tools.commit.parameters.message]
type = "string"
required = true
description = "The commit message."

[tools.commit.parameters.amend]
type = "boolean"
default = false
`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran to describe a tool the config defines")
	}
	want := `{"type":"object","properties":{"amend":{"type":"boolean","default":false},"message":{"type":"string","description":"The commit message."}},"required":["message"]}`
	if got := schemaOf(t, c, "commit"); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if d, _ := c.Tool("commit"); d.Summary != "Commit the staged changes." || d.Description != "Commit the staged changes. Uses git." {
		t.Errorf("summary %q, description %q", d.Summary, d.Description)
	}
}

// describeDir writes executables into a new directory and returns it.
func describeDir(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func describing(name, description, params string) string {
	return fmt.Sprintf("if [ \"$1\" = --describe ]; then echo '{\"name\":\"%s\",\"description\":\"%s\",\"parameters\":%s}'; exit 0; fi\necho ran\n", name, description, params)
}

// TestOverrideRules applies every override rule to a discovered schema,
// and every violation.
func TestOverrideRules(t *testing.T) {
	params := `{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema","properties":{` +
		`"path":{"type":"string","format":"uri-reference","minLength":1,"description":"Where."},` +
		`"mode":{"type":["string","null"],"enum":["a","b","c"]},` +
		`"count":{"type":"number","minimum":0,"maximum":10},` +
		`"tags":{"type":"array","items":{"type":"string","enum":["x","y"]}},` +
		`"opts":{"type":"object","properties":{"deep":{"type":"boolean"}}},` +
		`"ref":{"$ref":"#/$defs/level"},` +
		`"any":{"anyOf":[{"type":"string"},{"type":"integer"}]}` +
		`},"required":["path"],"$defs":{"level":{"type":"integer","enum":[1,2,3]}}}`
	dir := describeDir(t, map[string]string{"tool.sh": describing("tool", "Do a thing. Carefully, e.g. slowly.", params)})
	tests := []struct {
		name    string
		toml    string
		schema  string // "" to skip
		summary string
		desc    string
		errs    []string
	}{
		{name: "no overrides keeps the schema byte for byte", schema: params, summary: "Do a thing.", desc: "Do a thing. Carefully, e.g. slowly."},
		{name: "text", toml: `summary = "Short."` + "\n" + `description = "Before. {{description}} After."`, summary: "Short.", desc: "Before. Do a thing. Carefully, e.g. slowly. After."},
		{name: "required tightens", toml: "[tools.tool.parameters.count]\nrequired = true", schema: strings.Replace(params, `"required":["path"]`, `"required":["path","count"]`, 1)},
		{name: "required cannot loosen", toml: "[tools.tool.parameters.path]\nrequired = false", errs: []string{"tools.tool.parameters.path.required: cannot make a required parameter optional; an override may only make parameters required; remove required = false"}},
		{name: "type narrows", toml: "[tools.tool.parameters.mode]\ntype = \"string\"", schema: strings.Replace(params, `"type":["string","null"]`, `"type":"string"`, 1)},
		{name: "integer narrows number", toml: "[tools.tool.parameters.count]\ntype = \"integer\"", schema: strings.Replace(params, `"count":{"type":"number"`, `"count":{"type":"integer"`, 1)},
		{name: "type cannot change", toml: "[tools.tool.parameters.path]\ntype = \"integer\"", errs: []string{"tools.tool.parameters.path.type: cannot change the type to integer; the tool takes string; an override may only narrow a list of types to some of them (path narrows string)"}},
		{name: "path narrows a string (JP RFD D25)", toml: "[tools.tool.parameters.path]\ntype = \"path\"", schema: params},
		{name: "path narrows no integer", toml: "[tools.tool.parameters.count]\ntype = \"path\"", errs: []string{"tools.tool.parameters.count.type: cannot change the type to path; the tool takes number; an override may only narrow a list of types to some of them (path narrows string)"}},
		{name: "no type to narrow", toml: "[tools.tool.parameters.any]\ntype = \"string\"", errs: []string{"tools.tool.parameters.any.type: the discovered schema gives this parameter no type to narrow; remove the type override"}},
		{name: "enum shrinks", toml: "[tools.tool.parameters.mode]\nenum = [\"a\", \"c\"]", schema: strings.Replace(params, `"enum":["a","b","c"]`, `"enum":["a","c"]`, 1)},
		{name: "enum cannot grow", toml: "[tools.tool.parameters.mode]\nenum = [\"a\", \"z\"]", errs: []string{`tools.tool.parameters.mode.enum: "z" is not one of the tool's values ("a", "b", "c"); an override may only narrow an enum to some of its values`}},
		{name: "enum on a free value must fit", toml: "[tools.tool.parameters.count]\nenum = [1, 20]", errs: []string{"tools.tool.parameters.count.enum: 20 does not fit the parameter's schema: maximum: got 20, want 10; list values the tool accepts"}},
		{name: "one-value enum forces", toml: "[tools.tool.parameters.mode]\nenum = [\"b\"]", schema: strings.Replace(params, `"enum":["a","b","c"]}`, `"enum":["b"],"default":"b"}`, 1)},
		{name: "default must validate", toml: "[tools.tool.parameters.count]\ndefault = 11", errs: []string{"tools.tool.parameters.count.default: the default 11 does not fit the parameter's schema: maximum: got 11, want 10; give a default the tool accepts"}},
		{name: "default through $ref", toml: "[tools.tool.parameters.ref]\ndefault = 4", errs: []string{"tools.tool.parameters.ref.default: the default 4 does not fit the parameter's schema: value must be one of 1, 2, 3; give a default the tool accepts"}},
		{name: "default of the right type", toml: "[tools.tool.parameters.ref]\ndefault = 2", schema: strings.Replace(params, `"ref":{"$ref":"#/$defs/level"}`, `"ref":{"$ref":"#/$defs/level","default":2}`, 1)},
		{name: "default checks format", toml: "[tools.tool.parameters.path]\ndefault = \"\"", errs: []string{"tools.tool.parameters.path.default: the default \"\" does not fit the parameter's schema: minLength: got 0, want 1; give a default the tool accepts"}},
		{name: "items", toml: "[tools.tool.parameters.tags.items]\nenum = [\"x\"]", schema: strings.Replace(params, `"items":{"type":"string","enum":["x","y"]}`, `"items":{"type":"string","enum":["x"],"default":"x"}`, 1)},
		{name: "nested properties", toml: "[tools.tool.parameters.opts.properties.deep]\nrequired = true\ndescription = \"Go deep.\"", schema: strings.Replace(params, `"properties":{"deep":{"type":"boolean"}}}`, `"properties":{"deep":{"type":"boolean","description":"Go deep."}},"required":["deep"]}`, 1)},
		{name: "description with the discovered one", toml: "[tools.tool.parameters.path]\ndescription = \"{{description}} Relative.\"", schema: strings.Replace(params, `"description":"Where."`, `"description":"Where. Relative."`, 1)},
		{name: "unknown parameter", toml: "[tools.tool.parameters.pth]\nrequired = true", errs: []string{"tools.tool.parameters.pth: the tool has no parameter pth; did you mean path?"}},
		{name: "items on a non-array", toml: "[tools.tool.parameters.path.items]\nenum = [\"x\"]", errs: []string{"tools.tool.parameters.path.items: the parameter has no items schema to override; items overrides apply to array parameters"}},
		{name: "every violation at once", toml: "[tools.tool.parameters.path]\nrequired = false\ntype = \"integer\"\n[tools.tool.parameters.count]\ndefault = -1", errs: []string{
			"tools.tool.parameters.count.default: the default -1 does not fit the parameter's schema: minimum: got -1, want 0; give a default the tool accepts",
			"tools.tool.parameters.path.required: cannot make a required parameter optional; an override may only make parameters required; remove required = false",
			"tools.tool.parameters.path.type: cannot change the type to integer; the tool takes string; an override may only narrow a list of types to some of them (path narrows string)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toml := "[discover]\ndirs = [\"" + dir + "\"]\n[tools.tool]\n" + tt.toml + "\n"
			c, err := resolveIn(t, discover.Resolver{}, toml)
			if tt.errs != nil {
				if diff := cmp.Diff(tt.errs, errLines(err)); diff != "" {
					t.Fatalf("problems (-want +got):\n%s", diff)
				}
				if _, ok := c.Tool("tool"); ok {
					t.Error("a tool with a violation was kept")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.schema != "" {
				if got := schemaOf(t, c, "tool"); got != tt.schema {
					t.Errorf("schema\n got %s\nwant %s", got, tt.schema)
				}
			}
			d, _ := c.Tool("tool")
			if tt.summary != "" && d.Summary != tt.summary {
				t.Errorf("summary %q, want %q", d.Summary, tt.summary)
			}
			if tt.desc != "" && d.Description != tt.desc {
				t.Errorf("description %q, want %q", d.Description, tt.desc)
			}
		})
	}
}

func TestForcedValue(t *testing.T) {
	dir := describeDir(t, map[string]string{"w.sh": describing("w", "W.", `{"type":"object","properties":{"unit":{"type":"string","enum":["c","f"]}}}`)})
	c, err := resolveIn(t, discover.Resolver{}, "[discover]\ndirs = [\""+dir+"\"]\n[tools.w.parameters.unit]\nenum = [\"c\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Tool("w")
	if diff := cmp.Diff(map[string]any{"unit": "c"}, d.Exec.Forced); diff != "" {
		t.Errorf("forced (-want +got):\n%s", diff)
	}
}

// TestFaults resolves the fault fixtures: each misbehaving executable is
// skipped with a diagnostic, and the well-behaved ones still resolve.
//
// The timeout is long enough for slow.sh (0.3 s) on a loaded machine: what
// is tested is that the hanging ones are cut, not how fast.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for the hanging faults' timeout")
	}
	c, err := resolveIn(t, discover.Resolver{Timeout: 4 * time.Second}, `[discover]
dirs = ["`+filepath.Join(fixtures, "faults")+`", "`+filepath.Join(t.TempDir(), "missing")+`"]`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range c.Tools {
		names = append(names, d.Name)
	}
	if diff := cmp.Diff([]string{"ok", "slow"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	got := strings.Join(errLines(c.Warnings), "\n")
	for _, want := range []string{
		"badshape.sh: the answer has no name",
		"crash.sh: killed by signal",
		"exit1.sh: exit status 1: exit1: cannot describe: missing dependency foo",
		"flood.sh: wrote more than 4 MiB to stdout",
		"fork.sh: did not describe itself within 4s; if it needs longer, set discover.timeout_sec, or tools.fork.discover_timeout_sec for this tool alone",
		"garbage.sh: the answer is not JSON",
		"hang.sh: did not describe itself within 4s; if it needs longer",
		"missing: no such file or directory; no tools from it",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no warning saying %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "not_executable") {
		t.Errorf("a file that is not executable was run:\n%s", got)
	}
}

// TestDescribeAnswers reads well- and ill-formed --describe answers: each
// bad one is skipped with a warning that says what is wrong.
func TestDescribeAnswers(t *testing.T) {
	answer := func(json string) string {
		return "if [ \"$1\" = --describe ]; then echo '" + json + "'; exit 0; fi\n"
	}
	tests := []struct {
		name   string
		answer string
		tool   string // the tool resolved, or ""
		schema string
		warn   string
	}{
		{name: "full", answer: `{"name":"a","description":"A.","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}`, tool: "a", schema: `{"type":"object","properties":{"x":{"type":"string"}}}`},
		{name: "no parameters", answer: `{"name":"a","description":"A."}`, tool: "a", schema: `{"type":"object","properties":{},"required":[]}`},
		{name: "null parameters and description", answer: `{"name":"a","description":null,"parameters":null}`, tool: "a", schema: `{"type":"object","properties":{},"required":[]}`},
		{name: "an array", answer: `[{"name":"a"}]`, warn: "t.sh: the answer is not a JSON object; --describe must print {name, description, parameters}"},
		{name: "no name", answer: `{"description":"A."}`, warn: "t.sh: the answer has no name"},
		{name: "empty name", answer: `{"name":""}`, warn: "t.sh: the answer has no name"},
		{name: "a number for a name", answer: `{"name":7}`, warn: "t.sh: the answer has no name"},
		{name: "a description that is not a string", answer: `{"name":"a","description":["A."]}`, warn: "t.sh: the description must be a string"},
		{name: "parameters that are not an object", answer: `{"name":"a","parameters":"x"}`, warn: "t.sh: parameters must be a JSON Schema object"},
		{name: "a repeated key", answer: `{"name":"a","name":"b"}`, warn: `t.sh: the answer cannot be read: offset 12: key "name" appears twice in an object`},
		{name: "a name with an escape sequence", answer: `{"name":"a\u001b[2J"}`, warn: `t.sh: the name "a\x1b[2J" is not one strata takes`},
		{name: "a name with a bidirectional override", answer: `{"name":"a\u202eb"}`, warn: `t.sh: the name "a\u202eb" is not one strata takes`},
		{name: "a name with a space", answer: `{"name":"word count"}`, tool: "word count", schema: `{"type":"object","properties":{},"required":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := describeDir(t, map[string]string{"t.sh": answer(tt.answer)})
			c, err := resolveIn(t, discover.Resolver{}, "[discover]\ndirs = [\""+dir+"\"]\n")
			if err != nil {
				t.Fatal(err)
			}
			warnings := strings.Join(errLines(c.Warnings), "\n")
			if tt.tool == "" {
				if len(c.Tools) != 0 || !strings.Contains(warnings, tt.warn) {
					t.Errorf("tools %v, warnings %q; want none and a warning with %q", c.Tools, warnings, tt.warn)
				}
				return
			}
			if warnings != "" {
				t.Errorf("warnings: %s", warnings)
			}
			if got := schemaOf(t, c, tt.tool); got != tt.schema {
				t.Errorf("schema = %s, want %s", got, tt.schema)
			}
		})
	}
	t.Run("two programs with one name", func(t *testing.T) {
		dir := describeDir(t, map[string]string{"a.sh": answer(`{"name":"same"}`), "b.sh": answer(`{"name":"same"}`)})
		c, err := resolveIn(t, discover.Resolver{}, "[discover]\ndirs = [\""+dir+"\"]\n")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"skipped: discover.dirs.0: " + dir + "/b.sh: it also describes a tool named same; " + dir + "/a.sh is used"}
		if diff := cmp.Diff(want, errLines(c.Warnings)); diff != "" || len(c.Tools) != 1 {
			t.Errorf("%d tools; warnings (-want +got):\n%s", len(c.Tools), diff)
		}
	})
}

// TestMissingCommand: a configured tool whose program does not exist fails
// alone; the others resolve.
func TestMissingCommand(t *testing.T) {
	c, err := resolveIn(t, discover.Resolver{}, `
[tools.gone]
source = "local"
command = "/nonexistent/tool {{tool}}"

[tools.count_lines]
source = "local"
command = "JPTOOLS {{tool}} {{context}}"
`)
	if len(c.Tools) != 1 || c.Tools[0].Name != "count_lines" {
		t.Errorf("tools: %v", c.Tools)
	}
	want := []string{"tools.gone.command: cannot get the tool's schema: /nonexistent/tool: not found; make the program answer the schema action, or give the parameters in the config"}
	if diff := cmp.Diff(want, errLines(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTemplates(t *testing.T) {
	out := filepath.Join(t.TempDir(), "args")
	_, err := resolveIn(t, discover.Resolver{}, `
[tools.t]
source = "local"
command = { program = "/bin/sh", args = ["-c", "printf '%s|' \"$@\" > `+out+`; exit 1", "sh", "{{tool.name}}", "{{context.action}}", "{{tool.options}}", "x{{tool.name}}y"] }
options.level = 3
`)
	if err == nil {
		t.Fatal("the tool answered nothing, yet resolved")
	}
	b, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if got, want := string(b), `t|schema|{"level":3}|xty|`; got != want {
		t.Errorf("rendered arguments %q, want %q", got, want)
	}
	_, err = resolveIn(t, discover.Resolver{}, "[tools.t]\nsource = \"local\"\ncommand = \"x {{tool.nme}}\"\n")
	if want := "tools.t.command: unknown template value {{tool.nme}}; did you mean {{tool.name}}?"; strings.Join(errLines(err), "\n") != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// counting returns a directory of n describing scripts that log each run
// to log.
func counting(t *testing.T, n int, log string) string {
	scripts := map[string]string{}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("t%03d", i)
		scripts[name+".sh"] = "echo run >> " + log + "\n" + describing(name, "Tool "+name+".", `{"type":"object","properties":{}}`)
	}
	return describeDir(t, scripts)
}

func runs(t *testing.T, log string) int {
	b, err := os.ReadFile(log)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "run\n")
}

func TestCache(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	dir := counting(t, 5, log)
	store := &cache.Cache{Dir: t.TempDir()}
	src := "[discover]\ndirs = [\"" + dir + "\"]\n"
	cold, err := resolveIn(t, discover.Resolver{Cache: store}, src)
	if err != nil || runs(t, log) != 5 || cold.Started != 5 {
		t.Fatalf("cold: %v, %d runs, %d started", err, runs(t, log), cold.Started)
	}
	t.Run("one file for the directory", func(t *testing.T) {
		// The answers of a discovery directory's executables are written
		// once, together.
		if n := len(entries(t, store.Dir)); n != 1 {
			t.Errorf("%d files in the cache, want 1", n)
		}
	})
	t.Run("hit runs nothing", func(t *testing.T) {
		before := entries(t, store.Dir)
		warm, err := resolveIn(t, discover.Resolver{Cache: store}, src)
		if err != nil || runs(t, log) != 5 {
			t.Fatalf("warm: %v, %d runs", err, runs(t, log))
		}
		if warm.Started != 0 {
			t.Errorf("warm: Started = %d, want 0", warm.Started)
		}
		if warm.Fingerprint != cold.Fingerprint {
			t.Error("the cached catalog differs")
		}
		for name, info := range entries(t, store.Dir) {
			if !os.SameFile(info, before[name]) {
				t.Errorf("%s was written again by a resolution that ran nothing", name)
			}
		}
	})
	t.Run("offline uses the cache", func(t *testing.T) {
		if _, err := resolveIn(t, discover.Resolver{Cache: store, Offline: true}, src); err != nil || runs(t, log) != 5 {
			t.Fatalf("offline: %v, %d runs", err, runs(t, log))
		}
	})
	t.Run("refresh runs again", func(t *testing.T) {
		before := entries(t, store.Dir)
		if _, err := resolveIn(t, discover.Resolver{Cache: store, Refresh: true}, src); err != nil || runs(t, log) != 10 {
			t.Fatalf("refresh: %v, %d runs", err, runs(t, log))
		}
		// The tools answered as before: no entry is written again.
		after := entries(t, store.Dir)
		if len(after) != len(before) {
			t.Fatalf("%d entries after refreshing, %d before", len(after), len(before))
		}
		for name, info := range before {
			if !os.SameFile(info, after[name]) {
				t.Errorf("%s was written again, though its tool answered the same", name)
			}
		}
	})
	t.Run("a changed program misses", func(t *testing.T) {
		p := filepath.Join(dir, "t000.sh")
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(b, []byte("\n# changed\n")...), 0o755); err != nil {
			t.Fatal(err)
		}
		before := runs(t, log)
		if _, err := resolveIn(t, discover.Resolver{Cache: store}, src); err != nil || runs(t, log) != before+1 {
			t.Fatalf("changed: %v, %d runs after %d", err, runs(t, log), before)
		}
	})
	t.Run("a rewrite that keeps size and modification time misses", func(t *testing.T) {
		p := filepath.Join(dir, "t001.sh")
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		i := bytes.LastIndexByte(b, 'o') // the same length, other content
		if i < 0 {
			t.Fatalf("no o in %q", b)
		}
		b[i] = 'O'
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
		before := runs(t, log)
		if _, err := resolveIn(t, discover.Resolver{Cache: store}, src); err != nil || runs(t, log) != before+1 {
			t.Fatalf("rewritten: %v, %d runs after %d", err, runs(t, log), before)
		}
	})
	t.Run("corrupt entries are rebuilt", func(t *testing.T) {
		entries, _ := filepath.Glob(filepath.Join(store.Dir, "*.json"))
		for i, e := range entries {
			switch i % 3 {
			case 0:
				os.WriteFile(e, []byte(`{"version":1,"key":"`), 0o644) // truncated
			case 1:
				os.WriteFile(e, []byte("\x00\x01garbage"), 0o644)
			case 2:
				os.WriteFile(e, []byte(`{"version":1,"key":"someone else","answer":{}}`), 0o644)
			}
		}
		before := runs(t, log)
		c, err := resolveIn(t, discover.Resolver{Cache: store}, src)
		if err != nil || len(c.Tools) != 5 || runs(t, log) != before+5 {
			t.Fatalf("corrupt: %v, %d tools, %d runs after %d", err, len(c.Tools), runs(t, log), before)
		}
		if _, err := resolveIn(t, discover.Resolver{Cache: store}, src); err != nil || runs(t, log) != before+5 {
			t.Fatalf("after rebuilding: %v, %d runs", err, runs(t, log))
		}
	})
	t.Run("offline without the answer", func(t *testing.T) {
		c, err := resolveIn(t, discover.Resolver{Cache: &cache.Cache{Dir: t.TempDir()}, Offline: true}, src)
		if err != nil || len(c.Tools) != 0 || !strings.Contains(strings.Join(errLines(c.Warnings), "\n"), "is not in the cache, and offline mode runs nothing") {
			t.Fatalf("offline with an empty cache: %v, %v, %v", err, c.Tools, c.Warnings)
		}
	})
}

// entries returns the entries of the cache in dir, by name.
func entries(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]os.FileInfo{}
	for _, name := range names {
		info, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(name)] = info
	}
	return out
}

// TestCacheConcurrentWriters runs two processes that fill the same cache
// at once; the file of answers they leave (one for the directory) reads
// back whole.
func TestCacheConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two processes filling a cache")
	}
	if os.Getenv("STRATA_CACHE_WRITER") != "" {
		return // the child's part is in TestCacheWriterChild
	}
	log := filepath.Join(t.TempDir(), "log")
	dir := counting(t, 40, log)
	cacheDir := t.TempDir()
	var cmds []*exec.Cmd
	for i := 0; i < 2; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheWriterChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STRATA_CACHE_WRITER="+cacheDir, "STRATA_CACHE_DIRS="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("a writer failed: %v", err)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(cacheDir, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("%d files of answers, want 1 (the directory's): %v", len(entries), entries)
	}
	leftovers, _ := filepath.Glob(filepath.Join(cacheDir, "*.tmp"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	before := runs(t, log)
	c, err := resolveIn(t, discover.Resolver{Cache: &cache.Cache{Dir: cacheDir}}, "[discover]\ndirs = [\""+dir+"\"]\n")
	if err != nil || len(c.Tools) != 40 || runs(t, log) != before {
		t.Fatalf("reading what both wrote: %v, %d tools, %d runs after %d", err, len(c.Tools), runs(t, log), before)
	}
}

// TestCacheWriterChild is one writer of TestCacheConcurrentWriters.
func TestCacheWriterChild(t *testing.T) {
	cacheDir := os.Getenv("STRATA_CACHE_WRITER")
	if cacheDir == "" {
		t.Skip("run by TestCacheConcurrentWriters")
	}
	for i := 0; i < 3; i++ {
		_, err := resolveIn(t, discover.Resolver{Cache: &cache.Cache{Dir: cacheDir}, Refresh: true}, "[discover]\ndirs = [\""+os.Getenv("STRATA_CACHE_DIRS")+"\"]\n")
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestParallel checks that discovery runs at once, up to the bound: each of
// eight tools waits until all eight have started before it answers, which
// only runs done at once can do (a run that waits too long gives up, and
// its tool is missing).
func TestParallel(t *testing.T) {
	barrier := t.TempDir()
	scripts := map[string]string{}
	for i := 0; i < 8; i++ {
		wait := fmt.Sprintf("touch %s/%d\nn=0\nwhile [ \"$(ls %s | wc -l)\" -lt 8 ]; do n=$((n+1)); [ $n -gt 3000 ] && exit 1; sleep 0.01; done\n", barrier, i, barrier)
		scripts[fmt.Sprintf("s%d.sh", i)] = wait + describing(fmt.Sprintf("s%d", i), "S.", `{}`)
	}
	dir := describeDir(t, scripts)
	c, err := resolveIn(t, discover.Resolver{Parallel: 8, Timeout: time.Minute}, "[discover]\ndirs = [\""+dir+"\"]\n")
	if err != nil || len(c.Tools) != 8 {
		t.Fatalf("%v, %d tools (%d CPUs): the runs did not wait for each other at once; %v", err, len(c.Tools), runtime.NumCPU(), c.Warnings)
	}
}

// TestPinnedLaunch: a pinned launch runs only as pinned; a changed
// program, or changed arguments, hold it back with a message that says
// what changed.
func TestPinnedLaunch(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\nexec "+jptools+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `
[tools.count_lines]
source = "local"
command = "` + tool + ` {{tool}} {{context}}"
`
	root := t.TempDir()
	pin, err := trust.Launch{Program: tool, Args: []string{"{{tool}}", "{{context}}"}, Dir: root}.Pin()
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string]trust.Pin{"tools.count_lines": pin}
	if _, err := resolveIn(t, discover.Resolver{Root: root, Pins: pins}, src); err != nil {
		t.Fatalf("the pinned launch as pinned: %v", err)
	}
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho changed >&2\nexec "+jptools+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := resolveIn(t, discover.Resolver{Root: root, Pins: pins}, src)
	want := []string{"tools.count_lines: not run: the launch differs from the one pinned: the program " + tool + " changed on disk; check what changed; if the change is yours, pin tools.count_lines again"}
	if diff := cmp.Diff(want, errLines(err)); diff != "" {
		t.Errorf("changed program (-want +got):\n%s", diff)
	}
	if len(c.Tools) != 0 {
		t.Errorf("the changed program's tool resolved: %v", c.Tools)
	}
	_, err = resolveIn(t, discover.Resolver{Root: root, Pins: pins}, strings.Replace(src, "{{context}}", "{{context}} --extra", 1))
	if got := errLines(err); len(got) != 1 || !strings.Contains(got[0], "its arguments differ") {
		t.Errorf("changed arguments: %v", got)
	}
}

// TestPinnedDescribe: a --describe executable pinned as its tool runs only
// as pinned: changed, it is not run and its tool is left out, with a
// message that names the key to pin again; the other executables resolve.
func TestPinnedDescribe(t *testing.T) {
	dir := describeDir(t, map[string]string{"a.sh": describing("a", "A.", `{}`), "b.sh": describing("b", "B.", `{}`)})
	root := t.TempDir()
	a := filepath.Join(dir, "a.sh")
	pin, err := trust.Launch{Program: a, Dir: root}.Pin()
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string]trust.Pin{"tools.a": pin}
	src := "[discover]\ndirs = [\"" + dir + "\"]\n"
	if c, err := resolveIn(t, discover.Resolver{Root: root, Pins: pins}, src); err != nil || len(c.Tools) != 2 {
		t.Fatalf("as pinned: %v, %v", c.Tools, err)
	}
	ran := filepath.Join(root, "ran")
	if err := os.WriteFile(a, []byte("#!/bin/sh\ntouch "+ran+"\n"+describing("a", "A.", `{}`)), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := resolveIn(t, discover.Resolver{Root: root, Pins: pins}, src)
	want := []string{"tools.a: not run: the launch differs from the one pinned: the program " + a + " changed on disk; check what changed; if the change is yours, pin tools.a again"}
	if diff := cmp.Diff(want, errLines(err)); diff != "" {
		t.Errorf("a changed executable (-want +got):\n%s", diff)
	}
	if len(c.Tools) != 1 || c.Tools[0].Name != "b" {
		t.Errorf("the tools: %v", c.Tools)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the changed executable ran")
	}
	// Settings of the tool do not add a warning of their own.
	if c, err := resolveIn(t, discover.Resolver{Root: root, Pins: pins}, src+"[tools.a]\nrun = \"unattended\"\n"); len(errLines(err)) != 1 || len(c.Warnings) != 0 {
		t.Errorf("with settings: %v, %v", errLines(err), c.Warnings)
	}
}

func TestDisabledToolsAreLeftOut(t *testing.T) {
	dir := describeDir(t, map[string]string{"a.sh": describing("a", "A.", `{}`), "b.sh": describing("b", "B.", `{}`)})
	c, err := resolveIn(t, discover.Resolver{}, "[discover]\ndirs = [\""+dir+"\"]\n[tools.b]\nenable = false\n")
	if err != nil || len(c.Tools) != 1 || c.Tools[0].Name != "a" {
		t.Fatalf("%v %v", err, c.Tools)
	}
	c, err = resolveIn(t, discover.Resolver{}, "[discover]\ndirs = [\""+dir+"\"]\n[tools.'*']\nenable = \"explicit\"\n[tools.b]\nenable = true\n")
	if err != nil || len(c.Tools) != 1 || c.Tools[0].Name != "b" {
		t.Fatalf("%v %v", err, c.Tools)
	}
}

func TestFingerprint(t *testing.T) {
	dir := describeDir(t, map[string]string{"a.sh": describing("a", "A.", `{"type":"object","properties":{"x":{"type":"string"}}}`)})
	src := "[discover]\ndirs = [\"" + dir + "\"]\n"
	a, _ := resolveIn(t, discover.Resolver{}, src)
	b, _ := resolveIn(t, discover.Resolver{Root: t.TempDir()}, src)
	if a.Fingerprint != b.Fingerprint {
		t.Error("the same catalog gave two fingerprints")
	}
	for _, change := range []string{"[tools.a]\ndescription = \"Other.\"", "[tools.a.parameters.x]\nrequired = true", "[tools.a]\nrun = \"skip\""} {
		c, err := resolveIn(t, discover.Resolver{}, src+change)
		if err != nil {
			t.Fatal(err)
		}
		if c.Fingerprint == a.Fingerprint {
			t.Errorf("%q did not change the fingerprint", change)
		}
	}
}

func TestExport(t *testing.T) {
	dir := describeDir(t, map[string]string{"a.sh": describing("a", "Short. Long text.", `{"type":"object","properties":{"x":{"type":"string"}}}`)})
	c, err := resolveIn(t, discover.Resolver{}, "[discover]\ndirs = [\""+dir+"\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		format export.Dialect
		want   string
	}{
		{export.OpenAI, `[{"type":"function","function":{"name":"a","description":"Short. Long text.","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}}]`},
		{export.Anthropic, `[{"name":"a","description":"Short. Long text.","input_schema":{"type":"object","properties":{"x":{"type":"string"}}}}]`},
		{export.MCP, `{"tools":[{"name":"a","description":"Short. Long text.","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}]}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			b, skipped, err := export.Marshal(c, tt.format)
			if err != nil || skipped != nil {
				t.Fatal(err)
			}
			var compact strings.Builder
			var v any
			json.Unmarshal(b, &v)
			enc := json.NewEncoder(&compact)
			enc.SetEscapeHTML(false)
			enc.Encode(v)
			var want any
			json.Unmarshal([]byte(tt.want), &want)
			if diff := cmp.Diff(want, v); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	bad := &resolve.Catalog{Tools: []resolve.Definition{{Name: "has space", Source: "local"}, {Name: strings.Repeat("x", 65), Source: "local"}, {Name: "dotted.name", Source: "mcp.s.t"}}}
	if b, skipped, err := export.Marshal(bad, export.OpenAI); err != nil || len(skipped) != 3 || string(b) != "[]\n" {
		t.Errorf("OpenAI names: %s, %v, %v", b, skipped, err)
	}
	if b, skipped, err := export.Marshal(bad, export.MCP); err != nil || len(skipped) != 1 || !strings.Contains(skipped.Error(), `"has space" is not a valid tool name for mcp`) || strings.Count(string(b), `"name"`) != 2 {
		t.Errorf("MCP names: %s, %v, %v", b, skipped, err)
	}
}

// TestDeepDescribeAnswer: a schema nested past the limit skips the tool
// with a message that says so, instead of failing somewhere inside.
func TestDeepDescribeAnswer(t *testing.T) {
	deep := `{"name":"deep","parameters":{"type":"object","properties":{"x":` + strings.Repeat(`{"items":`, 2000) + `{}` + strings.Repeat("}", 2000) + `}}}`
	dir := describeDir(t, map[string]string{"t.sh": "echo '" + deep + "'"})
	c, err := resolveIn(t, discover.Resolver{}, "[discover]\ndirs = [\""+dir+"\"]\n")
	if err != nil || len(c.Tools) != 0 {
		t.Fatalf("%v, %v", err, c.Tools)
	}
	if got := strings.Join(errLines(c.Warnings), "\n"); !strings.Contains(got, "t.sh: the answer cannot be read") || !strings.Contains(got, "deeper than") {
		t.Errorf("warnings: %s", got)
	}
}
