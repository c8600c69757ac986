package floors

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// reveals are the packages that may read a secret's value
// (secret.String.Reveal, .Derive, secret.Values), and why each must: the
// launch itself, and what checks or hashes a value on its way there.
// None of them prints a value: what they print is the String, which
// prints its reference. A package that is not here and reads a value
// fails TestSecretsRevealedOnlyAtLaunch: print the String instead, or, if
// the package launches, checks or hashes, add it here with its reason.
var reveals = map[string]string{
	"secret":             "the type itself",
	"internal/mcpclient": "the launch: Start passes the command line and environment to the program, Dial the URL, headers and token to the server",
	"internal/discover":  "the program is looked up in PATH, and the cache key holds the launch's hashes",
	"internal/upstream":  "the untrusted-workspace check of a launch, and the identity of a running server (hashed)",
	"config":             "validation: a URL must parse, a header value must hold no line break (the messages quote the reference)",
	"internal/signin":    "sign-in: a server's url is the resource its tokens are kept under and sent to (signin.ResourceOf)",
	"policy":             "a policy names servers by launch identity: the program found in PATH, its arguments compared, never printed (messages print the references)",
	"load":               "a relative path is made absolute against the file that wrote it, and stays a secret",
}

// revealers are the names that read a secret's value: methods of
// secret.String, and secret.Values.
var revealers = []string{"Reveal", "Derive"}

// TestSecretsRevealedOnlyAtLaunch holds the rule "a secret is a type whose
// text is its reference; only the launch sees the value": only the
// packages of reveals call Reveal, Derive or secret.Values (tests aside),
// and no other type of the module declares a method of those names,
// which would make the check ambiguous.
func TestSecretsRevealedOnlyAtLaunch(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := map[string][]string{} // package -> where it reads a value
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || d.Name() == "fixtures" || strings.HasPrefix(d.Name(), ".")) {
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
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			pkg = ""
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv != nil && slices.Contains(revealers, fd.Name.Name) && pkg != "secret" {
				t.Errorf("%s declares a method %s: the check of who reads secrets tells methods apart by name; give it another", fset.Position(fd.Pos()), fd.Name.Name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, _ := sel.X.(*ast.Ident)
			if slices.Contains(revealers, sel.Sel.Name) || id != nil && id.Name == "secret" && sel.Sel.Name == "Values" {
				found[pkg] = append(found[pkg], fset.Position(sel.Pos()).String())
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for p := range found {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if _, ok := reveals[p]; !ok {
			t.Errorf("package %q reads a secret's value, which only a launch may: %s", p, strings.Join(found[p], ", "))
		}
	}
	for p := range reveals {
		if _, ok := found[p]; !ok && p != "secret" {
			t.Errorf("reveals lists %q, which reads no secret's value: take it out", p)
		}
	}
}
