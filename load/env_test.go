package load_test

import (
	"context"
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
				if g, _ := res.Config.Tools.Effective("grep"); g.Tool.Run != config.RunAsk {
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
