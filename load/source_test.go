package load_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// values returns a HostSource that reads m.
func values(name string, above load.Kind, m map[string]any) load.HostSource {
	return load.HostSource{Name: name, Kind: "koanf", Above: above, Read: func(context.Context) (map[string]any, error) { return m, nil }}
}

func summaryOf(s string) map[string]any {
	return map[string]any{"tools": map[string]any{"t": map[string]any{"summary": s}}}
}

// TestSourcePlaces proves that a HostSource sits right above the layers of the
// kind it names and below the next: one source at every place, every
// layer setting the same key, and the explanation lists them in order.
func TestSourcePlaces(t *testing.T) {
	root := tree(t, map[string]string{
		"home/config.toml":      summary("user"),
		"w/.strata/config.toml": summary("workspace"),
		"w/.strata.toml":        summary("directory"),
	})
	var flags config.Partial
	flags.Tools.Set("t", config.ToolPartial{Summary: partial.Of("flags")})
	a := app{
		Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "w"),
		Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home"), "STRATA_TOOLS_T_SUMMARY=env"},
		Cfg:     []string{"tools.t.summary=cfg"}, Flags: &flags,
	}
	// Listed out of order: each finds its place.
	for _, k := range []load.Kind{load.KindCfg, load.KindEnv, load.KindDirectory, load.KindWorkspace, load.KindUser, ""} {
		name := "above " + string(k)
		if k == "" {
			name = "org"
		}
		a.Sources = append(a.Sources, values(name, k, summaryOf(name)))
	}
	want := `tools.t.summary = "flags"
  koanf     org: set "org"
  user      ROOT/home/config.toml:3:1: set "user"
  koanf     above user: set "above user"
  workspace ROOT/w/.strata/config.toml:3:1: set "workspace"
  koanf     above workspace: set "above workspace"
  directory ROOT/w/.strata.toml:3:1: set "directory"
  koanf     above directory: set "above directory"
  env       STRATA_TOOLS_T_SUMMARY: set "env"
  koanf     above env: set "above env"
  cfg       --cfg #1 (tools.t.summary=cfg): set "cfg"
  koanf     above cfg: set "above cfg"
  flags     flags: set "flags"  <- wins
`
	for _, provenance := range []bool{false, true} {
		a.Provenance = provenance
		res, err := a.Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ex, err := res.Explain("tools.t.summary")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(strings.ReplaceAll(want, "ROOT", root), ex.String()); diff != "" {
			t.Errorf("provenance %v (-want +got):\n%s", provenance, diff)
		}
	}

	// Each source wins over what is below it: take the layers above away
	// one by one.
	home := "STRATA_CONFIG_HOME=" + filepath.Join(root, "home")
	steps := []struct {
		name string
		dir  string
		app  app
		want string
	}{
		{"over the defaults", "", app{Sources: a.Sources[5:]}, "org"},
		{"under the user file", "", app{Sources: a.Sources[5:], Environ: []string{home}}, "user"},
		{"over the directory files", "w", app{Sources: a.Sources[2:], Environ: []string{home}}, "above directory"},
		{"over the environment", "w", app{Sources: a.Sources[1:], Environ: []string{"STRATA_TOOLS_T_SUMMARY=env"}}, "above env"},
		{"under --cfg", "w", app{Sources: a.Sources[1:], Cfg: []string{"tools.t.summary=cfg"}}, "cfg"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			b := st.app
			b.Name, b.Defaults, b.Trust, b.Dir = "strata", config.Default(), trustAll{}, filepath.Join(root, st.dir)
			if b.Environ == nil {
				b.Environ = []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "nohome")}
			}
			res, err := b.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Config.Tools["t"].Summary; got != st.want {
				t.Errorf("summary = %q, want %q", got, st.want)
			}
		})
	}
}

// sourceApp is an app with only the given sources: no user file, no
// workspace, no environment.
func sourceApp(t *testing.T, sources ...load.HostSource) *app {
	return &app{Name: "strata", Defaults: config.Default(), Dir: t.TempDir(), Environ: []string{}, Sources: sources}
}

type problem struct{ Path, Msg, Hint string }

func problems(err error) []problem {
	var out []problem
	for _, e := range diag.All(err) {
		out = append(out, problem{e.Key(), e.Msg, e.Hint})
	}
	return out
}

// TestSourceProblemsAreAFileProblems: what a source gets wrong is said
// exactly as it is said of a file that holds the same, naming the source.
func TestSourceProblemsAsInFiles(t *testing.T) {
	tests := []struct {
		name string
		m    map[string]any
		file string // the same in TOML
		want string
	}{
		{
			name: "unknown key",
			m:    map[string]any{"tools": map[string]any{"grep": map[string]any{"rnu": "ask"}}},
			file: "[tools.grep]\nrnu = \"ask\"\n",
			want: "koanf org: tools.grep.rnu: unknown key; did you mean run?",
		},
		{
			name: "wrong type",
			m:    map[string]any{"tools": map[string]any{"grep": map[string]any{"summary": 7}}},
			file: "[tools.grep]\nsummary = 7\n",
			want: "koanf org: tools.grep.summary: expected a string, found integer 7",
		},
		{
			name: "invalid value",
			m:    map[string]any{"tools": map[string]any{"grep": map[string]any{"run": "aks"}}},
			file: "[tools.grep]\nrun = \"aks\"\n",
			want: `koanf org: tools.grep.run: expected one of ask, unattended, edit, skip, found "aks"; did you mean ask?`,
		},
		{
			name: "every problem at once",
			m: map[string]any{
				"tools":    map[string]any{"grep": map[string]any{"run": true, "summary": []any{"x"}}},
				"discover": map[string]any{"dir": []string{"a"}},
			},
			file: "[discover]\ndir = [\"a\"]\n[tools.grep]\nrun = true\nsummary = [\"x\"]\n",
			want: "koanf org: discover.dir: unknown key; did you mean dirs?\n" +
				"koanf org: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found boolean true\n" +
				"koanf org: tools.grep.summary: expected a string, found an array",
		},
		{
			name: "datetime",
			m:    map[string]any{"tools": map[string]any{"grep": map[string]any{"summary": time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)}}},
			file: "[tools.grep]\nsummary = 2024-05-01T10:00:00Z\n",
			want: "koanf org: tools.grep.summary: expected a string, found datetime 2024-05-01T10:00:00Z",
		},
		{
			name: "unset list",
			m:    map[string]any{"unset": []any{"tools.grep.rnu"}},
			file: "unset = [\"tools.grep.rnu\"]\n",
			want: "koanf org: unset.0: cannot unset tools.grep.rnu: tools.grep has no key rnu; did you mean tools.grep.run?",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := sourceApp(t, values("org", "", tt.m))
			_, err := a.Load(context.Background())
			if got := errText(err); got != tt.want {
				t.Errorf("\n got: %s\nwant: %s", got, tt.want)
			}
			fileErr := codec.Decode("f.toml", []byte(tt.file), partial.TOML, new(config.Partial))
			if diff := cmp.Diff(problems(fileErr), problems(err)); diff != "" {
				t.Errorf("not as for a file (-file +source):\n%s", diff)
			}
		})
	}
}

// TestSourceValues: the Go values a loader gives, each as a document
// holds it.
func TestSourceValues(t *testing.T) {
	options := map[string]any{
		"int32": int32(3), "uint8": uint8(4), "float32": float32(1.5),
		"number": json.Number("7"), "fraction": json.Number("2.5"),
		"strings": []string{"a", "b"}, "array": [2]bool{true, false},
		"table": map[string]string{"k": "v"}, "pointer": new(int64),
	}
	m := map[string]any{"tools": map[string]any{"t": map[string]any{"source": "builtin", "options": options}}}
	res, err := sourceApp(t, values("org", "", m)).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"int32": int64(3), "uint8": int64(4), "float32": 1.5,
		"number": int64(7), "fraction": 2.5,
		"strings": []any{"a", "b"}, "array": []any{true, false},
		"table": map[string]any{"k": "v"}, "pointer": int64(0),
	}
	if diff := cmp.Diff(want, res.Config.Tools["t"].Options); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}

	cycle := map[string]any{}
	cycle["again"] = cycle
	list := []any{"x", nil}
	list[1] = list
	bad := map[string]any{"tools": map[string]any{"t": map[string]any{"options": map[string]any{
		"struct": struct{ A int }{1},
		"keys":   map[int]any{1: "x"},
		"huge":   uint64(math.MaxUint64),
		"number": json.Number("x1"),
		"cycle":  cycle,
		"list":   list,
	}}}}
	_, err = sourceApp(t, values("org", "", bad)).Load(context.Background())
	want2 := "koanf org: tools.t.options.cycle.again: holds itself\n" +
		"koanf org: tools.t.options.huge: integer 18446744073709551615 is out of range\n" +
		"koanf org: tools.t.options.keys: a table's keys must be strings, not int\n" +
		"koanf org: tools.t.options.list.1: holds itself\n" +
		"koanf org: tools.t.options.number: \"x1\" is not a number\n" +
		"koanf org: tools.t.options.struct: a Go struct { A int } is not a configuration value"
	if got := errText(err); got != want2 {
		t.Errorf("\n got: %s\nwant: %s", got, want2)
	}
}

// TestSourceNullUnsets: nil unsets a key, as a JSON null does.
func TestSourceNullUnsets(t *testing.T) {
	a := sourceApp(t,
		values("org", "", map[string]any{"tools": map[string]any{"t": map[string]any{"source": "builtin", "run": "unattended"}}}),
		values("team", load.KindEnv, map[string]any{"tools": map[string]any{"t": map[string]any{"run": nil}}}),
	)
	res, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := res.Explain("tools.t.run")
	want := "tools.t.run = (not set)\n  koanf     org: set \"unattended\"\n  koanf     team: unset  <- wins\n"
	if diff := cmp.Diff(want, ex.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, _ := res.Config.Tools.Effective("t"); got.Run() != config.RunAsk {
		t.Errorf("run = %s, want the default ask", got.Run())
	}
}

// TestSourceText: a source of strings reads them as overrides do, and
// its other values as documents hold them.
func TestSourceText(t *testing.T) {
	m := map[string]any{
		"tools": map[string]any{"t": map[string]any{
			"source": "builtin", "enable": "false", "run": "edit", "env_vars": "A,B",
			"parameters": map[string]any{"n": map[string]any{"required": "true", "default": "3"}},
			"options":    map[string]any{"limit": 10, "name": "x"},
		}},
		"discover": map[string]any{"dirs": "/a,/b"},
	}
	src := values("env", "", m)
	src.Text = true
	res, err := sourceApp(t, src).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := res.Config.Tools.Effective("t")
	got := []any{tool.Enabled(), tool.Run(), tool.Tool.EnvVars, *tool.Tool.Parameters["n"].Required, tool.Tool.Parameters["n"].Default, tool.Tool.Options, res.Config.Discover.Dirs}
	want := []any{false, config.RunEdit, []string{"A", "B"}, true, "3", map[string]any{"limit": int64(10), "name": "x"}, []string{"/a", "/b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	src = values("env", "", map[string]any{"tools": map[string]any{"t": map[string]any{"run": "aks", "rnu": "ask", "enable": 3}}})
	src.Text = true
	_, err = sourceApp(t, src).Load(context.Background())
	wantErr := "koanf env: tools.t.enable: expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found number 3\n" +
		"koanf env: tools.t.rnu: unknown key; did you mean run?\n" +
		`koanf env: tools.t.run: expected one of ask, unattended, edit, skip, found "aks"; did you mean ask?`
	if got := errText(err); got != wantErr {
		t.Errorf("\n got: %s\nwant: %s", got, wantErr)
	}
}

// TestSourceRead: a source that cannot be read fails the load, naming
// it, with the cause kept.
func TestSourceRead(t *testing.T) {
	boom := errors.New("connection refused")
	failing := load.HostSource{Name: "etcd://127.0.0.1:1/org", Kind: "koanf", Read: func(context.Context) (map[string]any, error) { return nil, boom }}
	_, err := sourceApp(t, failing).Load(context.Background())
	if got, want := errText(err), "koanf etcd://127.0.0.1:1/org: cannot read: connection refused"; got != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
	if !errors.Is(err, boom) {
		t.Errorf("errors.Is(%v, boom) = false", err)
	}

	// Problems the source positions itself keep their place, named.
	placed := load.HostSource{Name: "x", Read: func(context.Context) (map[string]any, error) {
		return nil, diag.Errors{{Path: []string{"a", "b"}, Msg: "is both a value and a table"}}
	}}
	_, err = sourceApp(t, placed).Load(context.Background())
	if got, want := errText(err), "source x: a.b: is both a value and a table"; got != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}

	// The load's context reaches Read, and a canceled load says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	seen := load.HostSource{Name: "y", Read: func(ctx context.Context) (map[string]any, error) { return nil, ctx.Err() }}
	if _, err := sourceApp(t, seen).Load(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestSourceChecked: a HostSource that cannot be placed or named is the
// host's mistake, reported before anything is read.
func TestSourceChecked(t *testing.T) {
	read := func(context.Context) (map[string]any, error) { return nil, nil }
	tests := []struct {
		name string
		src  load.HostSource
		want string
	}{
		{"no name", load.HostSource{Read: read}, "load: App.Sources[0]: has no Name; name where its values come from, for explanations and problems"},
		{"no read", load.HostSource{Name: "org"}, "load: App.Sources[0] (org): has no Read"},
		{"a kind of strata's", load.HostSource{Name: "org", Kind: load.KindUser, Read: read}, `load: App.Sources[0] (org): Kind "user" is the kind of strata's own user layers; name the kind of the source, such as koanf`},
		{"above the flags", load.HostSource{Name: "org", Above: load.KindFlags, Read: read}, "load: App.Sources[0] (org): cannot sit above the flags, which are the highest layer; use Above: load.KindCfg"},
		{"above nothing known", load.HostSource{Name: "org", Above: "org", Read: read}, `load: App.Sources[0] (org): Above "org" is not a kind of strata's own layers; use default, user, workspace, directory, env or cfg`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sourceApp(t, tt.src).Load(context.Background())
			if got := errText(err); got != tt.want {
				t.Errorf("\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

// TestSourceAsLayer: a source is a layer like any other: --cfg NONE drops
// it when it is below, finalize's problems name it, and its relative
// paths are relative to the working directory, as an override's are.
func TestSourceAsLayer(t *testing.T) {
	a := sourceApp(t,
		values("org", "", map[string]any{"discover": map[string]any{"dirs": []any{"tools"}}}),
		values("top", load.KindCfg, map[string]any{"tools": map[string]any{"t": map[string]any{"source": "builtin"}}}),
	)
	a.Cfg = []string{"NONE"}
	res, err := a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range res.Layers {
		got = append(got, string(l.Kind)+" "+l.Name+map[bool]string{true: " (dropped)"}[l.Dropped])
	}
	if diff := cmp.Diff([]string{"koanf org (dropped)", "koanf top"}, got); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	if res.Config.Discover.Dirs != nil {
		t.Errorf("dirs = %q, want none: the source was dropped", res.Config.Discover.Dirs)
	}
	if _, ok := res.Config.Tools["t"]; !ok {
		t.Error("the source above --cfg NONE does not apply")
	}

	a.Cfg = nil
	res, err = a.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(a.Dir, "tools")}, res.Config.Discover.Dirs); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}

	a.Sources = []load.HostSource{values("org", "", map[string]any{"tools": map[string]any{"a": map[string]any{"source": "mcp.nowhere"}}})}
	_, err = a.Load(context.Background())
	if got, want := errText(err), `koanf org: tools.a.source: no MCP server named "nowhere" is configured; add [mcp_servers.nowhere]`; got != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
}
