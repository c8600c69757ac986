package load

import (
	"path/filepath"
	"reflect"
	"strings"

	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/secret"
)

// Rebaser is a value that holds a path relative to the file that wrote it:
// Rebase makes it absolute against dir. config.Command implements it for
// its program.
type Rebaser interface {
	Rebase(dir string)
}

// rebase makes the relative paths of layer p absolute against dir, the
// directory of the file that wrote it (or the working directory, for the
// environment and --cfg): the strings of fields tagged strata:"path" (a
// directory, a working directory), the programs of fields tagged
// strata:"program" that hold a slash (a bare name is looked up in PATH),
// and values that implement [Rebaser].
func rebase(p any, dir string) {
	v := reflect.ValueOf(p).Elem()
	t, err := shape.Of(v.Type())
	if err != nil {
		return
	}
	rebaseValue(v, t, shape.NotPath, dir)
}

func rebaseValue(v reflect.Value, t *shape.Type, kind shape.PathKind, dir string) {
	switch t.Kind {
	case shape.Struct:
		for _, f := range t.Fields {
			rebaseValue(v.FieldByIndex(f.Index), f.Type, f.Paths, dir)
		}
	case shape.Value:
		if v.Field(t.At.State).Uint() == shape.StatePresent {
			rebaseLeaf(v.Field(t.At.V), kind, dir)
		}
	case shape.List:
		items := v.Field(t.At.Items)
		for j := 0; j < items.Len(); j++ {
			rebaseLeaf(items.Index(j), kind, dir)
		}
	case shape.Map:
		entries := v.Field(t.At.Entries)
		for it := entries.MapRange(); it.Next(); {
			if e := it.Value(); !e.IsNil() {
				rebaseValue(e.Elem(), t.Elem, kind, dir)
			}
		}
	case shape.Nested:
		if e := v.Field(t.At.V); !e.IsNil() {
			rebaseValue(e.Elem(), t.Elem, kind, dir)
		}
	}
}

func rebaseLeaf(v reflect.Value, kind shape.PathKind, dir string) {
	if v.CanAddr() {
		if r, ok := v.Addr().Interface().(Rebaser); ok {
			r.Rebase(dir)
			return
		}
	}
	if kind == shape.NotPath {
		return
	}
	if s, ok := v.Interface().(secret.String); ok {
		// A path from a variable stays one: made absolute, it prints as
		// its reference still.
		if isRelative(s.Reveal(), kind) {
			v.Set(reflect.ValueOf(s.Derive(func(p string) string { return filepath.Join(dir, p) })))
		}
		return
	}
	if v.Kind() != reflect.String {
		return
	}
	if s := v.String(); isRelative(s, kind) {
		v.SetString(filepath.Join(dir, s))
	}
}

// isRelative reports whether path s of kind is relative to its file: not
// absolute, not under ~, not starting with a template or a variable (what
// it renders to decides), and for a program, holding a slash. A path with
// a template further on (scripts/{{tool.name}}.sh) is relative.
func isRelative(s string, kind shape.PathKind) bool {
	switch {
	case s == "" || filepath.IsAbs(s) || s == "~" || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "{{") || strings.HasPrefix(s, "${"):
		return false
	case kind == shape.PathProgram:
		return strings.ContainsRune(s, '/')
	}
	return true
}
