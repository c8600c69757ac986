package laws

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/lock"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/policy"
	"github.com/strata-config/strata/resolve"
)

// TestLawLoadedLayersStayAsRead: a load's layers share their map entries
// with its merge (load.Result.Merged, shape.Shared), and its config
// shares values with both (Finalize, as shape.CloneInto, copies a value,
// not what it points to: a command's args, a parameter's type list, a
// default). Nothing strata does with them writes through them: overrides
// that reach into the values below (an option's table or list, a
// default's array, an enum), each a layer over the merge so far, as load
// makes them; and, with the config, clamping it by policies (run modes,
// parameter bounds, servers), building its catalog (the parameters'
// schemas, tool_names, what discovery found overridden), a second catalog
// of the same config, each tool set's selection of it (which shares the
// catalog's tools when it changes none), policies' filter, the lock's
// entries, every dialect written within limits that rename. After all of
// it, every layer, the merge, the config, what discovery found and the
// catalog are as they were.
func TestLawLoadedLayersStayAsRead(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	rapid.Check(t, func(t *rapid.T) {
		ls := append([]*config.Partial{baseLayer(t)}, rapid.SliceOfN(layers, 0, 3).Draw(t, "layers")...)
		found := foundTools()
		foundBefore := foundTools()
		// Text, not clones: a clone shares what a value points to.
		before := make([]string, len(ls))
		for i, l := range ls {
			before[i] = textOf(t, l)
		}
		var s shape.Shared
		merged := new(config.Partial)
		for _, l := range ls {
			s.Merge(reflect.ValueOf(merged).Elem(), reflect.ValueOf(l).Elem(), partialShape, true)
		}
		// Overrides, as load makes them: each a layer over the merge so
		// far (which it reads), merged in turn.
		for _, text := range rapid.SliceOfNDistinct(rapid.SampledFrom(assignments), 0, 3, rapid.ID).Draw(t, "overrides") {
			a, err := assign.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			l, err := assign.Layer(merged, a)
			if err != nil {
				continue // over what the drawn layers made of the base
			}
			ls, before = append(ls, l), append(before, textOf(t, l))
			s.Merge(reflect.ValueOf(merged).Elem(), reflect.ValueOf(l).Elem(), partialShape, true)
		}
		mergedBefore := textOf(t, merged)
		def := drawDefaults(t)
		cfg := finalWith(merged, def)
		var copied config.Partial
		if err := codec.Decode("merged", []byte(mergedBefore), partial.JSON, &copied); err != nil {
			t.Fatal(err)
		}
		cfgBefore := finalWith(&copied, def)

		clamped, _ := policiesOf(t, cfg).Clamp(cfg, nil)
		for _, c := range []config.Config{cfg, clamped} {
			full, _ := resolve.Build(c, found)
			if full == nil {
				continue
			}
			fullBefore := catalogJSON(t, full)
			// What is done with a catalog: a second of the same config,
			// each tool set's selection (every tool as it is shares the
			// catalog's tools), policies' filter, the lock's entries,
			// every dialect written, in a budget that renames.
			if again, _ := resolve.Build(c, found); again != nil && catalogJSON(t, again) != fullBefore {
				t.Fatalf("a second catalog of the same config differs:\n%s", cmp.Diff(fullBefore, catalogJSON(t, again)))
			}
			cats := []*resolve.Catalog{full, full.Filter(func(d resolve.Definition) bool { return d.Name != "loc" })}
			for _, set := range append([]string{""}, slices.Sorted(maps.Keys(c.Toolsets))...) {
				if sel, _ := full.Select(c, set); sel != nil {
					cats = append(cats, sel)
				}
			}
			short := config.ExportLimits{NameLength: 6, Rename: true}
			for _, cat := range cats {
				lock.Entries(cat)
				for _, f := range []export.Dialect{export.Strata, export.OpenAI, export.Anthropic, export.MCP} {
					_, _ = export.Write(cat, f, config.Budget{OpenAI: short, Anthropic: short, MCP: short})
				}
			}
			if diff := cmp.Diff(fullBefore, catalogJSON(t, full)); diff != "" {
				t.Fatalf("the catalog changed (-before +after):\n%s", diff)
			}
		}

		for i := range ls {
			if diff := cmp.Diff(before[i], textOf(t, ls[i])); diff != "" {
				t.Fatalf("layer %d changed (-before +after):\n%s", i, diff)
			}
		}
		if diff := cmp.Diff(mergedBefore, textOf(t, merged)); diff != "" {
			t.Fatalf("the merge changed (-before +after):\n%s", diff)
		}
		same(t, "the config after clamping and resolving it", cfgBefore, cfg)
		if diff := cmp.Diff(foundBefore, found); diff != "" {
			t.Fatalf("what discovery found changed (-before +after):\n%s", diff)
		}
	})
}

// textOf is p as JSON: what it says, sharing nothing with it.
func textOf(t *rapid.T, p *config.Partial) string {
	b, err := codec.Encode(p, partial.JSON)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// catalogJSON is the JSON of cat's tools, with what they were resolved
// from.
func catalogJSON(t *rapid.T, cat *resolve.Catalog) string {
	b, err := json.Marshal(cat.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assignments are overrides (--cfg, environment variables) that reach
// into what the base layer's values hold.
var assignments = []string{
	"tools.loc.options.limits.lines:=20",
	"tools.loc.options.tags+=b,c",
	"tools.loc.parameters.path.default.a:=[3]",
	"tools.loc.parameters.path.enum+=c",
	"tools.loc.parameters.path.default.a+=4",
	"tools.loc.command=other --x",
	"tools.loc.env_vars+=HOME",
	"tools.fs__read.parameters.path.max_length=5",
}

// base is a layer of tools that resolve, whatever the drawn layers add:
// a local tool whose parameters the config gives (a list of types, a
// default that is a table, an enum), a server's tools renamed by
// tool_names and overridden, a tool set that defers some.
const base = `
tool_names = "{server}__{tool}"

[toolsets.small]
tools = ["fs__read", "loc"]
load = "deferred"

[mcp_servers.fs]
command = "fs-server"
args = ["--root", "."]

[tools.loc]
source = "local"
command = "prog --flag {{tool}}"
description = "A local tool."

[tools.loc.options]
tags = ["a"]
limits = { lines = 10, bytes = 100 }

[tools.loc.parameters.path]
type = ["string", "null"]
default = { a = [1, 2] }
enum = ["a", "b"]
max_length = 9

[tools.loc.parameters.n]
type = "integer"
maximum = 10

[tools.fs__read.parameters.path]
max_length = 20
enum = ["x", "y"]

[tools.fs__write]
load = "deferred"
`

func baseLayer(t *rapid.T) *config.Partial {
	var p config.Partial
	if err := codec.Decode("base.toml", []byte(base), partial.TOML, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// foundTools is what discovery found of server fs: made anew each call,
// to compare with.
func foundTools() resolve.Found {
	return resolve.Found{Servers: map[string]map[string]resolve.Discovered{"fs": {
		"read":  {Name: "read", Description: "Reads.", InputSchema: resolve.MustSchema(`{"type":"object","properties":{"path":{"type":"string","enum":["x","y","z"]},"n":{"type":"integer","default":[1,2]}},"required":["path"]}`)},
		"write": {Name: "write", Description: "Writes.", InputSchema: resolve.MustSchema(`{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string","maxLength":100}}}`)},
	}}}
}

// policiesOf draws policies that constrain cfg's own tools: every tool's
// run and result modes, and bounds on each parameter of some of them
// (its enum narrowed to its first value, its lengths and numbers
// bounded).
func policiesOf(t *rapid.T, cfg config.Config) policy.Set {
	p := &policy.Policy{Source: "policy.toml", Reason: "r", Tools: map[string]policy.Tools{
		config.EveryTool: {Run: []config.RunMode{config.RunAsk, config.RunSkip}, Result: []config.ResultMode{config.ResultAsk}},
	}}
	for _, name := range slices.Sorted(maps.Keys(cfg.Tools)) {
		if name == config.EveryTool || !rapid.Bool().Draw(t, "bounds "+name) {
			continue
		}
		tl := policy.Tools{Run: []config.RunMode{config.RunEdit}, Parameters: map[string]config.Parameter{}}
		for param, q := range cfg.Tools[name].Parameters {
			var b config.Parameter
			if len(q.Enum) > 0 {
				b.Enum = q.Enum[:1]
			}
			one, five := 1.0, 5
			b.Maximum, b.MaxLength, b.MaxItems = &one, &five, &five
			tl.Parameters[param] = b
		}
		p.Tools[name] = tl
	}
	return policy.Set{p}
}
