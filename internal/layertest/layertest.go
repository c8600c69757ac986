// Package layertest holds helpers shared by the tests of the packages that
// read and write layers.
package layertest

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// Diff is cmp.Diff(want, got, opts...) for values that may nest deep:
// go-cmp takes time exponential in how deep slices nest (a layer near the
// depth limit would take hours), so values that reflect.DeepEqual finds
// equal are equal without it.
func Diff(want, got any, opts ...cmp.Option) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, opts...)
}

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }

// UnsetValue returns a Value that unsets its field.
func UnsetValue[T any]() partial.Value[T] { return partial.Value[T]{State: partial.Unset} }

// AllUnsetTool is a tool partial whose every field is unset.
func AllUnsetTool() config.ToolPartial {
	return config.ToolPartial{
		Source:      UnsetValue[config.Source](),
		Command:     UnsetValue[config.Command](),
		Enable:      partial.Nested[config.EnablePartial]{State: partial.Unset},
		Summary:     UnsetValue[string](),
		Description: UnsetValue[string](),
		Examples:    UnsetValue[string](),
		Run:         partial.List[config.RunRule]{Base: partial.BaseDefault},
		Result:      partial.List[config.ResultRule]{Base: partial.BaseDefault},
		Policy:      partial.Nested[config.PolicyPartial]{State: partial.Unset},
		Parameters:  partial.Map[config.ParameterPartial]{Reset: true},
		Options:     partial.Map[partial.Any]{Reset: true},
		Questions:   partial.Map[config.QuestionPartial]{Reset: true},
		Env:         partial.Map[partial.Value[string]]{Reset: true},
		EnvVars:     partial.List[string]{Base: partial.BaseDefault},
		Load:        UnsetValue[config.LoadMode](),

		DiscoverTimeoutSec: UnsetValue[float64](),
	}
}

// Problem is what a test checks of one *diag.Error.
type Problem struct {
	Err     string // Error()
	Line    int
	Column  int
	Path    partial.Path
	Hint    string
	Snippet string
}

// Problems lists the problems in err as comparable values.
func Problems(err error) []Problem {
	var out []Problem
	for _, e := range diag.All(err) {
		out = append(out, Problem{Err: e.Error(), Line: e.Line, Column: e.Column, Path: e.Path, Hint: e.Hint, Snippet: e.Snippet()})
	}
	return out
}

// Decode decodes src as a config layer in format f.
func Decode(t testing.TB, name, src string, f partial.Format) (config.Partial, error) {
	t.Helper()
	var p config.Partial
	err := codec.Decode(name, []byte(src), f, &p)
	return p, err
}

// MustDecode decodes src and fails the test on any problem.
func MustDecode(t testing.TB, name, src string, f partial.Format) config.Partial {
	t.Helper()
	p, err := Decode(t, name, src, f)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return p
}

// Point is a plain struct held by a Value in host-type tests.
type Point struct {
	X int `toml:"x"`
	Y int `toml:"y"`
}
