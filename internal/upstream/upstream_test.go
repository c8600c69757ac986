package upstream_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/secret"
)

// TestStartRefusesWorkspaceContent: Start is the last guard of every MCP
// server's start: a launch whose script or directory lies in the
// untrusted workspace does not run, however the Server was made.
func TestStartRefusesWorkspaceContent(t *testing.T) {
	dir := t.TempDir()
	ws, elsewhere := filepath.Join(dir, "ws"), filepath.Join(dir, "elsewhere")
	for _, d := range []string{ws, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(dir, "ran")
	if err := os.WriteFile(filepath.Join(ws, "server.sh"), []byte("touch "+marker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec upstream.Server
	}{
		{"its script", upstream.Server{Name: "s", Command: secret.Plain("/bin/sh"), Args: secret.Plains(filepath.Join(ws, "server.sh")), Dir: elsewhere}},
		{"its directory", upstream.Server{Name: "s", Command: secret.Plain("/bin/sh"), Args: secret.Plains("-c", ". ./server.sh"), Dir: ws}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Startup, tt.spec.ToolTimeout = time.Minute, time.Minute
			tt.spec.Untrusted = untrusted.New(ws, "")
			_, err := upstream.Start(context.Background(), tt.spec, nil)
			var r *untrusted.Refused
			if !errors.As(err, &r) {
				t.Errorf("err = %v, want a refusal", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the workspace's script ran")
			}
		})
	}
}
