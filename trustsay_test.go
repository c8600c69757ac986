package strata_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
)

// TestTrustIsNeverSilent: the user's own MCP server, given the directory
// strata runs in as "." or by its absolute path, in a directory nobody
// trusted (a workspace, or a directory with no project file at all):
// where it starts in an empty private directory instead, one warning, at
// the argument in the user's file, says so and names the host's fix; the
// absolute path is refused, at the argument too, with the same fix. A
// host that takes StartInWorkspace starts it there, and nothing is said;
// so does a trusted workspace.
func TestTrustIsNeverSilent(t *testing.T) {
	hint := strata.TrustHint(func(u load.Untrusted) string {
		if len(u.Files) > 0 {
			return "run myhost trust to apply them"
		}
		return "run myhost trust " + u.Dir + ", or pass --trust, to start it there"
	})
	for _, c := range []struct {
		name     string
		arg      string // the server's argument: "." or "ROOT"
		plain    bool   // a directory with no project file
		opts     []strata.Option
		warn     string // in the warning at the argument; "" for none
		startsIn bool   // the server starts in the directory
		refused  bool
	}{
		{name: "dot, untrusted workspace", arg: ".", warn: `the server starts in an empty private directory, not in ROOT, which is not trusted: its argument "." names nothing of ROOT there`},
		{name: "dot, no project file", arg: ".", plain: true, warn: `the server starts in an empty private directory, not in ROOT, which is not trusted`},
		{name: "absolute, untrusted workspace", arg: "ROOT", warn: `not run: its argument "ROOT" names a path in the workspace ROOT, which is not trusted`, refused: true},
		{name: "dot, the host starts programs in the workspace", arg: ".", opts: []strata.Option{strata.StartInWorkspace()}, startsIn: true},
		{name: "absolute, the host starts programs in the workspace", arg: "ROOT", plain: true, opts: []strata.Option{strata.StartInWorkspace()}, startsIn: true},
		{name: "dot, trusted for this run", arg: ".", opts: []strata.Option{strata.TrustWorkspace()}, startsIn: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The server is a script run by the shell, an interpreter, as
			// node runs server-filesystem: what it reads is its argument.
			s := newSetup(t, map[string]string{"bin/spy": "#!/bin/sh\necho \"dir=$PWD args=$*\" >> DIR/spy.log\nexec MCPFAKE -tools 1\n"})
			root := s.repo
			if c.plain {
				root = filepath.Join(s.dir, "plain")
				if err := os.MkdirAll(root, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			arg := strings.ReplaceAll(c.arg, "ROOT", root)
			user := "[mcp_servers.mine]\ncommand = \"/bin/sh\"\nargs = [\"" + filepath.Join(s.dir, "bin", "spy") + "\", \"" + arg + "\"]\nexpose = \"all\"\n"
			if err := os.MkdirAll(filepath.Join(s.home, "strata"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(s.home, "strata", "config.toml"), []byte(user), 0o644); err != nil {
				t.Fatal(err)
			}
			w := s.open(t, append([]strata.Option{hint, strata.Dir(root)}, c.opts...)...)
			cat, err := w.Resolve(context.Background())
			if cat == nil {
				t.Fatal(err)
			}
			var said []*diag.Error
			for _, e := range cat.Warnings {
				if e.Code == diag.CodeUntrusted {
					said = append(said, e)
				}
			}
			if c.warn == "" {
				if len(said) > 0 {
					t.Errorf("warned: %v", said)
				}
			} else {
				want := strings.ReplaceAll(c.warn, "ROOT", root)
				fix := "run myhost trust " + root + ", or pass --trust, to start it there"
				line := 3 // the argument
				if len(said) != 1 || !strings.Contains(said[0].Msg, want) || !strings.Contains(said[0].Hint, fix) ||
					!strings.HasSuffix(said[0].Source, filepath.Join("strata", "config.toml")) || said[0].Line != line {
					t.Errorf("warnings %v; want one in the user's file at line %d, saying %q, with the fix %q", said, line, want, fix)
				}
			}
			log := readFile(t, filepath.Join(s.dir, "spy.log"))
			switch {
			case c.refused:
				if log != "" || len(cat.Tools) > 0 {
					t.Errorf("the refused server started: %q, %d tools", log, len(cat.Tools))
				}
			case c.startsIn:
				if !strings.HasPrefix(log, "dir="+root+" ") {
					t.Errorf("the server started %q; want in %s", log, root)
				}
			default:
				if !strings.HasPrefix(log, "dir=") || strings.HasPrefix(log, "dir="+root+" ") || len(cat.Tools) != 1 {
					t.Errorf("the server started %q with %d tools; want it elsewhere, with its tool", log, len(cat.Tools))
				}
			}
		})
	}
}

// TestTrustIsNeverSilentForTools: the user's own tool whose command names
// the directory as "." is warned about likewise, at that argument, in a
// directory nobody trusted; the tool still resolves.
func TestTrustIsNeverSilentForTools(t *testing.T) {
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[tools.lsdot]
command = { program = "/bin/ls", args = ["-A", "."] }
parameters.why = { type = "string" }
`})
	w := s.open(t, strata.TrustHint(func(load.Untrusted) string { return "pass --trust" }))
	cat, err := w.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `the tool starts in an empty private directory, not in ` + s.repo + `, which is not trusted: its argument "." names nothing of ` + s.repo + ` there`
	if len(cat.Warnings) != 1 || cat.Warnings[0].Msg != want || cat.Warnings[0].Hint != "pass --trust" || strings.Join(cat.Warnings[0].Path, ".") != "tools.lsdot.command.args.1" {
		t.Errorf("warnings %v; want one at tools.lsdot.command.args.1: %s; pass --trust", cat.Warnings, want)
	}
	if _, ok := cat.Tool("lsdot"); !ok {
		t.Error("lsdot did not resolve")
	}
}
