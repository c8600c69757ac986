package load_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// opens are the module's places that open a file other than through the
// gate (load.Result.ReadFile and the loader's reading of every file of a
// load), each with why what it opens is never a workspace's file: a file
// in a workspace nobody trusted is read through the gate, which decides
// by where the file lies, or not at all. A place is "<file> <function>".
var opens = map[string]string{
	// The gate itself, and its one bounded reader.
	"load/gate.go gate.read":             "the gate: a file of the workspace nobody trusted is looked at, never opened",
	"internal/readfile/readfile.go Open": "the one bounded reader (Regular, and Open for a reader that hashes), which the gate reads through",
	"codec/limits.go Limits.ReadFile":    "a host's reading of a file it names itself; strata's own code reads layers through the gate",
	"lock/file.go Read":                  "a host's reading of a lock it names itself; strata reads its locks through the gate (engine.readLock) and parses them with lock.ReadBytes",
	"lock.go engine.readLock":            "the lock, through the gate (load.Result.ReadFile)",
	// The user's own files, at places the user (or the host) chose.
	"policy/policy.go FromFile":                "a policy file, at a place the organisation or the host chose; one inside the workspace is refused before it is opened",
	"trust/trust.go Store.read":                "the trust list, in the user's config directory, out of any workspace's reach",
	"internal/filelock/lock_unix.go Lock":      "the lock file of a list of the user's (the trust list, the sign-ins), beside that list",
	"internal/filelock/lock_windows.go Lock":   "the lock file of a list of the user's (the trust list, the sign-ins), beside that list",
	"internal/signin/store.go Store.read":      "the sign-ins, in the user's data directory, out of any workspace's reach",
	"internal/discover/mcp.go Resolver.signIn": "a machine's private key (oauth.private_key_file) of the user's config; one in the workspace nobody trusted is refused before (untrusted.Workspace.Holds)",
	"internal/gateway/token.go ReadToken":      "the bearer token of serve --http: a file the user names by flag, or one strata made in the user's cache directory",
	"internal/cli/serve.go serveCmd.serveHTTP": "the call log, a file the user names by flag, opened to append",
	"internal/cache/cache.go Cache.Get":        "the cache directory, the user's",
	"internal/cache/cache.go Cache.Failed":     "the cache directory, the user's",
	"internal/cache/cache.go holds":            "the cache directory, the user's",
	"internal/cache/answers.go readJSON":       "the cache directory, the user's (discovery's answers, token counts)",
	"internal/launcher/npx.go missingDeps":     "the package.json files of npx's copy of a server, in npm's cache (its _npx directory), read only to name what an install that was stopped left missing, after a start failed; through the bounded reader",
	"internal/cache/npx.go addVersion":         "the package.json of what an npx launch runs, to key the cache, through the bounded reader: found from the launch's directory, a private one while the workspace is untrusted",
	"internal/exe/exe.go Sum":                  "a program or an interpreter's script, hashed for a pin: what a launch runs, which untrusted.Workspace.Check decides",
	"internal/procs/private.go SweepPrivate":   "the base of the private directories, the user's, swept of what a crash left",
	"internal/procs/private_unix.go hold":      "a private directory, the user's, locked while in use",
	"internal/procs/private_unix.go sweep":     "a private directory, the user's, removed once no process holds it",
	// The system's files.
	"internal/procs/procs.go devNull":          "/dev/null",
	"internal/procs/idle_linux.go cpuTicks":    "/proc/stat",
	"internal/pollfile/reopen_linux.go Reopen": "the process's own standard input, through /proc/self/fd",
}

// skipped are the directories whose code is not strata's running code:
// test support, benchmarks' programs, example programs, npm's packages.
var skipped = []string{"node_modules", "testdata", ".git", "fixtures", "bench", "proctest", "testbin"}

// TestEveryReadPassesTheGate holds the rule "where a file lies decides
// what it is" to one place: every call in the module's code that opens a
// file or reads one into memory (os.Open, os.OpenFile, os.ReadFile,
// readfile.Regular, lock.Read, a ReadFile method) is the gate's, or is
// listed in opens with why it never opens a workspace's file. A new
// command that reads a file fails here until it reads through the gate
// (load.Result.ReadFile) or says why it need not.
func TestEveryReadPassesTheGate(t *testing.T) {
	checkListed(t, callsIn(t, opensFile), opens,
		"%s opens a file, not through the gate: read it with load.Result.ReadFile, or list it in opens with why it is never a workspace's file",
		"opens lists %s, which opens no file (any more): remove it")
}

// checkListed fails t for each place found that listed lacks (unlisted,
// a format of the place) and each place listed that was not found
// (stale).
func checkListed(t *testing.T, found map[string]bool, listed map[string]string, unlisted, stale string) {
	t.Helper()
	for _, place := range slices.Sorted(maps.Keys(found)) {
		if listed[place] == "" {
			t.Errorf(unlisted, place)
		}
	}
	for _, place := range slices.Sorted(maps.Keys(listed)) {
		if !found[place] {
			t.Errorf(stale, place)
		}
	}
}

// unbounded are the module's places that open a file with the os package
// rather than through the one bounded reader (internal/readfile: a
// regular file only, looked at before it is opened, a named pipe never
// waited on, within a bound), each with why that cannot block or read
// without end. A place is "<file> <function>".
var unbounded = map[string]string{
	"internal/readfile/readfile.go Open":       "the bounded reader itself",
	"internal/filelock/lock_unix.go Lock":      "the lock file beside a list of the user's, made by strata, never read",
	"internal/filelock/lock_windows.go Lock":   "the lock file beside a list of the user's, made by strata, never read",
	"internal/cli/serve.go serveCmd.serveHTTP": "the call log, a file the user names by flag, opened to append, never read (a named pipe there is the user's choice of reader)",
	"internal/procs/private.go SweepPrivate":   "a directory (the base of the private directories, checked before), listed, never read as a file",
	"internal/procs/private_unix.go hold":      "a private directory, opened to be locked, never read",
	"internal/procs/private_unix.go sweep":     "a private directory, opened to be locked, never read",
	"internal/procs/procs.go devNull":          "/dev/null, the standard input of what strata starts",
	"internal/procs/idle_linux.go cpuTicks":    "/proc/stat, the system's: its first 512 bytes",
	"internal/pollfile/reopen_linux.go Reopen": "the process's own standard input, reopened without blocking",
}

// TestEveryReadIsBounded holds the rule "every read bounded" to one
// place: every call in the module's code that opens a file with the os
// package (os.Open, os.OpenFile, os.ReadFile) is the bounded reader's
// (internal/readfile), or is listed in unbounded with why it cannot block
// on a named pipe or a device, nor read without end. A token file, a
// program hashed for a pin, a cache entry read with os.Open waited
// forever on a named pipe.
func TestEveryReadIsBounded(t *testing.T) {
	found := callsIn(t, func(call *ast.CallExpr) bool {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && id.Name == "os" && (sel.Sel.Name == "Open" || sel.Sel.Name == "OpenFile" || sel.Sel.Name == "ReadFile")
	})
	checkListed(t, found, unbounded,
		"%s opens a file with the os package: read it with internal/readfile (Regular, or Open to stream it within a bound), or list it in unbounded with why it cannot block or read without end",
		"unbounded lists %s, which opens no file with the os package (any more): remove it")
}

// callsIn returns the places ("<file> <function>") of the module's code,
// tests and skipped directories left out, that hold a call match reports.
func callsIn(t *testing.T, match func(*ast.CallExpr) bool) map[string]bool {
	t.Helper()
	found := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if slices.Contains(skipped, d.Name()) {
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
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		for _, decl := range f.Decls {
			ast.Inspect(decl, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok && match(call) {
					found[rel+" "+declName(decl)] = true
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// opensFile reports whether call opens a file or reads one.
func opensFile(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg := ""
	if id, ok := sel.X.(*ast.Ident); ok {
		pkg = id.Name
	}
	switch name := sel.Sel.Name; {
	case pkg == "os":
		return name == "Open" || name == "OpenFile" || name == "ReadFile"
	case pkg == "readfile":
		return name == "Regular" || name == "Open"
	case pkg == "lock":
		return name == "Read"
	default:
		return name == "ReadFile" // a method: codec.Limits', load.Result's
	}
}

// declName is the name of what decl declares: a function, a method
// ("Type.Method") or package-level variables.
func declName(decl ast.Decl) string {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil || len(d.Recv.List) == 0 {
			return d.Name.Name
		}
		t := d.Recv.List[0].Type
		for {
			switch x := t.(type) {
			case *ast.StarExpr:
				t = x.X
				continue
			case *ast.IndexExpr:
				t = x.X
				continue
			case *ast.IndexListExpr:
				t = x.X
				continue
			case *ast.Ident:
				return x.Name + "." + d.Name.Name
			}
			return d.Name.Name
		}
	case *ast.GenDecl:
		var names []string
		for _, spec := range d.Specs {
			if v, ok := spec.(*ast.ValueSpec); ok {
				for _, n := range v.Names {
					names = append(names, n.Name)
				}
			}
		}
		return strings.Join(names, ",")
	}
	return ""
}
