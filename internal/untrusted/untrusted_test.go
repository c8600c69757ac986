package untrusted_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/untrusted"
)

// layout makes ROOT/ws (the workspace, with ws/bin/t and a link loop),
// ROOT/home, ROOT/other and links into and out of the workspace.
func layout(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"ws/bin", "home", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "ws/bin/t"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"other/into": filepath.Join(root, "ws/bin"), // the user's link into the workspace
		"ws/out":     filepath.Join(root, "other"),  // the workspace's link out of it
		"alias":      filepath.Join(root, "ws"),     // the workspace by another name
		"ws/loop":    "loop",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestNew(t *testing.T) {
	root := layout(t)
	tests := []struct {
		name, root, home string
		want             string // its root
	}{
		{"a workspace", "ROOT/ws", "ROOT/home", "ROOT/ws"},
		{"cleaned", "ROOT/ws/../ws/", "ROOT/home", "ROOT/ws"},
		{"none: no root", "", "ROOT/home", ""},
		{"none: relative", "ws", "ROOT/home", ""},
		{"none: the file system's root", "/", "ROOT/home", ""},
		{"none: the home directory", "ROOT/home", "ROOT/home", ""},
		{"none: an ancestor of the home directory", "ROOT", "ROOT/home", ""},
		{"none: the home directory through a link", "ROOT/alias", "ROOT/ws", ""},
		{"a workspace in the home directory", "ROOT/home/repo", "ROOT/home", "ROOT/home/repo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := func(s string) string {
				if s == "ROOT" || len(s) > 4 && s[:5] == "ROOT/" {
					return root + s[4:]
				}
				return s
			}
			got := untrusted.New(r(tt.root), r(tt.home)).Root()
			if got != filepath.Clean(r(tt.want)) && !(got == "" && tt.want == "") {
				t.Errorf("Root() = %q, want %q", got, r(tt.want))
			}
		})
	}
}

func TestHoldsAndNames(t *testing.T) {
	root := layout(t)
	w := untrusted.New(filepath.Join(root, "ws"), filepath.Join(root, "home"))
	holds := map[string]bool{
		root + "/ws":               true,
		root + "/ws/bin/t":         true,
		root + "/ws/new/file":      true, // not there yet
		root + "/ws/../ws/bin":     true,
		root + "/other/into/t":     true, // a link into it
		root + "/alias/bin/t":      true, // the workspace by another name
		root + "/ws/loop/x":        true,
		root + "/ws/out/x":         true, // lies under the root as written
		root + "/ws2":              false,
		root + "/other":            false,
		root + "/ws/../other":      false,
		"ws/bin/t":                 false, // relative: its caller makes it absolute
		filepath.Join(root, "..."): false,
	}
	got := map[string]bool{}
	for p := range holds {
		got[p] = w.Holds(p)
	}
	if diff := cmp.Diff(holds, got); diff != "" {
		t.Errorf("Holds (-want +got):\n%s", diff)
	}
	names := map[string]bool{
		root + "/ws":                            true,
		"--require=" + root + "/ws/x.js":        true,
		". " + root + "/ws/run.sh && echo ok":   true,
		root + "/ws:/usr/bin":                   true,
		"file://" + root + "/ws/x.mjs":          true,
		root + "/ws2/x":                         false,
		root + "/ws.old":                        false,
		root + "/other":                         false,
		"plain words":                           false,
		"--dir=" + root + "/ws-backup":          false,
		"cd " + root + "/ws2 && " + root + "/w": false,
	}
	got = map[string]bool{}
	for s := range names {
		got[s] = w.Names(s)
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	var none untrusted.Workspace
	if none.Holds(root+"/ws") || none.Names(root+"/ws") || none.Check(untrusted.Launch{Program: root + "/ws/bin/t"}) != nil {
		t.Error("the zero Workspace holds something")
	}
}

func TestCheck(t *testing.T) {
	root := layout(t)
	ws := filepath.Join(root, "ws")
	w := untrusted.New(ws, filepath.Join(root, "home"))
	other := filepath.Join(root, "other")
	tests := []struct {
		name string
		l    untrusted.Launch
		want *untrusted.Refused
	}{
		{"a program elsewhere", untrusted.Launch{Program: "/bin/sh", Args: []string{"-c", "true"}, Dir: other, Interpreter: true}, nil},
		{"its program", untrusted.Launch{Program: ws + "/bin/t", Dir: other}, &untrusted.Refused{What: untrusted.Program, Name: ws + "/bin/t", Root: ws}},
		{"its program, relative to its directory", untrusted.Launch{Program: "../ws/bin/t", Dir: other}, &untrusted.Refused{What: untrusted.Program, Name: "../ws/bin/t", Root: ws}},
		{"its program through a link", untrusted.Launch{Program: other + "/into/t", Dir: other}, &untrusted.Refused{What: untrusted.Program, Name: other + "/into/t", Root: ws}},
		{"a bare name is PATH's", untrusted.Launch{Program: "t", Dir: other}, nil},
		{"its directory", untrusted.Launch{Program: "/bin/sh", Dir: ws + "/bin"}, &untrusted.Refused{What: untrusted.Directory, Name: ws + "/bin", Root: ws}},
		{"an interpreter's script", untrusted.Launch{Program: "/usr/bin/node", Args: []string{ws + "/server.js"}, Dir: other, Interpreter: true}, &untrusted.Refused{What: untrusted.Argument, Name: ws + "/server.js", Root: ws}},
		{"an interpreter's script, relative", untrusted.Launch{Program: "/usr/bin/node", Args: []string{"--", "../ws/server.js"}, Dir: other, Interpreter: true}, &untrusted.Refused{What: untrusted.Argument, Name: "../ws/server.js", Root: ws}},
		{"an interpreter's script, relative to a private place to start", untrusted.Launch{Program: "/usr/bin/node", Args: []string{"../../ws/server.js"}, Dir: other, Private: true, Interpreter: true}, &untrusted.Refused{What: untrusted.Argument, Name: "../../ws/server.js", Root: ws}},
		{"an option's value", untrusted.Launch{Program: "/usr/bin/node", Args: []string{"--require=" + ws + "/x.js", "s.js"}, Dir: other, Interpreter: true}, &untrusted.Refused{What: untrusted.Argument, Name: "--require=" + ws + "/x.js", Root: ws}},
		{"shell text", untrusted.Launch{Program: "/bin/sh", Args: []string{"-c", "cd " + ws + " && make"}, Dir: other, Interpreter: true}, &untrusted.Refused{What: untrusted.Argument, Name: "cd " + ws + " && make", Root: ws}},
		{"a program's data argument", untrusted.Launch{Program: "/bin/cat", Args: []string{ws + "/notes.txt"}, Dir: other}, nil},
		{"a variable the config sets", untrusted.Launch{Program: "/bin/sh", Dir: other, Env: []string{"A=1", "NODE_OPTIONS=--require " + ws + "/x.js"}}, &untrusted.Refused{What: untrusted.Variable, Name: "NODE_OPTIONS", Root: ws}},
		{"a variable the host passes on", untrusted.Launch{Program: "/bin/sh", Dir: other, Env: []string{"PATH"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := w.Check(tt.l)
			var got *untrusted.Refused
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("err = %v, want a *Refused", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefusedSays(t *testing.T) {
	tests := []struct {
		r         untrusted.Refused
		err, hint string
	}{
		{untrusted.Refused{What: untrusted.Program, Name: "/ws/bin/t", Root: "/ws"}, "its program /ws/bin/t is in the workspace /ws, which is not trusted", "trust the workspace, or use a program outside it"},
		{untrusted.Refused{What: untrusted.Directory, Name: "/ws", Root: "/ws"}, "its directory /ws is in the workspace /ws, which is not trusted", "trust the workspace, or start it in a directory outside it"},
		{untrusted.Refused{What: untrusted.Argument, Name: "-c . /ws/x", Root: "/ws"}, `its argument "-c . /ws/x" names a path in the workspace /ws, which is not trusted`, "trust the workspace, or name a file outside it"},
		{untrusted.Refused{What: untrusted.Variable, Name: "LD_PRELOAD", Root: "/ws"}, "its variable LD_PRELOAD names a path in the workspace /ws, which is not trusted", "trust the workspace, or set the variable to a path outside it"},
		{untrusted.Refused{What: untrusted.EnvFile, Name: "/ws/.env", Root: "/ws"}, "its envFile /ws/.env is in the workspace /ws, which is not trusted", "trust the workspace, or give the absolute path of a file outside it"},
		{untrusted.Refused{What: untrusted.Reference, Name: "${workspaceFolder}", Root: "/ws"}, "${workspaceFolder} resolves into the workspace /ws, which is not trusted", "trust the workspace, or write an absolute path outside it"},
		{untrusted.Refused{What: untrusted.Tools, Name: "/ws/tools", Root: "/ws"}, "the discovery directory /ws/tools is in the workspace /ws, which is not trusted; no tools from it", "trust the workspace, or list a directory outside it"},
	}
	for _, tt := range tests {
		if got := tt.r.Error(); got != tt.err {
			t.Errorf("Error() = %q, want %q", got, tt.err)
		}
		if got := tt.r.Hint(); got != tt.hint {
			t.Errorf("Hint() = %q, want %q", got, tt.hint)
		}
	}
}

// BenchmarkCheck is the cost the check adds to a launch that runs: an
// interpreter with arguments and variables, in a workspace nobody trusted.
func BenchmarkCheck(b *testing.B) {
	root := b.TempDir()
	w := untrusted.New(filepath.Join(root, "ws"), "")
	l := untrusted.Launch{Program: "/usr/bin/node", Args: []string{"--require=/opt/x.js", "/opt/server.js", "--port", "8080"}, Dir: root, Private: true,
		Env: []string{"A=1", "NODE_OPTIONS=--max-old-space-size=512", "PATH"}, Interpreter: true}
	for b.Loop() {
		if err := w.Check(l); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRelative: the arguments that name a path where a program starts,
// which a private start leaves naming nothing of the workspace.
func TestRelative(t *testing.T) {
	root := layout(t)
	ws := filepath.Join(root, "ws")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"dot", []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, "."},
		{"dot slash", []string{"./src"}, "./src"},
		{"parent", []string{".."}, ".."},
		{"an option's value", []string{"--repository=."}, "--repository=."},
		{"a file of the workspace", []string{"index.js", "bin/t"}, "bin/t"},
		{"absolute", []string{ws}, ""},
		{"a package", []string{"-y", "@modelcontextprotocol/server-everything"}, ""},
		{"a name not there", []string{"serve", "--stdio"}, ""},
		{"a URL", []string{"--url=https://example.com/x"}, ""},
		{"none", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			if i := untrusted.Relative(c.args, ws); i >= 0 {
				got = c.args[i]
			}
			if got != c.want {
				t.Errorf("Relative(%q) gives %q; want %q", c.args, got, c.want)
			}
		})
	}
}
