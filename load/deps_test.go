package load_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLoaderBuildsNoKoanf: the loader, and the root package hosts open
// workspaces with, build neither koanf nor fsnotify (koanf's file
// watcher): only hosts that import package koanflayer build koanf.
func TestLoaderBuildsNoKoanf(t *testing.T) {
	// go test puts its own go first on PATH.
	tests := []struct {
		pkg       string
		forbidden []string
	}{
		{"github.com/strata-config/strata/load", []string{"github.com/knadh/koanf", "github.com/fsnotify/fsnotify"}},
		{"github.com/strata-config/strata", []string{"github.com/knadh/koanf"}},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tt.pkg, err)
			}
			var found []string
			for _, dep := range strings.Fields(string(out)) {
				for _, f := range tt.forbidden {
					if dep == f || strings.HasPrefix(dep, f+"/") {
						found = append(found, dep)
					}
				}
			}
			if len(found) > 0 {
				t.Errorf("%s builds %s", tt.pkg, strings.Join(found, ", "))
			}
		})
	}
}
