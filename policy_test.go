package strata_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/koanflayer"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/resolve"
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

// TestPolicyLeftOutServerCall: a call of a tool of a server a policy
// left out decides left-out and names the policy's place and reason (the
// server never starts: the tool is known to be its by the config's
// source or the server's name scheme); a name no server has stays
// unknown.
func TestPolicyLeftOutServerCall(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(user, "strata"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[mcp_servers.everything]\ncommand = \"/nonexistent/everything\"\ntool_names = \"{server}__{tool}\"\n" +
		"[tools.echo]\nsource = \"mcp.everything\"\n"
	if err := os.WriteFile(filepath.Join(user, "strata", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte("reason = \"vendor review\"\n[servers]\nallow = []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	environ := []string{"HOME=" + user, "STRATA_CONFIG_HOME=" + filepath.Join(user, "strata")}
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(work), strata.Environ(environ), strata.Policies(pol))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range []struct {
		name, tool string
		want       call.Verdict
	}{
		{"by the config's source", "echo", call.VerdictLeftOut},
		{"by the name scheme", "everything__add", call.VerdictLeftOut},
		{"no server's", "nothing_at_all", call.VerdictUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := w.Decide(context.Background(), tc.tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Outcome != tc.want {
				t.Fatalf("outcome = %s, want %s: %s", d.Outcome, tc.want, d.Message)
			}
			if tc.want != call.VerdictLeftOut {
				return
			}
			if d.Code != diag.CodeClamped || d.Server != "everything" || !strings.Contains(d.Message, pol+":") || !strings.Contains(d.Message, "vendor review") {
				t.Errorf("decision: code %s, server %q, message %q", d.Code, d.Server, d.Message)
			}
			if len(d.Reasons) != 1 || d.Reasons[0].Kind != "policy" || !strings.HasPrefix(d.Reasons[0].At, pol+":") {
				t.Errorf("reasons: %+v", d.Reasons)
			}
		})
	}

	// strata serve answers the call with the same, as a tool error.
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- w.Serve(ctx, inR, outW, func(err error) { t.Log(err) }); outW.Close() }()
	defer func() { cancel(); inW.Close(); <-done }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "policy-test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, pol+":") || !strings.Contains(text, "vendor review") {
		t.Errorf("serve: isError %v, %s", res.IsError, text)
	}
}

// watchedPolicy is a koanf provider that watches, as etcd's does: its
// text is what it reads, and changed tells its watcher.
type watchedPolicy struct {
	mu      sync.Mutex
	text    string
	changed func(event any, err error)
}

func (p *watchedPolicy) ReadBytes() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return []byte(p.text), nil
}

func (p *watchedPolicy) Read() (map[string]any, error) { return nil, errors.New("not a map") }

func (p *watchedPolicy) Watch(cb func(event any, err error)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.changed = cb
	return nil
}

func (p *watchedPolicy) watched() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed != nil
}

func (p *watchedPolicy) set(text string) {
	p.mu.Lock()
	p.text = text
	cb := p.changed
	p.mu.Unlock()
	cb(nil, nil)
}

// TestPolicySourceWatch: strata serve clamps again when a policy source
// that watches (etcd's, through koanflayer.FromProvider) says its policy
// changed, as it does when a policy file changes.
func TestPolicySourceWatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(user, "strata"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "strata", "config.toml"), []byte("[tools.snap]\nsource = \"builtin\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	environ := []string{"HOME=" + user, "STRATA_CONFIG_HOME=" + filepath.Join(user, "strata")}
	prov := &watchedPolicy{text: "reason = \"SOC2\"\n"}
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(work), strata.Environ(environ),
		strata.PolicySources(koanflayer.FromProvider("org", prov, toml.Parser())),
		strata.Builtins(map[string]resolve.Discovered{"snap": {Name: "snap", Description: "A builtin snapshot."}}, snapshotBuiltin))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- w.Serve(ctx, inR, outW, func(err error) { t.Log(err) }); outW.Close() }()
	defer func() { cancel(); inW.Close(); <-done }()
	listChanged := make(chan struct{}, 1)
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case listChanged <- struct{}{}:
		default:
		}
	}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "policy-test", Version: "1"}, opts).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := func() []string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	if got := names(); !slices.Contains(got, "snap") {
		t.Fatalf("tools %v, want snap", got)
	}
	if !prov.watched() {
		t.Fatal("serve does not watch the policy source")
	}
	prov.set("reason = \"SOC2\"\ndeny_tools = [\"snap\"]\n")
	<-listChanged
	if got := names(); slices.Contains(got, "snap") {
		t.Errorf("tools %v after the policy source denied snap", got)
	}
}
