//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/proctest"
)

// What a hostile MCP server may cost strata serve: its peak resident set,
// from /proc (the process's own, whatever the test's memory is). A flood
// costs the relay queue (about 25 MB in all; it took 460 MB before the
// queue had a bound, and grew as long as the flood lasted); a tool list
// the budget (125 to 145 MB for 4 MiB of tools, 180 MB for 10,000 tools:
// 1.5 and 2.1 GB before there was one).
const (
	floodBound = 100 << 20
	listBound  = 256 << 20
)

// boundsWorkspace writes a workspace whose config is config, trusted for
// the run by --trust, and returns its root and the environment to run
// strata in.
func boundsWorkspace(t *testing.T, config string) (root string, environ []string) {
	t.Helper()
	root = t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".strata", "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	return root, environ
}

// rawServe is strata serve, a real process, spoken to line by line.
type rawServe struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

// startServe starts strata serve in root; it is stopped when the test
// ends.
func startServe(t *testing.T, root string, environ []string) *rawServe {
	t.Helper()
	cmd := exec.Command(strataBin, "serve", "--root", root, "--trust", "--cfg", "tools.'*'.run=unattended")
	cmd.Env = environ
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServe{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		io.Copy(io.Discard, s.out)
		cmd.Wait()
	})
	return s
}

func (s *rawServe) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// message is a JSON-RPC message strata writes.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (s *rawServe) next(t *testing.T) message {
	t.Helper()
	m, err := s.read()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// read reads the next message (from any goroutine).
func (s *rawServe) read() (message, error) {
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		return message{}, fmt.Errorf("reading strata serve: %v", err)
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("strata serve wrote %.300q: %v", line, err)
	}
	return m, nil
}

// until reads up to the response to id, and returns it.
func (s *rawServe) until(t *testing.T, id string) message {
	t.Helper()
	for {
		if m := s.next(t); string(m.ID) == id && m.Method == "" {
			return m
		}
	}
}

// initialize does the handshake, and asks for log messages of level info
// and above.
func (s *rawServe) initialize(t *testing.T) {
	t.Helper()
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.until(t, "1")
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)
	if m := s.until(t, "2"); m.Error != nil {
		t.Fatalf("logging/setLevel: %s", m.Error)
	}
}

// peak returns the peak resident set of strata serve so far, in bytes.
func (s *rawServe) peak(t *testing.T) int64 {
	t.Helper()
	b, ok := proctest.PeakRSS(s.cmd.Process.Pid)
	if !ok {
		t.Fatalf("no VmHWM for strata serve (pid %d); stderr:\n%s", s.cmd.Process.Pid, s.stderr)
	}
	return b
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

// floodWorkspace is a workspace whose MCP server "flood" has a tool that
// sends n log messages and n progress notifications of size bytes, then
// writes to the FIFO done.
func floodWorkspace(t *testing.T, n, size int) (root string, environ []string, done string) {
	t.Helper()
	done = filepath.Join(t.TempDir(), "done")
	if err := syscall.Mkfifo(done, 0o600); err != nil {
		t.Fatal(err)
	}
	root, environ = boundsWorkspace(t, fmt.Sprintf(`[mcp_servers.flood]
command = %q
args = ["-flood", "%d", "-flood-size", "%d", "-flood-done", %q]
expose = "all"
tool_timeout_sec = 600
`, mcpfake, n, size, done))
	return root, environ, done
}

// TestServeSlowClientFlood: an MCP server floods strata serve with log
// messages and progress during a call while the client reads nothing
// (it reads once the server is done). strata's memory stays bounded: what
// does not fit its relay queue is dropped and counted, the client is told
// how many once it reads again, and the call's answer comes whole.
func TestServeSlowClientFlood(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: a flood of 200,000 messages; the full run has it")
	}
	const n, size = 100_000, 1000
	root, environ, done := floodWorkspace(t, n, size)
	s := startServe(t, root, environ)
	s.initialize(t)
	s.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flood","arguments":{},"_meta":{"progressToken":"p"}}}`)
	// The server is done once it says so: what it wrote, strata has read
	// (all but what the pipe holds), while nobody read strata.
	proctest.Returns(t, "the flood", 5*time.Minute, func() {
		if b, err := os.ReadFile(done); err != nil || string(b) != "done\n" {
			t.Errorf("the flood's pipe: %q, %v", b, err)
		}
	})
	peak := s.peak(t)
	t.Logf("peak resident set of strata serve after %d log messages and %d progress notifications of %d bytes, unread: %s", n, n, size, mb(peak))
	if peak > floodBound {
		t.Errorf("strata serve grew to %s while its client read nothing; want at most %s", mb(peak), mb(floodBound))
	}

	dropped := regexp.MustCompile(`^strata dropped (\d+) (log messages|progress notifications) from the server flood`)
	var logs, progress, droppedLogs, droppedProgress int
	var answer *message
	proctest.Returns(t, "reading what strata relayed", 2*time.Minute, func() {
		for answer == nil || logs+droppedLogs < n || progress+droppedProgress < n {
			m, err := s.read()
			if err != nil {
				t.Error(err)
				return
			}
			switch {
			case string(m.ID) == "3":
				answer = &m
			case m.Method == "notifications/progress":
				progress++
			case m.Method == "notifications/message":
				var p struct {
					Level  string `json:"level"`
					Logger string `json:"logger"`
					Data   any    `json:"data"`
				}
				if err := json.Unmarshal(m.Params, &p); err != nil {
					t.Error(err)
					return
				}
				text, _ := p.Data.(string)
				if sub := dropped.FindStringSubmatch(text); sub != nil && p.Logger == "strata" {
					k, _ := strconv.Atoi(sub[1])
					if sub[2] == "log messages" {
						droppedLogs += k
					} else {
						droppedProgress += k
					}
					continue
				}
				if p.Logger != "flood" || len(text) != size {
					t.Errorf("a log message %.300s", m.Params)
					return
				}
				logs++
			}
		}
	})
	if answer == nil {
		t.Fatalf("no answer to the call; stderr:\n%s", s.stderr)
	}
	t.Logf("relayed %d log messages (%d dropped) and %d progress notifications (%d dropped)", logs, droppedLogs, progress, droppedProgress)
	var got struct {
		Meta    map[string]json.RawMessage `json:"_meta"`
		Content json.RawMessage            `json:"content"`
	}
	if want := fmt.Sprintf(`[{"type":"text","text":"flood: sent %d"}]`, n); answer.Error != nil || json.Unmarshal(answer.Result, &got) != nil || string(got.Content) != want || len(got.Meta) != 1 || got.Meta["strata/decision"] == nil {
		t.Errorf("the call answered %s %s, want the content %s and the call's decision in _meta", answer.Result, answer.Error, want)
	}
	if logs+droppedLogs != n || progress+droppedProgress != n {
		t.Errorf("%d log messages relayed and %d dropped, %d progress relayed and %d dropped; want %d of each in all", logs, droppedLogs, progress, droppedProgress, n)
	}
	if droppedLogs == 0 || droppedProgress == 0 {
		t.Errorf("nothing was dropped (%d log messages, %d progress notifications) of a flood the client did not read", droppedLogs, droppedProgress)
	}
}

// schemaOf returns the path of a file holding a schema whose JSON is n
// bytes long (n at least 60).
func schemaOf(t *testing.T, n int) string {
	t.Helper()
	pad := n - len(`{"type":"object","properties":{"a":{"description":""}}}`)
	schema := `{"type":"object","properties":{"a":{"description":"` + strings.Repeat("x", pad) + `"}}}`
	p := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(p, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A tool list past the budget: what strata keeps, and the warning that
// says so (the kept count, the bound the list went past, the setting).
var cutWarning = regexp.MustCompile(`strata: warning: \S*config.toml:\d+:\d+: mcp_servers\.big: the server's tool list goes past (10,000 tools|4 MiB): strata keeps its first ([\d,]+) tools \([\d.]+ MiB\) and leaves out the rest; a host raises the bound with codec\.Limits\.(ServerTools|ServerListing)`)

// hugeLists are tool lists of hostile size: 10^5 tools on one page of
// 15 MB, and pages of 15 MB of a hundred tools each.
var hugeLists = []struct {
	name     string
	args     func(t *testing.T) []string
	wantKept func(kept int) bool
	bound    string // what the warning names
}{
	{
		name:     "10^5 tools on a page of 15 MB",
		args:     func(t *testing.T) []string { return []string{"-tools", "100000", "-schema", schemaOf(t, 80)} },
		wantKept: func(kept int) bool { return kept == 10_000 },
		bound:    "10,000 tools",
	},
	{
		name: "pages of 15 MB",
		args: func(t *testing.T) []string {
			return []string{"-tools", "400", "-page-size", "100", "-schema", schemaOf(t, 150_000)}
		},
		// 4 MiB hold 27 tools of 150 kB.
		wantKept: func(kept int) bool { return kept == 27 },
		bound:    "4 MiB",
	},
}

func bigServer(t *testing.T, args []string) string {
	t.Helper()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	return fmt.Sprintf("[mcp_servers.big]\ncommand = %q\nargs = [%s]\nexpose = \"all\"\nstartup_timeout_sec = 600\ntool_timeout_sec = 600\n", mcpfake, strings.Join(quoted, ", "))
}

// checkCut checks the warning of a list cut: it names the bound, and
// keeps what it says it kept.
func checkCut(t *testing.T, stderr string, kept int, bound string, wantKept func(int) bool) {
	t.Helper()
	m := cutWarning.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no warning of the list cut; stderr:\n%.2000s", stderr)
	}
	said, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	if m[1] != bound || said != kept || !wantKept(kept) {
		t.Errorf("%d tools kept; the warning says %q", kept, m[0])
	}
}

// TestServeHugeToolList: strata serve in front of a server whose tool
// list is huge keeps the first tools within the budget (and says so), in
// bounded memory.
func TestServeHugeToolList(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: tool lists of up to 100,000 tools; -short has TestResolveToolListBudget")
	}
	for _, tt := range hugeLists {
		t.Run(tt.name, func(t *testing.T) {
			root, environ := boundsWorkspace(t, bigServer(t, tt.args(t)))
			s := startServe(t, root, environ)
			s.initialize(t)
			// tools/list pages what strata serves: all its pages.
			var names []string
			cursor := ""
			for id := 3; ; id++ {
				params, _ := json.Marshal(map[string]string{"cursor": cursor})
				s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params))
				m := s.until(t, strconv.Itoa(id))
				var page struct {
					Tools      []struct{ Name string }
					NextCursor string
				}
				if err := json.Unmarshal(m.Result, &page); err != nil {
					t.Fatalf("%v: %.300s %s", err, m.Result, m.Error)
				}
				for _, tool := range page.Tools {
					names = append(names, tool.Name)
				}
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			peak := s.peak(t)
			t.Logf("peak resident set of strata serve, %d tools served: %s", len(names), mb(peak))
			if peak > listBound {
				t.Errorf("strata serve grew to %s; want at most %s", mb(peak), mb(listBound))
			}
			// The first tools are kept (strata serve lists them by name).
			want := map[string]bool{}
			for i := range names {
				want[fmt.Sprintf("tool_%03d", i)] = true
			}
			for _, name := range names {
				if !want[name] {
					t.Fatalf("%s is served: want the first %d tools", name, len(names))
				}
			}
			s.stdin.Close()
			s.cmd.Wait()
			checkCut(t, s.stderr.String(), len(names), tt.bound, tt.wantKept)
		})
	}
}

// TestResolveToolListBudget: strata resolve lists every page of a long
// list of small pages (the budget counts tools and bytes, not pages), and
// keeps the first tools of a huge list, saying so.
func TestResolveToolListBudget(t *testing.T) {
	t.Parallel() // processes that wait: the others run meanwhile
	t.Run("150 pages of 10 tools", func(t *testing.T) {
		root, environ := boundsWorkspace(t, bigServer(t, []string{"-tools", "1500", "-page-size", "10"}))
		r := runResolve(t, root, environ)
		if r.code != 0 || len(r.tools) != 1500 || strings.Contains(r.stderr, "warning") {
			t.Errorf("exit %d, %d tools, stderr:\n%.2000s\nwant 1500 tools, no warning", r.code, len(r.tools), r.stderr)
		}
	})
	for _, tt := range hugeLists {
		t.Run(tt.name, func(t *testing.T) {
			root, environ := boundsWorkspace(t, bigServer(t, tt.args(t)))
			r := runResolve(t, root, environ)
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%.2000s", r.code, r.stderr)
			}
			checkCut(t, r.stderr, len(r.tools), tt.bound, tt.wantKept)
		})
	}
}

type resolved struct {
	code   int
	tools  []struct{ Name string }
	stderr string
}

// runResolve runs strata resolve in root.
func runResolve(t *testing.T, root string, environ []string) resolved {
	t.Helper()
	cmd := exec.Command(strataBin, "resolve", "--root", root, "--trust")
	cmd.Env = environ
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := resolved{code: cmd.ProcessState.ExitCode(), stderr: stderr.String()}
	if err == nil {
		var out struct{ Tools []struct{ Name string } }
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("%v: %.300s", err, stdout.Bytes())
		}
		r.tools = out.Tools
	}
	return r
}
