package load_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
)

// problemLines returns the lines of err, with root written ROOT.
func problemLines(err error, root string) []string {
	var out []string
	for _, e := range diag.All(err) {
		line := e.Error()
		if root != "" {
			line = strings.ReplaceAll(line, root, "ROOT")
		}
		out = append(out, line)
	}
	return out
}

// TestEveryProblemAtOnce: the problems of files, variables, --cfg and
// overrides are reported together; one that a failed layer may have
// caused is not.
func TestEveryProblemAtOnce(t *testing.T) {
	tests := []struct {
		name    string
		user    string
		ws      string // the workspace's file, trusted; "" for none
		environ []string
		cfg     []string
		set     []string
		want    []string
	}{
		{
			name:    "a file, a variable, --cfg and an override",
			user:    "[tools.grep]\nrnu = \"ask\"\n",
			environ: []string{"STRATA_TOOLS_WORD_COUNT_RNU=ask"},
			cfg:     []string{"tools.grep.run=sometimes"},
			set:     []string{"tools.grep.summry=x"},
			want: []string{
				"ROOT/home/config.toml:2:1: tools.grep.rnu: unknown key; did you mean run?",
				"env STRATA_TOOLS_WORD_COUNT_RNU: tools.word_count.rnu: unknown key; did you mean STRATA_TOOLS_WORD_COUNT_RUN (tools.word_count.run)?",
				`--cfg #1: tools.grep.run: expected one of ask, unattended, edit, skip, found "sometimes"`,
				"--set #1: tools.grep.summry: unknown key; did you mean summary?",
			},
		},
		{
			name: "an override into a list of a file that failed",
			user: "[tools.grep]\ncommand = { program = \"rg\", args = [\"-n\"] }\nrun = \"sometimes\"\n",
			cfg:  []string{"tools.grep.command.args.0=-w", "tools.grep.run=ask"},
			want: []string{`ROOT/home/config.toml:3:7: tools.grep.run: expected one of ask, unattended, edit, skip, found "sometimes"`},
		},
		{
			name:    "a variable into an option, past a file that failed",
			user:    "[tools.grep]\noptions.max = 5\n",
			ws:      "[tools.grep]\noptions.max = [1]\nrun = 1\n",
			environ: []string{"STRATA_TOOLS_GREP_OPTIONS_MAX=+x"},
			want:    []string{"ROOT/w/.strata/config.toml:3:7: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found number 1"},
		},
		{
			name: "an override past the end of a list, past a file that failed",
			user: "[tools.grep]\ncommand = { program = \"rg\", args = [\"-n\"] }\n",
			ws:   "[tools.grep]\ncommand = { program = \"rg\", args = [\"-n\", \"-w\"] }\nrun = 1\n",
			cfg:  []string{"tools.grep.command.args.1=-x"},
			want: []string{"ROOT/w/.strata/config.toml:3:7: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found number 1"},
		},
		{
			name: "an override past the end of a list",
			user: "[tools.grep]\ncommand = { program = \"rg\", args = [\"-n\"] }\n",
			cfg:  []string{"tools.grep.command.args.1=-x"},
			want: []string{"--cfg #1: tools.grep.command.args.1: index 1 is past the end of the list (1 item)"},
		},
		{
			name:    "a name settled by a file that failed",
			user:    "[tools.grep]\nrun = 1\n[tools.a.options.b]\n",
			environ: []string{"STRATA_TOOLS_A_OPTIONS_B_C=1"},
			want:    []string{"ROOT/home/config.toml:2:7: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found number 1"},
		},
		{
			name:    "a name no layer settles",
			environ: []string{"STRATA_TOOLS_A_OPTIONS_B_C=1"},
			want:    []string{"env STRATA_TOOLS_A_OPTIONS_B_C: the name is ambiguous: it reads as tools.a.options.b.c or tools.a.options.b_c; separate the keys with '__', as in TOOLS__A__OPTIONS__B__C"},
		},
		{
			name:    "a variable into an option of a file",
			user:    "[tools.grep]\noptions.max = 5\n",
			environ: []string{"STRATA_TOOLS_GREP_OPTIONS_MAX=+x"},
			want:    []string{"env STRATA_TOOLS_GREP_OPTIONS_MAX: tools.grep.options.max: holds a single value; += appends to arrays; set it with = or :="},
		},
		{
			name: "an override into a list of no layer, past one that failed",
			user: "[tools.grep]\nrun = 1\n",
			cfg:  []string{"tools.grep.command.args.0=-w", "tools.grep.rnu=ask"},
			want: []string{
				"ROOT/home/config.toml:2:7: tools.grep.run: expected a mode (ask, unattended, edit, skip) or a rule ({ arg, <matcher>, mode }), found number 1",
				"--cfg #2: tools.grep.rnu: unknown key; did you mean run?",
			},
		},
		{
			name: "an override into a list of no layer",
			cfg:  []string{"tools.grep.command.args.0=-w"},
			want: []string{"--cfg #1: tools.grep.command: is not set, so nothing inside it can be changed; give it whole: tools.grep.command:=..."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"home/config.toml": tt.user, "w/": ""}
			if tt.ws != "" {
				files["w/.strata/config.toml"] = tt.ws
			}
			root := tree(t, files)
			a := app{
				Name: "strata", Defaults: config.Default(), Dir: filepath.Join(root, "w"), Trust: trustAll{},
				Environ: append([]string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}, tt.environ...),
				Cfg:     tt.cfg, Overrides: tt.set,
			}
			_, err := a.Load(context.Background())
			if diff := cmp.Diff(tt.want, problemLines(err, root)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHostEnv: a host's own variables under strata's prefix are left to
// it, and strata's are still checked.
func TestHostEnv(t *testing.T) {
	tests := []struct {
		name    string
		hostEnv []string
		environ []string
		want    []string
	}{
		{"the host's own are left alone", []string{"MCPHOST_MODEL", "MCPHOST_PROVIDER_*"},
			[]string{"MCPHOST_MODEL=gpt", "MCPHOST_PROVIDER_URL=u", "mcphost_provider_key=k", "MCPHOST_TOOLS_GREP_RUN=ask"}, nil},
		{"strata's are still checked", []string{"MCPHOST_MODEL"},
			[]string{"MCPHOST_MODEL=gpt", "MCPHOST_TOOLS_GREP_RNU=ask"},
			[]string{"env MCPHOST_TOOLS_GREP_RNU: tools.grep.rnu: unknown key; did you mean MCPHOST_TOOLS_GREP_RUN (tools.grep.run)?"}},
		{"a typo of the host's own", []string{"MCPHOST_MODEL"},
			[]string{"MCPHOST_MODLE=gpt"},
			[]string{"env MCPHOST_MODLE: modle: unknown key; did you mean MCPHOST_MODEL (the application's own, not a key path)?"}},
		{"without HostEnv the host's own are strata's", nil,
			[]string{"MCPHOST_MODEL=gpt"},
			[]string{"env MCPHOST_MODEL: model: unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := app{Name: "mcphost", Defaults: config.Default(), Dir: t.TempDir(), Environ: tt.environ, HostEnv: tt.hostEnv}
			res, err := a.Load(context.Background())
			if diff := cmp.Diff(tt.want, problemLines(err, "")); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			if err == nil {
				if g, _ := res.Config.Tools.Effective("grep"); g.Run() != config.RunAsk {
					t.Errorf("strata's variable did not apply: %v", g.Tool.Run)
				}
			}
		})
	}
}

// TestHostEnvMustBeUnderThePrefix: a host's variable outside the prefix
// is a mistake of the host's.
func TestHostEnvMustBeUnderThePrefix(t *testing.T) {
	a := app{Name: "mcphost", Defaults: config.Default(), Dir: t.TempDir(), Environ: []string{}, HostEnv: []string{"MODEL"}}
	_, err := a.Load(context.Background())
	want := `load: App.HostEnv: "MODEL" is not under MCPHOST_, the prefix of the configuration's variables: name the variable whole (MCPHOST_MODEL), or a prefix ending in * (MCPHOST_PROVIDER_*)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestEnvKnownTools: variables are read against the tools the layers,
// the defaults and the host know.
func TestEnvKnownTools(t *testing.T) {
	defaults := config.Default()
	defaults.Tools["word_count"] = config.Tool{Source: config.Source{Kind: config.SourceBuiltin}}
	tests := []struct {
		name     string
		defaults config.Config
		known    map[string][]string
		want     []string
	}{
		{"a tool of no layer", config.Default(), nil, []string{"env STRATA_TOOLS_WORD_COUNT_XYZ: tools.word.count: unknown key"}},
		{"a tool of the defaults", defaults, nil, []string{"env STRATA_TOOLS_WORD_COUNT_XYZ: tools.word_count.xyz: unknown key"}},
		{"a tool the host knows", config.Default(), map[string][]string{"tools": {"word_count"}}, []string{"env STRATA_TOOLS_WORD_COUNT_XYZ: tools.word_count.xyz: unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := app{Name: "strata", Defaults: tt.defaults, Dir: t.TempDir(), Environ: []string{"STRATA_TOOLS_WORD_COUNT_XYZ=1"}, Known: tt.known}
			_, err := a.Load(context.Background())
			if diff := cmp.Diff(tt.want, problemLines(err, "")); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
