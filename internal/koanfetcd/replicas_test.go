package koanfetcd

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/knadh/koanf/providers/etcd/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/koanflayer"
	"github.com/strata-config/strata/serve"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// replica is one strata serve --http of a team's, as a host program runs
// it: its organisation layer read from etcd through koanflayer, its own
// cache, its own port.
type replica struct {
	url     string
	changed chan struct{} // the client's notifications/tools/list_changed
	client  *mcp.ClientSession
}

// startReplica serves the workspace dir with the organisation layer under
// org/ in the etcd at url, over HTTP on a free loopback port, until the
// test ends, and connects a client to it.
func startReplica(t *testing.T, url, dir string, environ []string) *replica {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	provider, err := etcd.Provider(etcd.Config{Endpoints: []string{url}, DialTimeout: 10 * time.Second, Prefix: true, Key: "org/"})
	if err != nil {
		t.Fatal(err)
	}
	src := koanflayer.FromProvider("etcd://"+strings.TrimPrefix(url, "http://")+"/org", provider, nil,
		koanflayer.Unflatten("/"), koanflayer.Cut("org"), koanflayer.Text())
	w, err := strata.Open[config.Partial](ctx, config.Default(), strata.Sources(src), strata.Dir(dir),
		strata.Environ(environ), strata.CacheDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		served <- w.ServeHTTP(ctx, ln, serve.HTTP{NoToken: true}, func(err error) { t.Logf("replica on %s: %v", ln.Addr(), err) })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("replica on %s: %v", ln.Addr(), err)
		}
		w.Close()
	})
	r := &replica{url: "http://" + ln.Addr().String() + "/mcp", changed: make(chan struct{}, 10)}
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { r.changed <- struct{}{} }}
	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	defer ccancel()
	r.client, err = mcp.NewClient(&mcp.Implementation{Name: "replica-test", Version: "1"}, opts).
		Connect(cctx, &mcp.StreamableClientTransport{Endpoint: r.url, HTTPClient: &http.Client{}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.client.Close() })
	return r
}

// served is what a replica serves: its catalog's fingerprint and its tools.
type served struct {
	Fingerprint string
	Tools       []*mcp.Tool
}

func (r *replica) list(t *testing.T) served {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := r.client.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := res.Meta["strata/fingerprint"].(string)
	return served{Fingerprint: fp, Tools: res.Tools}
}

// TestReplicasShareEtcdLayer: a team runs strata serve --http as several
// replicas behind a load balancer, each a host program whose organisation
// layer is the same etcd prefix (koanflayer.FromProvider of koanf's etcd
// provider). They serve the same catalog (the same fingerprint, the same
// tools/list); after a key under the prefix changes, each tells its client
// the list changed (koanf's etcd watch, a HostSource's Watch) and both
// serve the new catalog, again the same.
func TestReplicasShareEtcdLayer(t *testing.T) {
	url := startEtcd(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	tools := t.TempDir()
	describe := `#!/bin/sh
[ "$1" = --describe ] && echo '{"name":"hello","description":"Say hello.","parameters":{"type":"object","properties":{"name":{"type":"string"}}}}'
`
	if err := os.WriteFile(filepath.Join(tools, "hello"), []byte(describe), 0o755); err != nil {
		t.Fatal(err)
	}
	put(t, cli,
		"org/discover/dirs", tools,
		"org/tools/hello/description", "Say hello, the first edition.",
	)
	environ := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	a := startReplica(t, url, t.TempDir(), environ)
	b := startReplica(t, url, t.TempDir(), environ)

	before := a.list(t)
	if len(before.Tools) != 1 || before.Tools[0].Description != "Say hello, the first edition." || before.Fingerprint == "" {
		t.Fatalf("replica a serves %+v, want the tool hello described by etcd, and a fingerprint", before)
	}
	if diff := cmp.Diff(before, b.list(t)); diff != "" {
		t.Fatalf("the replicas serve different catalogs (-a +b):\n%s", diff)
	}

	put(t, cli, "org/tools/hello/description", "Say hello, the second edition.")
	// Each replica tells its client, once it has resolved again (a bound
	// against hanging, not a measure).
	wait, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for name, r := range map[string]*replica{"a": a, "b": b} {
		select {
		case <-r.changed:
		case <-wait.Done():
			t.Fatalf("replica %s did not say its tools changed after the etcd key did", name)
		}
	}
	after := a.list(t)
	if len(after.Tools) != 1 || after.Tools[0].Description != "Say hello, the second edition." {
		t.Fatalf("replica a serves %+v after the change, want the second edition", after)
	}
	if after.Fingerprint == before.Fingerprint {
		t.Errorf("the fingerprint stayed %s after the catalog changed", after.Fingerprint)
	}
	if diff := cmp.Diff(after, b.list(t)); diff != "" {
		t.Errorf("after the change, the replicas serve different catalogs (-a +b):\n%s", diff)
	}
}
