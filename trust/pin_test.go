package trust_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/trust"
)

const (
	secretEnv = "ghp_env0123456789secret"
	secretArg = "sk-arg0123456789secret"
)

// secretLaunch is a launch whose environment and arguments hold secrets:
// a token the config sets (from a VS Code password input, say) and an API
// key passed as an argument.
func secretLaunch(t *testing.T) trust.Launch {
	t.Helper()
	dir := t.TempDir()
	prog := filepath.Join(dir, "server")
	if err := os.WriteFile(prog, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	return trust.Launch{
		Program: prog,
		Args:    []string{"--api-key", secretArg},
		Env:     trust.LaunchEnv(map[string]string{"GITHUB_TOKEN": secretEnv, "LOG": "1"}, []string{"HOME_TOKEN"}),
		Dir:     dir,
	}
}

// TestPinHoldsNoSecret: the trust list a pin is written to holds no value
// of the launch's environment and no argument, only their hashes; the pin
// still holds the launch.
func TestPinHoldsNoSecret(t *testing.T) {
	launch := secretLaunch(t)
	pin, err := launch.Pin()
	if err != nil {
		t.Fatal(err)
	}
	s := &trust.Store{Path: filepath.Join(t.TempDir(), trust.File)}
	if err := s.Update(func(l *trust.List) error { l.Pins = map[string]trust.Pin{"mcp_servers.gh": pin}; return nil }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{secretEnv, secretArg} {
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds %s:\n%s", trust.File, secret, b)
		}
	}
	if !strings.Contains(string(b), `"GITHUB_TOKEN=sha256:`) || !strings.Contains(string(b), `"HOME_TOKEN"`) {
		t.Errorf("%s does not name the variables:\n%s", trust.File, b)
	}
	l, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Pins["mcp_servers.gh"].Check(launch); err != nil {
		t.Errorf("the pin read back does not hold its launch: %v", err)
	}
}

// TestPinCheckSaysWhatChanged: a pin of hashes still says which variable
// or argument changed.
func TestPinCheckSaysWhatChanged(t *testing.T) {
	launch := secretLaunch(t)
	pin, err := launch.Pin()
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(l *trust.Launch)) trust.Launch {
		l := launch
		l.Args = append([]string(nil), launch.Args...)
		f(&l)
		return l
	}
	tests := []struct {
		name   string
		launch trust.Launch
		want   string
	}{
		{"the same launch", launch, ""},
		{"a value changed", with(func(l *trust.Launch) {
			l.Env = trust.LaunchEnv(map[string]string{"GITHUB_TOKEN": "other", "LOG": "1"}, []string{"HOME_TOKEN"})
		}), "its environment differs: GITHUB_TOKEN changed"},
		{"a variable added and one gone", with(func(l *trust.Launch) {
			l.Env = trust.LaunchEnv(map[string]string{"GITHUB_TOKEN": secretEnv, "LOG": "1", "NODE_OPTIONS": "--require=x"}, nil)
		}), "its environment differs: HOME_TOKEN is gone; NODE_OPTIONS is new"},
		{"inherited instead of set", with(func(l *trust.Launch) {
			l.Env = trust.LaunchEnv(map[string]string{"LOG": "1"}, []string{"GITHUB_TOKEN", "HOME_TOKEN"})
		}), "its environment differs: GITHUB_TOKEN changed"},
		{"an argument changed", with(func(l *trust.Launch) { l.Args[1] = "other" }), "its arguments differ: argument 2 changed"},
		{"an argument added", with(func(l *trust.Launch) { l.Args = append(l.Args, "--x") }), "its arguments differ: 3 arguments, pinned 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pin.Check(tt.launch)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check = %v", err)
			case tt.want != "" && err == nil:
				t.Errorf("Check passed, want %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
			if err != nil && (strings.Contains(err.Error(), secretEnv) || strings.Contains(err.Error(), secretArg)) {
				t.Errorf("the message shows a secret: %v", err)
			}
		})
	}
	// A pin edited by hand (here, an argument's hash replaced) no longer
	// matches its own identity: it is refused as such.
	edited := pin
	edited.Args = []string{pin.Args[0], pin.Args[0]}
	if err := edited.Check(launch); err == nil || !strings.Contains(err.Error(), "pin again") {
		t.Errorf("an edited pin: %v", err)
	}
}

// legacyIdentity is the identity of a pin as strata wrote it before pins
// held hashes: the SHA-256 of the JSON array of its fields, the
// environment and arguments in clear.
func legacyIdentity(program string, args, env []string, dir string, files map[string]string) string {
	var fs []string
	for f, sum := range files {
		fs = append(fs, f+"="+sum)
	}
	sort.Strings(fs)
	b, _ := json.Marshal([]any{program, args, env, dir, fs})
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestLegacyPinRewritten: a trust list written before pins held hashes,
// with a secret in clear, still holds its launch (compared by hashing),
// and the first read rewrites it without the secret.
func TestLegacyPinRewritten(t *testing.T) {
	launch := secretLaunch(t)
	sum := sha256.Sum256([]byte("v1"))
	files := map[string]string{launch.Program: "sha256:" + hex.EncodeToString(sum[:])}
	id := legacyIdentity(launch.Program, launch.Args, launch.Env, launch.Dir, files)
	q := func(ss []string) string { b, _ := json.Marshal(ss); return string(b) }
	old := fmt.Sprintf(`workspaces = []

[pins."mcp_servers.gh"]
launch = %q
program = %q
args = %s
env = %s
dir = %q
files = { %q = %q }
`, id, launch.Program, q(launch.Args), q(launch.Env), launch.Dir, launch.Program, files[launch.Program])
	s := &trust.Store{Path: filepath.Join(t.TempDir(), trust.File)}
	if err := os.WriteFile(s.Path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Pins["mcp_servers.gh"].Check(launch); err != nil {
		t.Errorf("the legacy pin does not hold its launch: %v", err)
	}
	changed := launch
	changed.Env = trust.LaunchEnv(map[string]string{"GITHUB_TOKEN": "other", "LOG": "1"}, []string{"HOME_TOKEN"})
	if err := l.Pins["mcp_servers.gh"].Check(changed); err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN changed") {
		t.Errorf("the legacy pin of a changed launch: %v", err)
	}
	b, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{secretEnv, secretArg} {
		if strings.Contains(string(b), secret) {
			t.Errorf("after a read, %s still holds %s:\n%s", trust.File, secret, b)
		}
	}
	again, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l, again); diff != "" {
		t.Errorf("the rewritten list (-want +got):\n%s", diff)
	}
}
