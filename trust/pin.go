package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/exe"
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
//
// A pin holds no value of the launch's environment and none of its
// arguments, which may be secrets (a token, an API key, a VS Code password
// input): only their SHA-256, enough to tell which changed. The program,
// the directory and the files are paths, kept as they are.
type Pin struct {
	// Launch is the identity of the whole launch: "sha256:<hex>".
	Launch  string `toml:"launch"`
	Program string `toml:"program"`
	// Args are the arguments' hashes, in order: "sha256:<hex>", the
	// SHA-256 of the argument.
	Args []string `toml:"args"`
	// Env are the variables, sorted by name: NAME=sha256:<hex> for one the
	// config sets (the SHA-256 of NAME=VALUE), NAME for one it inherits.
	Env   []string          `toml:"env"`
	Dir   string            `toml:"dir"`
	Files map[string]string `toml:"files"`
}

// Pin pins l as it is now: it reads the program and the files its
// arguments name.
func (l Launch) Pin() (Pin, error) {
	p := Pin{Program: l.Program, Dir: l.Dir, Files: map[string]string{}}
	for _, a := range l.Args {
		p.Args = append(p.Args, digest(a))
	}
	for _, kv := range l.Env {
		p.Env = append(p.Env, sealEnv(kv))
	}
	sort.Strings(p.Env)
	sum, err := exe.Sum(l.Program)
	if err != nil {
		return Pin{}, &diag.Error{Code: diag.CodeRead, Msg: "cannot pin " + l.Program, Err: err}
	}
	p.Files[l.Program] = sum
	if f := exe.Script(l.Program, l.Args, l.Dir); f != "" {
		if sum, err := exe.Sum(f); err == nil {
			p.Files[f] = sum
		}
	}
	p.Launch = p.identity()
	return p, nil
}

// digest is "sha256:<hex>" of s.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// sealEnv turns a variable of a launch, NAME=VALUE or NAME, into what a
// pin holds: NAME=<digest of NAME=VALUE>, or NAME.
func sealEnv(kv string) string {
	name, _, set := strings.Cut(kv, "=")
	if !set {
		return kv
	}
	return name + "=" + digest(kv)
}

// pinFormat tags the identity of a pin of hashes, so that a pin written
// before (its environment and arguments in clear) is told apart.
const pinFormat = "strata pin 2"

// identity is the digest of everything in p but Launch.
func (p Pin) identity() string {
	b, _ := json.Marshal([]any{pinFormat, p.Program, p.Args, p.Env, p.Dir, p.files()})
	return digest(string(b))
}

// legacyIdentity is the identity strata gave a pin before pins held
// hashes.
func (p Pin) legacyIdentity() string {
	b, _ := json.Marshal([]any{p.Program, p.Args, p.Env, p.Dir, p.files()})
	return digest(string(b))
}

func (p Pin) files() []string {
	files := make([]string, 0, len(p.Files))
	for f, sum := range p.Files {
		files = append(files, f+"="+sum)
	}
	sort.Strings(files)
	return files
}

// upgrade returns p in the current form: a pin written before pins held
// hashes (its identity is the old one) gets its environment and arguments
// hashed and its identity made again; upgraded says it was one. Any other
// pin comes back as it is.
func (p Pin) upgrade() (_ Pin, upgraded bool) {
	if p.Launch == p.identity() || p.Launch != p.legacyIdentity() {
		return p, false
	}
	q := p
	q.Args, q.Env = nil, nil
	for _, a := range p.Args {
		q.Args = append(q.Args, digest(a))
	}
	for _, kv := range p.Env {
		q.Env = append(q.Env, sealEnv(kv))
	}
	sort.Strings(q.Env)
	q.Launch = q.identity()
	return q, true
}

// upgradePins upgrades every pin of l; it reports whether any was written
// before pins held hashes.
func (l *List) upgradePins() bool {
	upgraded := false
	for k, p := range l.Pins {
		if q, ok := p.upgrade(); ok {
			l.Pins[k], upgraded = q, true
		}
	}
	return upgraded
}

// Check reports whether l is the launch p pinned: the same program with the
// same content, arguments, environment and directory, and the files it
// names unchanged. The error says what changed, naming the variables and
// the arguments (by position) but never their values.
func (p Pin) Check(l Launch) error {
	now, err := l.Pin()
	if err != nil {
		return err
	}
	if p.Launch != p.identity() {
		return &diag.Error{Code: diag.CodePinChanged, Msg: "the pin does not match itself: it was changed by hand", Hint: "pin again", Err: ErrChanged}
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
	if d := argsDiffer(p.Args, now.Args); d != "" {
		changed = append(changed, "its arguments differ: "+d)
	}
	if d := envDiffers(p.Env, now.Env); d != "" {
		changed = append(changed, "its environment differs: "+d)
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
	return &diag.Error{Code: diag.CodePinChanged, Msg: "the launch differs from the one pinned: " + strings.Join(changed, "; "), Err: ErrChanged}
}

// RepinHint is the fix of a launch, configured at key (mcp_servers.fs,
// tools.x), that differs from its pin ([ErrChanged]): check what changed,
// and pin it again if the change is the user's. strata's command names its
// own way to pin instead (strata trust --pin).
func RepinHint(key string) string {
	return "check what changed; if the change is yours, pin " + key + " again"
}

// argsDiffer says which arguments differ, by position, or "".
func argsDiffer(pinned, now []string) string {
	if len(pinned) != len(now) {
		return fmt.Sprintf("%s, pinned %d", diag.Counted(len(now), "argument"), len(pinned))
	}
	var d []string
	for i := range now {
		if now[i] != pinned[i] {
			d = append(d, fmt.Sprintf("argument %d changed", i+1))
		}
	}
	return strings.Join(d, ", ")
}

// envDiffers says which variables differ, by name, or "".
func envDiffers(pinned, now []string) string {
	byName := func(env []string) map[string]string {
		m := make(map[string]string, len(env))
		for _, kv := range env {
			name, _, _ := strings.Cut(kv, "=")
			m[name] = kv
		}
		return m
	}
	was, is := byName(pinned), byName(now)
	var changed, gone, added []string
	for name, kv := range was {
		switch v, ok := is[name]; {
		case !ok:
			gone = append(gone, name+" is gone")
		case v != kv:
			changed = append(changed, name+" changed")
		}
	}
	for name := range is {
		if _, ok := was[name]; !ok {
			added = append(added, name+" is new")
		}
	}
	for _, s := range [][]string{changed, gone, added} {
		sort.Strings(s)
	}
	return strings.Join(slices.Concat(changed, gone, added), "; ")
}

// IsInterpreter reports whether program is a shell, an interpreter or a
// package runner: strata never suggests pinning one, since what it runs is
// its arguments' business (a pin of one covers its script, the first file
// its arguments name, but not what that loads); it suggests trusting the
// workspace instead.
func IsInterpreter(program string) bool { return exe.IsInterpreter(program) }
