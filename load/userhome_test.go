package load_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/trust"
)

// TestConfigHomeIsNoWorkspace: a host keeps the user's file at its own
// place (~/.myagent/config.toml) without making the home directory the
// workspace of every project below it: the file applies once, as the
// user's, trusted or not, and no warning sends the user back to it.
func TestConfigHomeIsNoWorkspace(t *testing.T) {
	root, err := filepath.EvalSymlinks(tree(t, map[string]string{
		"home/.myagent/config.toml":          "[tools.t]\nsource = \"builtin\"\nsummary = \"user\"\n",
		"home/src/plain/":                    "",
		"home/src/proj/.myagent/config.toml": "[tools.t]\nsummary = \"project\"\n",
		"home/src/proj/sub/":                 "",
	}))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	tests := []struct {
		name       string
		configHome string   // App.ConfigHome
		environ    []string // besides HOME
		dir        string
		trusted    bool
		wantRoot   string
		wantLayers []string // kind and name of each layer
		summary    string
	}{
		{name: "the host's place", configHome: "~/.myagent", dir: "home/src/plain",
			wantLayers: []string{"user ROOT/home/.myagent/config.toml"}, summary: "user"},
		{name: "the host's place, trusted", configHome: "~/.myagent", dir: "home/src/plain", trusted: true,
			wantLayers: []string{"user ROOT/home/.myagent/config.toml"}, summary: "user"},
		{name: "the variable", environ: []string{"MYAGENT_CONFIG_HOME=" + filepath.Join(home, ".myagent")}, dir: "home/src/plain", trusted: true,
			wantLayers: []string{"user ROOT/home/.myagent/config.toml"}, summary: "user"},
		{name: "in the home directory itself", configHome: "~/.myagent", dir: "home", trusted: true,
			wantLayers: []string{"user ROOT/home/.myagent/config.toml"}, summary: "user"},
		{name: "a project below", configHome: "~/.myagent", dir: "home/src/proj/sub", trusted: true, wantRoot: "ROOT/home/src/proj",
			wantLayers: []string{"user ROOT/home/.myagent/config.toml", "workspace ROOT/home/src/proj/.myagent/config.toml"}, summary: "project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := load.App[config.Partial, config.Config]{Name: "myagent", Defaults: config.Default(), ConfigHome: tt.configHome,
				Dir: filepath.Join(root, tt.dir), Environ: append([]string{"HOME=" + home}, tt.environ...)}
			if tt.trusted {
				a.Trust = trustAll{}
			}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var layers []string
			for _, l := range res.Layers {
				layers = append(layers, string(l.Kind)+" "+strings.ReplaceAll(l.Name, root, "ROOT"))
			}
			if diff := cmp.Diff(tt.wantLayers, layers); diff != "" {
				t.Errorf("layers (-want +got):\n%s", diff)
			}
			if got := strings.ReplaceAll(res.Root, root, "ROOT"); got != tt.wantRoot {
				t.Errorf("root %q, want %q", got, tt.wantRoot)
			}
			if len(res.Warnings) > 0 {
				t.Errorf("warnings: %v", res.Warnings)
			}
			if got := res.Config.Tools["t"].Summary; got != tt.summary {
				t.Errorf("summary %q, want %q", got, tt.summary)
			}
		})
	}
}

// TestConfigHomeMustBeAbsolute: a relative ConfigHome is a mistake of
// the host's, not a user file left out.
func TestConfigHomeMustBeAbsolute(t *testing.T) {
	a := load.App[config.Partial, config.Config]{Name: "myagent", Defaults: config.Default(), ConfigHome: ".myagent", Dir: t.TempDir(), Environ: []string{}}
	_, err := a.Load(context.Background())
	if want := `load: App.ConfigHome ".myagent" is neither absolute nor under ~`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestTrustOnceRefusesBroad: trusting a home directory or / for one run is
// refused as trusting it for good is, with the same problem, unless the
// trust list trusts it already.
func TestTrustOnceRefusesBroad(t *testing.T) {
	root, err := filepath.EvalSymlinks(tree(t, map[string]string{
		"home/.strata/config.toml": "",
		"home/proj/":               "",
		"w/.strata/config.toml":    "",
		"cfg/":                     "",
	}))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	refused := func(dir string) string {
		return dir + ": not trusted: it is your home directory, not a project: trusting it would apply whatever config files land there; keep settings of your own in your user file (ROOT/cfg/config.toml), make a .strata/ directory at a project's root and trust that"
	}
	tests := []struct {
		name      string
		dir       string
		recursive []string
		want      string
	}{
		{name: "the home directory", dir: "home", want: refused("ROOT/home")},
		{name: "a directory below, in the home directory's workspace", dir: "home/proj", want: refused("ROOT/home")},
		{name: "the root of the file system", dir: "/", want: "/: not trusted: it is the root of the file system, not a project: trusting it would apply whatever config files land there; keep settings of your own in your user file (ROOT/cfg/config.toml), make a .strata/ directory at a project's root and trust that"},
		{name: "a workspace", dir: "w"},
		{name: "trusted already", dir: "home", recursive: []string{"home"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &trust.Store{Path: filepath.Join(t.TempDir(), "trusted.toml")}
			if err := store.Update(func(l *trust.List) error {
				for _, d := range tt.recursive {
					l.AddRecursive(filepath.Join(root, d))
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			dir := tt.dir
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(root, dir)
			}
			a := load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Dir: dir, TrustWorkspace: true, TrustStore: store,
				Environ: []string{"HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(root, "cfg")}}
			res, err := a.Load(context.Background())
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), root, "ROOT")
			}
			if got != tt.want {
				t.Fatalf("\n got: %s\nwant: %s", got, tt.want)
			}
			if err == nil && !res.Trusted {
				t.Error("not trusted")
			}
		})
	}
}

// TestUserFilesOnceBelowAHomeWorkspace: where the workspace root is the
// home directory (it holds .strata/) and so holds the user's config
// directory, or the user's directory is the home directory's .strata/
// itself, the user's files apply once, as the user's: the user file, what
// it extends, a file of the user's named by --cfg; none is the
// workspace's, none is listed as not applied, none applies twice.
func TestUserFilesOnceBelowAHomeWorkspace(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string // under ROOT
		userDir string            // STRATA_CONFIG_HOME, under ROOT; "" for ~/.config/strata
		dir     string
		cfg     []string
		layers  []string // kind and name of each layer
		skipped []string // the files not applied
	}{
		{
			name: "the XDG directory, below a workspace at home",
			files: map[string]string{
				"home/.strata/config.toml":        serversLayer("home"),
				"home/.config/strata/config.toml": "extends = [\"more.toml\"]\n" + serversLayer("mine"),
				"home/.config/strata/more.toml":   serversLayer("more"),
				"home/.config/strata/extra.toml":  serversLayer("extra"),
				"home/proj/":                      "",
			},
			dir: "home/proj", cfg: []string{"ROOT/home/.config/strata/extra.toml"},
			layers:  []string{"user ROOT/home/.config/strata/more.toml", "user ROOT/home/.config/strata/config.toml", "cfg ROOT/home/.config/strata/extra.toml"},
			skipped: []string{"ROOT/home/.strata/config.toml"},
		},
		{
			name: "the XDG directory, in the home directory that is a workspace",
			files: map[string]string{
				"home/.strata/config.toml":        serversLayer("home"),
				"home/.config/strata/config.toml": serversLayer("mine"),
			},
			dir:     "home",
			layers:  []string{"user ROOT/home/.config/strata/config.toml"},
			skipped: []string{"ROOT/home/.strata/config.toml"},
		},
		{
			name: "the user's directory is the home directory's .strata",
			files: map[string]string{
				"home/.strata/config.toml": "extends = [\"more.toml\"]\n" + serversLayer("mine"),
				"home/.strata/more.toml":   serversLayer("more"),
				"home/proj/":               "",
			},
			userDir: "home/.strata", dir: "home/proj", cfg: []string{"ROOT/home/.strata/more.toml"},
			layers: []string{"user ROOT/home/.strata/more.toml", "user ROOT/home/.strata/config.toml", "cfg ROOT/home/.strata/more.toml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(tree(t, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			environ := []string{"HOME=" + filepath.Join(root, "home")}
			if tt.userDir != "" {
				environ = append(environ, "STRATA_CONFIG_HOME="+filepath.Join(root, tt.userDir))
			}
			r := strings.NewReplacer("ROOT", root)
			var cfg []string
			for _, c := range tt.cfg {
				cfg = append(cfg, r.Replace(c))
			}
			a := load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, tt.dir), Environ: environ, Cfg: cfg}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var layers, skipped []string
			for _, l := range res.Layers {
				layers = append(layers, string(l.Kind)+" "+strings.ReplaceAll(l.Name, root, "ROOT"))
			}
			for _, u := range res.Untrusted {
				for _, f := range u.Files {
					skipped = append(skipped, strings.ReplaceAll(f, root, "ROOT"))
				}
			}
			if diff := cmp.Diff(tt.layers, layers); diff != "" {
				t.Errorf("layers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skipped, skipped); diff != "" {
				t.Errorf("not applied (-want +got):\n%s", diff)
			}
		})
	}
}
