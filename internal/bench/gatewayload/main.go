// Command gatewayload measures strata serve --http against its floor, in
// one run: a tools/call of the reference conformance server (the Go SDK's
// everything-server, over streamable HTTP) straight and through strata
// (which reaches it over HTTP too), alternating; then many concurrent
// sessions through strata, each making calls, with the latencies'
// percentiles, the errors and strata's peak resident memory (VmHWM).
//
//	go build -o /tmp/strata ./cmd/strata
//	go build -o /tmp/reference github.com/modelcontextprotocol/go-sdk/conformance/everything-server
//	go run ./internal/bench/gatewayload -strata /tmp/strata -reference /tmp/reference
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	strataBin := flag.String("strata", "strata", "the strata binary")
	reference := flag.String("reference", "", "the conformance everything-server binary")
	calls := flag.Int("calls", 500, "sequential calls, each way")
	sessions := flag.Int("sessions", 100, "concurrent sessions through strata")
	perSession := flag.Int("per-session", 50, "calls of each session")
	flag.Parse()
	ctx := context.Background()

	dir, err := os.MkdirTemp("", "gatewayload")
	check(err)
	defer os.RemoveAll(dir)
	port := freePort()
	ref := exec.Command(*reference, "-http", "localhost:"+port, "-stateless=false")
	check(ref.Start())
	defer ref.Process.Kill()
	refURL := "http://localhost:" + port + "/mcp"
	waitHTTP(refURL)

	ws := filepath.Join(dir, "ws")
	check(os.MkdirAll(filepath.Join(ws, ".strata"), 0o755))
	check(os.WriteFile(filepath.Join(ws, ".strata", "config.toml"), []byte("[mcp_servers.reference]\nurl = \""+refURL+"\"\nexpose = \"all\"\n"), 0o644))
	st := exec.Command(*strataBin, "serve", "--root", ws, "--trust", "--http", "127.0.0.1:0", "--no-token")
	st.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+dir)
	pipe, err := st.StderrPipe()
	check(err)
	check(st.Start())
	defer func() { st.Process.Signal(syscall.SIGTERM); st.Wait() }()
	strataURL := ""
	lines := bufio.NewScanner(pipe)
	for strataURL == "" && lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "strata: serving MCP on "); ok {
			strataURL = u
		}
	}
	go func() {
		for lines.Scan() {
		}
	}()

	direct := connect(ctx, refURL)
	through := connect(ctx, strataURL)
	var d, s []time.Duration
	call := func(cs *mcp.ClientSession, out *[]time.Duration) {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
		if err != nil || res.IsError {
			log.Fatalf("call: %v %+v", err, res)
		}
		*out = append(*out, time.Since(t0))
	}
	for i := range *calls {
		if i%2 == 0 { // alternate which goes first
			call(direct, &d)
			call(through, &s)
		} else {
			call(through, &s)
			call(direct, &d)
		}
	}
	fmt.Printf("tools/call, %d each way: straight p50 %v p99 %v; through strata p50 %v p99 %v; x-direct (p50) %.2f\n",
		*calls, pct(d, 50), pct(d, 99), pct(s, 50), pct(s, 99), float64(pct(s, 50))/float64(pct(d, 50)))

	for _, target := range []struct{ name, url string }{{"straight", refURL}, {"through strata", strataURL}} {
		var mu sync.Mutex
		var lat []time.Duration
		errs := 0
		var wg sync.WaitGroup
		t0 := time.Now()
		for range *sessions {
			wg.Go(func() {
				cs := connect(ctx, target.url)
				defer cs.Close()
				for range *perSession {
					c0 := time.Now()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
					mu.Lock()
					if err != nil || res.IsError {
						errs++
					} else {
						lat = append(lat, time.Since(c0))
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		fmt.Printf("%d sessions x %d calls %s in %v: p50 %v p99 %v, %d errors; peak RSS: strata %s, reference server %s\n",
			*sessions, *perSession, target.name, time.Since(t0).Round(time.Millisecond), pct(lat, 50), pct(lat, 99), errs, vmHWM(st.Process.Pid), vmHWM(ref.Process.Pid))
	}
}

func connect(ctx context.Context, url string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	check(err)
	return cs
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100].Round(time.Microsecond)
}

func vmHWM(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func waitHTTP(url string) {
	for range 300 {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatalf("%s never answered", url)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
