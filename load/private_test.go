package load_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/trust"
)

// TestWorkspaceCannotNamePrivateFiles: a file of the workspace (its own
// file, a directory file, what they extend, a file that lies in it named
// by --cfg), trusted or not, never names a file in the user's own
// directories (the config directory, the trust list's, the sign-ins'):
// an extends of the user's file (which would apply it a second time, as
// the workspace's) or of the trust list, and an envFile there (which
// would hand what it holds to the workspace's server), are refused with
// a problem that names the file and why. The user's own files name their
// own files as before.
func TestWorkspaceCannotNamePrivateFiles(t *testing.T) {
	user := serversLayer("mine") + "[mcp_servers.mine.env]\nAPI_KEY = \"sk-user\"\n"
	tests := []struct {
		name  string
		files map[string]string // under ROOT
		dir   string
		cfg   []string
		want  string   // the problem, "" for none
		names []string // the servers that apply, when no problem
	}{
		{
			name: "the workspace's file extends the user's file",
			files: map[string]string{
				"w/.strata/config.toml": "extends = [\"ROOT/home/.config/strata/config.toml\"]\n" + serversLayer("repo"),
			},
			dir:  "w",
			want: "ROOT/home/.config/strata/config.toml: not read: it lies in ROOT/home/.config/strata, your own directory, which a file of the workspace may not name (extended by ROOT/w/.strata/config.toml)",
		},
		{
			name: "a directory file extends the trust list",
			files: map[string]string{
				"w/.strata/":                       "",
				"w/sub/.strata.toml":               "extends = [\"../../home/.config/strata/trusted.toml\"]\n",
				"home/.config/strata/trusted.toml": "workspaces = [\"ROOT/w\"]\n",
			},
			dir:  "w/sub",
			want: "ROOT/home/.config/strata/trusted.toml: not read: it lies in ROOT/home/.config/strata, your own directory, which a file of the workspace may not name (extended by ROOT/w/sub/.strata.toml)",
		},
		{
			name: "a file of the workspace named by --cfg gives an envFile in the user's directory",
			files: map[string]string{
				"w/.strata/":         "",
				"w/.cursor/mcp.json": `{"mcpServers": {"repo": {"command": "x", "envFile": "ROOT/home/.config/strata/config.toml"}}}`,
			},
			dir: "w", cfg: []string{"cursor:.cursor/mcp.json"},
			want: "cannot read the environment file ROOT/home/.config/strata/config.toml: it lies in ROOT/home/.config/strata, your own directory, which a file of the workspace may not name",
		},
		{
			name: "the workspace's file extends another client's file with an envFile in the sign-ins' directory",
			files: map[string]string{
				"w/.strata/config.toml":                "extends = [\"../.vscode/mcp.json\"]\n",
				"w/.vscode/mcp.json":                   `{"servers": {"repo": {"command": "x", "envFile": "ROOT/home/.local/share/strata/tokens.json"}}}`,
				"home/.local/share/strata/tokens.json": "{}",
			},
			dir:  "w",
			want: "cannot read the environment file ROOT/home/.local/share/strata/tokens.json: it lies in ROOT/home/.local/share/strata, your own directory, which a file of the workspace may not name",
		},
		{
			name: "in a repository without .strata/, --cfg of its file with an envFile in the user's directory",
			files: map[string]string{
				"w/.git/":            "",
				"w/.cursor/mcp.json": `{"mcpServers": {"repo": {"command": "x", "envFile": "ROOT/home/.config/strata/config.toml"}}}`,
			},
			dir: "w", cfg: []string{"cursor:.cursor/mcp.json"},
			want: "cannot read the environment file ROOT/home/.config/strata/config.toml: it lies in ROOT/home/.config/strata, your own directory, which a file of the workspace may not name",
		},
		{
			name: "the user's file extends a file of the user's directory",
			files: map[string]string{
				"w/.strata/":                      "",
				"home/.config/strata/config.toml": "extends = [\"more.toml\"]\n" + user,
				"home/.config/strata/more.toml":   serversLayer("more"),
			},
			dir:   "w",
			names: []string{"mine", "more"},
		},
		{
			name: "the user's own client file gives an envFile in the user's directory",
			files: map[string]string{
				"w/.strata/":                     "",
				"home/.cursor/mcp.json":          `{"mcpServers": {"cursor": {"command": "x", "envFile": "ROOT/home/.config/strata/cursor.env"}}}`,
				"home/.config/strata/cursor.env": "A=b\n",
			},
			dir: "w", cfg: []string{"cursor:ROOT/home/.cursor/mcp.json"},
			names: []string{"cursor", "mine"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			r := strings.NewReplacer("ROOT", root)
			files := map[string]string{"home/.config/strata/config.toml": user}
			for name, content := range tt.files {
				files[name] = r.Replace(content)
			}
			writeTree(t, root, files)
			var cfg []string
			for _, c := range tt.cfg {
				cfg = append(cfg, r.Replace(c))
			}
			t.Chdir(filepath.Join(root, tt.dir)) // --cfg is relative to it
			home := filepath.Join(root, "home")
			a := app{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, tt.dir), TrustWorkspace: true, Cfg: cfg,
				Environ:    []string{"HOME=" + home},
				TrustStore: &trust.Store{Path: filepath.Join(home, ".config", "strata", trust.File)},
				Private:    []string{filepath.Join(home, ".local", "share", "strata")},
				MCPServers: partial.Path{"mcp_servers"}}
			res, err := a.Load(context.Background())
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.names, serverNames(res)); diff != "" {
					t.Errorf("servers (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), r.Replace(tt.want)) {
				t.Errorf("Load: %v\nwant a problem that says %q", err, r.Replace(tt.want))
			}
			if err != nil && strings.Contains(err.Error(), "sk-user") {
				t.Errorf("the problem quotes the user's secret: %v", err)
			}
		})
	}
}
