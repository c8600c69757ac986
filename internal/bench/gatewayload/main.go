// Command gatewayload measures strata serve --http against its floors, in
// one run: a tools/call of the reference conformance server (the Go SDK's
// everything-server, over streamable HTTP) straight, through a bare proxy
// and through strata (which reaches it over HTTP too), in turn; then many
// concurrent sessions each way, each making calls, with the latencies'
// percentiles, the errors and the peak resident memory (VmHWM) of strata,
// the bare proxy and the reference server.
//
// The bare proxy is this program run with -proxy: the Go SDK's server
// over streamable HTTP whose tools are the reference server's, each
// handler a call of the SDK's client to it, and nothing else. It is what
// one hop costs with the SDK on both sides: the floor of a gateway.
//
//	go build -o /tmp/strata ./cmd/strata
//	go build -o /tmp/reference github.com/modelcontextprotocol/go-sdk/conformance/everything-server
//	go run ./internal/bench/gatewayload -strata /tmp/strata -reference /tmp/reference
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/bench"
)

func main() {
	strataBin := flag.String("strata", "strata", "the strata binary")
	reference := flag.String("reference", "", "the conformance everything-server binary")
	calls := flag.Int("calls", 500, "sequential calls, each way")
	sessions := flag.Int("sessions", 100, "concurrent sessions through strata")
	perSession := flag.Int("per-session", 50, "calls of each session")
	proxyOf := flag.String("proxy", "", "serve as the bare proxy of this MCP endpoint (the floor), and print its URL")
	flag.Parse()
	ctx := context.Background()
	if *proxyOf != "" {
		bareProxy(ctx, *proxyOf)
		return
	}

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
	// The load's clients ask no user: its tools run unattended (the
	// default, run = "ask", would refuse them, as they declare no
	// elicitation).
	check(os.WriteFile(filepath.Join(ws, ".strata", "config.toml"), []byte("[mcp_servers.reference]\nurl = \""+refURL+"\"\nexpose = \"all\"\n\n[tools.\"*\"]\nrun = \"unattended\"\n"), 0o644))
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

	self, err := os.Executable()
	check(err)
	bare := exec.Command(self, "-proxy", refURL)
	out, err := bare.StdoutPipe()
	check(err)
	check(bare.Start())
	defer bare.Process.Kill()
	bareLine := bufio.NewScanner(out)
	if !bareLine.Scan() {
		log.Fatal("the bare proxy did not start")
	}
	bareURL := bareLine.Text()

	direct := connect(ctx, refURL)
	viaBare := connect(ctx, bareURL)
	through := connect(ctx, strataURL)
	var d, b, s []time.Duration
	call := func(cs *mcp.ClientSession, out *[]time.Duration) {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
		if err != nil || res.IsError {
			log.Fatalf("call: %v %+v", err, res)
		}
		*out = append(*out, time.Since(t0))
	}
	order := []func(){
		func() { call(direct, &d) },
		func() { call(viaBare, &b) },
		func() { call(through, &s) },
	}
	cpu0 := []time.Duration{cpuTime(ref.Process.Pid), cpuTime(bare.Process.Pid), cpuTime(st.Process.Pid)}
	for i := range *calls {
		for j := range order { // each goes first in turn
			order[(i+j)%len(order)]()
		}
	}
	fmt.Printf("tools/call, %d each way: straight p50 %v p99 %v; bare proxy p50 %v p99 %v; through strata p50 %v p99 %v; x-direct (p50) %.2f, x-bare (p50) %.2f\n",
		*calls, bench.Percentile(d, 50), bench.Percentile(d, 99), bench.Percentile(b, 50), bench.Percentile(b, 99), bench.Percentile(s, 50), bench.Percentile(s, 99),
		float64(bench.Percentile(s, 50))/float64(bench.Percentile(d, 50)), float64(bench.Percentile(s, 50))/float64(bench.Percentile(b, 50)))
	perCall := func(pid int, before time.Duration) time.Duration {
		return ((cpuTime(pid) - before) / time.Duration(*calls)).Round(time.Microsecond)
	}
	// The reference server answered every call three times: straight, and
	// for each proxy.
	fmt.Printf("CPU per call: reference server %v (its share of each way), bare proxy %v, strata %v\n",
		perCall(ref.Process.Pid, cpu0[0])/3, perCall(bare.Process.Pid, cpu0[1]), perCall(st.Process.Pid, cpu0[2]))

	if *sessions == 0 {
		return
	}
	for _, target := range []struct{ name, url string }{{"straight", refURL}, {"bare proxy", bareURL}, {"through strata", strataURL}} {
		var mu sync.Mutex
		var lat []time.Duration
		errs := 0
		var wg sync.WaitGroup
		closed0 := timeWaits(port)
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
		fmt.Printf("%d sessions x %d calls %s in %v: p50 %v p99 %v, %d errors; connections to the reference server closed by their client: %d; peak RSS: strata %s, bare proxy %s, reference server %s\n",
			*sessions, *perSession, target.name, time.Since(t0).Round(time.Millisecond), bench.Percentile(lat, 50), bench.Percentile(lat, 99), errs, timeWaits(port)-closed0,
			bench.Status(st.Process.Pid, "VmHWM"), bench.Status(bare.Process.Pid, "VmHWM"), bench.Status(ref.Process.Pid, "VmHWM"))
	}
}

// bareProxy serves the tools of the MCP endpoint upstream over streamable
// HTTP on a port of 127.0.0.1, each call relayed with one session of the
// SDK's client, and prints its URL.
func bareProxy(ctx context.Context, upstream string) {
	up := connect(ctx, upstream)
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	tools, err := up.ListTools(ctx, nil)
	check(err)
	for _, t := range tools.Tools {
		srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return up.CallTool(ctx, &mcp.CallToolParams{Meta: req.Params.Meta, Name: req.Params.Name, Arguments: req.Params.Arguments})
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
}

func connect(ctx context.Context, url string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	check(err)
	return cs
}

// cpuTime is the CPU time (user and system) the process pid has taken.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	check(err)
	// The fields after the command's name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, err := strconv.ParseInt(f[11], 10, 64)
	check(err)
	stime, err := strconv.ParseInt(f[12], 10, 64)
	check(err)
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// timeWaits counts the TCP connections to port on this machine that their
// client closed within the last minute (in TIME_WAIT, on the client's
// side): a client that keeps its connections open adds none.
func timeWaits(port string) int {
	p, err := strconv.Atoi(port)
	check(err)
	hexPort := fmt.Sprintf(":%04X", p)
	n := 0
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st ...; TIME_WAIT is 06.
			if fs := strings.Fields(l); len(fs) > 3 && strings.HasSuffix(fs[2], hexPort) && fs[3] == "06" {
				n++
			}
		}
	}
	return n
}

// clockTicks is the unit of the CPU times of /proc/PID/stat (USER_HZ,
// 100 on Linux everywhere).
const clockTicks = 100

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
