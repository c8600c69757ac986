package load_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/hostile"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// TestForeignWorkspaceContent: in the user's own Cursor, VS Code or Claude
// Code file, a server whose values resolve into the workspace nobody
// trusted (${workspaceFolder} and its kin, a variable whose value is a
// path there, a relative envFile or one there) is left out, disabled, with
// one warning at the value that names the server, what and the fix; its
// envFile is not opened. The others load as written; trusted, so does it.
func TestForeignWorkspaceContent(t *testing.T) {
	const ws = "ROOT/w"
	tests := []struct {
		name    string
		file    string // the user's file, under ROOT/home
		content string
		environ []string
		trusted bool
		want    config.MCPServer // the server a
		warning string
	}{
		{
			name:    "Cursor: a relative envFile is the workspace's",
			file:    ".cursor/mcp.json",
			content: `{"mcpServers": {"a": {"command": "node", "args": ["s.js"], "envFile": ".env"}}}`,
			want:    with(stdio("node", "s.js"), func(s *config.MCPServer) { s.Enabled = ptr(false) }),
			warning: "ROOT/home/.cursor/mcp.json:1:60: mcpServers.a.envFile: the server a is left out: its envFile ROOT/w/.env is in the workspace ROOT/w, which is not trusted; trust the workspace, or give the absolute path of a file outside it",
		},
		{
			name:    "Cursor: a relative envFile, the workspace trusted",
			file:    ".cursor/mcp.json",
			content: `{"mcpServers": {"a": {"command": "node", "args": ["s.js"], "envFile": "env.txt"}}}`,
			trusted: true,
			want: with(stdio("node", "s.js"), func(s *config.MCPServer) {
				s.Env = map[string]secret.String{"FROM": from("workspace", "FROM in ROOT/w/env.txt")}
			}),
		},
		{
			name:    "Cursor: an absolute envFile in the workspace",
			file:    ".cursor/mcp.json",
			content: `{"mcpServers": {"a": {"command": "node", "envFile": "ROOT/w/env.txt"}}}`,
			want:    with(stdio("node"), func(s *config.MCPServer) { s.Enabled = ptr(false) }),
			warning: "ROOT/home/.cursor/mcp.json:1:42: mcpServers.a.envFile: the server a is left out: its envFile ROOT/w/env.txt is in the workspace ROOT/w, which is not trusted; trust the workspace, or give the absolute path of a file outside it",
		},
		{
			name:    "Cursor: an envFile of the user's is read",
			file:    ".cursor/mcp.json",
			content: `{"mcpServers": {"a": {"command": "node", "envFile": "ROOT/home/user.env"}}}`,
			want: with(stdio("node"), func(s *config.MCPServer) {
				s.Env = map[string]secret.String{"FROM": from("user", "FROM in ROOT/home/user.env")}
			}),
		},
		{
			name:    "VS Code: ${workspaceFolder} in envFile",
			file:    ".config/Code/User/mcp.json",
			content: `{"servers": {"a": {"command": "node", "envFile": "${workspaceFolder}/.env"}}}`,
			want:    with(stdio("node"), func(s *config.MCPServer) { s.Enabled = ptr(false) }),
			warning: "ROOT/home/.config/Code/User/mcp.json:1:39: servers.a.envFile: the server a is left out: ${workspaceFolder} resolves into the workspace ROOT/w, which is not trusted; trust the workspace, or write an absolute path outside it",
		},
		{
			name:    "VS Code: ${workspaceFolder} as cwd",
			file:    ".config/Code/User/mcp.json",
			content: `{"servers": {"a": {"command": "npx", "args": ["-y", "x"], "cwd": "${workspaceFolder}"}}}`,
			want:    with(stdio("npx", "-y", "x"), func(s *config.MCPServer) { s.Cwd, s.Enabled = secret.Plain(ws), ptr(false) }),
			warning: "ROOT/home/.config/Code/User/mcp.json:1:59: servers.a.cwd: the server a is left out: ${workspaceFolder} resolves into the workspace ROOT/w, which is not trusted; trust the workspace, or write an absolute path outside it",
		},
		{
			name:    "Cursor: ${workspaceFolderBasename} is the workspace's too",
			file:    ".cursor/mcp.json",
			content: `{"mcpServers": {"a": {"command": "x", "args": ["--project", "${workspaceFolderBasename}"]}}}`,
			want:    with(stdio("x", "--project", "w"), func(s *config.MCPServer) { s.Enabled = ptr(false) }),
			warning: "ROOT/home/.cursor/mcp.json:1:61: mcpServers.a.args.1: the server a is left out: ${workspaceFolderBasename} resolves into the workspace ROOT/w, which is not trusted; trust the workspace, or write an absolute path outside it",
		},
		{
			name:    "Cursor: a variable whose value is a path in the workspace",
			file:    ".cursor/mcp.json",
			content: `{"mcpServers": {"a": {"command": "node", "env": {"NODE_OPTIONS": "--require=${env:PROJECT}/x.js"}}}}`,
			environ: []string{"PROJECT=ROOT/w/sub"},
			want: with(stdio("node"), func(s *config.MCPServer) {
				s.Env, s.Enabled = map[string]secret.String{"NODE_OPTIONS": from("--require=ROOT/w/sub/x.js", "--require=${env:PROJECT}/x.js")}, ptr(false)
			}),
			warning: "ROOT/home/.cursor/mcp.json:1:50: mcpServers.a.env.NODE_OPTIONS: the server a is left out: ${env:PROJECT} resolves into the workspace ROOT/w, which is not trusted; trust the workspace, or write an absolute path outside it",
		},
		{
			name:    "Cursor: a variable whose value is a path elsewhere",
			file:    ".cursor/mcp.json",
			content: `{"mcpServers": {"a": {"command": "node", "args": ["${env:PROJECT}/s.js"]}}}`,
			environ: []string{"PROJECT=ROOT/w2"},
			want:    with(stdio("node"), func(s *config.MCPServer) { s.Args = []secret.String{from("ROOT/w2/s.js", "${env:PROJECT}/s.js")} }),
		},
		{
			name:    "Claude Code: ${PWD} is the workspace",
			file:    ".claude.json",
			content: `{"mcpServers": {"a": {"command": "node", "args": ["${PWD}/server.js"]}}}`,
			environ: []string{"PWD=ROOT/w"},
			want: with(stdio("node"), func(s *config.MCPServer) {
				s.Args, s.Enabled = []secret.String{from("ROOT/w/server.js", "${PWD}/server.js")}, ptr(false)
			}),
			warning: "ROOT/home/.claude.json:1:51: mcpServers.a.args.0: the server a is left out: ${PWD} resolves into the workspace ROOT/w, which is not trusted; trust the workspace, or write an absolute path outside it",
		},
		{
			name:    "VS Code: the workspace trusted",
			file:    ".config/Code/User/mcp.json",
			content: `{"servers": {"a": {"command": "npx", "args": ["-y", "x"], "cwd": "${workspaceFolder}", "envFile": "${workspaceFolder}/env.txt"}}}`,
			trusted: true,
			want: with(stdio("npx", "-y", "x"), func(s *config.MCPServer) {
				s.Cwd, s.Env = secret.Plain(ws), map[string]secret.String{"FROM": from("workspace", "FROM in ROOT/w/env.txt")}
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, map[string]string{
				"w/.strata/":    "",
				"w/env.txt":     "FROM=workspace\n",
				"home/user.env": "FROM=user\n",
			})
			// The workspace's .env is a named pipe: opening it would wait for
			// a writer, and reading it is refused; a refused envFile is never
			// opened.
			if err := hostile.Mkfifo(filepath.Join(root, "w", ".env")); err != nil {
				t.Fatal(err)
			}
			r := strings.NewReplacer("ROOT", root)
			home := filepath.Join(root, "home")
			file := filepath.Join(home, tt.file)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(r.Replace(tt.content)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("extends = ["+strings.ReplaceAll(`"FILE"`, "FILE", file)+"]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var environ []string
			for _, kv := range tt.environ {
				environ = append(environ, r.Replace(kv))
			}
			a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, "w"), MCPServers: partial.Path{"mcp_servers"},
				Environ: append([]string{"HOME=" + home, "STRATA_CONFIG_HOME=" + home}, environ...)}
			if tt.trusted {
				a.Trust = trustAll{}
			}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Cwd = replace(r, want.Cwd)
			for i := range want.Args {
				want.Args[i] = replace(r, want.Args[i])
			}
			for k, v := range want.Env {
				want.Env[k] = replace(r, v)
			}
			if diff := cmp.Diff(want, res.Config.MCPServers["a"], revealed); diff != "" {
				t.Errorf("server a (-want +got):\n%s", diff)
			}
			var warnings []string
			if tt.warning != "" {
				warnings = []string{r.Replace(tt.warning)}
			}
			if diff := cmp.Diff(warnings, errorLines(res.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnvFileBoundedReader: an envFile is read by the reader of layer
// files, within its limits: a link to /dev/zero, a named pipe, a directory
// or a file over the size limit is an error that names it, at once.
func TestEnvFileBoundedReader(t *testing.T) {
	tests := []struct {
		name, want string
		make       func(path string) error
	}{
		{"a link to /dev/zero", "is a device (through a symbolic link to /dev/zero), not an environment file; an environment file must be a regular file", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"a named pipe", "is a named pipe, not an environment file; an environment file must be a regular file", func(p string) error { return hostile.Mkfifo(p) }},
		{"a directory", "is a directory, not an environment file; an environment file must be a regular file", func(p string) error { return os.Mkdir(p, 0o755) }},
		{"over the limit", "is larger than 200 bytes, the limit for an environment file", func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("A=1\n", 60)), 0o644) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, nil)
			env := filepath.Join(root, "user.env")
			if err := tt.make(env); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(root, "mcp.json")
			if err := os.WriteFile(file, []byte(`{"mcpServers": {"a": {"command": "x", "envFile": "`+env+`"}}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			a := app{Name: "strata", Defaults: config.Default(), Dir: root, MCPServers: partial.Path{"mcp_servers"}, Trust: trustAll{},
				Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}, Cfg: []string{"cursor:" + file}, Limits: codec.Limits{FileSize: 200}}
			_, err := a.Load(context.Background())
			want := file + ":1:50: mcpServers.a.envFile: cannot read the environment file " + env + ": " + tt.want
			if got := errText(err); got != want {
				t.Errorf("error:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestUntrustedFilesCannotFailTheLoad: a workspace nobody trusted whose
// .strata/config.toml is a directory, whose .strata or .strata.toml is a
// link loop, loads the user's layers with a warning; trusted, the broken
// file is an error.
func TestUntrustedFilesCannotFailTheLoad(t *testing.T) {
	tests := []struct {
		name    string
		make    func(root string) error
		warning string
		err     string
	}{
		{
			name:    "config.toml is a directory",
			make:    func(root string) error { return os.MkdirAll(filepath.Join(root, "w/.strata/config.toml"), 0o755) },
			warning: "ROOT/w: workspace layers not applied: untrusted (ROOT/w/.strata/config.toml); trust ROOT/w to apply them",
			err:     "ROOT/w/.strata/config.toml: is a directory, not a layer file",
		},
		{
			name:    ".strata is a link loop",
			make:    func(root string) error { return os.Symlink(".strata", filepath.Join(root, "w/.strata")) },
			warning: "ROOT/w/.strata: cannot read: too many levels of symbolic links; the workspace is not trusted: none of its files apply",
			err:     "ROOT/w/.strata: cannot read: too many levels of symbolic links",
		},
		{
			name:    ".strata.toml is a link loop",
			make:    func(root string) error { return os.Symlink(".strata.toml", filepath.Join(root, "w/.strata.toml")) },
			warning: "ROOT/w: directory layers not applied: untrusted, outside any workspace (ROOT/w/.strata.toml); trust ROOT/w to apply them",
			err:     "ROOT/w/.strata.toml: cannot read: too many levels of symbolic links",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, map[string]string{"home/config.toml": "[tools.t]\nsource = \"builtin\"\n", "w/": ""})
			if err := tt.make(root); err != nil {
				t.Fatal(err)
			}
			a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, "w"), Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatalf("untrusted: %v", err)
			}
			if _, ok := res.Config.Tools["t"]; !ok {
				t.Error("the user's layer did not apply")
			}
			if diff := cmp.Diff([]string{strings.ReplaceAll(tt.warning, "ROOT", root)}, errorLines(res.Warnings)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			a.Trust = trustAll{}
			if _, err := a.Load(context.Background()); errText(err) != strings.ReplaceAll(tt.err, "ROOT", root) {
				t.Errorf("trusted: %v, want %s", err, tt.err)
			}
		})
	}
}

// TestTemplatedProgramsRebased: a relative program in a file is relative
// to that file, templated or not; one that starts with a template, a bare
// name or a path under ~ stays as written.
func TestTemplatedProgramsRebased(t *testing.T) {
	root := tree(t, map[string]string{
		"home/config.toml": `
[tools.plain]
command = "bin/t {{tool}}"
[tools.templated]
command = "scripts/{{tool.name}}.sh"
[tools.leading]
command = "{{tool.options.dir}}/t.sh"
[tools.bare]
command = "t"
[tools.home]
command = "~/bin/t"
[tools.shell]
command = { program = "scripts/{{tool.name}}.sh", shell = true }
[mcp_servers.s]
command = "bin/{{x}}/server"
cwd = "var/${X}"
`,
		"w/": "",
	})
	a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, "w"), Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}}
	res, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"s": res.Config.MCPServers["s"].Command.String(), "s cwd": res.Config.MCPServers["s"].Cwd.String()}
	for name, tool := range res.Config.Tools {
		if name != config.EveryTool {
			got[name] = tool.Command.Program
		}
	}
	home := filepath.Join(root, "home")
	want := map[string]string{
		"plain":     home + "/bin/t",
		"templated": home + "/scripts/{{tool.name}}.sh",
		"leading":   "{{tool.options.dir}}/t.sh",
		"bare":      "t",
		"home":      "~/bin/t",
		"shell":     "scripts/{{tool.name}}.sh",
		"s":         home + "/bin/{{x}}/server",
		"s cwd":     home + "/var/${X}",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("programs (-want +got):\n%s", diff)
	}
}

// replace is s with ROOT replaced in its value and in what it came from.
func replace(r *strings.Replacer, s secret.String) secret.String {
	if !s.IsSecret() {
		return secret.Plain(r.Replace(s.Reveal()))
	}
	return secret.From(r.Replace(s.Reveal()), r.Replace(strings.TrimSuffix(strings.TrimPrefix(s.String(), "<from "), ">")))
}
