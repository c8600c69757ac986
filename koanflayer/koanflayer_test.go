package koanflayer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/koanflayer"
	"github.com/strata-config/strata/load"
)

// open opens strata's own model in an empty directory, with no user file
// and an empty environment, and the given options.
func open(t *testing.T, opts ...strata.Option) (*strata.Workspace[config.Partial, config.Config], error) {
	t.Helper()
	base := []strata.Option{strata.Dir(t.TempDir()), strata.Environ([]string{})}
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), append(base, opts...)...)
	if err == nil {
		t.Cleanup(func() { w.Close() })
	}
	return w, err
}

func explain(t *testing.T, w *strata.Workspace[config.Partial, config.Config], key string) string {
	t.Helper()
	ex, err := w.Explain(key)
	if err != nil {
		t.Fatal(err)
	}
	return ex.String()
}

func errText(err error) string {
	var lines []string
	for _, e := range diag.All(err) {
		lines = append(lines, e.Error())
	}
	return strings.Join(lines, "\n")
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFileProvider: an organisation's defaults in a TOML file read by
// koanf's file provider are a layer above the defaults and below
// everything else, explained as the provider's.
func TestFileProvider(t *testing.T) {
	org := write(t, "org.toml", `
[tools.grep]
source = "local"
command = "rg --json"
run = "ask"
summary = "Search the code."
`)
	src := koanflayer.FromProvider(org, file.Provider(org), toml.Parser())
	w, err := open(t, strata.Sources(src), strata.Cfg("tools.grep.run=unattended"))
	if err != nil {
		t.Fatal(err)
	}
	want := `tools.grep.run = "unattended"
  koanf     ` + org + ` (file): set "ask"
  cfg       --cfg #1 (tools.grep.run=unattended): set "unattended"  <- wins
`
	if diff := cmp.Diff(want, explain(t, w, "tools.grep.run")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := w.Model().Tools["grep"].Summary; got != "Search the code." {
		t.Errorf("summary = %q", got)
	}

	// A mistake in it is reported as in a file, naming the provider.
	bad := write(t, "org.toml", "[tools.grep]\nrnu = \"ask\"\nsummary = 7\n")
	_, err = open(t, strata.Sources(koanflayer.FromProvider(bad, file.Provider(bad), toml.Parser())))
	wantErr := "koanf " + bad + " (file): tools.grep.rnu: unknown key; did you mean run?\n" +
		"koanf " + bad + " (file): tools.grep.summary: expected a string, found integer 7"
	if got := errText(err); got != wantErr {
		t.Errorf("\n got: %s\nwant: %s", got, wantErr)
	}

	// One the provider finds is the provider's, its cause kept.
	missing := filepath.Join(t.TempDir(), "none.toml")
	_, err = open(t, strata.Sources(koanflayer.FromProvider(missing, file.Provider(missing), toml.Parser())))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(errText(err), "koanf "+missing+" (file): cannot read: ") {
		t.Errorf("err = %v, want the provider's os.ErrNotExist, named", err)
	}
}

// TestEnvProvider: variables read by koanf's env provider hold only
// strings; with Text they are read as strata reads its own variables.
func TestEnvProvider(t *testing.T) {
	environ := []string{
		"MYAPP_TOOLS__GREP__SOURCE=local",
		"MYAPP_TOOLS__GREP__COMMAND=rg --json",
		"MYAPP_TOOLS__GREP__ENABLE=false",
		"MYAPP_TOOLS__GREP__ENV_VARS=RIPGREP_CONFIG_PATH,LANG",
		"MYAPP_DISCOVER__DIRS=/opt/tools,/usr/share/tools",
		"OTHER=not read",
	}
	provider := func(environ []string) *env.Env {
		return env.Provider(".", env.Opt{
			Prefix:      "MYAPP_",
			EnvironFunc: func() []string { return environ },
			TransformFunc: func(k, v string) (string, any) {
				return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(k, "MYAPP_")), "__", "."), v
			},
		})
	}
	src := koanflayer.FromProvider("MYAPP_*", provider(environ), nil, koanflayer.Text(), koanflayer.Above(load.KindDirectory))
	w, err := open(t, strata.Sources(src))
	if err != nil {
		t.Fatal(err)
	}
	grep, _ := w.Model().Tools.Effective("grep")
	got := []any{grep.Enabled(), grep.Tool.Command.Program, grep.Tool.Command.Args, grep.Tool.EnvVars, w.Model().Discover.Dirs}
	want := []any{false, "rg", []string{"--json"}, []string{"RIPGREP_CONFIG_PATH", "LANG"}, []string{"/opt/tools", "/usr/share/tools"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("tools.grep.enable = { state = false, allow_toggle = \"any\" }\n  koanf     MYAPP_* (env): set { state = false, allow_toggle = \"any\" }  <- wins\n", explain(t, w, "tools.grep.enable")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	_, err = open(t, strata.Sources(koanflayer.FromProvider("MYAPP_*", provider([]string{"MYAPP_TOOLS__GREP__RNU=ask", "MYAPP_TOOLS__GREP__ENABLE=maybe"}), nil, koanflayer.Text())))
	wantErr := "koanf MYAPP_* (env): tools.grep.enable: expected a boolean, one of on, off, explicit, always, or { state, allow_toggle }, found string \"maybe\"\n" +
		"koanf MYAPP_* (env): tools.grep.rnu: unknown key; did you mean run?"
	if got := errText(err); got != wantErr {
		t.Errorf("\n got: %s\nwant: %s", got, wantErr)
	}
}

// TestPosflagProvider: flags parsed by pflag and read by koanf's posflag
// provider keep their types; the host's own flags stay out of strata's
// layer, which is cut from under the strata key.
func TestPosflagProvider(t *testing.T) {
	fs := pflag.NewFlagSet("myapp", pflag.ContinueOnError)
	fs.Int("port", 8080, "the host's own flag")
	fs.String("strata.tools.grep.run", "ask", "")
	fs.Bool("strata.tools.grep.enable", true, "")
	fs.StringSlice("strata.discover.dirs", nil, "")
	fs.String("strata.tools.grep.summary", "", "")
	if err := fs.Parse([]string{"--port=9090", "--strata.tools.grep.run=unattended", "--strata.tools.grep.enable=false", "--strata.discover.dirs=/a,/b"}); err != nil {
		t.Fatal(err)
	}
	src := koanflayer.FromProvider("flags", posflag.Provider(fs, ".", nil), nil, koanflayer.Cut("strata"), koanflayer.Above(load.KindCfg))
	org := write(t, "org.toml", "[tools.grep]\nsource = \"local\"\ncommand = \"rg\"\n")
	w, err := open(t, strata.Sources(src), strata.Cfg(org, "tools.grep.run=edit"))
	if err != nil {
		t.Fatal(err)
	}
	want := `tools.grep.run = "unattended"
  cfg       --cfg #2 (tools.grep.run=edit): set "edit"
  koanf     flags (posflag): set "unattended"  <- wins
`
	if diff := cmp.Diff(want, explain(t, w, "tools.grep.run")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	grep, _ := w.Model().Tools.Effective("grep")
	if grep.Enabled() || grep.Tool.Summary != "" || !cmp.Equal(w.Model().Discover.Dirs, []string{"/a", "/b"}) {
		t.Errorf("enabled %v, summary %q (a flag not given), dirs %q", grep.Enabled(), grep.Tool.Summary, w.Model().Discover.Dirs)
	}
}

// TestFromKoanf: a koanf instance is read when strata loads; its keys are
// keys, as koanf's Unmarshal reads them, so a tool named with a dot stays
// one.
func TestFromKoanf(t *testing.T) {
	host := write(t, "myapp.toml", `
port = 8080
[assistant.tools."fs.read"]
source = "local"
command = "cat"
run = "unattended"
`)
	k := koanf.New(".")
	if err := k.Load(file.Provider(host), toml.Parser()); err != nil {
		t.Fatal(err)
	}
	src := koanflayer.FromKoanf("myapp settings", k, koanflayer.Cut("assistant"))
	if err := k.Set("assistant.tools.grep", map[string]any{"source": "local", "command": "rg"}); err != nil {
		t.Fatal(err)
	}
	w, err := open(t, strata.Sources(src))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"fs.read", "grep"}, w.Model().Tools.Names()); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("tools.'fs.read'.run = \"unattended\"\n  koanf     myapp settings: set \"unattended\"  <- wins\n", explain(t, w, "tools.'fs.read'.run")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// rawTOML is a koanf instance of a TOML text.
func rawTOML(t *testing.T, text string) *koanf.Koanf {
	t.Helper()
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider([]byte(text)), toml.Parser()); err != nil {
		t.Fatal(err)
	}
	return k
}

// TestUnflattenAndCut: flat keys, as key-value stores keep them, split
// into paths and merge with nested ones; a key that cannot be both is
// an error, as is a cut through a value.
func TestUnflattenAndCut(t *testing.T) {
	tests := []struct {
		name string
		text string
		opts []koanflayer.Option
		want string // tools.grep.run explained, or the error
	}{
		{
			name: "flat and nested merge",
			text: "\"org/tools/grep/run\" = \"edit\"\n[org.tools.grep]\nsource = \"local\"\ncommand = \"rg\"\n",
			opts: []koanflayer.Option{koanflayer.Unflatten("/"), koanflayer.Cut("org")},
			want: "tools.grep.run = \"edit\"\n  koanf     org: set \"edit\"  <- wins\n",
		},
		{
			name: "a value and a table",
			text: "\"tools/grep\" = \"rg\"\n[tools.grep]\nrun = \"edit\"\n",
			opts: []koanflayer.Option{koanflayer.Unflatten("/")},
			want: "koanf org: tools.grep: is both a value and a table",
		},
		{
			name: "set twice",
			text: "\"tools/grep/run\" = \"ask\"\n[tools.grep]\nrun = \"edit\"\n",
			opts: []koanflayer.Option{koanflayer.Unflatten("/")},
			want: "koanf org: tools.grep.run: is set twice",
		},
		{
			name: "without Unflatten a flat key is a key",
			text: "\"tools/grep/run\" = \"ask\"\n",
			want: "koanf org: 'tools/grep/run': unknown key; known keys: tools, mcp_servers, discover, lock, budget, toolsets, toolset, tool_names",
		},
		{
			name: "cut through a value",
			text: "org = \"x\"\n",
			opts: []koanflayer.Option{koanflayer.Cut("org", "strata")},
			want: "koanf org: org: is not a table but string, and the layer is cut here",
		},
		{
			name: "cut where nothing is",
			text: "other = 1\n",
			opts: []koanflayer.Option{koanflayer.Cut("org")},
			want: "tools.grep.run = (not set)\n  no layer sets it\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := open(t, strata.Sources(koanflayer.FromKoanf("org", rawTOML(t, tt.text), tt.opts...)))
			got := errText(err)
			if err == nil {
				got = explain(t, w, "tools.grep.run")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// blocking is a koanf provider that stays in Read until released, as one
// whose server does not answer.
type blocking struct{ reading, release chan struct{} }

func (b blocking) ReadBytes() ([]byte, error) { return nil, errors.New("not supported") }

func (b blocking) Read() (map[string]any, error) {
	close(b.reading)
	<-b.release
	return map[string]any{}, nil
}

// TestCanceled: a load whose context ends returns, though koanf's
// provider cannot be interrupted.
func TestCanceled(t *testing.T) {
	b := blocking{reading: make(chan struct{}), release: make(chan struct{})}
	defer close(b.release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-b.reading
		cancel()
	}()
	_, err := strata.Open[config.Partial](ctx, config.Default(), strata.Dir(t.TempDir()), strata.Environ([]string{}),
		strata.Sources(koanflayer.FromProvider("slow", b, nil)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got, want := errText(err), "koanf slow (koanflayer_test): cannot read: context canceled"; got != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
}

// TestOf: strata's resolved model in a host's koanf tree, beside the
// host's own settings, and a layer that reads back as itself.
func TestOf(t *testing.T) {
	org := write(t, "org.toml", "[tools.grep]\nsource = \"local\"\ncommand = \"rg --json\"\nrun = \"unattended\"\n[tools.grep.options]\nlimit = 10\nratio = 0.5\n")
	w, err := open(t, strata.Cfg(org))
	if err != nil {
		t.Fatal(err)
	}
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider([]byte("port = 8080\n")), toml.Parser()); err != nil {
		t.Fatal(err)
	}
	if err := k.Load(koanflayer.Of(w.Model()), nil); err != nil {
		t.Fatal(err)
	}
	got := []any{k.Int("port"), k.String("tools.grep.run"), k.String("tools.grep.command"), k.Get("tools.grep.options.limit"), k.Get("tools.grep.options.ratio"), k.String("tools.*.run")}
	want := []any{8080, "unattended", "rg --json", int64(10), 0.5, "ask"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// ReadBytes is JSON, and an empty Provider an empty table.
	b, err := koanflayer.Of(nil).ReadBytes()
	if err != nil || string(b) != "{}" {
		t.Errorf("Of(nil).ReadBytes() = %q, %v", b, err)
	}
	if m, err := koanflayer.Of(nil).Read(); err != nil || len(m) != 0 {
		t.Errorf("Of(nil).Read() = %v, %v", m, err)
	}
}
