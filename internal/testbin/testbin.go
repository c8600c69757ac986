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
