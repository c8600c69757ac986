package strata_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
)

// TestConfigHome: a host keeps the user's file at its own place, and a
// project below the home directory is not the home directory's
// workspace: with TrustWorkspace the project's directory is trusted, the
// user's file applies once, and nothing is refused.
func TestConfigHome(t *testing.T) {
	s := newSetup(t, map[string]string{
		"home/.myagent/config.toml": "[tools.t]\nsource = \"builtin\"\nsummary = \"user\"\n",
		"home/src/p/notes.txt":      "",
	})
	environ := []string{s.environ[0], "HOME=" + s.home}
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Name("myagent"), strata.ConfigHome("~/.myagent"),
		strata.Dir(filepath.Join(s.home, "src", "p")), strata.Environ(environ), strata.TrustWorkspace())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	user := 0
	for _, l := range w.Loaded().Layers {
		if l.Name == filepath.Join(s.home, ".myagent", "config.toml") {
			user++
		}
	}
	if got := w.Model().Tools["t"].Summary; got != "user" || user != 1 || w.Root() != filepath.Join(s.home, "src", "p") || !w.Trusted() {
		t.Errorf("summary %q, user layers %d, root %s, trusted %v", got, user, w.Root(), w.Trusted())
	}
	// In the home directory itself, trusting it for one run is refused.
	_, err = strata.Open[config.Partial](context.Background(), config.Default(), strata.Name("myagent"), strata.ConfigHome("~/.myagent"),
		strata.Dir(s.home), strata.Environ(environ), strata.TrustWorkspace())
	if !errors.Is(err, diag.CodeRefused) {
		t.Errorf("TrustWorkspace in the home directory: %v", err)
	}
}
