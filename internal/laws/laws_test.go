package laws

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/internal/randpartial"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
	"pgregory.net/rapid"
)

// TestMain runs each law on 10,000 cases (500 with -short) unless
// -rapid.checks says otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		n := "10000"
		if testing.Short() {
			n = "500"
		}
		_ = flag.Set("rapid.checks", n)
	}
	os.Exit(m.Run())
}

func ptr[T any](v T) *T { return &v }

var samples = randpartial.Samples{
	reflect.TypeFor[config.Source](): {
		config.Source{Kind: config.SourceBuiltin}, config.Source{Kind: config.SourceLocal},
		config.Source{Kind: config.SourceLocal, Tool: "x"}, config.Source{Kind: config.SourceMCP, Server: "fs"},
		config.Source{Kind: config.SourceMCP, Server: "a.b", Tool: "read file"},
	},
	reflect.TypeFor[config.Command](): {
		config.Command{Program: "jp-tools", Args: []string{"{{tool}}", "{{context}}"}},
		config.Command{Program: "sh", Args: []string{"-c", "echo 'x y'"}, Shell: true},
		config.Command{Program: "a b"},
	},
	reflect.TypeFor[config.AllowToggle](): {config.ToggleAny, config.ToggleNever, config.ToggleIfNamed, config.ToggleIfNamedOrGroup},
	reflect.TypeFor[config.RunMode]():     {config.RunAsk, config.RunUnattended, config.RunEdit, config.RunSkip},
	reflect.TypeFor[config.RunRule]():     runRules,
	reflect.TypeFor[config.ResultRule]():  resultRules,
	reflect.TypeFor[config.LoadMode]():    {config.LoadAlways, config.LoadDeferred},
	reflect.TypeFor[config.LockPolicy]():  {config.LockHold, config.LockWarn, config.LockOff},
	reflect.TypeFor[config.ResultMode]():  {config.ResultUnattended, config.ResultAsk, config.ResultSkip},
	reflect.TypeFor[config.Target]():      {config.TargetUser, config.TargetAssistant},
	reflect.TypeFor[config.Types]():       {config.Types{"string"}, config.Types{"array", "null"}},
	reflect.TypeFor[config.Expose]():      {config.Expose{}, config.Expose{None: true}, config.Expose{Tools: []string{"read_file", "x.y"}}},
	reflect.TypeFor[config.ToolNames]():   {config.ToolNames{}, config.ToolNames{"read_file"}, config.ToolNames{"a", "b c"}},
	reflect.TypeFor[config.NameScheme]():  {config.BareNames, config.ServerNames, config.ClaudeCodeNames, config.NameScheme("gh-{tool}.x")},
	// Text written in a file: a secret (a value from a variable) prints
	// as its reference, on purpose, so it reads back as other text.
	reflect.TypeFor[secret.String](): {secret.Plain(""), secret.Plain("x"), secret.Plain("a b"), secret.Plain("-y"), secret.Plain("${env:X}")},
}

// runRules are the run rules layers draw from: catch-alls (one that a
// mode alone writes, and one with a reason), every kind of matcher and
// value (const = false, numbers, an enum, a nested pointer with an
// escape), examples, and a rule with a position (which takes no part in
// what the rule is).
var runRules = []any{
	config.RunRule{Mode: config.RunAsk},
	config.RunRule{Mode: config.RunSkip, Reason: "nothing runs here"},
	config.RunRule{Arg: "/path", Match: config.Matcher{Op: "prefix", Value: "src/"}, Mode: config.RunUnattended,
		Examples: &config.Examples{Match: []map[string]any{{"path": "src/a.rs"}}, NotMatch: []map[string]any{{"path": "src-old/a.rs"}}}},
	config.RunRule{Arg: "/path", Match: config.Matcher{Op: "prefix", Value: ".env"}, Mode: config.RunSkip, Reason: "secrets", At: config.Position{Source: "a.toml", Line: 3, Column: 5}},
	config.RunRule{Arg: "/patterns/paths", Match: config.Matcher{Op: "glob", Value: "**/*.lock"}, Mode: config.RunAsk},
	config.RunRule{Arg: "/replace_using_regex", Match: config.Matcher{Op: "const", Value: false}, Mode: config.RunEdit},
	config.RunRule{Arg: "/util", Match: config.Matcher{Op: "enum", Value: []any{"date", "wc", int64(3)}}, Mode: config.RunUnattended},
	config.RunRule{Arg: "/start_line", Match: config.Matcher{Op: "exclusive_minimum", Value: 1000.5}, Mode: config.RunAsk},
	config.RunRule{Arg: "/a~1b", Match: config.Matcher{Op: "pattern", Value: `^x\d+$`}, Mode: config.RunSkip},
}

// resultRules are the result rules layers draw from.
var resultRules = []any{
	config.ResultRule{Mode: config.ResultUnattended},
	config.ResultRule{Arg: "/path", Match: config.Matcher{Op: "suffix", Value: ".env"}, Mode: config.ResultAsk, Reason: "a secret may be in it"},
	config.ResultRule{Arg: "/n", Match: config.Matcher{Op: "maximum", Value: int64(10)}, Mode: config.ResultSkip},
}

var layers = randpartial.Of[config.Partial](samples)

// hostDefaults are defaults as a host may have them: a tool with options,
// so that unsets, strategies on the default and tables merged into
// nothing have something to differ from.
func hostDefaults() config.Config {
	c := config.Default()
	c.Tools["a"] = config.Tool{Run: config.Always(config.RunEdit), Options: map[string]any{
		"a":     []any{int64(1), "x"},
		"b":     "text",
		"x.y":   map[string]any{"a": int64(1), "value": "v", "b": map[string]any{"strategy": true}},
		"value": map[string]any{"b": []any{}},
	}}
	return c
}

// defaultSets are the defaults each law is checked against, drawn per case.
var defaultSets = rapid.SampledFrom([]func() config.Config{config.Default, hostDefaults})

// drawDefaults draws the defaults of one case.
func drawDefaults(t *rapid.T) config.Config { return defaultSets.Draw(t, "defaults")() }

// final is finalize with the library's defaults; validation problems do
// not matter to the laws, the resolved value does.
func final(p *config.Partial) config.Config { return finalWith(p, config.Default()) }

// finalWith is finalize with defaults def.
func finalWith(p *config.Partial, def config.Config) config.Config {
	c, _ := partial.Finalize(p, def)
	return c
}

func same(t *rapid.T, what string, want, got config.Config) {
	t.Helper()
	if reflect.DeepEqual(want, got) { // see equal
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s (-want +got):\n%s", what, diff)
	}
}

// equal is cmp.Equal(a, b), with reflect.DeepEqual first: two configs
// that are deeply equal are equal to cmp too (the one Equal method in a
// config, secret.String's, compares values that DeepEqual compares
// alike), and DeepEqual takes a fraction of the time, where most cases
// compare equal; only the others take cmp's walk, and its diff.
func equal(a, b config.Config) bool { return reflect.DeepEqual(a, b) || cmp.Equal(a, b) }

var partialShape = shape.MustOf(reflect.TypeFor[config.Partial]())

func equalLayers(a, b *config.Partial) bool {
	return shape.Equal(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), partialShape)
}

func TestLawIdentity(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	rapid.Check(t, func(t *rapid.T) {
		a := layers.Draw(t, "a")
		empty := new(config.Partial)
		if !equalLayers(merge.Layers(a, empty), a) {
			t.Fatal("merge(a, empty) is not a")
		}
		if !equalLayers(merge.Layers(empty, a), a) {
			t.Fatal("merge(empty, a) is not a")
		}
		def := drawDefaults(t)
		same(t, "finalize(merge(a, empty))", finalWith(a, def), finalWith(merge.Layers(a, empty), def))
	})
}

func TestLawAssociativity(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := layers.Draw(t, "a"), layers.Draw(t, "b"), layers.Draw(t, "c")
		def := drawDefaults(t)
		left := merge.Layers(merge.Layers(a, b), c)
		right := merge.Layers(a, merge.Layers(b, c))
		same(t, "merge(merge(a, b), c) vs merge(a, merge(b, c))", finalWith(left, def), finalWith(right, def))
		same(t, "merge(a, b, c) vs merge(merge(a, b), c)", finalWith(left, def), finalWith(merge.Layers(a, b, c), def))
	})
}

func TestLawMergeKeepsInputs(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	rapid.Check(t, func(t *rapid.T) {
		a, b := layers.Draw(t, "a"), layers.Draw(t, "b")
		// Text, not clones: a clone shares what a value points to.
		a2, b2 := textOf(t, a), textOf(t, b)
		m := merge.Layers(a, b)
		merge.Into(m, a) // mutating the result must not reach the inputs
		if textOf(t, a) != a2 || textOf(t, b) != b2 {
			t.Fatal("merge modified its inputs")
		}
	})
}

// TestLawSharedMerge: the merge that shares map entries with its layers
// (shape.Shared, which load makes its Result.Merged with), fed one layer
// at a time as load feeds it, some layers shared and some copied (a host's
// flags), is the merge, and leaves every layer as it was.
func TestLawSharedMerge(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	rapid.Check(t, func(t *rapid.T) {
		ls := rapid.SliceOfN(layers, 1, 4).Draw(t, "layers")
		share := rapid.SliceOfN(rapid.Bool(), len(ls), len(ls)).Draw(t, "share")
		before := make([]string, len(ls)) // text: a clone shares what a value points to
		for i, l := range ls {
			before[i] = textOf(t, l)
		}
		var s shape.Shared
		got := new(config.Partial)
		for i, l := range ls {
			s.Merge(reflect.ValueOf(got).Elem(), reflect.ValueOf(l).Elem(), partialShape, share[i])
		}
		if want := merge.Layers(ls...); !equalLayers(got, want) {
			t.Fatalf("the shared merge is not the merge:\n%s", cmp.Diff(want, got, cmpopts.EquateEmpty()))
		}
		for i := range ls {
			if diff := cmp.Diff(before[i], textOf(t, ls[i])); diff != "" {
				t.Fatalf("the shared merge changed layer %d (-before +after):\n%s", i, diff)
			}
		}
	})
}

func TestLawExactDelta(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	rapid.Check(t, func(t *rapid.T) {
		a, b := layers.Draw(t, "a"), layers.Draw(t, "b")
		def := drawDefaults(t)
		d := delta.Between(a, b)
		same(t, "finalize(merge(a, delta(a, b))) vs finalize(b)", finalWith(b, def), finalWith(merge.Layers(a, d), def))
		if !delta.Empty(delta.Between(a, a)) {
			t.Fatal("delta(a, a) is not empty")
		}
		if msg := minimal(reflect.ValueOf(d).Elem(), reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), partialShape, "root"); msg != "" {
			t.Fatal(msg)
		}
	})
}

// minimal checks that delta d holds no value that is the same in a and b.
func minimal(d, a, b reflect.Value, t *shape.Type, path string) string {
	switch t.Kind {
	case shape.Struct:
		for _, f := range t.Fields {
			if msg := minimal(d.FieldByIndex(f.Index), a.FieldByIndex(f.Index), b.FieldByIndex(f.Index), f.Type, path+"."+f.Key); msg != "" {
				return msg
			}
		}
	case shape.Value:
		if d.Field(t.At.State).Uint() == shape.StateAbsent {
			return ""
		}
		ap := a.Field(t.At.State).Uint() == shape.StatePresent
		bp := b.Field(t.At.State).Uint() == shape.StatePresent
		if ap == bp && (!ap || shape.EqualLeaf(a.Field(t.At.V), b.Field(t.At.V), t.Elem)) {
			return "delta holds " + path + ", which is the same in a and b"
		}
	case shape.Nested:
		ap := a.Field(t.At.State).Uint() == shape.StatePresent
		bp := b.Field(t.At.State).Uint() == shape.StatePresent
		switch d.Field(t.At.State).Uint() {
		case shape.StateUnset:
			if !ap || bp {
				return "delta unsets " + path + " without need"
			}
		case shape.StatePresent:
			if !bp {
				return "delta sets " + path + ", which b does not have"
			}
			if ap {
				return minimal(d.Field(t.At.V).Elem(), a.Field(t.At.V).Elem(), b.Field(t.At.V).Elem(), t.Elem, path)
			}
		}
	case shape.Map:
		entries := d.Field(t.At.Entries)
		if d.Field(t.At.Reset).Bool() {
			return "" // a reset stands for the whole map
		}
		iter := entries.MapRange()
		for iter.Next() {
			k := iter.Key()
			av, bv := a.Field(t.At.Entries).MapIndex(k), b.Field(t.At.Entries).MapIndex(k)
			if iter.Value().IsNil() {
				if av.IsValid() && !av.IsNil() && (!bv.IsValid() || bv.IsNil()) {
					continue
				}
				return "delta unsets " + path + "." + k.String() + " without need"
			}
			if av.IsValid() && !av.IsNil() && bv.IsValid() && !bv.IsNil() {
				if msg := minimal(iter.Value().Elem(), av.Elem(), bv.Elem(), t.Elem, path+"."+k.String()); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

var configShape = shape.MustOf(reflect.TypeFor[config.Config]())

// TestLawSmallestDelta: the delta judged after finalize is exact over the
// defaults it was given, empty exactly when a and b finalize alike, and
// holds no field whose finalized value is the same in a and b.
func TestLawSmallestDelta(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	rapid.Check(t, func(t *rapid.T) {
		a, b := layers.Draw(t, "a"), layers.Draw(t, "b")
		def := drawDefaults(t)
		s := delta.Smallest(a, b, def)
		fa, fb := finalWith(a, def), finalWith(b, def)
		same(t, "finalize(merge(a, smallest(a, b))) vs finalize(b)", fb, finalWith(merge.Layers(a, s), def))
		if empty, alike := delta.Empty(s), equal(fa, fb); empty != alike {
			t.Fatalf("smallest(a, b) empty: %v, but a and b finalize alike: %v", empty, alike)
		}
		if msg := finalMinimal(reflect.ValueOf(s).Elem(), reflect.ValueOf(&fa).Elem(), reflect.ValueOf(&fb).Elem(), partialShape, configShape, "root"); msg != "" {
			t.Fatal(msg)
		}
		if !delta.Empty(delta.Smallest(a, a, def)) {
			t.Fatal("smallest(a, a) is not empty")
		}
	})
}

// finalMinimal checks that no field that delta d sets or unsets has the
// same finalized value in fa and fb (of resolved type rt).
func finalMinimal(d, fa, fb reflect.Value, pt, rt *shape.Type, path string) string {
	if shape.IsZero(d, pt) {
		return ""
	}
	if reflect.DeepEqual(fa.Interface(), fb.Interface()) {
		return "delta holds " + path + ", which finalizes the same in a and b"
	}
	switch pt.Kind {
	case shape.Struct:
		for _, f := range pt.Fields {
			rf, _ := rt.Field(f.Key)
			if msg := finalMinimal(d.FieldByIndex(f.Index), fa.FieldByIndex(rf.Index), fb.FieldByIndex(rf.Index), f.Type, rf.Type, path+"."+f.Key); msg != "" {
				return msg
			}
		}
	case shape.Nested:
		if d.Field(pt.At.State).Uint() == shape.StatePresent && !fa.IsNil() && !fb.IsNil() {
			return finalMinimal(d.Field(pt.At.V).Elem(), fa.Elem(), fb.Elem(), pt.Elem, rt.Elem, path)
		}
	case shape.Map:
		iter := d.Field(pt.At.Entries).MapRange()
		for iter.Next() {
			k := iter.Key()
			ea, eb := fa.MapIndex(k), fb.MapIndex(k)
			switch {
			case ea.IsValid() != eb.IsValid():
			case !ea.IsValid():
				return "delta holds " + path + "." + k.String() + ", which neither a nor b has"
			case iter.Value().IsNil():
				if reflect.DeepEqual(ea.Interface(), eb.Interface()) {
					return "delta unsets " + path + "." + k.String() + ", which finalizes the same in a and b"
				}
			default:
				if msg := finalMinimal(iter.Value().Elem(), ea, eb, pt.Elem, rt.Elem, path+"."+k.String()); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

func TestLawPartialRoundTrip(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	if !delta.Empty(config.ToPartial(final(new(config.Partial)))) {
		t.Fatal("toPartial(finalize(empty)) is not empty")
	}
	if p, err := partial.From[config.Partial](finalWith(new(config.Partial), hostDefaults()), hostDefaults()); err != nil || !delta.Empty(p) {
		t.Fatalf("toPartial(finalize(empty)) with a host's defaults is not empty: %v", err)
	}
	rapid.Check(t, func(t *rapid.T) {
		x := final(layers.Draw(t, "p"))
		same(t, "finalize(toPartial(x)) vs x", x, final(config.ToPartial(x)))
		def := hostDefaults()
		y := finalWith(layers.Draw(t, "q"), def)
		p, err := partial.From[config.Partial](y, def)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "finalize(toPartial(y)) vs y, with a host's defaults", y, finalWith(p, def))
	})
}

func TestLawTextRoundTrip(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	for _, f := range []partial.Format{partial.TOML, partial.JSON} {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, func(t *rapid.T) {
				a, b := layers.Draw(t, "a"), layers.Draw(t, "b")
				for name, p := range map[string]*config.Partial{"delta": delta.Between(a, b), "smallest": delta.Smallest(a, b, hostDefaults()), "layer": a, "merged": merge.Layers(a, b)} {
					text, err := codec.Encode(p, f)
					if err != nil {
						t.Fatalf("encode %s: %v", name, err)
					}
					back := new(config.Partial)
					if err := codec.Decode("layer", text, f, back); err != nil {
						t.Fatalf("decode %s: %v\n%s", name, err, text)
					}
					if !equalLayers(p, back) {
						again, _ := codec.Encode(back, f)
						t.Fatalf("%s read back differs:\nwritten:\n%s\nread back, rewritten:\n%s", name, text, again)
					}
				}
			})
		})
	}
}

// TestLawRuleListsPrepend: a plain array of rules, as a file writes it,
// goes before what the layers below give (the more specific rule first),
// and a replace or a mode alone replaces them, however the layers are
// grouped.
func TestLawRuleListsPrepend(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	rule := rapid.SampledFrom(runRules)
	list := rapid.Custom(func(t *rapid.T) []config.RunRule {
		n := rapid.IntRange(1, 3).Draw(t, "n")
		out := make([]config.RunRule, n)
		for i := range out {
			out[i] = rule.Draw(t, "rule").(config.RunRule)
		}
		return out
	})
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "layers")
		var ls []*config.Partial
		var want config.RunRules
		for range n {
			items := list.Draw(t, "items")
			texts := make([]string, len(items))
			for i, r := range items {
				s, err := codec.Text(r)
				if err != nil {
					t.Fatal(err)
				}
				texts[i] = s
			}
			array := "[" + strings.Join(texts, ", ") + "]"
			text := "[tools.x]\nrun = " + array + "\n"
			switch rapid.IntRange(0, 2).Draw(t, "form") {
			case 0:
				want = append(slices.Clone(items), want...)
			case 1:
				text = "[tools.x]\nrun = { value = " + array + `, strategy = "replace" }` + "\n"
				want = slices.Clone(items)
			default:
				if s, ok := items[0].Shorthand(); ok {
					text = fmt.Sprintf("[tools.x]\nrun = %q\n", s)
					want = items[:1]
				} else {
					want = append(slices.Clone(items), want...)
				}
			}
			p := new(config.Partial)
			if err := codec.Decode("layer.toml", []byte(text), partial.TOML, p); err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			ls = append(ls, p)
		}
		got := final(merge.Layers(ls...)).Tools["x"].Run
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("rules of %d layers (-want +got):\n%s", n, diff)
		}
		// And grouped the other way.
		folded := ls[len(ls)-1]
		for i := len(ls) - 2; i >= 0; i-- {
			folded = merge.Layers(ls[i], folded)
		}
		if diff := cmp.Diff(want, final(folded).Tools["x"].Run, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("rules of %d layers merged right to left (-want +got):\n%s", n, diff)
		}
	})
}
