package load_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// serversLayer is a layer with the server s; servers is another
// client's file with the server s.
func serversLayer(s string) string { return "[mcp_servers." + s + "]\ncommand = \"x\"\n" }
func servers(s string) string      { return `{"mcpServers": {"` + s + `": {"command": "x"}}}` }

// TestUntrustedFilesByName: a file that lies in the workspace nobody
// trusted (outside a workspace, the working directory) is its content
// whichever way it is named: by --cfg, with a client's prefix, through an
// extends of the user's file (a path, a glob), through a link outside
// the workspace, with "..". It is not applied, not opened (a named pipe
// is not waited on), and listed in the one warning about the workspace's
// files, in Result.Untrusted and in Probes; the user's own files apply.
// Trusted, it applies.
func TestUntrustedFilesByName(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // under ROOT; "-> target" makes a link, FIFO a named pipe
		dir   string            // the working directory, under ROOT
		cfg   []string          // ROOT stands for the directory
		kind  load.Kind         // what named the file
		file  string            // the file not applied
		want  []string          // the servers that apply
		// group is the warning's group: its directory and files, under ROOT.
		group load.Untrusted
		msg   string
	}{
		{
			name:  "--cfg of a file in the working directory, outside a workspace",
			files: map[string]string{"w/.mcp.json": servers("repo")},
			dir:   "w", cfg: []string{".mcp.json"}, kind: load.KindCfg, file: "w/.mcp.json",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/.mcp.json"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/w/.mcp.json); trust ROOT/w to apply them",
		},
		{
			name:  "--cfg with a client's prefix",
			files: map[string]string{"w/servers.json": servers("repo")},
			dir:   "w", cfg: []string{"cursor:servers.json"}, kind: load.KindCfg, file: "w/servers.json",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/servers.json"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/w/servers.json); trust ROOT/w to apply them",
		},
		{
			name:  "--cfg with .. back into the working directory",
			files: map[string]string{"w/layer.toml": serversLayer("repo")},
			dir:   "w", cfg: []string{"../w/layer.toml"}, kind: load.KindCfg, file: "w/layer.toml",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/layer.toml"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/w/layer.toml); trust ROOT/w to apply them",
		},
		{
			name: "--cfg of a link outside the workspace to a file in it",
			files: map[string]string{
				"w/.mcp.json":     servers("repo"),
				"links/.mcp.json": "-> ROOT/w/.mcp.json",
			},
			dir: "w", cfg: []string{"ROOT/links/.mcp.json"}, kind: load.KindCfg, file: "links/.mcp.json",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"links/.mcp.json"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/links/.mcp.json); trust ROOT/w to apply them",
		},
		{
			name:  "--cfg of a named pipe in the workspace",
			files: map[string]string{"w/pipe.toml": "FIFO"},
			dir:   "w", cfg: []string{"pipe.toml"}, kind: load.KindCfg, file: "w/pipe.toml",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/pipe.toml"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/w/pipe.toml); trust ROOT/w to apply them",
		},
		{
			name: "an extends of the user's file",
			files: map[string]string{
				"w/.mcp.json":      servers("repo"),
				"home/config.toml": "extends = [\"../w/.mcp.json\"]\n" + serversLayer("mine"),
			},
			dir: "w", kind: load.KindUser, file: "w/.mcp.json",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/.mcp.json"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/w/.mcp.json); trust ROOT/w to apply them",
		},
		{
			name: "a glob of the user's file that matches in the workspace and outside it",
			files: map[string]string{
				"w/layers/a.toml":  serversLayer("repo"),
				"home/config.toml": "extends = [\"ROOT/*/layers/*.toml\"]\n" + serversLayer("mine"),
				"v/layers/b.toml":  serversLayer("other"),
			},
			dir: "w", kind: load.KindUser, file: "w/layers/a.toml",
			want:  []string{"mine", "other"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/layers/a.toml"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/w/layers/a.toml); trust ROOT/w to apply them",
		},
		{
			name:  "--cfg with .. from below the root of a repository without .strata/",
			files: map[string]string{"w/.git/": "", "w/.mcp.json": servers("repo"), "w/sub/": ""},
			dir:   "w/sub", cfg: []string{"../.mcp.json"}, kind: load.KindCfg, file: "w/.mcp.json",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/.mcp.json"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/w/.mcp.json); trust ROOT/w to apply them",
		},
		{
			name: "an extends of the user's file, from deep below the root of a repository whose .git is a file (a submodule, a worktree)",
			files: map[string]string{
				"w/.git":           "gitdir: ../elsewhere\n",
				"w/layers/a.toml":  serversLayer("repo"),
				"w/sub/deeper/":    "",
				"home/config.toml": "extends = [\"ROOT/w/layers/a.toml\"]\n" + serversLayer("mine"),
			},
			dir: "w/sub/deeper", kind: load.KindUser, file: "w/layers/a.toml",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/layers/a.toml"}, Outside: true, Once: true},
			msg:   "ROOT/w: layers not applied: untrusted, outside any workspace (ROOT/w/layers/a.toml); trust ROOT/w to apply them",
		},
		{
			name: "in a .strata/ workspace, --cfg from below its root, with the workspace's file",
			files: map[string]string{
				"w/.strata/config.toml": serversLayer("ws"),
				"w/.mcp.json":           servers("repo"),
				"w/src/":                "",
			},
			dir: "w/src", cfg: []string{"../.mcp.json"}, kind: load.KindCfg, file: "w/.mcp.json",
			want:  []string{"mine"},
			group: load.Untrusted{Dir: "w", Files: []string{"w/.strata/config.toml", "w/.mcp.json"}, Workspace: true, Once: true},
			msg:   "ROOT/w: workspace layers not applied: untrusted (ROOT/w/.strata/config.toml, ROOT/w/.mcp.json); trust ROOT/w to apply them",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			r := strings.NewReplacer("ROOT", root)
			files := map[string]string{"home/config.toml": serversLayer("mine")}
			for name, content := range tt.files {
				files[name] = r.Replace(content)
			}
			writeTree(t, root, files)
			cfg := make([]string, len(tt.cfg))
			for i, c := range tt.cfg {
				cfg[i] = r.Replace(c)
			}
			t.Chdir(filepath.Join(root, tt.dir))
			loadAs := func(trusted bool) *load.Result[config.Partial, config.Config] {
				t.Helper()
				a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, tt.dir), TrustWorkspace: trusted,
					Environ: []string{"HOME=" + filepath.Join(root, "home"), "STRATA_CONFIG_HOME=" + filepath.Join(root, "home")},
					Cfg:     cfg, MCPServers: partial.Path{"mcp_servers"}}
				res, err := a.Load(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return res
			}

			res := loadAs(false)
			if diff := cmp.Diff(tt.want, serverNames(res)); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			abs := filepath.Join(root, tt.file)
			want := load.Probe{Kind: tt.kind, Path: abs, Found: true, Untrusted: true, TrustDir: filepath.Join(root, "w")}
			if !slices.Contains(res.Probes, want) {
				t.Errorf("probes %+v do not hold %+v", res.Probes, want)
			}
			group := tt.group
			group.Dir = filepath.Join(root, group.Dir)
			for i, f := range group.Files {
				group.Files[i] = filepath.Join(root, f)
			}
			if diff := cmp.Diff([]load.Untrusted{group}, res.Untrusted); diff != "" {
				t.Errorf("Untrusted (-want +got):\n%s", diff)
			}
			var warnings []string
			for _, w := range res.Warnings {
				if errors.Is(w, diag.CodeUntrusted) {
					warnings = append(warnings, w.Error())
				}
			}
			if diff := cmp.Diff([]string{r.Replace(tt.msg)}, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}

			if tt.files[tt.file] == "FIFO" {
				return // trusted, a named pipe is an error of its own (TestHostileFiles)
			}
			if got := serverNames(loadAs(true)); !slices.Contains(got, "repo") {
				t.Errorf("trusted, the file does not apply: servers %v", got)
			}
		})
	}
}

// TestUserDirectoryIsOwn: a file named in the user's config directory is
// the user's: when the working directory nobody trusted is that
// directory, and when it is a link into the working directory (a
// repository of dotfiles), whose link only the user can make.
func TestUserDirectoryIsOwn(t *testing.T) {
	root := t.TempDir()
	user := filepath.Join(root, "home", ".config", "strata")
	writeTree(t, root, map[string]string{
		"home/.config/strata/config.toml": serversLayer("mine"),
		"home/.config/strata/more.toml":   serversLayer("more"),
		"dotfiles/strata/config.toml":     serversLayer("dotted"),
		"home/.config/strata/dotted.toml": "-> " + filepath.Join(root, "dotfiles/strata/config.toml"),
	})
	for _, tt := range []struct {
		name, dir, cfg string
		want           []string
	}{
		{"working in the user's directory", user, filepath.Join(user, "more.toml"), []string{"mine", "more"}},
		{"a link of the user's into the working directory", filepath.Join(root, "dotfiles"), filepath.Join(user, "dotted.toml"), []string{"dotted", "mine"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := app{Name: "strata", Defaults: config.Default(), Dir: tt.dir, Cfg: []string{tt.cfg},
				Environ: []string{"HOME=" + filepath.Join(root, "home")}}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, serverNames(res)); diff != "" {
				t.Errorf("servers (-want +got):\n%s\nwarnings: %v", diff, res.Warnings)
			}
		})
	}
}

// TestResultReadFile: Result.ReadFile reads a file of the user's, and
// only looks at one of the workspace nobody trusted, or of its .strata
// directory when the workspace is the home directory.
func TestResultReadFile(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"w/.strata/strata.lock":    "version = 1\n",
		"w/notes.txt":              "notes",
		"home/.strata/strata.lock": "version = 1\n",
		"home/.config/strata/a":    "mine",
		"elsewhere.txt":            "elsewhere",
	})
	environ := []string{"HOME=" + filepath.Join(root, "home")}
	tests := []struct {
		name, dir, path string
		want            string // the content, or the code of the problem
	}{
		{"the workspace's lock", "w", "w/.strata/strata.lock", "untrusted"},
		{"a file of the workspace", "w", "w/notes.txt", "untrusted"},
		{"a file of the workspace, with ..", "w/.strata", "w/.strata/../notes.txt", "untrusted"},
		{"a file elsewhere", "w", "elsewhere.txt", "elsewhere"},
		{"a file that is not there", "w", "w/none", "not exist"},
		{"the lock of the home directory as a workspace", "home", "home/.strata/strata.lock", "untrusted"},
		{"a file of the user's directory", "home", "home/.config/strata/a", "mine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, tt.dir), Environ: environ}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			data, err := res.ReadFile(context.Background(), filepath.Join(root, tt.path))
			got := string(data)
			switch {
			case errors.Is(err, diag.CodeUntrusted):
				got = "untrusted"
			case errors.Is(err, fs.ErrNotExist):
				got = "not exist"
			case err != nil:
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("ReadFile = %q, want %q", got, tt.want)
			}
		})
	}
}

func serverNames(res *load.Result[config.Partial, config.Config]) []string {
	var out []string
	for name := range res.Config.MCPServers {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestUntrustedRootOfRepository: outside a .strata workspace, what nobody
// trusted is the repository around the working directory, from its
// nearest .git (a directory or a file), else the working directory; never
// a repository at the home directory (dotfiles) or above it: a file there
// is then the user's. The root load decides is the one launches take
// (Result.UntrustedRoot).
func TestUntrustedRootOfRepository(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // under ROOT
		dir   string
		read  map[string]bool // files under ROOT: true when read, false when the workspace's content
		root  string          // Result.UntrustedRoot, under ROOT
	}{
		{
			name:  "a repository around the working directory",
			files: map[string]string{"w/.git/": "", "w/a.txt": "a", "w/sub/b.txt": "b", "v/c.txt": "c"},
			dir:   "w/sub", read: map[string]bool{"w/a.txt": false, "w/sub/b.txt": false, "v/c.txt": true},
			root: "w",
		},
		{
			name:  "a repository whose .git is a file",
			files: map[string]string{"w/.git": "gitdir: ../x\n", "w/a.txt": "a", "w/sub/deeper/": ""},
			dir:   "w/sub/deeper", read: map[string]bool{"w/a.txt": false},
			root: "w",
		},
		{
			name:  "no repository: the working directory",
			files: map[string]string{"v/a.txt": "a", "v/sub/b.txt": "b"},
			dir:   "v/sub", read: map[string]bool{"v/a.txt": true, "v/sub/b.txt": false},
			root: "v/sub",
		},
		{
			name:  "the home directory holds a repository of dotfiles: the working directory",
			files: map[string]string{"home/.git/": "", "home/proj/a.txt": "a", "home/proj/sub/b.txt": "b", "home/notes.txt": "n"},
			dir:   "home/proj/sub", read: map[string]bool{"home/proj/a.txt": true, "home/notes.txt": true, "home/proj/sub/b.txt": false},
			root: "home/proj/sub",
		},
		{
			name:  "in the home directory that holds a repository: none",
			files: map[string]string{"home/.git/": "", "home/notes.txt": "n"},
			dir:   "home", read: map[string]bool{"home/notes.txt": true},
			root: "",
		},
		{
			name:  "a repository nested in another: the nearest",
			files: map[string]string{"w/.git/": "", "w/lib/.git": "gitdir: x\n", "w/lib/src/": "", "w/lib/a.txt": "a"},
			dir:   "w/lib/src", read: map[string]bool{"w/lib/a.txt": false},
			root: "w/lib",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			writeTree(t, root, map[string]string{"home/.config/strata/": ""})
			a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, tt.dir), Environ: []string{"HOME=" + filepath.Join(root, "home")}}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.root != "" {
				want = filepath.Join(root, tt.root)
			}
			if got := res.UntrustedRoot(); got != want {
				t.Errorf("UntrustedRoot() = %q, want %q", got, want)
			}
			for f, read := range tt.read {
				_, err := res.ReadFile(context.Background(), filepath.Join(root, f))
				if got := err == nil; got != read || err != nil && !errors.Is(err, diag.CodeUntrusted) {
					t.Errorf("ReadFile(%s): %v, want read %v", f, err, read)
				}
			}
		})
	}
}
