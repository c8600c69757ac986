package strata_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sdkPath is the module of the MCP SDK, whose types no public API shows.
const sdkPath = "github.com/modelcontextprotocol/go-sdk"

// TestNoSDKTypeInPublicAPI walks the exported API of every public package
// of the module (exported functions, methods, variables, constants, and
// the exported fields and methods of exported types, through the types
// they name) and fails on any type of the MCP SDK: a host never needs
// the SDK to use strata, and the SDK's changes never break a host.
func TestNoSDKTypeInPublicAPI(t *testing.T) {
	t.Parallel()
	pkgs, found := publicTypes(t, findSDK)
	if len(found) > 0 {
		t.Errorf("the public API shows types of %s:\n%s", sdkPath, strings.Join(found, "\n"))
	}
	// The other tests of the public API walk publicPackages: it names
	// every one.
	var listed []string
	for _, dir := range publicPackages {
		listed = append(listed, strings.TrimSuffix("github.com/strata-config/strata/"+dir, "/."))
	}
	sort.Strings(listed)
	if diff := cmp.Diff(pkgs, listed); diff != "" {
		t.Errorf("publicPackages does not list the public packages (-go list +publicPackages):\n%s", diff)
	}
}

// modulePackages returns the module's public library packages (no main
// package, nothing under internal/ or fixtures/) and the export data of
// every package they depend on. The tests that call it share one go list.
func modulePackages(t *testing.T) ([]string, map[string]string) {
	t.Helper()
	l := listModule()
	if l.err != nil {
		t.Fatal(l.err)
	}
	pkgs, exports := l.pkgs, l.exports
	if len(pkgs) < 10 {
		t.Fatalf("found %d public packages: %v", len(pkgs), pkgs)
	}
	return pkgs, exports
}

// listModule is modulePackages' go list, run once.
var listModule = sync.OnceValue(func() (l struct {
	pkgs    []string
	exports map[string]string
	err     error
}) {
	out, err := exec.Command("go", "list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Name}}\t{{with .Module}}{{.Path}}{{end}}\t{{.Export}}", "./...").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		l.err = fmt.Errorf("go list: %v\n%s", err, stderr)
		return l
	}
	exports := map[string]string{}
	var pkgs []string
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		f := strings.Split(lines.Text(), "\t")
		if len(f) != 4 {
			l.err = fmt.Errorf("go list: %q", lines.Text())
			return l
		}
		path, name, module, export := f[0], f[1], f[2], f[3]
		exports[path] = export
		if module != "github.com/strata-config/strata" || name == "main" ||
			strings.Contains(path+"/", "/internal/") || strings.Contains(path+"/", "/fixtures/") {
			continue
		}
		pkgs = append(pkgs, path)
	}
	sort.Strings(pkgs)
	l.pkgs, l.exports = pkgs, exports
	return l
})

// TestNoInternalTypeInPublicAPI walks the exported API of every public
// package as TestNoSDKTypeInPublicAPI does and fails on any type of an
// internal package of the module: a host can name every type it is given
// (and errors.As to it), and strata's internals change without breaking
// it.
func TestNoInternalTypeInPublicAPI(t *testing.T) {
	t.Parallel()
	if _, found := publicTypes(t, findInternal); len(found) > 0 {
		t.Errorf("the public API shows internal types:\n%s", strings.Join(found, "\n"))
	}
}

// findInternal returns the first type of an internal package of the
// module that typ shows to a user of its package, "" when none.
func findInternal(typ types.Type, seen map[types.Type]bool) string {
	return find(typ, seen, func(path string) bool {
		return strings.HasPrefix(path, "github.com/strata-config/strata/") && strings.Contains(path+"/", "/internal/")
	}, false)
}

// publicTypes returns the public packages and each exported declaration
// of theirs whose type shows a type that find finds, with that type.
func publicTypes(t *testing.T, find func(types.Type, map[types.Type]bool) string) ([]string, []string) {
	t.Helper()
	pkgs, exports := modulePackages(t)
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	var found []string
	for _, path := range pkgs {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, typesIn(pkg, find)...)
	}
	return pkgs, found
}

// typesIn returns each exported declaration of pkg whose type shows a
// type that find finds, with that type.
func typesIn(pkg *types.Package, find func(types.Type, map[types.Type]bool) string) []string {
	var out []string
	report := func(what string, typ types.Type) {
		if sdk := find(typ, map[types.Type]bool{}); sdk != "" {
			out = append(out, what+": "+sdk)
		}
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		what := pkg.Name() + "." + name
		if tn, ok := obj.(*types.TypeName); ok {
			named, isNamed := tn.Type().(*types.Named)
			if !isNamed || tn.IsAlias() {
				report(what, tn.Type())
				continue
			}
			report(what, named.Underlying())
			for _, typ := range []types.Type{named, types.NewPointer(named)} {
				ms := types.NewMethodSet(typ)
				for i := range ms.Len() {
					if m := ms.At(i).Obj(); m.Exported() {
						report(what+"."+m.Name(), m.Type())
					}
				}
			}
			continue
		}
		report(what, obj.Type())
	}
	return out
}

// findSDK returns the first type of the SDK that typ shows to a user of
// its package: through pointers, containers, signatures, exported fields
// and methods, type arguments, and the named types of strata's internal
// packages (whose API is shown through the public one); "" when none.
func findSDK(typ types.Type, seen map[types.Type]bool) string {
	return find(typ, seen, func(path string) bool { return path == sdkPath || strings.HasPrefix(path, sdkPath+"/") }, true)
}

// find returns the first named type of a package that match matches that
// typ shows to a user of its package, looking through the named types of
// internal packages when through is true; "" when none.
func find(typ types.Type, seen map[types.Type]bool, match func(path string) bool, through bool) string {
	findSDK := func(typ types.Type, seen map[types.Type]bool) string { return find(typ, seen, match, through) }
	if seen[typ] {
		return ""
	}
	seen[typ] = true
	switch t := typ.(type) {
	case *types.Alias:
		return findSDK(types.Unalias(t), seen)
	case *types.Named:
		if obj := t.Obj(); obj.Pkg() != nil {
			if match(obj.Pkg().Path()) {
				return t.String()
			}
			if through && strings.Contains(obj.Pkg().Path()+"/", "/internal/") {
				if s := findSDK(t.Underlying(), seen); s != "" {
					return s
				}
				for i := range t.NumMethods() {
					if m := t.Method(i); m.Exported() {
						if s := findSDK(m.Type(), seen); s != "" {
							return s
						}
					}
				}
			}
		}
		for i := range t.TypeArgs().Len() {
			if s := findSDK(t.TypeArgs().At(i), seen); s != "" {
				return s
			}
		}
	case *types.Pointer:
		return findSDK(t.Elem(), seen)
	case *types.Slice:
		return findSDK(t.Elem(), seen)
	case *types.Array:
		return findSDK(t.Elem(), seen)
	case *types.Chan:
		return findSDK(t.Elem(), seen)
	case *types.Map:
		if s := findSDK(t.Key(), seen); s != "" {
			return s
		}
		return findSDK(t.Elem(), seen)
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tuple.Len() {
				if s := findSDK(tuple.At(i).Type(), seen); s != "" {
					return s
				}
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); f.Exported() || f.Embedded() {
				if s := findSDK(f.Type(), seen); s != "" {
					return s
				}
			}
		}
	case *types.Interface:
		for i := range t.NumMethods() {
			if s := findSDK(t.Method(i).Type(), seen); s != "" {
				return s
			}
		}
		for i := range t.NumEmbeddeds() {
			if s := findSDK(t.EmbeddedType(i), seen); s != "" {
				return s
			}
		}
	case *types.TypeParam:
		return findSDK(t.Constraint(), seen)
	}
	return ""
}

// runtimePackages are the public packages of the tools runtime and the
// root above it.
var runtimePackages = []string{"", "/budget", "/call", "/export", "/lock", "/protocol", "/resolve", "/serve"}

// TestRuntimeNamesUnique: an exported name of the runtime's public
// packages is declared by no other public package, so that a name says
// one thing wherever a host reads it. Options are the exception: every
// entry point takes its own sealed Option, as go-cmp's does, and an
// option is named for what it sets (strata.Limits sets codec.Limits).
func TestRuntimeNamesUnique(t *testing.T) {
	t.Parallel()
	pkgs, exports := modulePackages(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	declared := map[string][]string{} // name -> the packages that declare it
	for _, path := range pkgs {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range pkg.Scope().Names() {
			if token.IsExported(name) && name != "Option" && !isOption(pkg.Scope().Lookup(name)) {
				declared[name] = append(declared[name], path)
			}
		}
	}
	runtime := map[string]bool{}
	for _, dir := range runtimePackages {
		runtime["github.com/strata-config/strata"+dir] = true
	}
	var found []string
	for name, in := range declared {
		if len(in) < 2 {
			continue
		}
		for _, path := range in {
			if runtime[path] {
				found = append(found, name+": "+strings.Join(in, ", "))
				break
			}
		}
	}
	sort.Strings(found)
	if len(found) > 0 {
		t.Errorf("names of the runtime declared by other public packages too:\n%s", strings.Join(found, "\n"))
	}
}

// isOption reports whether obj is a function that returns its package's
// Option.
func isOption(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	res := f.Type().(*types.Signature).Results()
	if res.Len() != 1 {
		return false
	}
	n, ok := res.At(0).Type().(*types.Named)
	return ok && n.Obj().Pkg() == obj.Pkg() && n.Obj().Name() == "Option"
}
