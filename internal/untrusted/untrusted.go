// Package untrusted states one rule of strata's trust model, in one place:
// anything that resolves into a workspace nobody trusted is that
// workspace's content, whichever layer wrote it. The user's own files may
// name ${workspaceFolder}, a relative envFile, a working directory, a
// program, an interpreter's script or a variable that lands there; until
// the workspace is trusted, each is refused with a warning that says what
// and how to fix it, never used and never silently pointed elsewhere.
//
// The loader asks [Workspace.Holds] of the values it knows as it reads
// them (the variables of other clients' files, an envFile); every launch
// (a discovery run, a call, an MCP server's start) asks [Workspace.Check]
// right before it runs, so that a path that only resolves at run time (a
// template, a relative program) is refused too.
package untrusted

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/strata-config/strata/internal/limits"
)

// Workspace is a workspace nobody trusted: what lies under its root is
// its content. The zero Workspace is none (the workspace is trusted, or
// there is no workspace to distrust): it holds nothing.
type Workspace struct {
	root string // absolute and clean; "" for none
	real string // root with its symbolic links resolved
}

// New returns the untrusted workspace at root, an absolute directory. It
// is none when root is the file system's root, or the home directory or
// one of its ancestors: outside any workspace, strata's root is the
// repository around the working directory, else the working directory,
// and a user working in their home directory (or above it) is among
// their own files, not a stranger's.
func New(root, home string) Workspace {
	if root == "" || !filepath.IsAbs(root) {
		return Workspace{}
	}
	root = filepath.Clean(root)
	if filepath.Dir(root) == root {
		return Workspace{}
	}
	w := Workspace{root: root, real: resolved(root)}
	if home != "" && filepath.IsAbs(home) {
		home = filepath.Clean(home)
		if w.within(home) || w.within(resolved(home)) {
			return Workspace{}
		}
	}
	return w
}

// Root returns the workspace's root, or "" for none: what [New] makes the
// same Workspace of again.
func (w Workspace) Root() string { return w.root }

// IsZero reports whether w is none: it holds nothing.
func (w Workspace) IsZero() bool { return w.root == "" }

// Holds reports whether the absolute path p lies in the workspace, as
// written or once its symbolic links are resolved (those of its longest
// part that exists). A relative path is not held: its caller makes it
// absolute against what it is relative to first.
func (w Workspace) Holds(p string) bool {
	if w.root == "" || !filepath.IsAbs(p) {
		return false
	}
	p = filepath.Clean(p)
	return w.within(p) || w.within(resolved(p))
}

// within reports whether the clean absolute path p is the root or under
// it, as written or resolved.
func (w Workspace) within(p string) bool {
	for _, r := range []string{w.root, w.real} {
		if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Names reports whether the text s names a path in the workspace: it holds
// the root, as written or resolved, followed by its end, a separator or a
// character that cannot continue a file name ("--require=/ws/x.js", ". /ws/run.sh",
// "/ws:/usr/bin"). Shell text and option values name paths that way.
func (w Workspace) Names(s string) bool {
	if w.root == "" {
		return false
	}
	for _, r := range []string{w.root, w.real} {
		for i := 0; ; {
			j := strings.Index(s[i:], r)
			if j < 0 {
				break
			}
			end := i + j + len(r)
			if end == len(s) || !nameByte(s[end]) {
				return true
			}
			i = end
		}
	}
	return false
}

// nameByte reports whether c continues a file name in the usual way.
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c >= 0x80
}

// resolved returns p with the symbolic links of its longest existing part
// resolved, or p when none of it exists.
func resolved(p string) string {
	rest := ""
	for d := p; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// Launch is what a launch would start, for [Workspace.Check].
type Launch struct {
	// Program is the program as it starts: a path, found in PATH when it
	// was named bare.
	Program string
	Args    []string
	// Dir is where it starts; relative arguments are relative to it.
	Dir string
	// Private makes Dir the base of a new, empty directory made there for
	// the program to start in (procs.Invocation.Private): relative arguments are
	// relative to that directory, one level below Dir.
	Private bool
	// Env are the variables the config sets (NAME=VALUE), which are
	// checked, and the names it inherits from the host (NAME), which are
	// not: the host's environment is the user's shell's (trust.LaunchEnv
	// gives this form).
	Env []string
	// Interpreter is set when what the program runs is what its arguments
	// name: a shell, an interpreter or a package runner (exe.IsInterpreter).
	Interpreter bool
}

// Check returns a [*Refused] when l would start anything of the
// workspace: its directory, its program (once found in PATH and its links
// resolved) or, for an interpreter, an argument that names a path there
// (its script, a module, shell text that runs one); or when a variable the
// config gives it names a path there. Nil otherwise, and always for none.
func (w Workspace) Check(l Launch) error {
	if w.root == "" {
		return nil
	}
	if l.Dir != "" && w.Holds(abs(l.Dir, "")) {
		return w.refuse(Directory, l.Dir)
	}
	if strings.ContainsRune(l.Program, '/') || strings.ContainsRune(l.Program, filepath.Separator) {
		if w.Holds(abs(l.Program, l.Dir)) {
			return w.refuse(Program, l.Program)
		}
	}
	if l.Interpreter {
		start := l.Dir
		if l.Private && start != "" {
			start = filepath.Join(start, "private") // any name: one level below
		}
		for _, a := range l.Args {
			if a == "" {
				continue
			}
			if w.Names(a) || !strings.HasPrefix(a, "-") && w.Holds(abs(a, start)) {
				return w.refuse(Argument, a)
			}
		}
	}
	for _, kv := range l.Env {
		if k, v, set := strings.Cut(kv, "="); set && (w.Names(v) || filepath.IsAbs(v) && w.Holds(v)) {
			return &Refused{What: Variable, Name: k, Root: w.root}
		}
	}
	return nil
}

// abs makes p absolute against dir; "" stays "".
func abs(p, dir string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if dir == "" {
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	}
	return filepath.Join(dir, p)
}

// What is what a refusal is about.
type What string

// What is refused.
const (
	Program   What = "program"
	Directory What = "directory"
	Argument  What = "argument"
	Variable  What = "variable"
	EnvFile   What = "envFile"
	// Tools is a discovery directory, whose executables would run.
	Tools What = "discovery directory"
	// Reference is a variable of another client's file, such as
	// ${workspaceFolder}, whose value is the workspace or a path in it.
	Reference What = "reference"
	// KeyFile is a file a sign-in signs with (oauth.private_key_file).
	KeyFile What = "private key file"
)

// Refused is a value refused because it resolves into the untrusted
// workspace.
type Refused struct {
	What What
	// Name is the value as written, or the name of the variable (What
	// Variable) or reference (What Reference, such as ${workspaceFolder}).
	Name string
	// Root is the workspace's root.
	Root string
}

// Refuse returns the refusal of value, a what that resolves into w.
func (w Workspace) Refuse(what What, value string) *Refused {
	return w.refuse(what, value)
}

func (w Workspace) refuse(what What, value string) *Refused {
	return &Refused{What: what, Name: value, Root: w.root}
}

// Error says what is refused and why: "its program /ws/bin/t is in the
// workspace /ws, which is not trusted".
func (r *Refused) Error() string {
	name := limits.Cut(r.Name, limits.Quote)
	switch r.What {
	case Variable:
		return fmt.Sprintf("its variable %s names a path in the workspace %s, which is not trusted", name, r.Root)
	case Argument:
		return fmt.Sprintf("its argument %s names a path in the workspace %s, which is not trusted", strconv.Quote(name), r.Root)
	case Reference:
		return fmt.Sprintf("%s resolves into the workspace %s, which is not trusted", name, r.Root)
	case Tools:
		return fmt.Sprintf("the discovery directory %s is in the workspace %s, which is not trusted; no tools from it", name, r.Root)
	}
	return fmt.Sprintf("its %s %s is in the workspace %s, which is not trusted", r.What, name, r.Root)
}

// Hint says how to fix it: trust the workspace, or name something
// outside it.
func (r *Refused) Hint() string { return r.HintWith("trust the workspace") }

// HintWith is [Refused.Hint] whose way to trust the workspace is trust
// ("run strata trust, or pass --trust").
func (r *Refused) HintWith(trust string) string {
	fix := map[What]string{
		Program:   "use a program outside it",
		Directory: "start it in a directory outside it",
		Argument:  "name a file outside it",
		Variable:  "set the variable to a path outside it",
		EnvFile:   "give the absolute path of a file outside it",
		Reference: "write an absolute path outside it",
		Tools:     "list a directory outside it",
		KeyFile:   "keep the key outside it",
	}[r.What]
	return trust + ", or " + fix
}

// Relative returns the index of the first of args that names a path
// relative to where a program starts, which dir would be if it started
// there: ".", "..", a path beginning "./" or "../", or one that exists in
// dir; an option's value too ("--root=."). A program started elsewhere
// (a private directory) finds nothing of dir by it. -1 when none does.
func Relative(args []string, dir string) int {
	for i, a := range args {
		v := a
		if strings.HasPrefix(a, "-") {
			_, val, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			v = val
		}
		switch {
		case v == "" || filepath.IsAbs(v) || strings.Contains(v, "://"):
		case v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../"):
			return i
		case dir != "" && !strings.HasPrefix(v, "@"):
			if _, err := os.Lstat(filepath.Join(dir, v)); err == nil {
				return i
			}
		}
	}
	return -1
}
