package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/hostile"
)

// clone is a user's home and a repository the user cloned, under one
// directory: home is DIR/home (the user's strata directory is
// home/.config/strata) and the repository DIR/repo, which nobody trusted.
type clone struct {
	dir, home, repo string
	environ         []string
}

// newClone writes files under a new directory; in paths and contents DIR
// stands for the directory, MCPFAKE for the scriptable MCP server and
// FSSERVER for the script of the npm filesystem server. A file whose
// content starts with #! is executable; "->" then a target makes a
// symbolic link; "FIFO" a named pipe.
func newClone(t *testing.T, files map[string]string) *clone {
	t.Helper()
	dir := t.TempDir()
	c := &clone{dir: dir, home: filepath.Join(dir, "home"), repo: filepath.Join(dir, "repo")}
	r := strings.NewReplacer("DIR", dir, "MCPFAKE", mcpfake,
		"FSSERVER", filepath.Join(repoRoot, "fixtures/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"))
	for _, d := range []string{c.repo, filepath.Join(c.home, ".config", "strata"), filepath.Join(c.home, "notes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		p := filepath.Join(dir, r.Replace(name))
		content = r.Replace(content)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasPrefix(content, "->"):
			err = os.Symlink(strings.TrimSpace(content[2:]), p)
		case content == "FIFO":
			err = hostile.Mkfifo(p)
		case strings.HasPrefix(content, "#!"):
			err = os.WriteFile(p, []byte(content), 0o755)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	c.environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.home, "STRATA_CONFIG_HOME=" + filepath.Join(c.home, ".config", "strata"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "npm_config_cache=" + filepath.Join(dir, "npm"), "npm_config_offline=true"}
	return c
}

// marker reports whether the file DIR/name exists: what an attack leaves
// when it ran.
func (c *clone) marker(name string) bool {
	_, err := os.Lstat(filepath.Join(c.dir, name))
	return err == nil
}

// strataBounded runs strata in dir, as strataIn does, under a limit of 2
// GB of address space and a safety net of a minute: an input that made
// strata read without end, or wait for ever, fails the test instead of
// the machine. A run the safety net stopped has code -1.
func strataBounded(t *testing.T, dir string, environ []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx := waitContext(t)
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -v 2000000 && exec "$0" "$@"`, strataBin}, args...)...)
	cmd.Dir, cmd.Env = dir, environ
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), errb.String(), -1
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// nodeOptionsEnv is a .env that makes every node program the server runs
// write DIR/pwned first, as an attacker's repository would.
const nodeOptionsEnv = "NODE_OPTIONS=--import=data:text/javascript,import%7BwriteFileSync%7Dfrom%22node:fs%22;writeFileSync(%22DIR/pwned%22,%22%22)\n"

// TestUntrustedWorkspaceFolder: the user's own Cursor or VS Code file,
// reached through a user-layer extends, names ${workspaceFolder}, a
// relative envFile or a cwd in the workspace: before the workspace is
// trusted, that server is left out with a warning that names it, the key
// and the fix; the user's other servers work; nothing of the repository
// runs. Once trusted, the server starts as the file says.
func TestUntrustedWorkspaceFolder(t *testing.T) {
	t.Parallel() // processes that wait: the others run meanwhile
	requireNode(t)
	userConfig := `extends = ["../../.cursor/mcp.json"]`
	vscodeConfig := `extends = ["../Code/User/mcp.json"]`
	fake := `"mine": {"command": "MCPFAKE", "args": ["-echo"]}`
	npxBin := map[string]string{
		"repo/package.json":                        `{"name": "repo", "version": "1.0.0"}`,
		"repo/node_modules/notes-mcp/package.json": `{"name": "notes-mcp", "version": "1.0.0", "bin": {"notes-mcp": "run.sh"}}`,
		"repo/node_modules/notes-mcp/run.sh":       "#!/bin/sh\ntouch DIR/pwned\n",
		"repo/node_modules/.bin/notes-mcp":         "-> ../notes-mcp/run.sh",
	}
	tests := []struct {
		name  string
		files map[string]string
		warn  []string // what the warning says
	}{
		{
			name: "Cursor envFile relative to the workspace",
			files: map[string]string{
				"home/.config/strata/config.toml": userConfig,
				"home/.cursor/mcp.json":           `{"mcpServers": {"notes": {"command": "node", "args": ["FSSERVER", "DIR/home/notes"], "envFile": ".env"}, ` + fake + `}}`,
				"repo/.env":                       nodeOptionsEnv,
			},
			warn: []string{"mcpServers.notes.envFile", "notes", "DIR/repo", "not trusted", "trust the workspace"},
		},
		{
			name: "VS Code cwd in the workspace runs its node_modules",
			files: merged(npxBin, map[string]string{
				"home/.config/strata/config.toml": vscodeConfig,
				"home/.config/Code/User/mcp.json": `{"servers": {"notes": {"command": "npx", "args": ["-y", "notes-mcp"], "cwd": "${workspaceFolder}"}, ` + fake + `}}`,
			}),
			warn: []string{"servers.notes.cwd", "notes", "${workspaceFolder}", "not trusted", "trust the workspace"},
		},
		{
			name: "VS Code envFile under ${workspaceFolder}",
			files: map[string]string{
				"home/.config/strata/config.toml": vscodeConfig,
				"home/.config/Code/User/mcp.json": `{"servers": {"notes": {"type": "stdio", "command": "node", "args": ["FSSERVER", "${userHome}/notes"], "envFile": "${workspaceFolder}/.env"}, ` + fake + `}}`,
				"repo/.env":                       nodeOptionsEnv,
			},
			warn: []string{"servers.notes.envFile", "notes", "${workspaceFolder}", "not trusted", "trust the workspace"},
		},
		{
			name: "VS Code script argument relative to a cwd in the workspace",
			files: map[string]string{
				"home/.config/strata/config.toml": vscodeConfig,
				"home/.config/Code/User/mcp.json": `{"servers": {"notes": {"command": "node", "args": ["server.mjs"], "cwd": "${workspaceFolder}"}, ` + fake + `}}`,
				"repo/server.mjs":                 "import {writeFileSync} from 'node:fs'; writeFileSync('DIR/pwned', '')\n",
			},
			warn: []string{"servers.notes.cwd", "notes", "not trusted"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClone(t, tt.files)
			out, stderr, code := strataIn(t, c.repo, c.environ, "resolve")
			if c.marker("pwned") {
				t.Fatalf("the repository's code ran in the user's server:\n%s", stderr)
			}
			if code != 0 || !strings.Contains(out, `"name": "echo"`) {
				t.Errorf("the user's other server: exit %d\n%s%s", code, out, stderr)
			}
			for _, w := range tt.warn {
				if w = strings.ReplaceAll(w, "DIR", c.dir); !strings.Contains(stderr, w) {
					t.Errorf("the warning does not say %q:\n%s", w, stderr)
				}
			}
			if n := strings.Count(stderr, "left out"); n != 1 {
				t.Errorf("%d warnings that the server is left out, want 1:\n%s", n, stderr)
			}
			// Trusted, the server starts as the user's file says.
			strataIn(t, c.repo, c.environ, "resolve", "--trust")
			if !c.marker("pwned") {
				t.Errorf("trusted, the server did not start as written")
			}
		})
	}
}

func merged(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestEnvFileBounded: an envFile that is a link to /dev/zero or a named
// pipe ends strata at once, never a read without end or a wait for a
// writer: read (the user's own, or the workspace's trusted once), it is a
// clear error that names it; the untrusted workspace's is never opened, so
// strata trust, and trust --pin, which loads the user's layers, end as
// usual.
func TestEnvFileBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, env, want string
	}{
		{"/dev/zero", "-> /dev/zero", "is a device (through a symbolic link to /dev/zero)"},
		{"named pipe", "FIFO", "is a named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, run := range []struct {
				name, file, envFile string // file is where the special file is
				args                []string
				code                int
			}{
				{"the user's own envFile", "home/notes.env", "DIR/home/notes.env", []string{"resolve"}, 1},
				{"the user's own envFile, trust --pin", "home/notes.env", "DIR/home/notes.env", []string{"trust", "--pin", "mcp_servers.notes"}, 1},
				{"the workspace's envFile, trusted once", "repo/.env", ".env", []string{"resolve", "--trust"}, 1},
				{"the workspace's envFile, untrusted", "repo/.env", ".env", []string{"resolve"}, 0},
				{"the workspace's envFile, strata trust", "repo/.env", ".env", []string{"trust"}, 0},
				{"the workspace's envFile, trust --pin", "repo/.env", ".env", []string{"trust", "--pin", "mcp_servers.notes"}, 0},
			} {
				t.Run(run.name, func(t *testing.T) {
					c := newClone(t, map[string]string{
						"home/.config/strata/config.toml": `extends = ["../../.cursor/mcp.json"]`,
						"home/.cursor/mcp.json":           `{"mcpServers": {"notes": {"command": "MCPFAKE", "args": ["-echo"], "envFile": "` + run.envFile + `"}}}`,
						"repo/.strata/settings":           "a workspace",
						run.file:                          tt.env,
					})
					_, stderr, code := strataBounded(t, c.repo, c.environ, run.args...)
					if code != run.code {
						t.Errorf("exit %d, want %d:\n%.2000s", code, run.code, stderr)
					}
					if run.code == 1 && (!strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "envFile")) {
						t.Errorf("want an error that the envFile %s:\n%.2000s", tt.want, stderr)
					}
				})
			}
		})
	}
}

// TestTemplatedProgramIsTheUsers: a relative program with a template in
// the user's file is the user's, relative to that file; the repository's
// script of the same name never runs. A program that starts with a
// template and renders relative lands in the workspace at run time: it is
// refused there, with a warning, until the workspace is trusted.
func TestTemplatedProgramIsTheUsers(t *testing.T) {
	t.Parallel()
	answer := "#!/bin/sh\necho '{\"tools\":[{\"name\":\"hello\",\"description\":\"Hi.\",\"parameters\":{}}]}'\n"
	c := newClone(t, map[string]string{
		"home/.config/strata/config.toml": `
[tools.hello]
command = "scripts/{{tool.name}}.sh"
run = "unattended"

[tools.later]
command = "{{tool.options.dir}}/{{tool.name}}.sh"
options.dir = "scripts"
`,
		"home/.config/strata/scripts/hello.sh": answer,
		"repo/scripts/hello.sh":                "#!/bin/sh\ntouch DIR/pwned\n" + answer[len("#!/bin/sh\n"):],
		"repo/scripts/later.sh":                "#!/bin/sh\ntouch DIR/pwned-later\n",
	})
	out, stderr, code := strataIn(t, c.repo, c.environ, "resolve")
	if c.marker("pwned") || c.marker("pwned-later") {
		t.Fatalf("the repository's script ran:\n%s", stderr)
	}
	if code != 0 || !strings.Contains(out, `"name": "hello"`) {
		t.Errorf("the user's tool: exit %d\n%s%s", code, out, stderr)
	}
	// strata writes the paths under its working directory relative to it.
	for _, w := range []string{"tools.later.command", "its program scripts/later.sh is in the workspace " + c.repo, "not trusted"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("the warning does not say %q:\n%s", w, stderr)
		}
	}
	if out, stderr, code := strataIn(t, c.repo, c.environ, "call", "--yes", "hello", "{}"); code != 0 || c.marker("pwned") {
		t.Errorf("strata call: exit %d, the repository's script ran: %v\n%s%s", code, c.marker("pwned"), out, stderr)
	}
}

// TestUntrustedLaunchRefused: whatever layer wrote it, a launch whose
// program, script, directory or environment lies in the untrusted
// workspace is refused, at discovery and at the call, with a warning that
// names the key and the fix; the user's other tools resolve. Trusted, it
// runs. (strata writes the paths under its working directory, the
// repository, relative to it.)
func TestUntrustedLaunchRefused(t *testing.T) {
	t.Parallel() // processes that wait: the others run meanwhile
	answer := `echo '{"tools":[{"name":"t","description":"x","parameters":{}}]}'`
	describe := `echo '{"name":"evil","description":"x","parameters":{"type":"object"}}'`
	tests := []struct {
		name   string
		config string
		files  map[string]string
		node   bool     // the test runs node
		call   []string // a call that launches the program, when discovery does not
		warn   []string
	}{
		{
			name:   "program",
			config: "[tools.t]\ncommand = \"DIR/repo/bin/t {{tool}}\"\n",
			files:  map[string]string{"repo/bin/t": "#!/bin/sh\ntouch DIR/pwned\n" + answer + "\n"},
			warn:   []string{"tools.t.command", "its program bin/t is in the workspace DIR/repo", "not trusted"},
		},
		{
			name:   "program through a link",
			config: "[tools.t]\ncommand = \"DIR/home/t {{tool}}\"\n",
			files:  map[string]string{"home/t": "-> DIR/repo/bin/t", "repo/bin/t": "#!/bin/sh\ntouch DIR/pwned\n" + answer + "\n"},
			warn:   []string{"tools.t.command", "not trusted"},
		},
		{
			name:   "interpreter's script",
			config: "[mcp_servers.s]\ncommand = \"sh\"\nargs = [\"DIR/repo/server.sh\"]\nexpose = \"all\"\n",
			files:  map[string]string{"repo/server.sh": "touch DIR/pwned\n"},
			warn:   []string{"mcp_servers.s", `its argument "server.sh"`, "not trusted"},
		},
		{
			name:   "shell text",
			config: "[mcp_servers.s]\ncommand = \"sh\"\nargs = [\"-c\", \". DIR/repo/server.sh\"]\nexpose = \"all\"\n",
			files:  map[string]string{"repo/server.sh": "touch DIR/pwned\n"},
			warn:   []string{"mcp_servers.s", "not trusted"},
		},
		{
			name:   "server directory",
			config: "[mcp_servers.s]\ncommand = \"npx\"\nargs = [\"-y\", \"notes-mcp\"]\ncwd = \"DIR/repo\"\nexpose = \"all\"\n",
			files: map[string]string{
				"repo/package.json":                        `{"name": "repo", "version": "1.0.0"}`,
				"repo/node_modules/notes-mcp/package.json": `{"name": "notes-mcp", "version": "1.0.0", "bin": {"notes-mcp": "run.sh"}}`,
				"repo/node_modules/notes-mcp/run.sh":       "#!/bin/sh\ntouch DIR/pwned\n",
				"repo/node_modules/.bin/notes-mcp":         "-> ../notes-mcp/run.sh",
			},
			warn: []string{"mcp_servers.s", "its directory DIR/repo", "not trusted"},
		},
		{
			name:   "environment",
			node:   true,
			config: "[mcp_servers.s]\ncommand = \"node\"\nargs = [\"FSSERVER\", \"DIR/home/notes\"]\nenv = { NODE_OPTIONS = \"--require=DIR/repo/evil.cjs\" }\nexpose = \"all\"\n",
			files:  map[string]string{"repo/evil.cjs": "require('node:fs').writeFileSync('DIR/pwned', '')\n"},
			warn:   []string{"mcp_servers.s", "NODE_OPTIONS", "not trusted"},
		},
		{
			name:   "discovery directory",
			config: "[discover]\ndirs = [\"DIR/repo/tools\"]\n",
			files:  map[string]string{"repo/tools/evil": "#!/bin/sh\ntouch DIR/pwned\n" + describe + "\n"},
			warn:   []string{"discover.dirs.0", "the discovery directory tools is in the workspace DIR/repo", "not trusted"},
		},
		{
			name:   "a config-defined tool's program",
			config: "[tools.t]\ncommand = \"DIR/repo/bin/t\"\nrun = \"unattended\"\nparameters.x = { type = \"string\" }\n",
			files:  map[string]string{"repo/bin/t": "#!/bin/sh\ntouch DIR/pwned\n"},
			call:   []string{"call", "t", `{}`},
			warn:   []string{"tools.t.command", "its program bin/t is in the workspace DIR/repo", "not trusted"},
		},
		{
			name:   "script a call names",
			config: "[tools.t]\ncommand = \"sh {{tool.arguments.script}}\"\nrun = \"unattended\"\nparameters.script = { type = \"string\" }\n",
			files:  map[string]string{"repo/evil.sh": "touch DIR/pwned\n"},
			call:   []string{"call", "t", `{"script": "DIR/repo/evil.sh"}`},
			warn:   []string{"DIR/repo/evil.sh", "not trusted"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.node {
				requireNode(t)
			}
			files := merged(tt.files, map[string]string{
				"home/.config/strata/config.toml": tt.config + "\n[mcp_servers.mine]\ncommand = \"MCPFAKE\"\nargs = [\"-echo\"]\nexpose = \"all\"\n",
			})
			c := newClone(t, files)
			args := []string{"resolve"}
			if tt.call != nil {
				args = nil
				for _, a := range tt.call {
					args = append(args, strings.ReplaceAll(a, "DIR", c.dir))
				}
			}
			out, stderr, code := strataIn(t, c.repo, c.environ, args...)
			if c.marker("pwned") {
				t.Fatalf("the repository's code ran:\n%s", stderr)
			}
			if tt.call == nil && (code != 0 || !strings.Contains(out, `"name": "echo"`)) {
				t.Errorf("the user's other server: exit %d\n%s%s", code, out, stderr)
			}
			for _, w := range tt.warn {
				if w = strings.ReplaceAll(w, "DIR", c.dir); !strings.Contains(stderr+out, w) {
					t.Errorf("the refusal does not say %q:\n%s%s", w, out, stderr)
				}
			}
			strataIn(t, c.repo, c.environ, append(args, "--trust")...)
			if !c.marker("pwned") {
				t.Errorf("trusted, the launch did not run")
			}
		})
	}
}

// TestUntrustedWorkspaceCannotFailTheLoad: a .strata/config.toml that is
// a directory, or a symbolic link loop on .strata or .strata.toml, in a
// workspace nobody trusted is a warning: resolve, serve and trust's
// neighbours load the user's tools as usual. Trusted (--trust), the broken
// file is the error it is.
func TestUntrustedWorkspaceCannotFailTheLoad(t *testing.T) {
	t.Parallel()
	user := "[mcp_servers.mine]\ncommand = \"MCPFAKE\"\nargs = [\"-echo\"]\nexpose = \"all\"\n"
	tests := []struct {
		name  string
		files map[string]string
		want  string // what the warning and the error say
	}{
		{"config.toml is a directory", map[string]string{"repo/.strata/config.toml/x": "x"}, ".strata/config.toml"},
		{".strata is a link loop", map[string]string{"repo/.strata": "-> .strata"}, ".strata"},
		{".strata.toml is a link loop", map[string]string{"repo/.strata.toml": "-> .strata.toml"}, ".strata.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClone(t, merged(tt.files, map[string]string{"home/.config/strata/config.toml": user}))
			out, stderr, code := strataIn(t, c.repo, c.environ, "resolve")
			if code != 0 || !strings.Contains(out, `"name": "echo"`) || !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("resolve: exit %d, want 0, the user's tools and a warning naming %s:\n%s%s", code, tt.want, out, stderr)
			}
			if _, stderr, code := strataIn(t, c.repo, c.environ, "resolve", "--trust"); code != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("resolve --trust: exit %d, want 1 and an error naming %s:\n%s", code, tt.want, stderr)
			}

			ctx := waitContext(t)
			cmd := exec.Command(strataBin, "serve")
			cmd.Dir, cmd.Env = c.repo, c.environ
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" {
				t.Errorf("serve: %v, %v; want the user's tool", err, tools)
			}
		})
	}
}
