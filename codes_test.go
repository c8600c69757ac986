package strata_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// TestProblemCodes: a host tells the problems it meets apart by their
// codes, whichever step finds them (opening, resolving), and every
// problem has one.
func TestProblemCodes(t *testing.T) {
	const server = "[mcp_servers.a]\ncommand = \"MCPFAKE\"\nargs = [\"-tools\", \"1\"]\n"
	tests := []struct {
		name    string
		files   map[string]string
		environ []string
		opts    []strata.Option
		pin     bool // pin mcp_servers.a, then give it other arguments
		want    diag.Code
	}{
		{name: "unknown key", files: map[string]string{"home/strata/config.toml": "[tools.grep]\nrnu = \"ask\"\n"}, want: diag.CodeUnknownKey},
		{name: "unknown variable", environ: []string{"STRATA_TOOLS_GREP_RNU=ask"}, want: diag.CodeUnknownKey},
		{name: "unknown key of --cfg", opts: []strata.Option{strata.Cfg("tools.grep.rnu=ask")}, want: diag.CodeUnknownKey},
		{name: "bad value", files: map[string]string{"home/strata/config.toml": "[tools.grep]\nrun = \"sometimes\"\n"}, want: diag.CodeBadValue},
		{name: "bad value inside a value", files: map[string]string{"home/strata/config.toml": "[tools.grep]\nsource = \"mcp.\"\n"}, want: diag.CodeBadValue},
		{name: "type mismatch", files: map[string]string{"home/strata/config.toml": "[tools]\ngrep = 1\n"}, want: diag.CodeType},
		{name: "syntax", files: map[string]string{"home/strata/config.toml": "[tools.grep\n"}, want: diag.CodeSyntax},
		{name: "a limit", files: map[string]string{"home/strata/config.toml": "[tools.grep.options.a.b.c]\nd = 1\n"},
			opts: []strata.Option{strata.Limits(codec.Limits{Depth: 4})}, want: diag.CodeLimit},
		{name: "an extended file missing", files: map[string]string{"home/strata/config.toml": "extends = [\"gone.toml\"]\n"}, want: diag.CodeRead},
		{name: "a server without a command", files: map[string]string{"home/strata/config.toml": "[mcp_servers.a]\nargs = [\"x\"]\n"}, want: diag.CodeInvalid},
		{name: "a source that names no server", files: map[string]string{"home/strata/config.toml": "[tools.t]\nsource = \"mcp.nope\"\n"}, want: diag.CodeNotFound},
		{name: "a host's source without a name", opts: []strata.Option{strata.Sources(load.HostSource{Read: func(context.Context) (map[string]any, error) { return nil, nil }})}, want: diag.CodeUsage},
		{name: "untrusted workspace", files: map[string]string{"repo/.strata/config.toml": "[tools.grep]\nrun = \"ask\"\n"}, want: diag.CodeUntrusted},
		{name: "a server that does not start", files: map[string]string{"home/strata/config.toml": "[mcp_servers.a]\ncommand = \"DIR/nonexistent\"\nexpose = \"all\"\n"}, want: diag.CodeServer},
		{name: "a tool that does not describe itself", files: map[string]string{
			"home/strata/config.toml": "[discover]\ndirs = [\"DIR/tools\"]\n",
			"tools/broken":            "#!/bin/sh\nexit 3\n",
		}, want: diag.CodeDiscovery},
		{name: "two servers with one tool name", files: map[string]string{
			"home/strata/config.toml": server + "expose = \"all\"\n[mcp_servers.b]\ncommand = \"MCPFAKE\"\nargs = [\"-tools\", \"1\"]\nexpose = \"all\"\n",
		}, want: diag.CodeNameCollision},
		{name: "a tool of a disabled server", files: map[string]string{
			"home/strata/config.toml": server + "enabled = false\n[tools.t]\nsource = \"mcp.a.tool_000\"\n",
		}, want: diag.CodeLeftOut},
		{name: "an override of a parameter the tool lacks", files: map[string]string{
			"home/strata/config.toml": server + "[tools.t]\nsource = \"mcp.a.tool_000\"\nparameters.nope = { type = \"string\" }\n",
		}, want: diag.CodeOverride},
		{name: "a pinned launch changed", files: map[string]string{"home/strata/config.toml": server + "expose = \"all\"\n"}, pin: true, want: diag.CodePinChanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t, tt.files)
			s.environ = append(s.environ, tt.environ...)
			if tt.pin {
				pinServer(t, s)
			}
			opts := append([]strata.Option{strata.Dir(s.repo), strata.Environ(s.environ), strata.TrustStore(s.store),
				strata.CacheDir(filepath.Join(s.dir, "cache"))}, tt.opts...)
			var problems diag.Errors
			w, err := strata.Open[config.Partial](context.Background(), config.Default(), opts...)
			if err == nil {
				t.Cleanup(func() { w.Close() })
				problems = append(problems, w.Warnings()...)
				var cat *resolve.Catalog
				if cat, err = w.Resolve(context.Background()); cat != nil {
					problems = append(problems, cat.Warnings...)
				}
			}
			problems = append(problems, diag.All(err)...)
			var codes []diag.Code
			for _, p := range problems {
				codes = append(codes, p.Code)
				if p.Code == "" {
					t.Errorf("a problem without a code: %v", p)
				}
			}
			if !slices.Contains(codes, tt.want) {
				t.Errorf("codes %q, want %q among them; problems:\n%s", codes, tt.want, problems.Render())
			}
			if !errors.Is(problems, tt.want) {
				t.Errorf("errors.Is(problems, %q) is false", tt.want)
			}
		})
	}
}

// pinServer pins the launch of mcp_servers.a as the user's file has it,
// then gives the server other arguments in the user's file.
func pinServer(t *testing.T, s *setup) {
	t.Helper()
	w := s.open(t)
	launch, err := w.Launch(context.Background(), "mcp_servers.a")
	if err != nil {
		t.Fatal(err)
	}
	pin, err := launch.Pin()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Update(func(l *trust.List) error { l.Pins = map[string]trust.Pin{"mcp_servers.a": pin}; return nil }); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.home, "strata", "config.toml")
	if err := os.WriteFile(p, []byte(readFile(t, p)+"env = { X = \"1\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
