package koanfetcd

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/knadh/koanf/providers/etcd/v2"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/koanflayer"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// startEtcd runs an etcd server on free loopback ports until the test
// ends, and returns its client URL once it answers.
func startEtcd(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		if os.Getenv("REQUIRE_ETCD") != "" {
			t.Fatalf("REQUIRE_ETCD is set and there is no etcd on PATH (apt-get install etcd-server): %v", err)
		}
		t.Skip("no etcd on PATH (Debian: apt-get install etcd-server)")
	}
	// A port found free may be taken before etcd binds it: try again with
	// others, a few times.
	var lastErr error
	for range 3 {
		url, err := runEtcd(t, bin)
		if err == nil {
			return url
		}
		lastErr = err
	}
	t.Fatal(lastErr)
	return ""
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func runEtcd(t *testing.T, bin string) (string, error) {
	client := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	peer := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin,
		"--name", "strata-test", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "strata-test="+peer,
		"--logger", "zap", "--log-level", "warn")
	out, err := os.Create(filepath.Join(t.TempDir(), "etcd.log"))
	if err != nil {
		return "", err
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	logged := func() string {
		b, _ := os.ReadFile(out.Name())
		return string(b)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}

	// Poll its health endpoint until it answers, etcd exits, or a minute
	// passes (a bound against hanging, not a measure of anything).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, client+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return client, nil
			}
		}
		select {
		case err := <-exited:
			return "", fmt.Errorf("etcd exited before answering (%v):\n%s", err, logged())
		case <-ctx.Done():
			stop()
			return "", fmt.Errorf("etcd did not answer on %s:\n%s", client, logged())
		case <-tick.C:
		}
	}
}

func put(t *testing.T, cli *clientv3.Client, kv ...string) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		if _, err := cli.Put(context.Background(), kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOrganisationDefaultsInEtcd: an organisation keeps its defaults in
// etcd, one key per setting under org/; koanf's etcd provider reads them
// as a layer above the defaults and below the user's files, read again
// on every load, explained and checked as a file would be.
func TestOrganisationDefaultsInEtcd(t *testing.T) {
	url := startEtcd(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	put(t, cli,
		"org/tools/grep/source", "local",
		"org/tools/grep/command", "rg --json",
		"org/tools/grep/run", "ask",
		"org/tools/grep/enable", "false",
		"org/tools/*/result", "ask",
		"other/ignored", "x",
	)

	provider, err := etcd.Provider(etcd.Config{Endpoints: []string{url}, DialTimeout: 10 * time.Second, Prefix: true, Key: "org/"})
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(url, "http://")
	src := koanflayer.FromProvider("etcd://"+name+"/org", provider, nil,
		koanflayer.Unflatten("/"), koanflayer.Cut("org"), koanflayer.Text())

	// The user's own file overrides the organisation's defaults.
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[tools.grep]\nenable = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() (*strata.Workspace[config.Partial, config.Config], error) {
		return strata.Open[config.Partial](context.Background(), config.Default(), strata.Sources(src),
			strata.Dir(t.TempDir()), strata.Environ([]string{"STRATA_CONFIG_HOME=" + home}))
	}
	w, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	explain := func(key string) string {
		ex, err := w.Explain(key)
		if err != nil {
			t.Fatal(err)
		}
		return ex.String()
	}
	want := `tools.grep.run = "ask"
  koanf     etcd://` + name + `/org (etcd): set "ask"  <- wins
`
	if diff := cmp.Diff(want, explain("tools.grep.run")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	want = `tools.grep.enable = { state = true, allow_toggle = "any" }
  koanf     etcd://` + name + `/org (etcd): set { state = false, allow_toggle = "any" }
  user      ` + filepath.Join(home, "config.toml") + `:2:1: set { state = true, allow_toggle = "any" }  <- wins
`
	if diff := cmp.Diff(want, explain("tools.grep.enable")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	grep, _ := w.Model().Tools.Effective("grep")
	if got := []any{grep.Tool.Command.Program, grep.Result(), grep.Enabled()}; !cmp.Equal(got, []any{"rg", config.ResultAsk, true}) {
		t.Errorf("program, result, enabled = %v", got)
	}

	// A change in etcd shows on the next load; a mistake is the
	// provider's, with a did-you-mean.
	put(t, cli, "org/tools/grep/run", "unattended", "org/tools/grep/rnu", "ask")
	_, err = open()
	wantErr := "koanf etcd://" + name + "/org (etcd): tools.grep.rnu: unknown key; did you mean run?"
	if got := diag.All(err); len(got) != 1 || got[0].Error() != wantErr {
		t.Errorf("\n got: %v\nwant: %s", err, wantErr)
	}
	if _, err := cli.Delete(context.Background(), "org/tools/grep/rnu"); err != nil {
		t.Fatal(err)
	}
	if w, err = open(); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got, _ := w.Model().Tools.Effective("grep"); got.Run() != config.RunUnattended {
		t.Errorf("run = %q after the change in etcd, want unattended", got.Run())
	}
}
