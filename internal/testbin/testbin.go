// Package testbin builds the fixture programs that tests run as real
// processes (fixtures/jptools, fixtures/mcpfake), once per test binary.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
)

// The fixture packages.
const (
	JPTools = "github.com/strata-config/strata/fixtures/jptools"
	MCPFake = "github.com/strata-config/strata/fixtures/mcpfake"
)

// Build builds the packages into a new temporary directory and returns
// each program's path by package, and a function that removes them. Call
// it from TestMain.
func Build(pkgs ...string) (map[string]string, func(), error) {
	dir, err := os.MkdirTemp("", "strata-testbin")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	out := map[string]string{}
	for _, pkg := range pkgs {
		bin := filepath.Join(dir, path.Base(pkg))
		if b, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("building %s: %v\n%s", pkg, err, b)
		}
		out[pkg] = bin
	}
	return out, cleanup, nil
}

// Main builds the packages of bins, sets each one's path, runs the tests
// and exits: a package's TestMain.
func Main(m interface{ Run() int }, bins map[string]*string) {
	pkgs := make([]string, 0, len(bins))
	for pkg := range bins {
		pkgs = append(pkgs, pkg)
	}
	paths, cleanup, err := Build(pkgs...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for pkg, p := range bins {
		*p = paths[pkg]
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}
