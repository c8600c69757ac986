package strata_test

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/resolve"
)

// TestHostHintsMounted: the hints of a host's problems name its key paths
// (assistant.tools.<name>), whichever step finds them.
func TestHostHintsMounted(t *testing.T) {
	const server = "command = \"MCPFAKE\"\nargs = [\"-tools\", \"1\"]\nexpose = \"all\"\n"
	s := newSetup(t, map[string]string{
		"home/myapp/config.toml": "[assistant.mcp_servers.a]\n" + server + "[assistant.mcp_servers.b]\n" + server +
			"[assistant.tools.ghost]\nrun = \"ask\"\n",
	})
	s.environ = append(s.environ, "MYAPP_CONFIG_HOME="+filepath.Join(s.home, "myapp"))
	w, err := strata.Open[HostPartial](context.Background(), assistantDefaults(),
		strata.Name("myapp"), strata.Mount("assistant"), strata.Dir(s.repo), strata.Environ(s.environ),
		strata.CacheDir(filepath.Join(s.dir, "cache")))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cat, err := w.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	problems := append(diag.Errors(w.Warnings()), cat.Warnings...)
	var codes []diag.Code
	unmounted := regexp.MustCompile(`(^|[^.\w])(tools|mcp_servers|discover)\.`)
	for _, p := range problems {
		codes = append(codes, p.Code)
		if unmounted.MatchString(p.Hint) {
			t.Errorf("a hint names a key path outside the mount: %s", p)
		}
	}
	for _, want := range []diag.Code{diag.CodeNameCollision, diag.CodeNotFound} {
		if !slices.Contains(codes, want) {
			t.Errorf("no problem of code %s among:\n%s", want, problems.Render())
		}
	}
}

// TestHostMountsDiscover: the host of the root Example mounts discover
// beside tools and mcp_servers, so [assistant.discover] finds the tools
// of its directories.
func TestHostMountsDiscover(t *testing.T) {
	s := newSetup(t, map[string]string{
		"home/myapp/config.toml": "[assistant.discover]\ndirs = [\"DIR/tools\"]\n",
		"tools/hello":            "#!/bin/sh\necho '{\"name\":\"hello\",\"description\":\"Hi.\",\"parameters\":{\"type\":\"object\"}}'\n",
	})
	s.environ = append(s.environ, "MYAPP_CONFIG_HOME="+filepath.Join(s.home, "myapp"))
	opts := []strata.Option{strata.Name("myapp"), strata.Mount("assistant"), strata.Dir(s.repo), strata.Environ(s.environ),
		strata.CacheDir(filepath.Join(s.dir, "cache"))}
	if err := strata.Check[HostPartial, Host](opts...); err != nil {
		t.Fatal(err)
	}
	w, err := strata.Open[HostPartial](context.Background(), assistantDefaults(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cat, err := w.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != 1 || cat.Tools[0].Name != "hello" {
		t.Errorf("tools %v, want hello from assistant.discover.dirs", cat.Tools)
	}
}

// TestHostOverrides: a host's --set flags are assignments at its key
// paths, named as the host names them; a user's NONE there drops nothing.
func TestHostOverrides(t *testing.T) {
	s := newSetup(t, map[string]string{"home/myapp/config.toml": "[assistant]\nmodel = \"medium\"\n"})
	s.environ = append(s.environ, "MYAPP_CONFIG_HOME="+filepath.Join(s.home, "myapp"))
	open := func(kv ...string) (*strata.Workspace[HostPartial, Host], error) {
		return strata.Open[HostPartial](context.Background(), assistantDefaults(), strata.Name("myapp"), strata.Mount("assistant"),
			strata.Dir(s.repo), strata.Environ(s.environ), strata.Overrides("--set", kv...))
	}
	w, err := open("assistant.model=large")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := w.Explain("assistant.model")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Config().Assistant.Model; got != "large" || !strings.Contains(ex.String(), "--set #1 (assistant.model=large)") {
		t.Errorf("model %q, explained:\n%s", got, ex)
	}
	w.Close()
	for _, kv := range []string{"NONE", "assistant.tools.grep.rnu=ask"} {
		_, err := open(kv)
		if err == nil || !strings.HasPrefix(err.Error(), "--set #1: ") {
			t.Errorf("--set %s: %v", kv, err)
		}
	}
}

// TestHostLeavesOutside: a host leaves the keys outside its mount to
// itself (or koanf), and names which variables are configuration; inside
// the mount and the prefix, a typo is still an error with a did-you-mean.
func TestHostLeavesOutside(t *testing.T) {
	const hostKeys = "theme = \"dark\"\n[ui]\nfont = \"mono\"\n"
	tests := []struct {
		name    string
		file    string
		environ []string
		want    []string // problems, without the file's directory
		model   string
	}{
		{name: "the host's keys and variables", file: hostKeys + "[assistant.tools.grep]\nrun = \"ask\"\n",
			environ: []string{"MYAPP_API_KEY=sk-1", "MYAPP_CFG_ASSISTANT_MODEL=large"}, model: "large"},
		{name: "a typo in the mount", file: hostKeys + "[assistant.tools.grep]\nrnu = \"ask\"\n",
			want: []string{"config.toml:5:1: assistant.tools.grep.rnu: unknown key; did you mean run?"}},
		{name: "a typo among the variables", file: hostKeys, environ: []string{"MYAPP_API_KEY=sk-1", "MYAPP_CFG_ASSISTANT_MODLE=large"},
			want: []string{"env MYAPP_CFG_ASSISTANT_MODLE: assistant.modle: unknown key; did you mean MYAPP_CFG_ASSISTANT_MODEL (assistant.model)?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t, map[string]string{"home/myapp/config.toml": tt.file})
			environ := append(s.environ, "MYAPP_CONFIG_HOME="+filepath.Join(s.home, "myapp"))
			w, err := strata.Open[HostPartial](context.Background(), assistantDefaults(), strata.Name("myapp"), strata.Mount("assistant"),
				strata.Dir(s.repo), strata.Environ(append(environ, tt.environ...)), strata.LeaveOutside(), strata.EnvPrefix("MYAPP_CFG"))
			var got []string
			for _, e := range diag.All(err) {
				got = append(got, strings.ReplaceAll(e.Error(), filepath.Join(s.home, "myapp")+string(filepath.Separator), ""))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			defer w.Close()
			if got := w.Config().Assistant.Model; got != tt.model {
				t.Errorf("model %q, want %q", got, tt.model)
			}
		})
	}
}

// TestHostEnv: a host that shares its prefix with strata's variables
// declares its own, and strata keeps checking the others; variables are
// read against the host's own tools.
func TestHostEnv(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    []string
		model   string
	}{
		{name: "the host's own and strata's", environ: []string{"MYAPP_API_KEY=sk-1", "MYAPP_PROVIDER_URL=u", "MYAPP_ASSISTANT_MODEL=large"}, model: "large"},
		{name: "a typo of the host's own", environ: []string{"MYAPP_API_KYE=sk-1"},
			want: []string{"env MYAPP_API_KYE: api: unknown key; did you mean MYAPP_API_KEY (the application's own, not a key path)?"}},
		{name: "a typo of strata's", environ: []string{"MYAPP_API_KEY=sk-1", "MYAPP_ASSISTANT_MODLE=large"},
			want: []string{"env MYAPP_ASSISTANT_MODLE: assistant.modle: unknown key; did you mean MYAPP_ASSISTANT_MODEL (assistant.model)?"}},
		{name: "a host's tool of two words", environ: []string{"MYAPP_ASSISTANT_TOOLS_WORD_COUNT_XYZ=1"},
			want: []string{"env MYAPP_ASSISTANT_TOOLS_WORD_COUNT_XYZ: assistant.tools.word_count.xyz: unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t, nil)
			w, err := strata.Open[HostPartial](context.Background(), assistantDefaults(), strata.Name("myapp"), strata.Mount("assistant"),
				strata.Dir(s.repo), strata.Environ(append(s.environ, tt.environ...)), strata.HostEnv("MYAPP_API_KEY", "MYAPP_PROVIDER_*"),
				strata.Builtins(map[string]resolve.Discovered{"word_count": {Name: "word_count"}}, nil))
			var got []string
			for _, e := range diag.All(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			defer w.Close()
			if got := w.Config().Assistant.Model; got != tt.model {
				t.Errorf("model %q, want %q", got, tt.model)
			}
		})
	}
}
