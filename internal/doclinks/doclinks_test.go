package doclinks

import (
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// candidate is text that reads as a doc link to an exported name but that
// the comment parser left as text: [Name], [Name.Method], [pkg.Name] or
// [pkg.Name.Method], not right after an identifier or a bracket (Value[T],
// map[string]any, [][]byte).
var candidate = regexp.MustCompile(`(?:^|[^A-Za-z0-9_\]])(\[\*?(?:[A-Z]\w*|[a-z][a-z0-9]*\.[A-Z]\w*)(?:\.[A-Za-z_]\w*)?\])`)

// TestDocLinksResolve parses every package of the module (tests aside) and
// reports the doc links of its doc comments that resolve to nothing.
func TestDocLinksResolve(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		for _, problem := range unresolved(t, path) {
			t.Errorf("%s: %s", rel, problem)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// unresolved returns the doc links of the package in dir that resolve to
// nothing, each with the declaration whose comment holds it.
func unresolved(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, notTest, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var out []string
	for _, p := range pkgs {
		var files []*ast.File
		for _, f := range p.Files {
			files = append(files, f)
		}
		dp, err := doc.NewFromFiles(fset, files, "example.com/"+p.Name)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		check := func(decl, text string) {
			for _, link := range textLinks(dp.Parser().Parse(text)) {
				out = append(out, decl+": "+link+" links to nothing")
			}
		}
		check("package "+p.Name, dp.Doc)
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				check(strings.Join(v.Names, ", "), v.Doc)
			}
		}
		values(dp.Consts)
		values(dp.Vars)
		for _, f := range dp.Funcs {
			check(f.Name, f.Doc)
		}
		for _, typ := range dp.Types {
			check(typ.Name, typ.Doc)
			values(typ.Consts)
			values(typ.Vars)
			for _, f := range typ.Funcs {
				check(f.Name, f.Doc)
			}
			for _, m := range typ.Methods {
				check(typ.Name+"."+m.Name, m.Doc)
			}
		}
	}
	return out
}

// textLinks returns the candidate links left in the text of a parsed doc
// comment: those the parser could not resolve.
func textLinks(d *comment.Doc) []string {
	var out []string
	var texts func(ts []comment.Text)
	texts = func(ts []comment.Text) {
		for _, t := range ts {
			switch t := t.(type) {
			case comment.Plain:
				for _, m := range candidate.FindAllStringSubmatch(string(t), -1) {
					out = append(out, m[1])
				}
			case comment.Italic:
				for _, m := range candidate.FindAllStringSubmatch(string(t), -1) {
					out = append(out, m[1])
				}
			case *comment.Link:
				texts(t.Text)
			}
		}
	}
	var blocks func(bs []comment.Block)
	blocks = func(bs []comment.Block) {
		for _, b := range bs {
			switch b := b.(type) {
			case *comment.Paragraph:
				texts(b.Text)
			case *comment.Heading:
				texts(b.Text)
			case *comment.List:
				for _, it := range b.Items {
					blocks(it.Content)
				}
			}
		}
	}
	blocks(d.Content)
	return out
}
