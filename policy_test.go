package strata_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/koanflayer"
	"github.com/strata-config/strata/load"
)

// TestPolicySources: a host's policy from a koanf provider (as etcd's
// would be) clamps as a file does; with Strict, a value outside it fails
// Open; the policy file is watched.
func TestPolicySources(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(user, "strata"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "strata", "config.toml"), []byte("[tools.'*']\nrun = \"unattended\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := koanflayer.FromProvider("org", rawbytes.Provider([]byte("reason = \"SOC2\"\n[tools.'*']\nrun = [\"ask\", \"skip\"]\n")), toml.Parser())
	environ := []string{"HOME=" + user, "STRATA_CONFIG_HOME=" + filepath.Join(user, "strata")}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	policyFile := filepath.Join(dir, "policy.toml") // none yet
	open := func(opts ...strata.Option) (*strata.Workspace[config.Partial, config.Config], error) {
		return strata.Open[config.Partial](context.Background(), config.Default(),
			append([]strata.Option{strata.Dir(work), strata.Environ(environ), strata.PolicySources(src), strata.SystemPolicy(policyFile)}, opts...)...)
	}
	w, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if m, _ := w.Model().Tools[config.EveryTool].Run.Fixed(); m != config.RunAsk {
		t.Errorf("tools.'*'.run = %v, want ask", w.Model().Tools[config.EveryTool].Run)
	}
	if m, _ := w.Config().Tools[config.EveryTool].Run.Fixed(); m != config.RunAsk {
		t.Errorf("the host's config: tools.'*'.run = %v, want ask", w.Config().Tools[config.EveryTool].Run)
	}
	if len(w.Warnings()) != 1 || !errors.Is(w.Warnings()[0], diag.CodeClamped) || !strings.Contains(w.Warnings()[0].Error(), "SOC2") {
		t.Errorf("warnings: %v", w.Warnings())
	}
	if !slices.Contains(w.Watch(), policyFile) {
		t.Errorf("Watch leaves out the policy file %s: %v", policyFile, w.Watch())
	}
	ex, err := w.Explain("tools.'*'.run")
	if err != nil || ex.Steps[len(ex.Steps)-1].Kind != "policy" || !ex.Steps[len(ex.Steps)-1].Wins {
		t.Errorf("Explain: %v %+v", err, ex.Steps)
	}
	if _, err := open(strata.Strict()); !errors.Is(err, diag.CodeClamped) {
		t.Errorf("Strict: %v", err)
	}
	bad := load.HostSource{Name: "etcd", Read: func(context.Context) (map[string]any, error) {
		return map[string]any{"tools": map[string]any{"*": map[string]any{"rnu": []any{"ask"}}}}, nil
	}}
	if _, err := open(strata.PolicySources(bad)); err == nil || !strings.Contains(err.Error(), "policy etcd") {
		t.Errorf("a bad policy source: %v", err)
	}
}
