// Package testbin builds the fixture programs that tests run as real
// processes (fixtures/jptools, fixtures/mcpfake, the strata command).
//
// The programs go to a directory kept between test runs, one per checkout
// of the module (under the system's temporary directory): the packages
// whose tests run the same fixture share one program, which a build that
// gives the same program leaves as it is (see [Build]).
package testbin

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/strata-config/strata/internal/filelock"
)

// The fixture packages.
const (
	JPTools = "github.com/strata-config/strata/fixtures/jptools"
	MCPFake = "github.com/strata-config/strata/fixtures/mcpfake"
)

// Strata is the command.
const Strata = "github.com/strata-config/strata/cmd/strata"

// Build builds the packages, in one go build, and returns each program's
// path by package. A program the same as the one built before is left as
// it is, the same file: go build -o writes every program again (a new
// file, a new time), and the tests of the packages that run at once share
// the programs, so that one package's build would replace a program under
// another's tests, which strata then takes for another program (its cache
// keys name the file's identity and time). A program that changed
// replaces the one before by renaming.
func Build(pkgs ...string) (map[string]string, error) {
	return build("", nil, pkgs)
}

// BuildStatic is [Build] with cgo off (CGO_ENABLED=0), as the README
// installs strata: programs linked statically, built beside Build's.
func BuildStatic(pkgs ...string) (map[string]string, error) {
	return build("static", []string{"CGO_ENABLED=0"}, pkgs)
}

func build(sub string, env, pkgs []string) (map[string]string, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	if sub != "" {
		dir = filepath.Join(dir, sub)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	// Built apart, then put in place one process at a time.
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	args := append([]string{"build", "-o", tmp + string(filepath.Separator)}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building %s: %v\n%s", strings.Join(pkgs, " "), err, b)
	}
	unlock, err := filelock.Lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := map[string]string{}
	for _, pkg := range pkgs {
		name := path.Base(pkg)
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		built, dst := filepath.Join(tmp, name), filepath.Join(dir, name)
		if !sameContent(built, dst) {
			if err := os.Rename(built, dst); err != nil {
				return nil, err
			}
		}
		out[pkg] = dst
	}
	return out, nil
}

// sameContent reports whether the files a and b can be read and hold the
// same bytes.
func sameContent(a, b string) bool {
	x, errx := os.ReadFile(a)
	y, erry := os.ReadFile(b)
	return errx == nil && erry == nil && bytes.Equal(x, y)
}

// Dir returns the directory the programs of this checkout of the module
// are built in, creating it.
func Dir() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("strata-testbin-%d-%x", os.Getuid(), sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// moduleRoot returns the directory of the go.mod above the working
// directory, which is a test's package directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testbin: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Main builds the packages of bins, sets each one's path, runs the tests
// and exits: a package's TestMain.
func Main(m interface{ Run() int }, bins map[string]*string) {
	pkgs := make([]string, 0, len(bins))
	for pkg := range bins {
		pkgs = append(pkgs, pkg)
	}
	paths, err := Build(pkgs...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for pkg, p := range bins {
		*p = paths[pkg]
	}
	os.Exit(m.Run())
}

// Parallel lets the tests that call t.Parallel run perCPU per CPU at once
// (GOMAXPROCS), where go test's default is 1, unless go test was given
// -parallel: for a package whose parallel tests spend their time waiting
// for the processes they run, not on a CPU. It parses the command line;
// a package's TestMain calls it before m.Run.
func Parallel(perCPU int) error {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given {
		return nil
	}
	return flag.Set("test.parallel", strconv.Itoa(perCPU*runtime.GOMAXPROCS(0)))
}
