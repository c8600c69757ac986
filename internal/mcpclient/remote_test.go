package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/secret"
)

// --- Against the SDK's own HTTP handlers, on 127.0.0.1 ---

// seen records the requests a test server receives.
type seen struct {
	mu       sync.Mutex
	requests []seenRequest
}

type seenRequest struct {
	Method, Path, Host string
	Header             http.Header
}

func (s *seen) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, seenRequest{r.Method, r.URL.Path, r.URL.Host, r.Header.Clone()})
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (s *seen) all() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// echoServer is an SDK server with one tool, echo.
func echoServer() *mcp.Server {
	server := newServer(nil)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Message string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + args.Message}}}, nil
		})
	return server
}

// httpServer serves h on 127.0.0.1 for the test.
func httpServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func dial(t *testing.T, r Remote) *Session {
	t.Helper()
	s, err := Dial(testContext(t), r, 10*time.Second)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// echo calls the echo tool and returns its text.
func echo(t *testing.T, s *Session, message string) string {
	t.Helper()
	res, err := s.Call(testContext(t), "echo", json.RawMessage(`{"message":`+quote(message)+`}`), nil)
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	return text(t, res)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestDialTransports(t *testing.T) {
	tests := []struct {
		name    string
		handler func(*mcp.Server) http.Handler
		path    string
		want    string
	}{
		{
			name: "streamable HTTP",
			handler: func(s *mcp.Server) http.Handler {
				return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
			},
			path: "/mcp",
			want: TransportStreamable,
		},
		{
			name: "HTTP+SSE, where the server offers only that",
			handler: func(s *mcp.Server) http.Handler {
				return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
			},
			path: "/sse",
			want: TransportSSE,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log seen
			mux := http.NewServeMux()
			mux.Handle(tt.path, log.wrap(tt.handler(echoServer())))
			base := httpServer(t, mux)
			s := dial(t, Remote{
				URL:         secret.Plain(base + tt.path),
				Headers:     map[string]secret.String{"X-Team": secret.Plain("a"), "content-type": secret.Plain("text/plain")},
				BearerToken: secret.Plain("tok"),
			})
			if got := s.Transport(); got != tt.want {
				t.Errorf("Transport() = %q, want %q", got, tt.want)
			}
			tools, _, err := s.Tools(testContext(t), Budget{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"echo"}, names(tools)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if got := echo(t, s, "hello"); got != "Echo: hello" {
				t.Errorf("echo = %q", got)
			}
			if s.Info == nil || s.Info.Name != "sdk-server" {
				t.Errorf("Info = %+v", s.Info)
			}
			// Every request carried the headers; none of them replaced the
			// protocol's own.
			reqs := log.all()
			if len(reqs) == 0 {
				t.Fatal("the server saw no request")
			}
			for _, r := range reqs {
				if r.Header.Get("X-Team") != "a" || r.Header.Get("Authorization") != "Bearer tok" {
					t.Errorf("%s %s: X-Team %q, Authorization %q", r.Method, r.Path, r.Header.Get("X-Team"), r.Header.Get("Authorization"))
				}
				if r.Method == http.MethodPost && r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("POST %s: Content-Type %q", r.Path, r.Header.Get("Content-Type"))
				}
			}
		})
	}
}

func TestDialChangesAndClose(t *testing.T) {
	server := echoServer()
	base := httpServer(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	s, err := Dial(testContext(t), Remote{URL: secret.Plain(base)}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The tools change while the client is connected; the server tells it
	// over the event stream.
	if _, _, err := s.Tools(testContext(t), Budget{}); err != nil {
		t.Fatal(err)
	}
	server.AddTool(&mcp.Tool{Name: "added", InputSchema: json.RawMessage(`{"type":"object"}`)}, okHandler)
	select {
	case <-s.Changes():
	case <-testContext(t).Done():
		t.Fatal("no change signalled")
	}
	tools, _, err := s.Tools(testContext(t), Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"added", "echo"}, names(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-s.Done():
	case <-testContext(t).Done():
		t.Fatal("Done not closed after Close")
	}
}

// TestDialSSEOutlivesStartup checks that the event stream of the older
// transport is not tied to the startup timeout: the session works after
// the time it had to start has passed.
func TestDialSSEOutlivesStartup(t *testing.T) {
	base := httpServer(t, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil))
	startup := 500 * time.Millisecond
	s, err := Dial(testContext(t), Remote{URL: secret.Plain(base)}, startup)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Wait for the startup timer's own deadline to pass, as an event.
	deadline, cancel := context.WithTimeout(context.Background(), startup)
	defer cancel()
	<-deadline.Done()
	if got := echo(t, s, "later"); got != "Echo: later" {
		t.Errorf("echo = %q", got)
	}
}

func TestDialProxyFromEnviron(t *testing.T) {
	var log seen
	// The proxy is the server itself: it receives the request in proxy
	// form, for the host it does not know, and answers it as its own (the
	// SDK's handler refuses requests for other hosts).
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil)
	var proxy string
	proxy = httpServer(t, log.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = strings.TrimPrefix(proxy, "http://")
		mcpHandler.ServeHTTP(w, r)
	})))
	// Plain http to another machine, with no credentials: allowed.
	s := dial(t, Remote{URL: secret.Plain("http://mcp.example.invalid/mcp"), AllowHTTP: true, Environ: []string{"PATH=/bin", "HTTP_PROXY=" + proxy}})
	if got := echo(t, s, "via proxy"); got != "Echo: via proxy" {
		t.Errorf("echo = %q", got)
	}
	for _, r := range log.all() {
		if r.Host != "mcp.example.invalid" {
			t.Errorf("%s %s reached the proxy for host %q", r.Method, r.Path, r.Host)
		}
	}
	// NO_PROXY sends it direct, where the host does not resolve.
	_, err := Dial(testContext(t), Remote{URL: secret.Plain("http://mcp.example.invalid/mcp"), AllowHTTP: true, Environ: []string{"http_proxy=" + proxy, "no_proxy=.example.invalid"}}, 10*time.Second)
	if err == nil {
		t.Fatal("Dial through NO_PROXY reached a host that does not exist")
	}
}

func TestDialFails(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		startup time.Duration
		max     int
		want    string
	}{
		{
			name:    "not an MCP server",
			handler: http.NotFound,
			want:    "no MCP server at URL: a POST (streamable HTTP) answered 404 Not Found and a GET (HTTP+SSE) 404 Not Found",
		},
		{
			name:    "credentials refused: no fallback",
			handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "who are you", http.StatusUnauthorized) },
			want:    "the server answered 401 Unauthorized: it needs credentials (a sign-in, a bearer token or headers)",
		},
		{
			name:    "forbidden: no fallback",
			handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) },
			want:    "the server answered 403 Forbidden: it needs credentials (a sign-in, a bearer token or headers)",
		},
		{
			name:    "no answer within the startup time",
			handler: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			startup: 200 * time.Millisecond,
			want:    "did not start within 200ms",
		},
		{
			name: "a response larger than the bound",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"pad":%q}}`, strings.Repeat("x", 4096))
			},
			max:  1024,
			want: "more than 1024 bytes",
		},
		{
			name: "an event larger than the bound",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"pad\":%q}}\n\n", strings.Repeat("x", 4096))
			},
			max:  1024,
			want: "1024",
		},
		{
			name:    "a server that fails",
			handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "broken", http.StatusInternalServerError) },
			want:    "cannot connect",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A request still waiting when the test ends is let go first.
			release := make(chan struct{})
			base := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx, cancel := context.WithCancel(r.Context())
				defer cancel()
				go func() {
					select {
					case <-release:
						cancel()
					case <-ctx.Done():
					}
				}()
				tt.handler(w, r.WithContext(ctx))
			}))
			t.Cleanup(func() { close(release) })
			startup := tt.startup
			if startup == 0 {
				startup = 10 * time.Second
			}
			_, err := Dial(testContext(t), Remote{URL: secret.Plain(base + "/mcp"), MaxMessage: tt.max}, startup)
			if err == nil {
				t.Fatal("Dial succeeded")
			}
			got := strings.ReplaceAll(err.Error(), base+"/mcp", "URL")
			t.Logf("Dial: %s", got)
			if !strings.Contains(got, tt.want) {
				t.Errorf("Dial error %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

func TestDialBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x/mcp", "localhost:3000/mcp", "http:///mcp"} {
		_, err := Dial(testContext(t), Remote{URL: secret.Plain(u)}, time.Second)
		if err == nil || !strings.Contains(err.Error(), "not an http:// or https:// URL") {
			t.Errorf("Dial(%q) = %v", u, err)
		}
	}
}

func TestLimitedBody(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		max     int64
		want    string
		wantErr error
	}{
		{"shorter", "abc", 5, "abc", nil},
		{"exactly the bound", "abcde", 5, "abcde", nil},
		{"longer", "abcdef", 5, "abcde", ErrTooLarge},
		{"empty", "", 5, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &limitedBody{r: io.NopCloser(strings.NewReader(tt.body)), left: tt.max, max: tt.max}
			got, err := io.ReadAll(b)
			if string(got) != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("read %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// --- Against the real npm server over HTTP on 127.0.0.1 ---

func TestDialEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the npm server over HTTP and SSE; -short has TestDialTransports, over the SDK in process")
	}
	tests := []struct {
		mode, path, want string
	}{
		{"streamableHttp", "/mcp", TransportStreamable},
		{"sse", "/sse", TransportSSE},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			base := mcptest.Everything(t, tt.mode)
			s := dial(t, Remote{URL: secret.Plain(base + tt.path), Headers: map[string]secret.String{"X-Team": secret.Plain("a")}})
			if got := s.Transport(); got != tt.want {
				t.Errorf("Transport() = %q, want %q", got, tt.want)
			}
			tools, _, err := s.Tools(testContext(t), Budget{})
			if err != nil {
				t.Fatal(err)
			}
			got := names(tools)
			for _, want := range []string{"echo", "get-env", "get-sum"} {
				if !slices.Contains(got, want) {
					t.Errorf("tools %v lack %s", got, want)
				}
			}
			for _, tool := range tools {
				if tool.Name == "get-sum" && !strings.Contains(string(tool.InputSchema), `"a"`) {
					t.Errorf("get-sum's schema lost its properties: %s", tool.InputSchema)
				}
			}
			if got := echo(t, s, "over "+tt.mode); got != "Echo: over "+tt.mode {
				t.Errorf("echo = %q", got)
			}
			res, err := s.Call(testContext(t), "get-sum", json.RawMessage(`{"a": 2, "b": 40}`), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); !strings.Contains(got, "42") {
				t.Errorf("get-sum = %q", got)
			}
		})
	}
}

// TestStartEverythingEnv starts the npm server over stdio with the
// environment procs.Env builds, and asks it what it received: the base
// set, its env and its env_vars, and nothing else of the host's.
func TestStartEverythingEnv(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the npm server; -short has procs' tests of the environment")
	}
	node, entry := mcptest.EverythingEntry(t)
	host := append(os.Environ(), "HTTPS_PROXY=http://proxy.invalid:3128", "NODE_EXTRA_CA_CERTS=/etc/ca.pem",
		"GITHUB_TOKEN=ghp_secret", "AWS_SECRET_ACCESS_KEY=never")
	s := start(t, Local{Command: secret.Plain(node), Args: secret.Plains(entry, "stdio"),
		Env: secret.Plains(procs.Env(host, map[string]string{"LOG": "1"}, []string{"GITHUB_TOKEN"})...)})
	res, err := s.Call(testContext(t), "get-env", json.RawMessage(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(text(t, res)), &env); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"HTTPS_PROXY": "http://proxy.invalid:3128", "NODE_EXTRA_CA_CERTS": "/etc/ca.pem", "GITHUB_TOKEN": "ghp_secret", "LOG": "1"} {
		if env[k] != want {
			t.Errorf("%s = %q, want %q", k, env[k], want)
		}
	}
	if _, ok := env["AWS_SECRET_ACCESS_KEY"]; ok {
		t.Error("a variable outside the policy reached the server")
	}
}

// TestDialSchemasKept lists tools over both HTTP transports, with JSON
// responses and with event streams, and checks that the schemas are the
// server's bytes, over several pages and from a server that lets clients
// cache the list.
func TestDialSchemasKept(t *testing.T) {
	transports := []struct {
		name    string
		handler func(*mcp.Server) http.Handler
	}{
		{"streamable HTTP, event streams", func(s *mcp.Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}},
		{"streamable HTTP, JSON responses", func(s *mcp.Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
		}},
		{"HTTP+SSE", func(s *mcp.Server) http.Handler {
			return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}},
	}
	for _, tr := range transports {
		for _, tt := range schemaTests {
			t.Run(tr.name+"/"+tt.name, func(t *testing.T) {
				want := compact(t, tt.schema)
				server := newServer(&mcp.ServerOptions{
					PageSize:     1,
					SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs = 60_000 },
				})
				server.AddTool(&mcp.Tool{Name: "a", InputSchema: json.RawMessage(tt.schema)}, okHandler)
				server.AddTool(&mcp.Tool{Name: "b", InputSchema: json.RawMessage(tt.schema)}, okHandler)
				s := dial(t, Remote{URL: secret.Plain(httpServer(t, tr.handler(server)))})
				for i := range 2 {
					tools, _, err := s.Tools(testContext(t), Budget{})
					if err != nil {
						t.Fatal(err)
					}
					wantTools := []flatTool{{Name: "a", Input: want}, {Name: "b", Input: want}}
					if diff := cmp.Diff(wantTools, flatten(tools)); diff != "" {
						t.Errorf("listing %d (-want +got):\n%s", i+1, diff)
					}
				}
			})
		}
	}
}

func TestTapBody(t *testing.T) {
	const result = `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"z","inputSchema":{"b":1,"a":2}}]}}`
	tests := []struct {
		name   string
		body   string
		stream bool
		max    int
		want   string
	}{
		{"a JSON response", result, false, 1 << 10, `{"tools":[{"name":"z","inputSchema":{"b":1,"a":2}}]}`},
		{"an event", "event: message\nid: 1\ndata: " + result + "\n\n", true, 1 << 10, `{"tools":[{"name":"z","inputSchema":{"b":1,"a":2}}]}`},
		{"an event in CR LF lines, data split over two lines", "data: {\"jsonrpc\":\"2.0\",\"id\":2,\r\ndata: \"result\":{\"tools\":[]}}\r\n\r\n", true, 1 << 10, `{"tools":[]}`},
		{"an event without its blank line is not complete", "data: " + result + "\n", true, 1 << 10, ""},
		{"an event over the bound", "data: " + result + "\n\n", true, 20, ""},
		{"a JSON response over the bound", result, false, 20, ""},
		{"another result", `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`, false, 1 << 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := &tap{}
			b := &tapBody{r: io.NopCloser(&oneByte{strings.NewReader(tt.body)}), tap: tp, stream: tt.stream, max: tt.max}
			if _, err := io.ReadAll(b); err != nil {
				t.Fatal(err)
			}
			if got := string(tp.take()); got != tt.want {
				t.Errorf("tap holds %q, want %q", got, tt.want)
			}
		})
	}
}

// oneByte reads one byte at a time, so that every line and event is split.
type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// heldCalls serves echoServer over streamable HTTP, each call's event
// stream held open after the call's response until after is done with it:
// the stream's end is up to the test. closed receives a value each time
// the server sees a connection close.
func heldCalls(t *testing.T, after func(w http.ResponseWriter, r *http.Request)) (url string, closed <-chan struct{}) {
	t.Helper()
	server := echoServer()
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		sdk.ServeHTTP(w, r)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			after(w, r) // the response is written: net/http ends the stream once this returns
		}
	})
	c := make(chan struct{}, 100)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections() // a stream a failed test left open
		srv.Close()
	})
	return srv.URL, c
}

// A call returns as soon as its response is read, and its caller's context
// ends then (a call under a timeout cancels it): the connection of the
// call's event stream must still go back to the pool once the server ends
// the stream, not be closed. Else each call through strata serve dialled
// its server again (a third of them under load), and left a connection in
// TIME_WAIT.
func TestCallKeepsItsConnection(t *testing.T) {
	release := make(chan struct{})
	url, closed := heldCalls(t, func(http.ResponseWriter, *http.Request) { <-release })
	s := dial(t, Remote{URL: secret.Plain(url)})
	for i := range 4 {
		var reused atomic.Bool
		idle := make(chan error, 1)
		ctx, cancel := context.WithCancel(testContext(t))
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			GotConn: func(c httptrace.GotConnInfo) { reused.Store(c.Reused) },
			PutIdleConn: func(err error) {
				select {
				case idle <- err:
				default:
				}
			},
		})
		res, err := s.Call(ctx, "echo", json.RawMessage(`{"message":"hi"}`), nil)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := text(t, res); got != "Echo: hi" {
			t.Fatalf("call %d answered %q", i, got)
		}
		cancel() // as the call's timeout is, when it returns
		release <- struct{}{}
		select {
		case err := <-idle:
			if err != nil {
				t.Fatalf("call %d: its connection did not go back to the pool: %v", i, err)
			}
		case <-closed:
			t.Fatalf("call %d: its connection was closed when the call's context ended", i)
		case <-testContext(t).Done():
			t.Fatalf("call %d: its connection neither went back to the pool nor closed", i)
		}
		if i > 0 && !reused.Load() {
			t.Errorf("call %d dialled a new connection", i)
		}
	}
}

// The drain of a call's event stream after its caller has gone is bounded:
// a server that goes on writing to the stream after the call's response
// (a hostile one, or one that never ends it) has the connection closed
// after DrainBytes, and one that writes nothing and holds it open, after
// DrainGrace.
func TestCallDrainIsBounded(t *testing.T) {
	tests := []struct {
		name  string
		after func(w http.ResponseWriter, r *http.Request)
	}{
		{"a stream that never ends", func(w http.ResponseWriter, r *http.Request) {
			pad := []byte(": " + strings.Repeat("x", 1000) + "\n\n") // an SSE comment
			for {
				if _, err := w.Write(pad); err != nil {
					return
				}
				if http.NewResponseController(w).Flush() != nil {
					return
				}
			}
		}},
		{"a stream held open", func(w http.ResponseWriter, r *http.Request) {
			http.NewResponseController(w).Flush()
			<-r.Context().Done() // the client closed the connection
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, closed := heldCalls(t, tt.after)
			s := dial(t, Remote{URL: secret.Plain(url)})
			ctx, cancel := context.WithCancel(testContext(t))
			if _, err := s.Call(ctx, "echo", json.RawMessage(`{"message":"hi"}`), nil); err != nil {
				t.Fatal(err)
			}
			cancel()
			select {
			case <-closed:
			case <-testContext(t).Done():
				t.Fatal("the connection of the call's stream was never closed")
			}
		})
	}
}

// Calls under way at once are requests on connections of their own: once
// they end, the connections stay open for the next calls (up to
// IdleConns), rather than all but two being closed, which under load had
// most calls through strata serve dial their server again.
func TestConcurrentCallsKeepTheirConnections(t *testing.T) {
	const n = 8
	arrived, all := make(chan struct{}), make(chan struct{})
	server := newServer(nil)
	server.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			arrived <- struct{}{}
			<-all
			return okHandler(ctx, nil)
		})
	s := dial(t, Remote{URL: secret.Plain(httpServer(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))})
	idle := make(chan error, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			ctx := httptrace.WithClientTrace(testContext(t), &httptrace.ClientTrace{PutIdleConn: func(err error) { idle <- err }})
			_, err := s.Call(ctx, "wait", nil, nil)
			errs <- err
		}()
	}
	for range n { // n calls at once: n connections
		select {
		case <-arrived:
		case err := <-errs:
			t.Fatalf("a call failed before all had arrived: %v", err)
		}
	}
	close(all)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-idle:
			if err != nil {
				t.Errorf("a connection of the calls was closed rather than kept: %v", err)
			}
		case <-testContext(t).Done():
			t.Fatal("a connection of the calls neither went back to the pool nor was closed")
		}
	}
}
