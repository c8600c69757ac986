package diag_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/diag"
)

// TestEveryProblemHasACode reads strata's code: every diag.Error it makes
// names its Code, so that a host can branch on what kind of problem it is.
// (Package diag's own All wraps errors that are not strata's, which have
// no code.)
func TestEveryProblemHasACode(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	var missing []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git", "diag":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isDiagError(lit.Type) {
				return true
			}
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Code" {
						return true
					}
				}
			}
			missing = append(missing, fset.Position(lit.Pos()).String())
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("%d diag.Error literals name no Code:\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

func isDiagError(x ast.Expr) bool {
	sel, ok := x.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Error" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "diag"
}

// TestCodesDocumented: the table of the package documentation lists
// every code, in the order of Codes.
func TestCodesDocumented(t *testing.T) {
	want := make([]string, 0, len(diag.Codes()))
	for _, c := range diag.Codes() {
		want = append(want, string(c))
	}
	for _, f := range []struct {
		file string
		row  *regexp.Regexp
	}{
		{"diag.go", regexp.MustCompile(`(?m)^//\t([a-z-]+) {2,}\S`)},
	} {
		b, err := os.ReadFile(f.file)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range f.row.FindAllSubmatch(b, -1) {
			got = append(got, string(m[1]))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the table of codes (-Codes() +table):\n%s", f.file, diff)
		}
	}
}

// TestCodeIs: errors.Is finds a problem by its code wherever it sits, and
// still finds its cause.
func TestCodeIs(t *testing.T) {
	untrusted := &diag.Error{Code: diag.CodeUntrusted, Msg: "workspace layers not applied"}
	typo := &diag.Error{Code: diag.CodeUnknownKey, Msg: "unknown key", Err: context.Canceled}
	tests := []struct {
		name string
		err  error
		code diag.Code
		want bool
	}{
		{"the problem", untrusted, diag.CodeUntrusted, true},
		{"another code", untrusted, diag.CodeUnknownKey, false},
		{"among others", diag.Errors{untrusted, typo}, diag.CodeUnknownKey, true},
		{"wrapped", fmt.Errorf("open: %w", diag.Errors{typo}), diag.CodeUnknownKey, true},
		{"none of them", diag.Errors{untrusted, typo}, diag.CodeSyntax, false},
		{"the zero code is no code", &diag.Error{Msg: "a host's"}, "", false},
		{"an omission", (&diag.Collector{Max: 1}).Err(), diag.CodeOmitted, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(tt.err, tt.code); got != tt.want {
				t.Errorf("errors.Is(%v, %q) = %v, want %v", tt.err, tt.code, got, tt.want)
			}
		})
	}
	if !errors.Is(diag.Errors{untrusted, typo}, context.Canceled) {
		t.Error("errors.Is no longer finds the cause")
	}
	c := diag.Collector{Max: 1}
	c.AddError(untrusted)
	c.AddError(typo)
	if !errors.Is(c.Err(), diag.CodeOmitted) {
		t.Error("a list cut short does not end with a problem of code omitted")
	}
	var e *diag.Error
	if !errors.As(fmt.Errorf("x: %w", diag.Errors{typo}), &e) || e.Code != diag.CodeUnknownKey {
		t.Errorf("errors.As gives %v", e)
	}
	if (diag.Error{Code: diag.CodeType}).Equal(diag.Error{Code: diag.CodeBadValue}) {
		t.Error("Equal ignores the code")
	}
}
