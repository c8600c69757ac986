package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/procs"
)

// Launch is everything that decides what a program does when strata starts
// it: the program, its arguments, the environment the config gives it, and
// its directory.
type Launch struct {
	// Program is the program's path, found in PATH when the config names it
	// bare.
	Program string
	Args    []string
	// Env are the variables the config sets (NAME=VALUE) and the names it
	// inherits from the host (NAME), sorted; the base environment every
	// program gets is not part of a launch.
	Env []string
	Dir string
}

// LaunchEnv is the Env of a launch whose config sets the variables set and
// inherits the host's variables named inherit.
func LaunchEnv(set map[string]string, inherit []string) []string {
	if len(set)+len(inherit) == 0 {
		return nil
	}
	env := make([]string, 0, len(set)+len(inherit))
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	env = append(env, inherit...)
	sort.Strings(env)
	return env
}

// Pin holds a launch to what it was when it was pinned. Files are the
// SHA-256 of the program and, for an interpreter, of its script (the first
// file its arguments name, relative to Dir or absolute), by path.
type Pin struct {
	// Launch is the identity of the whole launch: "sha256:<hex>".
	Launch  string            `toml:"launch"`
	Program string            `toml:"program"`
	Args    []string          `toml:"args"`
	Env     []string          `toml:"env"`
	Dir     string            `toml:"dir"`
	Files   map[string]string `toml:"files"`
}

// maxPinnedFile bounds the files a pin reads; bigger ones are refused.
const maxPinnedFile = 1 << 30

// Pin pins l as it is now: it reads the program and the files its
// arguments name.
func (l Launch) Pin() (Pin, error) {
	p := Pin{Program: l.Program, Dir: l.Dir, Files: map[string]string{}}
	if len(l.Args) > 0 {
		p.Args = slices.Clone(l.Args)
	}
	if len(l.Env) > 0 {
		p.Env = slices.Clone(l.Env)
		sort.Strings(p.Env)
	}
	sum, err := fileSum(l.Program)
	if err != nil {
		return Pin{}, &diag.Error{Msg: "cannot pin " + l.Program, Err: err}
	}
	p.Files[l.Program] = sum
	if f := procs.Script(l.Program, l.Args, l.Dir); f != "" {
		if sum, err := fileSum(f); err == nil {
			p.Files[f] = sum
		}
	}
	p.Launch = p.identity()
	return p, nil
}

// identity is the digest of everything in p but Launch.
func (p Pin) identity() string {
	files := make([]string, 0, len(p.Files))
	for f, sum := range p.Files {
		files = append(files, f+"="+sum)
	}
	sort.Strings(files)
	b, _ := json.Marshal([]any{p.Program, p.Args, p.Env, p.Dir, files})
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Check reports whether l is the launch p pinned: the same program with the
// same content, arguments, environment and directory, and the files it
// names unchanged. The error says what changed.
func (p Pin) Check(l Launch) error {
	now, err := l.Pin()
	if err != nil {
		return err
	}
	if now.Launch == p.Launch {
		return nil
	}
	var changed []string
	switch {
	case now.Program != p.Program:
		changed = append(changed, fmt.Sprintf("the program is %s, pinned %s", now.Program, p.Program))
	case now.Files[now.Program] != p.Files[p.Program]:
		changed = append(changed, "the program "+now.Program+" changed on disk")
	}
	if !slices.Equal(now.Args, p.Args) {
		changed = append(changed, "its arguments differ")
	}
	if !slices.Equal(now.Env, p.Env) {
		changed = append(changed, "its environment differs")
	}
	if now.Dir != p.Dir {
		changed = append(changed, fmt.Sprintf("its directory is %s, pinned %s", now.Dir, p.Dir))
	}
	for f, sum := range p.Files {
		if f != p.Program && now.Files[f] != sum {
			changed = append(changed, f+" changed")
		}
	}
	if len(changed) == 0 {
		changed = append(changed, "it names other files")
	}
	return &diag.Error{Msg: "the launch differs from the one pinned: " + strings.Join(changed, "; "), Err: ErrChanged}
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxPinnedFile+1))
	if err != nil {
		return "", err
	}
	if n > maxPinnedFile {
		return "", fmt.Errorf("%s is over %d bytes", path, maxPinnedFile)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// IsInterpreter reports whether program is a shell, an interpreter or a
// package runner: strata never suggests pinning one, since what it runs is
// its arguments' business (a pin of one covers its script, the first file
// its arguments name, but not what that loads); it suggests trusting the
// workspace instead.
func IsInterpreter(program string) bool { return procs.IsInterpreter(program) }
