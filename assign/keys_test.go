package assign_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// modelKey is one key of the model, as a user writes it, with a value to
// assign to it.
type modelKey struct {
	path  partial.Path
	value string
}

// keySamples are values of the leaf types that take a particular text.
var keySamples = map[reflect.Type]string{
	reflect.TypeFor[config.Source]():     "builtin",
	reflect.TypeFor[config.Command]():    "echo hi",
	reflect.TypeFor[config.Types]():      "string",
	reflect.TypeFor[config.Expose]():     "all",
	reflect.TypeFor[config.NameScheme](): "{server}__{tool}",
}

// modelKeys walks partial type t below path and lists every key a user can
// assign, inside map entries named x and values that have keys of their
// own (command.program). It reports every key that is not declared by a
// toml tag.
func modelKeys(t *testing.T, st *shape.Type, path partial.Path, depth int) []modelKey {
	t.Helper()
	var out []modelKey
	switch st.Kind {
	case shape.Struct:
		if st.ValueCodec { // a table with a shorthand: enable=false
			out = append(out, modelKey{path, "false"})
		}
		for _, f := range st.Fields {
			if !f.Declared {
				t.Errorf("%s: key %q comes from the Go name of %s, not a toml tag", path.Append(f.Key), f.Key, st.Go)
			}
			out = append(out, modelKeys(t, f.Type, path.Append(f.Key), depth)...)
		}
	case shape.Map, shape.Nested:
		if st.Elem.Go == reflect.TypeFor[config.ParameterPartial]() {
			if depth > 1 {
				return nil // parameters hold parameters; two levels show the keys
			}
			depth++
		}
		if st.Kind == shape.Map {
			path = path.Append("x")
		}
		out = append(out, modelKeys(t, st.Elem, path, depth)...)
	case shape.Any:
		out = append(out, modelKey{path, "v"}, modelKey{path.Append("y"), "w"})
	case shape.List:
		if st.Elem.Shorthand { // run=skip: one item
			out = append(out, modelKey{path, "skip"})
			break
		}
		out = append(out, modelKey{path, "a,b"})
	case shape.Value:
		out = append(out, modelKey{path, leafSample(st.Elem)})
		if st.Elem.Kind == shape.Custom {
			inner, err := shape.Structure(st.Elem.Go)
			if err != nil {
				t.Fatal(err)
			}
			if inner.Kind == shape.Struct {
				for _, f := range inner.Fields {
					if !f.Declared {
						t.Errorf("%s: key %q comes from the Go name of %s, not a toml tag", path.Append(f.Key), f.Key, inner.Go)
					}
					out = append(out, modelKey{path.Append(f.Key), leafSample(f.Type)})
				}
			}
		}
	}
	return out
}

func leafSample(t *shape.Type) string {
	if s, ok := keySamples[t.Go]; ok {
		return s
	}
	if len(t.Enum) > 0 {
		return t.Enum[len(t.Enum)-1]
	}
	switch t.Kind {
	case shape.Bool:
		return "true"
	case shape.Int, shape.Uint, shape.Float:
		return "2"
	case shape.Slice:
		return "a,b"
	}
	return "s"
}

// sets reports whether layer v (of type t) says something at path.
func sets(v reflect.Value, t *shape.Type, path partial.Path) bool {
	v, t, _, ok := shape.Find(v, t, path)
	return ok && !shape.IsZero(v, t) // inside a value: the value is set
}

// TestEveryKeyIsDeclaredAndAssignable walks the whole model and assigns
// every key by its documented name, as --cfg key=value and as a STRATA_
// variable.
func TestEveryKeyIsDeclaredAndAssignable(t *testing.T) {
	pt := shape.MustOf(reflect.TypeFor[config.Partial]())
	keys := modelKeys(t, pt, nil, 0)
	var names []string
	for _, k := range keys {
		names = append(names, k.path.String())
	}
	for _, want := range []string{"tools.x.enable", "tools.x.enable.allow_toggle", "tools.x.command.program", "tools.x.parameters.x.items.type", "tools.x.parameters.x.properties.x.required", "tools.x.options.x.y", "mcp_servers.x.env.x", "discover.dirs"} {
		if !slices.Contains(names, want) {
			t.Errorf("the walk did not reach %s; it found %s", want, strings.Join(names, " "))
		}
	}
	// Values with keys of their own are set in the layer below.
	base := config.Partial{}
	base.Tools.Set("x", config.ToolPartial{Command: partial.Of(config.Command{Program: "echo"})})
	for _, k := range keys {
		t.Run(k.path.String(), func(t *testing.T) {
			a, err := assign.Parse(k.path.String() + "=" + k.value)
			if err != nil {
				t.Fatal(err)
			}
			p := *merge.Layers(&base)
			if err := assign.Apply(&p, a); err != nil {
				t.Fatalf("--cfg %s: %v", a, err)
			}
			if !sets(reflect.ValueOf(&p).Elem(), pt, k.path) || delta.Empty(delta.Between(&base, &p)) {
				t.Errorf("--cfg %s did not set %s", a, k.path)
			}

			// '_' between keys, or '__' where '_' is ambiguous, as the
			// message says.
			env := func(sep string) ([]assign.Assignment, config.Partial, error) {
				name := "STRATA_" + strings.ToUpper(strings.Join(k.path, sep))
				q := *merge.Layers(&base)
				as, err := assign.Env(&q, "STRATA", []string{name + "=" + k.value})
				return as, q, err
			}
			as, q, err := env("_")
			if err != nil && strings.Contains(err.Error(), "ambiguous") {
				as, q, err = env("__")
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(as) != 1 || as[0].Path.String() != k.path.String() {
				t.Fatalf("%s reads as %v, want %s", as[0].Source, as, k.path)
			}
			if err := assign.Apply(&q, as...); err != nil {
				t.Fatal(err)
			}
			if !sets(reflect.ValueOf(&q).Elem(), pt, k.path) || delta.Empty(delta.Between(&base, &q)) {
				t.Errorf("%s did not set %s", as[0].Source, k.path)
			}
		})
	}
}

// TestResolvedKeysAreDeclared checks the resolved model too: its keys are
// the ones strata config writes.
func TestResolvedKeysAreDeclared(t *testing.T) {
	seen := map[*shape.Type]bool{}
	var walk func(st *shape.Type, path string)
	walk = func(st *shape.Type, path string) {
		if st == nil || seen[st] {
			return
		}
		seen[st] = true
		if st.Kind == shape.Custom {
			inner, err := shape.Structure(st.Go)
			if err != nil {
				t.Fatal(err)
			}
			walk(inner, path)
			return
		}
		for _, f := range st.Fields {
			if !f.Declared {
				t.Errorf("%s.%s: key comes from the Go name of %s, not a toml tag", path, f.Key, st.Go)
			}
			walk(f.Type, path+"."+f.Key)
		}
		walk(st.Elem, path)
	}
	walk(shape.MustOf(reflect.TypeFor[config.Config]()), "config")
}
