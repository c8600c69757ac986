package strata_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
)

// envspy is an MCP server that records the variables a user's shell
// would have given it, then runs mcpfake.
const envspy = "#!/bin/sh\necho \"$NAME token=$GITHUB_TOKEN oldpwd=$OLDPWD\" >> DIR/env.log\nexec MCPFAKE -tools 1\n"

// envtool is a --describe tool that prints the same.
const envtool = "#!/bin/sh\nif [ \"$1\" = --describe ]; then echo \"describe token=$GITHUB_TOKEN\" >> DIR/env.log; echo '{\"name\":\"envtool\",\"description\":\"Print the token.\",\"parameters\":{\"type\":\"object\"}}'; exit; fi\necho \"token=$GITHUB_TOKEN oldpwd=$OLDPWD\"\n"

// TestInheritEnv: a server or tool inherits the whole environment when
// its env_vars say "*" or the host says so for all (InheritEnv), else the
// base set and what it names; the shell's directories never; the values
// inherited decide the cache's answers, and are never written.
func TestInheritEnv(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{
		"bin/envspy":    envspy,
		"tools/envtool": envtool,
		"home/strata/config.toml": `
[tools.'*']
run = "unattended"
[discover]
dirs = ["DIR/tools"]
[mcp_servers.base]
command = "DIR/bin/envspy"
env = { NAME = "base" }
[mcp_servers.all]
command = "DIR/bin/envspy"
env = { NAME = "all" }
env_vars = ["*"]
`,
	})
	cache := filepath.Join(s.dir, "cache")
	open := func(token string, opts ...strata.Option) *strata.Workspace[config.Partial, config.Config] {
		t.Helper()
		environ := append(slices.Clone(s.environ), "GITHUB_TOKEN="+token, "OLDPWD="+s.repo)
		w, err := strata.Open[config.Partial](context.Background(), config.Default(),
			append([]strata.Option{strata.Dir(s.repo), strata.Environ(environ), strata.TrustStore(s.store), strata.CacheDir(cache)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		return w
	}
	resolve := func(w *strata.Workspace[config.Partial, config.Config]) string {
		t.Helper()
		if _, err := w.Resolve(context.Background()); err != nil {
			t.Fatal(err)
		}
		res, err := w.Call(context.Background(), "envtool", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(res.Content)
	}
	log := func() string { return readFile(t, filepath.Join(s.dir, "env.log")) }

	if got := resolve(open("ghp-1")); got != "token= oldpwd=" {
		t.Errorf("a tool without env_vars got %q", got)
	}
	if want := "all token=ghp-1 oldpwd=\nbase token= oldpwd=\ndescribe token=\n"; sortedLines(log()) != want {
		t.Errorf("servers started with:\n%s\nwant:\n%s", log(), want)
	}
	// Cached: the server that inherits nothing of the token is not asked
	// again when the token changes; the one that inherits it all is.
	resolve(open("ghp-2"))
	if want := "all token=ghp-1 oldpwd=\nall token=ghp-2 oldpwd=\nbase token= oldpwd=\ndescribe token=\n"; sortedLines(log()) != want {
		t.Errorf("servers started with:\n%s\nwant:\n%s", log(), want)
	}
	// The host's choice: every program inherits everything.
	w := open("ghp-3", strata.InheritEnv())
	if got := resolve(w); got != "token=ghp-3 oldpwd=" {
		t.Errorf("with InheritEnv, a tool got %q", got)
	}
	if !strings.Contains(log(), "base token=ghp-3 oldpwd=\n") || !strings.Contains(log(), "describe token=ghp-3\n") {
		t.Errorf("with InheritEnv, programs started with:\n%s", log())
	}
	// What a tool described inheriting everything depends on the values.
	resolve(open("ghp-4", strata.InheritEnv()))
	if !strings.Contains(log(), "describe token=ghp-4\n") {
		t.Errorf("with InheritEnv and another token, the cached description was used:\n%s", log())
	}
	// A pin of the launch names what it inherits, never a value.
	for _, key := range []string{"mcp_servers.all", "mcp_servers.base", "tools.envtool"} {
		l, err := w.Launch(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		p, err := l.Pin()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(p.Env, "*") {
			t.Errorf("the pin of %s: env %v", key, p.Env)
		}
	}
	// Nothing written holds a value inherited.
	filepath.WalkDir(cache, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(readFile(t, path), "ghp-") {
			t.Errorf("%s holds a token", path)
		}
		return nil
	})
}

// sortedLines sorts the lines of s, for logs that servers started in
// parallel write.
func sortedLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}
