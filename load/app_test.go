package load_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/hostile"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// tree writes files (path -> content) under a new temporary directory, as
// writeTree does, and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, files)
	return root
}

// writeTree writes files under root: a name that ends in / is a
// directory, content "-> target" makes a symbolic link and "FIFO" a
// named pipe.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(p, "/"):
			err = os.MkdirAll(full, 0o755)
		case strings.HasPrefix(content, "-> "):
			err = os.Symlink(content[3:], full)
		case content == "FIFO":
			err = hostile.Mkfifo(full)
		default:
			err = os.WriteFile(full, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

type app = load.App[config.Partial, config.Config]

// trustAll trusts every workspace, for the tests of what files say.
type trustAll struct{}

func (trustAll) Trusts(string) bool { return true }

// loadIn loads with the user directory at <root>/home and the working
// directory at <root>/<dir>, with only the given environment.
func loadIn(t *testing.T, root, dir string, environ []string, cfg ...string) (*load.Result[config.Partial, config.Config], error) {
	t.Helper()
	a := app{
		Name:     "strata",
		Defaults: config.Default(),
		Trust:    trustAll{},
		Dir:      filepath.Join(root, dir),
		Environ:  append([]string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}, environ...),
		Cfg:      cfg,
	}
	return a.Load(context.Background())
}

func summary(s string) string {
	return "[tools.t]\nsource = \"builtin\"\nsummary = \"" + s + "\"\n"
}

// TestPrecedence proves each step of the precedence order beats the one
// below it and loses to the one above it, on one key.
func TestPrecedence(t *testing.T) {
	files := map[string]string{
		"home/config.toml":        summary("user"),
		"w/.strata/config.toml":   summary("workspace"),
		"w/.strata.toml":          summary("root directory"),
		"w/a/.strata.toml":        summary("directory a"),
		"w/a/b/.strata.toml":      summary("directory b"),
		"cfg.toml":                summary("cfg file"),
		"w/a/b/c/placeholder.txt": "",
	}
	steps := []struct {
		name string
		drop string   // the file removed to expose the step below
		env  []string // extra environment
		cfg  []string
		want string
	}{
		{name: "defaults only", want: ""},
		{name: "user beats defaults", want: "user"},
		{name: "workspace beats user", want: "workspace"},
		{name: "root directory file beats workspace", want: "root directory"},
		{name: "nearer directory file beats farther", want: "directory a"},
		{name: "nearest directory file", want: "directory b"},
		{name: "environment beats directory files", env: []string{"STRATA_TOOLS_T_SUMMARY=env"}, want: "env"},
		{name: "cfg beats environment", env: []string{"STRATA_TOOLS_T_SUMMARY=env"}, cfg: []string{"tools.t.summary=cfg"}, want: "cfg"},
		{name: "later cfg beats earlier", env: []string{"STRATA_TOOLS_T_SUMMARY=env"}, cfg: []string{"tools.t.summary=cfg", "CFGFILE"}, want: "cfg file"},
	}
	present := []string{"home/config.toml", "w/.strata/config.toml", "w/.strata.toml", "w/a/.strata.toml", "w/a/b/.strata.toml"}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			fs := map[string]string{"w/a/b/c/placeholder.txt": "", "cfg.toml": files["cfg.toml"], "w/.strata/": ""}
			for j := 0; j < i && j < len(present); j++ {
				fs[present[j]] = files[present[j]]
			}
			root := tree(t, fs)
			cfg := append([]string(nil), st.cfg...)
			for k, c := range cfg {
				if c == "CFGFILE" {
					cfg[k] = filepath.Join(root, "cfg.toml")
				}
			}
			res, err := loadIn(t, root, "w/a/b/c", st.env, cfg...)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Config.Tools["t"].Summary; got != st.want {
				t.Errorf("summary = %q, want %q", got, st.want)
			}
		})
	}
	t.Run("flags beat cfg", func(t *testing.T) {
		root := tree(t, map[string]string{"w/.strata/config.toml": summary("workspace")})
		var flags config.Partial
		flags.Tools.Set("t", config.ToolPartial{Summary: partial.Of("flags")})
		a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "w"),
			Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home"), "STRATA_TOOLS_T_SUMMARY=env"},
			Cfg:     []string{"tools.t.summary=cfg"}, Flags: &flags}
		res, err := a.Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Config.Tools["t"].Summary; got != "flags" {
			t.Errorf("summary = %q, want flags", got)
		}
	})
}

func TestUserDirectory(t *testing.T) {
	tests := []struct {
		name    string
		environ func(root string) []string
		want    string
	}{
		{"override variable", func(root string) []string {
			return []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "override"), "XDG_CONFIG_HOME=" + filepath.Join(root, "xdg"), "HOME=" + filepath.Join(root, "home")}
		}, "override"},
		{"xdg", func(root string) []string {
			return []string{"XDG_CONFIG_HOME=" + filepath.Join(root, "xdg"), "HOME=" + filepath.Join(root, "home")}
		}, "xdg"},
		{"home", func(root string) []string { return []string{"HOME=" + filepath.Join(root, "home")} }, "home"},
		{"none", func(root string) []string { return nil }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, map[string]string{
				"override/config.toml":            summary("override"),
				"xdg/strata/config.toml":          summary("xdg"),
				"home/.config/strata/config.toml": summary("home"),
				"work/":                           "",
			})
			a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "work"), Environ: tt.environ(root)}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Config.Tools["t"].Summary; got != tt.want {
				t.Errorf("summary = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestEnvironIsInjected: with Environ given, the process's environment is
// not read.
func TestEnvironIsInjected(t *testing.T) {
	t.Setenv("STRATA_TOOLS_T_SUMMARY", "from the process")
	t.Setenv("STRATA_CONFIG_HOME", "/nonexistent/should/not/be/used")
	root := tree(t, map[string]string{"home/config.toml": summary("user"), "w/": ""})
	res, err := loadIn(t, root, "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Config.Tools["t"].Summary; got != "user" {
		t.Errorf("summary = %q: the process environment leaked in", got)
	}
}

func TestWorkspaceRootAndDirectories(t *testing.T) {
	root := tree(t, map[string]string{
		"outer/.strata/config.toml":       summary("outer"),
		"outer/inner/.strata/config.toml": summary("inner"),
		"outer/inner/x/.strata.toml":      "[tools.t]\nrun = \"skip\"\n",
		"outer/.strata.toml":              "[tools.t]\nrun = \"edit\"\n", // above the nearest root: not read
		"outer/inner/x/y/":                "",
	})
	res, err := loadIn(t, root, "outer/inner/x/y", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Root != filepath.Join(root, "outer/inner") {
		t.Errorf("root = %s, want the nearest ancestor with .strata/", res.Root)
	}
	got := []any{res.Config.Tools["t"].Summary, fixed(res.Config.Tools["t"].Run)}
	if diff := cmp.Diff([]any{"inner", config.RunSkip}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var dirs []string
	for _, p := range res.Probes {
		if p.Kind == load.KindDirectory && strings.HasSuffix(p.Path, ".toml") {
			dirs = append(dirs, strings.TrimPrefix(p.Path, root))
		}
	}
	want := []string{"/outer/inner/.strata.toml", "/outer/inner/x/.strata.toml", "/outer/inner/x/y/.strata.toml"}
	if diff := cmp.Diff(want, dirs); diff != "" {
		t.Errorf("directory files looked for (-want +got):\n%s", diff)
	}
}

func TestOutsideAWorkspace(t *testing.T) {
	root := tree(t, map[string]string{"a/.strata.toml": summary("a"), "a/b/": ""})
	res, err := loadIn(t, root, "a/b", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Root != "" {
		t.Errorf("root = %q, want none", res.Root)
	}
	if got := res.Config.Tools["t"].Summary; got != "a" {
		t.Errorf("summary = %q, want a", got)
	}
	if first := res.Probes[4]; first.Path != "/.strata.toml" {
		t.Errorf("outside a workspace, directory files start at /: first is %s", first.Path)
	}
}

func TestFormats(t *testing.T) {
	t.Run("json and yaml", func(t *testing.T) {
		root := tree(t, map[string]string{
			"w/.strata/config.json": `{"tools": {"t": {"source": "builtin", "summary": "json"}}}`,
			"w/d/.strata.yml":       "tools:\n  t:\n    run: skip\n",
		})
		res, err := loadIn(t, root, "w/d", nil)
		if err != nil {
			t.Fatal(err)
		}
		got := []any{res.Config.Tools["t"].Summary, fixed(res.Config.Tools["t"].Run)}
		if diff := cmp.Diff([]any{"json", config.RunSkip}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("two formats in one place", func(t *testing.T) {
		root := tree(t, map[string]string{"w/.strata/config.toml": "", "w/.strata/config.yaml": ""})
		_, err := loadIn(t, root, "w", nil)
		want := filepath.Join(root, "w/.strata/config.toml") + ": another layer file is in the same place: " + filepath.Join(root, "w/.strata/config.yaml") + "; keep one of them"
		if got := errText(err); got != want {
			t.Errorf("\n got: %s\nwant: %s", got, want)
		}
	})
	t.Run("a directory where a file should be", func(t *testing.T) {
		root := tree(t, map[string]string{"w/.strata/config.toml/": ""})
		_, err := loadIn(t, root, "w", nil)
		want := filepath.Join(root, "w/.strata/config.toml") + ": is a directory, not a layer file"
		if got := errText(err); got != want {
			t.Errorf("\n got: %s\nwant: %s", got, want)
		}
	})
}

func errText(err error) string {
	var lines []string
	for _, e := range diag.All(err) {
		lines = append(lines, e.Error())
	}
	return strings.Join(lines, "\n")
}

func TestExtends(t *testing.T) {
	root := tree(t, map[string]string{
		"w/.strata/config.toml": `extends = ["d/*.toml", { path = "after.toml", strategy = "after" }, "nested.toml"]
[tools.t]
source = "builtin"
summary = "workspace"
run = "ask"
`,
		"w/.strata/d/20-b.toml":   "[tools.t]\nsummary = \"b\"\nexamples = \"b\"\n",
		"w/.strata/d/10-a.toml":   "[tools.t]\nsummary = \"a\"\nexamples = \"a\"\ndescription = \"a\"\n",
		"w/.strata/after.toml":    "[tools.t]\nrun = \"skip\"\n",
		"w/.strata/nested.toml":   "extends = \"sub/deep.toml\"\n[tools.t]\nresult = \"edit\"\n",
		"w/.strata/sub/deep.toml": "[tools.t]\nresult = \"ask\"\nenable = false\n",
	})
	res, err := loadIn(t, root, "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	tool := res.Config.Tools["t"]
	got := []any{tool.Summary, tool.Examples, tool.Description, fixed(tool.Run), fixed(tool.Result), *tool.Enable.State}
	want := []any{"workspace", "b", "a", config.RunSkip, config.ResultEdit, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var order []string
	for _, l := range res.Layers {
		order = append(order, strings.TrimPrefix(l.Name, filepath.Join(root, "w/.strata")+"/"))
	}
	wantOrder := []string{"d/10-a.toml", "d/20-b.toml", "sub/deep.toml", "nested.toml", "config.toml", "after.toml"}
	for i, o := range order {
		order[i] = filepath.Base(filepath.Dir(o)) + "/" + filepath.Base(o)
		order[i] = strings.TrimPrefix(order[i], "./")
		order[i] = strings.TrimPrefix(order[i], ".strata/")
	}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Errorf("layer order (-want +got):\n%s", diff)
	}
}

func TestExtendsErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // with ROOT for the temporary directory
	}{
		{"cycle", map[string]string{
			"w/.strata/config.toml": "extends = [\"a.toml\"]\n",
			"w/.strata/a.toml":      "extends = [\"b.toml\"]\n",
			"w/.strata/b.toml":      "extends = [\"a.toml\"]\n",
		}, "ROOT/w/.strata/a.toml: extends itself: ROOT/w/.strata/config.toml -> ROOT/w/.strata/a.toml -> ROOT/w/.strata/b.toml -> ROOT/w/.strata/a.toml; remove one of the extends"},
		{"missing file", map[string]string{
			"w/.strata/config.toml": "extends = [\"a.toml\"]\n",
			"w/.strata/a.toml":      "\n\nextends = [\"gone.toml\"]\n",
		}, "ROOT/w/.strata/a.toml:3:12: extends.0: extends a missing file ROOT/w/.strata/gone.toml (extended by ROOT/w/.strata/config.toml -> ROOT/w/.strata/a.toml); the path is relative to ROOT/w/.strata/a.toml"},
		{"glob without match", map[string]string{
			"w/.strata/config.toml": "extends = [\"conf.d/*.toml\"]\n",
		}, "ROOT/w/.strata/config.toml:1:12: extends.0: the pattern ROOT/w/.strata/conf.d/*.toml matches no file (extended by ROOT/w/.strata/config.toml); the pattern is relative to ROOT/w/.strata/config.toml"},
		{"bad entries", map[string]string{
			"w/.strata/config.toml": "extends = [5, { path = \"a.toml\", strategy = \"aftr\" }, { pth = \"b\" }]\n",
		}, "ROOT/w/.strata/config.toml:1:12: extends.0: expected a path or { path, strategy }, found integer 5\n" +
			"ROOT/w/.strata/config.toml:1:45: extends.1.strategy: expected before or after, found string \"aftr\"; did you mean after?\n" +
			"ROOT/w/.strata/config.toml:1:57: extends.2.pth: unknown key; did you mean path?"},
		{"not a list", map[string]string{
			"w/.strata/config.toml": "extends = { path = 1 }\n",
		}, "ROOT/w/.strata/config.toml:1:11: extends: expected an array of paths, found a table; write extends = [\"base.toml\"]"},
		{"broken extended file", map[string]string{
			"w/.strata/config.toml": "extends = [\"a.toml\"]\n",
			"w/.strata/a.toml":      "[tools.t]\nrnu = \"ask\"\n",
		}, "ROOT/w/.strata/a.toml:2:1: tools.t.rnu: unknown key; did you mean run?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files)
			res, err := loadIn(t, root, "w", nil)
			if res != nil {
				t.Error("a result came back with the error")
			}
			want := strings.ReplaceAll(tt.want, "ROOT", root)
			if got := errText(err); got != want {
				t.Errorf("\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func TestCfg(t *testing.T) {
	root := tree(t, map[string]string{
		"w/.strata/config.toml": summary("workspace") + "run = \"ask\"\n",
		"extra.json":            `{"tools": {"t": {"examples": "from a file"}}}`,
	})
	t.Run("file, json and overrides in order", func(t *testing.T) {
		res, err := loadIn(t, root, "w", []string{"STRATA_TOOLS_T_RESULT=ask"},
			filepath.Join(root, "extra.json"), `{"tools": {"t": {"run": "skip"}}}`, "tools.t.summary=cfg")
		if err != nil {
			t.Fatal(err)
		}
		tool := res.Config.Tools["t"]
		got := []any{tool.Summary, tool.Examples, fixed(tool.Run), fixed(tool.Result)}
		if diff := cmp.Diff([]any{"cfg", "from a file", config.RunSkip, config.ResultAsk}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("NONE drops the layers below", func(t *testing.T) {
		res, err := loadIn(t, root, "w", []string{"STRATA_TOOLS_T_RESULT=ask"}, "tools.t.examples=x", "NONE", "tools.u.source=builtin")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.Config.Tools["t"]; ok {
			t.Error("tool t survived --cfg NONE")
		}
		if _, ok := res.Config.Tools["u"]; !ok {
			t.Error("the --cfg after NONE did not apply")
		}
		if got := res.Config.Tools[config.EveryTool].Run; len(got) != 1 || got[0].Mode != config.RunAsk {
			t.Errorf("defaults dropped too: '*'.run = %q", got)
		}
		for _, l := range res.Layers[:len(res.Layers)-1] {
			if !l.Dropped {
				t.Errorf("layer %s not marked dropped", l.Name)
			}
		}
	})
	t.Run("problems name the argument", func(t *testing.T) {
		_, err := loadIn(t, root, "w", nil, "tools.t.rnu=ask", "nonsense", filepath.Join(root, "missing.toml"))
		want := "--cfg #1: tools.t.rnu: unknown key; did you mean run?\n" +
			"--cfg #2: \"nonsense\" is neither a layer file (.toml, .json, .yaml) nor an override (key=value, key:=json, key+=value, key:+=json)\n" +
			filepath.Join(root, "missing.toml") + ": cannot read: no such file or directory"
		if got := errText(err); got != want {
			t.Errorf("\n got: %s\nwant: %s", got, want)
		}
	})
}

// TestFinalizeProblemsArePlaced: a problem found after merging names the
// layer that set the key.
func TestFinalizeProblemsArePlaced(t *testing.T) {
	root := tree(t, map[string]string{
		"w/.strata/config.toml": "[tools.a]\nsource = \"mcp.nowhere\"\n",
	})
	tests := []struct {
		name    string
		environ []string
		cfg     []string
		want    string
	}{
		{"file", nil, nil, "ROOT/w/.strata/config.toml:2:1: tools.a.source: no MCP server named \"nowhere\" is configured; add [mcp_servers.nowhere]"},
		{"env", []string{"STRATA_TOOLS_B_SOURCE=mcp.x"}, nil, "ROOT/w/.strata/config.toml:2:1: tools.a.source: no MCP server named \"nowhere\" is configured; add [mcp_servers.nowhere]\n" +
			"env STRATA_TOOLS_B_SOURCE: tools.b.source: no MCP server named \"x\" is configured; add [mcp_servers.x]"},
		{"cfg", nil, []string{"tools.a.source=mcp.y"}, "cfg --cfg #1 (tools.a.source=mcp.y): tools.a.source: no MCP server named \"y\" is configured; add [mcp_servers.y]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadIn(t, root, "w", tt.environ, tt.cfg...)
			if got, want := errText(err), strings.ReplaceAll(tt.want, "ROOT", root); got != want {
				t.Errorf("\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	root := tree(t, map[string]string{
		"home/config.toml":      "[tools.t]\nrun = \"ask\"\n[discover]\ndirs = [\"u\"]\n",
		"w/.strata/config.toml": "[tools.t]\nsource = \"builtin\"\nrun = \"edit\"\n[discover]\ndirs = { value = [\"w\"], strategy = \"replace\" }\n",
		"w/d/.strata.toml":      "unset = [\"tools.t.run\"]\n[discover]\ndirs = [\"d\"]\n",
	})
	for _, provenance := range []bool{false, true} {
		a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "w/d"), Provenance: provenance,
			Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home"), "STRATA_TOOLS_T_RUN=skip"}, Cfg: []string{"discover.dirs+=c"}}
		res, err := a.Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			path string
			want string
		}{
			{"tools.t.run", `tools.t.run = "skip"
  user      ROOT/home/config.toml:2:1: set "ask"
  workspace ROOT/w/.strata/config.toml:3:1: set "edit"
  directory ROOT/w/d/.strata.toml:1:10: unset
  env       STRATA_TOOLS_T_RUN: set "skip"  <- wins
`},
			// Relative paths are relative to the file that wrote them; an
			// override's, to the working directory.
			{"discover.dirs", `discover.dirs = ["ROOT/w/.strata/w", "ROOT/w/d/d", "ROOT/w/d/c"]
  user      ROOT/home/config.toml:4:1: append ["ROOT/home/u"]
  workspace ROOT/w/.strata/config.toml:5:1: replace with ["ROOT/w/.strata/w"]  <- wins
  directory ROOT/w/d/.strata.toml:3:1: append ["ROOT/w/d/d"]  <- wins
  cfg       --cfg #1 (discover.dirs+=c): append ["ROOT/w/d/c"]  <- wins
`},
			{"tools.'*'.run", `tools.'*'.run = "ask"
  default   default "ask"
`},
			{"tools.t.summary", `tools.t.summary = (not set)
  no layer sets it
`},
		}
		for _, tt := range tests {
			t.Run(tt.path, func(t *testing.T) {
				ex, err := res.Explain(tt.path)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(strings.ReplaceAll(tt.want, "ROOT", root), ex.String()); diff != "" {
					t.Errorf("provenance %v (-want +got):\n%s", provenance, diff)
				}
			})
		}
		if _, err := res.Explain("tools.t.rnu"); errText(err) != "tools.t.rnu: unknown key; did you mean tools.t.run?" {
			t.Errorf("Explain of a typo: %v", err)
		}
	}
}

// trustDirs trusts the given directories and what is under them.
type trustDirs []string

func (t trustDirs) Trusts(dir string) bool {
	for _, d := range t {
		if dir == d || strings.HasPrefix(dir, d+"/") {
			return true
		}
	}
	return false
}

// TestUntrustedLayersDoNotApply: until its workspace is trusted, neither
// the workspace file nor directory files apply, nor anything they would
// extend; the user's layers do, and the files left out are reported once.
func TestUntrustedLayersDoNotApply(t *testing.T) {
	root := tree(t, map[string]string{
		"home/config.toml":      "[tools.t]\nsource = \"builtin\"\nrun = \"ask\"\n",
		"w/.strata/config.toml": "extends = [\"../evil.json\"]\n[tools.t]\nrun = \"unattended\"\n",
		"w/evil.json":           `{"mcpServers": {"x": {"command": "evil"}}}`,
		"w/d/.strata.toml":      "[tools.t.questions.q]\nanswer = true\n",
		"other/.strata.toml":    "[tools.t]\nrun = \"skip\"\n",
	})
	tests := []struct {
		name      string
		trust     load.Truster
		run       config.RunMode
		untrusted []string
		warnings  []string
	}{
		{
			name: "no trust", trust: nil, run: config.RunAsk,
			untrusted: []string{"w/.strata/config.toml", "w/d/.strata.toml"},
			warnings:  []string{"ROOT/w: workspace layers not applied: untrusted (ROOT/w/.strata/config.toml, ROOT/w/d/.strata.toml); trust ROOT/w to apply them"},
		},
		{name: "another directory trusted", trust: trustDirs{"ROOT/other"}, run: config.RunAsk,
			untrusted: []string{"w/.strata/config.toml", "w/d/.strata.toml"},
			warnings:  []string{"ROOT/w: workspace layers not applied: untrusted (ROOT/w/.strata/config.toml, ROOT/w/d/.strata.toml); trust ROOT/w to apply them"},
		},
		{name: "workspace trusted", trust: trustDirs{"ROOT/w"}, run: config.RunUnattended},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if td, ok := tt.trust.(trustDirs); ok {
				for i := range td {
					td[i] = strings.ReplaceAll(td[i], "ROOT", root)
				}
			}
			a := app{Name: "strata", Defaults: config.Default(), Trust: tt.trust, Dir: filepath.Join(root, "w/d"), MCPServers: partial.Path{"mcp_servers"},
				Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}}
			res, err := a.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			grep, _ := res.Config.Tools.Effective("t")
			if grep.Run() != tt.run {
				t.Errorf("run = %q, want %q", grep.Run(), tt.run)
			}
			if _, evil := res.Config.MCPServers["x"]; evil != (tt.run == config.RunUnattended) {
				t.Errorf("the server of the extended file: present %v", evil)
			}
			var untrusted []string
			for _, p := range res.Probes {
				if p.Untrusted {
					r, _ := filepath.Rel(root, p.Path)
					untrusted = append(untrusted, r)
				}
			}
			if diff := cmp.Diff(tt.untrusted, untrusted); diff != "" {
				t.Errorf("untrusted probes (-want +got):\n%s", diff)
			}
			var warnings []string
			for _, w := range res.Warnings {
				warnings = append(warnings, strings.ReplaceAll(w.Error(), root, "ROOT"))
			}
			if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if _, ok := grep.Answer("q"); ok == (tt.run != config.RunUnattended) {
				t.Errorf("the directory file's answer applied: %v", ok)
			}
		})
	}
}

// TestUnknownEnv: a host chooses what a variable whose name reaches no key
// does; strata's own default is an error.
func TestUnknownEnv(t *testing.T) {
	environ := []string{"STRATA_TOOLS_GREP_RNU=ask", "STRATA_TOOLS_GREP_RUN=ask"}
	for _, tt := range []struct {
		policy   load.EnvPolicy
		err      string
		warnings int
	}{
		{load.EnvError, "env STRATA_TOOLS_GREP_RNU: tools.grep.rnu: unknown key; did you mean STRATA_TOOLS_GREP_RUN (tools.grep.run)?", 0},
		{load.EnvWarn, "", 1},
		{load.EnvIgnore, "", 0},
	} {
		a := app{Name: "strata", Defaults: config.Default(), Dir: t.TempDir(), Environ: environ, UnknownEnv: tt.policy}
		res, err := a.Load(context.Background())
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("policy %d: err = %v, want %q", tt.policy, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("policy %d: %v", tt.policy, err)
		}
		if len(res.Warnings) != tt.warnings {
			t.Errorf("policy %d: warnings %v", tt.policy, res.Warnings)
		}
		if g, _ := res.Config.Tools.Effective("grep"); len(g.Tool.Run) != 1 || g.Tool.Run[0].Mode != config.RunAsk {
			t.Errorf("policy %d: the known variable did not apply", tt.policy)
		}
	}
}

// fixed is the mode of a policy that decides every call alike.
func fixed[M config.Mode](rs config.Rules[M]) M {
	m, _ := rs.Fixed()
	return m
}
