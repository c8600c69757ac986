package strata_test

import (
	"context"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
)

// TestDesignOperationsFindable: the operations of JP's config engine that
// DESIGN.md names (AssignKeyValue, PartialConfigDelta, ToPartial) are
// named in the doc comment of what does them, so that go doc -all and a
// search of the docs find them.
func TestDesignOperationsFindable(t *testing.T) {
	tests := []struct{ name, dir, decl string }{
		{"AssignKeyValue", "assign", "Apply"},
		{"PartialConfigDelta", "delta", "Between"},
		{"ToPartial", "partial", "From"},
		{"ToPartial", "config", "ToPartial"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+tt.dir, func(t *testing.T) {
			p := docPackage(t, tt.dir)
			var text string
			for _, f := range p.Funcs {
				if f.Name == tt.decl {
					text = f.Doc
				}
			}
			for _, typ := range p.Types {
				for _, f := range typ.Funcs {
					if f.Name == tt.decl {
						text = f.Doc
					}
				}
			}
			if !strings.Contains(text, tt.name) && tt.decl != tt.name {
				t.Errorf("the doc of %s.%s does not name %s:\n%s", tt.dir, tt.decl, tt.name, text)
			}
		})
	}
}

// TestExamplesAttached: every Example function of a public package is
// attached to an exported identifier of it (or to the package), so that
// the documentation shows it beside what it shows.
func TestExamplesAttached(t *testing.T) {
	t.Parallel()
	for _, dir := range publicPackages {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		var files []*ast.File
		for _, p := range pkgs {
			for _, f := range p.Files {
				files = append(files, f)
			}
		}
		p := docPackage(t, dir)
		attached := map[string]bool{}
		add := func(exs []*doc.Example) {
			for _, ex := range exs {
				attached["Example"+ex.Name] = true
			}
		}
		add(p.Examples)
		for _, f := range p.Funcs {
			add(f.Examples)
		}
		for _, typ := range p.Types {
			add(typ.Examples)
			for _, f := range append(slices.Clone(typ.Funcs), typ.Methods...) {
				add(f.Examples)
			}
		}
		for _, ex := range doc.Examples(files...) {
			if name := "Example" + ex.Name; !attached[name] {
				t.Errorf("%s: %s is attached to no exported identifier", dir, name)
			}
		}
	}
}

// docPackage returns the documentation of the public package in dir,
// with its examples.
func docPackage(t *testing.T, dir string) *doc.Package {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var files, tests []*ast.File
	name := ""
	for _, p := range pkgs {
		for path, f := range p.Files {
			switch {
			case !strings.HasSuffix(path, "_test.go"):
				files = append(files, f)
				name = p.Name
			default:
				tests = append(tests, f)
			}
		}
	}
	p, err := doc.NewFromFiles(fset, append(files, tests...), "github.com/strata-config/strata/"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != name {
		t.Fatalf("%s: package %s, want %s", dir, p.Name, name)
	}
	return p
}

// TestWarningsIsNoError: Workspace.Warnings returns a list that cannot be
// kept as an error (a nil diag.Errors in an error is not nil), and a
// workspace without warnings gives an empty one.
func TestWarningsIsNoError(t *testing.T) {
	m, ok := reflect.TypeFor[*strata.Workspace[config.Partial, config.Config]]().MethodByName("Warnings")
	if !ok {
		t.Fatal("no method Warnings")
	}
	if got := m.Type.Out(0); got.Implements(reflect.TypeFor[error]()) {
		t.Errorf("Warnings returns a %s, which is an error", got)
	}
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(t.TempDir()),
		strata.Environ([]string{"HOME=" + t.TempDir()}), strata.ConfigHome(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if ws := w.Warnings(); len(ws) != 0 {
		t.Errorf("Warnings() = %v, want none", ws)
	}
}

// TestNoFileLoop: of the root package's files, lock.go (the lock's stage)
// calls nothing workspace.go declares, while workspace.go calls it: the
// lock's commands, which do both, are lockcmd.go's.
func TestNoFileLoop(t *testing.T) {
	fset := token.NewFileSet()
	declared := map[string]string{} // function or method name -> its file
	calls := map[string]map[string]bool{}
	for _, name := range []string{"lock.go", "workspace.go", "lockcmd.go"} {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		calls[name] = map[string]bool{}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				declared[fd.Name.Name] = name
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				switch fn := c.Fun.(type) {
				case *ast.SelectorExpr:
					if x, ok := fn.X.(*ast.Ident); ok && (x.Name == "w" || x.Name == "lw" || x.Name == "pw") {
						calls[name][fn.Sel.Name] = true // a method of the workspace's
					}
				case *ast.Ident:
					calls[name][fn.Name] = true
				}
			}
			return true
		})
	}
	uses := func(from, to string) []string {
		var out []string
		for name := range calls[from] {
			if declared[name] == to {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}
	if got := uses("lock.go", "workspace.go"); len(got) > 0 {
		t.Errorf("lock.go calls what workspace.go declares: %v", got)
	}
	if got := uses("workspace.go", "lock.go"); len(got) == 0 {
		t.Error("workspace.go no longer applies the lock: the test checks nothing")
	}
}

// TestConfigHoldsTheModel: package config is the typed tool model; what
// only one package above it uses lives there: which tools a tool set
// holds (resolve), a client's tool set (strata), an export's limits
// (export), which of a server's tools are used (resolve).
func TestConfigHoldsTheModel(t *testing.T) {
	p := docPackage(t, "config")
	have := map[string]bool{}
	for _, f := range p.Funcs {
		have[f.Name] = true
	}
	for _, typ := range p.Types {
		have[typ.Name] = true
		for _, m := range typ.Methods {
			have[typ.Name+"."+m.Name] = true
		}
	}
	for _, c := range p.Consts {
		for _, n := range c.Names {
			have[n] = true
		}
	}
	for _, moved := range []string{"Membership", "MCPServer.Allows", "MCPServer.Exposes", "Toolsets.Holds", "Toolsets.ForClient", "Budget.Limits", "DefaultOpenAITools"} {
		if have[moved] {
			t.Errorf("config declares %s again", moved)
		}
	}
}
