package discover_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/secret"
)

// TestSignInKeyInUntrustedWorkspace: a machine's private key
// (oauth.private_key_file) that lies in the workspace nobody trusted is
// its content: never read, and the server's start says why; one outside
// it is read.
func TestSignInKeyInUntrustedWorkspace(t *testing.T) {
	ws := t.TempDir()
	inside := filepath.Join(ws, "key.pem")
	if err := os.WriteFile(inside, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(outside, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := func(key string) config.MCPServer {
		return config.MCPServer{URL: secret.Plain("https://mcp.example.com/mcp"), StartupTimeoutSec: 1, ToolTimeoutSec: 1,
			OAuth: &config.OAuth{Grant: config.GrantClientCredentials, ClientID: "c", PrivateKeyFile: key}}
	}
	r := &discover.Resolver{Untrusted: untrusted.New(ws, "")}
	spec := r.Server("m", srv(inside), t.TempDir(), ws)
	if spec.SignInErr == nil || !strings.Contains(spec.SignInErr.Error(), "private key file "+inside+" is in the workspace") {
		t.Errorf("a key in the untrusted workspace: got %v, want it refused", spec.SignInErr)
	}
	spec = r.Server("m", srv(outside), t.TempDir(), ws)
	if spec.SignInErr == nil || strings.Contains(spec.SignInErr.Error(), "workspace") {
		t.Errorf("a key outside it: got %v, want it read (and refused as no key)", spec.SignInErr)
	}
}
