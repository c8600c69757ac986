package floors

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/strata-config/strata"

// Floors, lowest first (CONTRIBUTING, "Layout"). A package imports only
// packages on its own floor or below. Every package of the module has a
// floor: a new one fails the test until it is given one.
var floors = map[string]int{
	// 1: diagnostics, and helpers that import nothing above them.
	"diag": 1, "internal/limits": 1, "internal/suggest": 1, "internal/tomltext": 1,
	"internal/termtext": 1, "internal/userdir": 1, "internal/readfile": 1,
	"internal/envfile": 1, "internal/origin": 1, "internal/jsonv": 1,
	"internal/untrusted": 1, "internal/pollfile": 1, "internal/filelock": 1, "internal/schemacheck": 1,
	"internal/doc": 1, "secret": 1, "internal/exe": 1, "internal/tokens": 1,
	"internal/rules": 1, "internal/launcher": 1,
	// 2: partials and what works on them.
	"internal/shape": 2, "partial": 2, "merge": 2, "delta": 2,
	// 3: decoding layers, assignments, the tools model.
	"codec": 3, "internal/decode": 3, "assign": 3, "config": 3,
	// 4: sources, precedence, extends, provenance, trust.
	"load": 4, "trust": 4, "koanflayer": 4, "policy": 4, "internal/clients": 4,
	// 5: the tools runtime.
	"protocol": 5, "resolve": 5, "export": 5, "budget": 5, "call": 5, "serve": 5, "lock": 5,
	"internal/procs": 5, "internal/cache": 5,
	"internal/mcpclient": 5, "internal/upstream": 5, "internal/discover": 5,
	"internal/mcpserver": 5, "internal/gateway": 5, "internal/signin": 5, "internal/command": 5,
	// 6: the Workspace.
	"": 6,
	// 7: the command.
	"internal/cli": 7, "cmd/strata": 7,

	// Test support sits on the floor of what it tests.
	"internal/randpartial": 2, "internal/laws": 2, "internal/layertest": 4,
	"internal/hostile": 1, "internal/testbin": 1, "internal/proctest": 1,
	"internal/doclinks": 1, "internal/floors": 1,
	"internal/mcptest": 5, "internal/koanfetcd": 5,
}

// core is the config core: what a host that only reads config imports.
var core = []string{"diag", "secret", "partial", "merge", "delta", "assign", "config", "load", "trust", "policy"}

// notInCore are what the core never links: a process runner, the
// network, the MCP SDK, the tokenizer (and its regular expressions), the
// JSON Schema validators (and x/text, which one brings), the shell parser
// that checks command templates (and the package that uses it): a host that only
// loads configuration pays none of their weight or initialisation.
func notInCore(p string) bool {
	for _, m := range []string{
		"github.com/modelcontextprotocol/go-sdk", "github.com/tiktoken-go/tokenizer", "github.com/dlclark/regexp2",
		"github.com/santhosh-tekuri/jsonschema", "github.com/google/jsonschema-go", "golang.org/x/text",
		"mvdan.cc/sh",
	} {
		if p == m || strings.HasPrefix(p, m+"/") {
			return true
		}
	}
	switch p {
	case "os/exec", "net", "net/http", "crypto/tls", module + "/internal/procs", module + "/internal/tokens", module + "/internal/schemacheck", module + "/internal/command":
		return true
	}
	return false
}

type pkg struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// graph is go list -deps of every package of the module.
func graph(t *testing.T) map[string]*pkg {
	t.Helper()
	// go test puts its own go first on PATH.
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Module", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	g := map[string]*pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		p := new(pkg)
		if err := dec.Decode(p); err != nil {
			t.Fatal(err)
		}
		g[p.ImportPath] = p
	}
	return g
}

// rel is p inside the module ("" for the root), ok false outside it.
func rel(p string) (string, bool) {
	if p == module {
		return "", true
	}
	r, ok := strings.CutPrefix(p, module+"/")
	return r, ok
}

func name(r string) string {
	if r == "" {
		return "strata"
	}
	return r
}

// TestFloors: every package imports only packages on its floor or below
// (so no internal package imports a public one above it).
func TestFloors(t *testing.T) {
	g := graph(t)
	for path, p := range g {
		r, ok := rel(path)
		if !ok || strings.HasPrefix(r, "fixtures/") || r == "internal/bench" || strings.HasPrefix(r, "internal/bench/") {
			continue // fixtures and benchmarks are hosts: they may import anything
		}
		f, ok := floors[r]
		if !ok {
			t.Errorf("package %s has no floor: give it one in floors", name(r))
			continue
		}
		for _, imp := range p.Imports {
			ri, ok := rel(imp)
			if !ok {
				continue
			}
			if fi, ok := floors[ri]; ok && fi > f {
				t.Errorf("%s (floor %d) imports %s (floor %d), above it", name(r), f, name(ri), fi)
			}
		}
	}
}

// TestCoreLinksNoRuntime: the config core links no process runner, no
// network and no MCP SDK; the error shows the chain of imports that does.
func TestCoreLinksNoRuntime(t *testing.T) {
	g := graph(t)
	for _, c := range core {
		t.Run(c, func(t *testing.T) {
			// Breadth first, so that the chain shown is a shortest one.
			from := map[string]string{module + "/" + c: ""}
			queue := []string{module + "/" + c}
			for len(queue) > 0 {
				p := queue[0]
				queue = queue[1:]
				if notInCore(p) {
					var chain []string
					for q := p; q != ""; q = from[q] {
						chain = append(chain, strings.TrimPrefix(q, module+"/"))
					}
					slices.Reverse(chain)
					t.Errorf("the config core links %s: %s", p, strings.Join(chain, " → "))
					continue
				}
				n, ok := g[p]
				if !ok {
					t.Fatalf("%s is not in go list -deps", p)
				}
				for _, imp := range n.Imports {
					if _, seen := from[imp]; !seen {
						from[imp] = p
						queue = append(queue, imp)
					}
				}
			}
		})
	}
}
