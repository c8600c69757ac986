package load_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
)

// TestOverrides: a host's own flag gives key=value overrides, named as
// the host names it in problems and explanations; only assignments, so
// a user's NONE, a file or a JSON object is an error rather than a
// dropped layer.
func TestOverrides(t *testing.T) {
	tests := []struct {
		name      string
		overrides []string
		want      []string // problems
		wantModel string
		wantWhy   string // the explanation of model's last step
	}{
		{name: "an assignment", overrides: []string{"model=large"}, wantModel: "large", wantWhy: "--set #1 (model=large)"},
		{name: "the last wins", overrides: []string{"model=large", "model=medium"}, wantModel: "medium", wantWhy: "--set #2 (model=medium)"},
		{name: "a typo", overrides: []string{"model=large", "assistant.tools.grep.rnu=ask"},
			want: []string{"--set #2: assistant.tools.grep.rnu: unknown key; did you mean run?"}},
		{name: "NONE is not an assignment", overrides: []string{"NONE"},
			want: []string{`--set #1: "NONE" is not an override: write key=value, key:=json, key+=value or key:+=json`}},
		{name: "a file is not an assignment", overrides: []string{"other.toml"},
			want: []string{`--set #1: "other.toml" is not an override: write key=value, key:=json, key+=value or key:+=json`}},
		{name: "a JSON object is not an assignment", overrides: []string{`{"model": "large"}`},
			want: []string{`--set #1: "{\"model\": \"large\"}" is not an override: write key=value, key:=json, key+=value or key:+=json`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var defaults modelHost
			defaults.Model = "small"
			defaults.Assistant.Tools = config.Default().Tools
			a := load.App[modelHostPartial, modelHost]{Name: "myapp", Defaults: defaults, Dir: dir,
				Environ:   []string{"MYAPP_CONFIG_HOME=" + filepath.Join(dir, "none")},
				Overrides: tt.overrides, OverrideFlag: "--set"}
			res, err := a.Load(context.Background())
			var got []string
			for _, e := range diag.All(err) {
				got = append(got, e.Error())
				if e.Code == "" {
					t.Errorf("a problem without a code: %v", e)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if res.Config.Model != tt.wantModel {
				t.Errorf("model %q, want %q", res.Config.Model, tt.wantModel)
			}
			ex, err := res.Explain("model")
			if err != nil {
				t.Fatal(err)
			}
			if last := ex.Steps[len(ex.Steps)-1]; last.Name != tt.wantWhy || !strings.Contains(ex.String(), tt.wantWhy) {
				t.Errorf("explained by %q, want %q:\n%s", last.Name, tt.wantWhy, ex)
			}
		})
	}
}
