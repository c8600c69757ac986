// Command surface counts the exported declarations of each public package of
// the module: types, functions, methods of exported types, constants,
// variables and fields of exported structs, as go doc lists them. Run from the
// module's root: go run ./internal/bench/surface
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type count struct{ types, funcs, methods, values, fields int }

// promoted are, by package directory, the unexported types embedded in
// an exported struct: their exported methods are the struct's.
var promoted = map[string]map[string]bool{}

func (c count) total() int { return c.types + c.funcs + c.methods + c.values }

func main() {
	counts := map[string]*count{}
	// Methods of an unexported type that an exported struct embeds are
	// public: the types embedded so are found first.
	var files []string
	_ = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok || !ts.Name.IsExported() {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					if len(fl.Names) > 0 {
						continue
					}
					t := fl.Type
					if s, ok := t.(*ast.StarExpr); ok {
						t = s.X
					}
					if id, ok := t.(*ast.Ident); ok && !id.IsExported() {
						dir := filepath.Dir(path)
						if promoted[dir] == nil {
							promoted[dir] = map[string]bool{}
						}
						promoted[dir][id.Name] = true
					}
				}
			}
		}
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "internal" || d.Name() == "fixtures" || d.Name() == "testdata" || d.Name() == "cmd") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		c := counts[dir]
		if c == nil {
			c = &count{}
			counts[dir] = c
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !decl.Name.IsExported() {
					continue
				}
				if decl.Recv == nil {
					c.funcs++
				} else if recvExported(decl.Recv.List[0].Type, promoted[dir]) {
					c.methods++
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							continue
						}
						c.types++
						switch t := spec.Type.(type) {
						case *ast.StructType:
							c.fields += exportedFields(t.Fields)
						case *ast.InterfaceType:
							c.fields += exportedFields(t.Methods)
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() {
								c.values++
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dirs := make([]string, 0, len(counts))
	for d := range counts {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var sum count
	fmt.Printf("%-12s %6s %6s %6s %7s %6s %6s\n", "package", "decls", "types", "funcs", "methods", "values", "fields")
	for _, d := range dirs {
		c := counts[d]
		name := d
		if d == "." {
			name = "strata"
		}
		fmt.Printf("%-12s %6d %6d %6d %7d %6d %6d\n", name, c.total(), c.types, c.funcs, c.methods, c.values, c.fields)
		sum.types += c.types
		sum.funcs += c.funcs
		sum.methods += c.methods
		sum.values += c.values
		sum.fields += c.fields
	}
	fmt.Printf("%-12s %6d %6d %6d %7d %6d %6d\n", "total", sum.total(), sum.types, sum.funcs, sum.methods, sum.values, sum.fields)
}

func recvExported(t ast.Expr, promoted map[string]bool) bool {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported() || promoted[x.Name]
		default:
			return false
		}
	}
}

func exportedFields(fl *ast.FieldList) int {
	n := 0
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			n++ // embedded
			continue
		}
		for _, name := range f.Names {
			if name.IsExported() {
				n++
			}
		}
	}
	return n
}
