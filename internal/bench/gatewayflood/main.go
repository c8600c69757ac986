// Command gatewayflood measures what clients that hold connections or
// open sessions cost strata serve --http, and what the client with the
// token meets meanwhile: the descriptors and the resident memory of the
// strata process, and the latency (p50, p95) of a tools/call of the real
// client (an mcpfake tool relayed by strata), in three phases:
//
//   - quiet: the real client alone;
//   - idle: -conns connections without the token, opened and held (a
//     third refused with 401 and kept open by their client, a third
//     sending half a request, a third nothing);
//   - reopened: the same, each one strata closes opened again at once;
//   - sessions: -huge initializes whose client name is -name bytes,
//     -workers at a time, then -sessions with short names (each
//     initialized), while the real client calls;
//   - after: the real client alone again.
//
// Run under a descriptor limit with -nofile (the strata process runs
// under `ulimit -n`):
//
//	go build -o /tmp/strata ./cmd/strata
//	go build -o /tmp/mcpfake ./fixtures/mcpfake
//	go run ./internal/bench/gatewayflood -strata /tmp/strata -mcpfake /tmp/mcpfake
//	go run ./internal/bench/gatewayflood -strata /tmp/strata -mcpfake /tmp/mcpfake -nofile 256
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/bench"
)

func main() {
	strataBin := flag.String("strata", "strata", "the strata binary")
	mcpfake := flag.String("mcpfake", "mcpfake", "the mcpfake binary (fixtures/mcpfake)")
	nofile := flag.Int("nofile", 0, "run strata under ulimit -n NOFILE (0: as this process)")
	conns := flag.Int("conns", 1000, "connections without the token held open")
	huge := flag.Int("huge", 1000, "initializes with a huge client name")
	sessions := flag.Int("sessions", 2000, "sessions opened after them")
	name := flag.Int("name", 1<<20, "the bytes of the huge client names")
	workers := flag.Int("workers", 8, "concurrent initializes")
	calls := flag.Int("calls", 200, "calls of the real client in each phase")
	callTimeout := flag.Duration("call-timeout", 30*time.Second, "a call of the real client that takes longer fails")
	flag.Parse()

	dir, err := os.MkdirTemp("", "gatewayflood")
	check(err)
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "ws")
	check(os.MkdirAll(filepath.Join(ws, ".strata"), 0o755))
	check(os.WriteFile(filepath.Join(ws, ".strata", "config.toml"), []byte(fmt.Sprintf("[tools.'*']\nrun = \"unattended\"\n\n[mcp_servers.fake]\ncommand = %q\nargs = [\"-echo\"]\nexpose = \"all\"\n", *mcpfake)), 0o644))
	const token = "0123456789abcdef0123456789abcdef"
	tokenFile := filepath.Join(dir, "token")
	check(os.WriteFile(tokenFile, []byte(token+"\n"), 0o600))
	args := []string{*strataBin, "serve", "--root", ws, "--trust", "--http", "127.0.0.1:0", "--token-file", tokenFile}
	var st *exec.Cmd
	if *nofile > 0 {
		st = exec.Command("/bin/sh", append([]string{"-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, *nofile)}, args...)...)
	} else {
		st = exec.Command(args[0], args[1:]...)
	}
	st.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+dir)
	pipe, err := st.StderrPipe()
	check(err)
	check(st.Start())
	defer func() { st.Process.Signal(syscall.SIGTERM); st.Wait() }()
	url := ""
	lines := bufio.NewScanner(pipe)
	for url == "" && lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "strata: serving MCP on "); ok {
			url = u
		}
	}
	if url == "" {
		log.Fatal("strata did not start")
	}
	var evicted atomic.Int64
	go func() {
		said := map[string]bool{}
		for lines.Scan() {
			if strings.Contains(lines.Text(), "closed the session") {
				evicted.Add(1)
			} else if key := lines.Text()[:min(len(lines.Text()), 40)]; !said[key] {
				said[key] = true // what else strata says, once a kind
				fmt.Fprintln(os.Stderr, "strata said:", lines.Text())
			}
		}
	}()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	pid := st.Process.Pid
	fmt.Printf("strata serve --http (pid %d), descriptors limited to %s\n", pid, limit(pid))

	ctx := context.Background()
	var dials atomic.Int64
	real := connect(ctx, url, token, &dials)
	// measure makes the real client's calls while a phase goes on, and
	// prints what it met and what strata holds.
	measure := func(phase string) {
		var lat []time.Duration
		failed := 0
		dials0 := dials.Load()
		maxFDs := 0
		for range *calls {
			cctx, cancel := context.WithTimeout(ctx, *callTimeout)
			t0 := time.Now()
			res, err := real.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": "real"}})
			cancel()
			if err != nil || res.IsError {
				if failed == 0 {
					fmt.Fprintf(os.Stderr, "%s: a call failed: %v %+v\n", phase, err, res)
				}
				failed++
				if failed == 3 {
					break
				}
				continue
			}
			lat = append(lat, time.Since(t0))
			maxFDs = max(maxFDs, fds(pid))
		}
		fmt.Printf("%-9s real client: %d calls, p50 %v, p95 %v, %d failed, %d connections opened; strata: %d descriptors (at most %d during the calls), VmRSS %s, VmHWM %s\n",
			phase, len(lat), bench.Percentile(lat, 50), bench.Percentile(lat, 95), failed, dials.Load()-dials0, fds(pid), maxFDs, bench.Status(pid, "VmRSS"), bench.Status(pid, "VmHWM"))
	}
	measure("quiet")

	// Connections without the token, held open; with reopen, each one
	// strata closes is opened again at once.
	attack := func(phase string, reopen bool) {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var opened, refused, closed atomic.Int64
		for i := range *conns {
			wg.Go(func() {
				for {
					c, err := net.DialTimeout("tcp", addr, 10*time.Second)
					if err != nil {
						return
					}
					opened.Add(1)
					switch i % 3 {
					case 0:
						io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
						if res, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
							res.Body.Close()
							if res.StatusCode == http.StatusUnauthorized {
								refused.Add(1)
							}
						}
					case 1:
						io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\n")
					}
					done := make(chan struct{})
					go func() {
						io.Copy(io.Discard, c) // until strata closes it
						close(done)
					}()
					select {
					case <-done:
						closed.Add(1)
					case <-stop:
					}
					c.Close()
					select {
					case <-stop:
						return
					default:
					}
					if !reopen {
						<-stop
						return
					}
				}
			})
		}
		for opened.Load() < int64(*conns) {
			time.Sleep(10 * time.Millisecond)
		}
		measure(phase)
		close(stop)
		wg.Wait()
		fmt.Printf("          %d connections opened without the token (%d refused with 401), %d of them closed by strata meanwhile\n", opened.Load(), refused.Load(), closed.Load())
	}
	attack("idle", false)
	attack("reopened", true)

	// Sessions: huge client names, then more sessions than strata keeps.
	hugeBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + strings.Repeat("n", *name) + `","version":"1"}}}`
	small := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"more","version":"1"}}}`
	var kept, opens atomic.Int64
	floodDone := make(chan struct{})
	go func() {
		defer close(floodDone)
		jobs := make(chan string)
		var fw sync.WaitGroup
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers}}
		for range *workers {
			fw.Go(func() {
				for body := range jobs {
					if sid := post(client, url, token, "", body); sid != "" {
						kept.Add(1)
						post(client, url, token, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
					}
					opens.Add(1)
				}
			})
		}
		for range *huge {
			jobs <- hugeBody
		}
		for range *sessions {
			jobs <- small
		}
		close(jobs)
		fw.Wait()
	}()
	measure("sessions")
	<-floodDone
	fmt.Printf("          %d initializes (%d with a client name of %d bytes), %d sessions opened, %d closed to make room\n",
		opens.Load(), *huge, *name, kept.Load(), evicted.Load())
	measure("after")
}

// post posts body to url with the token, in the session sid, and returns
// the session id of the answer.
func post(client *http.Client, url, token, sid, body string) string {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	res, err := client.Do(req)
	if err != nil {
		return ""
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || strings.Contains(string(b), `"error"`) {
		return ""
	}
	return res.Header.Get("Mcp-Session-Id")
}

// bearer adds the token to every request, and counts the connections
// the client opens.
type bearer struct {
	token string
	dials *atomic.Int64
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{ConnectDone: func(string, string, error) { b.dials.Add(1) }}))
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(ctx context.Context, url, token string, dials *atomic.Int64) *mcp.ClientSession {
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, dials}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "real", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	check(err)
	return cs
}

// fds is how many descriptors pid has open.
func fds(pid int) int {
	es, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(es)
}

// limit is the descriptor limit of pid.
func limit(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "Max open files") {
			f := strings.Fields(l)
			if n, err := strconv.Atoi(f[3]); err == nil {
				return strconv.Itoa(n)
			}
		}
	}
	return "?"
}

func check(err error) {
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}
