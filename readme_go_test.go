package strata_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeImports are the packages a fragment of the README may name
// without importing them.
var readmeImports = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "json": "encoding/json", "os": "os", "testing": "testing",
	"strata": "github.com/strata-config/strata", "config": "github.com/strata-config/strata/config",
	"partial": "github.com/strata-config/strata/partial", "codec": "github.com/strata-config/strata/codec",
	"merge": "github.com/strata-config/strata/merge", "delta": "github.com/strata-config/strata/delta",
	"diag": "github.com/strata-config/strata/diag", "trust": "github.com/strata-config/strata/trust",
	"load": "github.com/strata-config/strata/load", "export": "github.com/strata-config/strata/export",
	"resolve": "github.com/strata-config/strata/resolve", "call": "github.com/strata-config/strata/call",
	"koanflayer": "github.com/strata-config/strata/koanflayer",
}

// TestReadmeGoBlocksCompile type-checks every Go block of the README
// against the module: a whole program as it is, a fragment with the
// packages it names imported and ctx, ws, warn and t declared. A name the
// fragment leaves to the reader (myDefaults) may be undefined; a method,
// field, function or type of strata that is not there is an error.
func TestReadmeGoBlocksCompile(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```\n").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 4 {
		t.Fatalf("found %d Go blocks in README.md", len(blocks))
	}
	_, exports := modulePackages(t)
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	for i, b := range blocks {
		block := b[1]
		var imports strings.Builder
		for name, path := range readmeImports {
			if strings.Contains(block, name+".") {
				imports.WriteString("import " + name + " " + `"` + path + `"` + "\n")
			}
		}
		src := block
		if !strings.HasPrefix(block, "package ") {
			src = "package readme\n" + imports.String() + block
			if _, err := parser.ParseFile(token.NewFileSet(), "", src, 0); err != nil {
				src = "package readme\n" + imports.String() + "import _ \"context\"\n" +
					"func _(ctx context.Context, ws *strata.Workspace[config.Partial, config.Config], warn func(error), t *testing.T) {\n" + block + "\n}\n"
				if !strings.Contains(imports.String(), `"context"`) {
					src = strings.Replace(src, "import _ \"context\"\n", "import context \"context\"\n", 1)
				}
				for _, need := range []string{"strata", "config", "testing"} {
					if !strings.Contains(imports.String(), " "+need+" ") {
						src = strings.Replace(src, "package readme\n", "package readme\nimport "+need+" \""+readmeImports[need]+"\"\n", 1)
					}
				}
			}
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "README.md", src, 0)
		if err != nil {
			t.Errorf("block %d does not parse: %v\n%s", i+1, err, block)
			continue
		}
		var problems []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			msg := err.(types.Error).Msg
			switch {
			case strings.Contains(msg, "declared and not used"), strings.Contains(msg, "imported and not used"),
				strings.HasPrefix(msg, "undefined: ") && !strings.Contains(msg, "."):
				return
			}
			problems = append(problems, err.Error())
		}}
		_, _ = conf.Check("readme", fset, []*ast.File{f}, nil)
		if len(problems) > 0 {
			t.Errorf("block %d of README.md:\n%s\n%s", i+1, strings.Join(problems, "\n"), block)
		}
	}
}
