package mcpclient

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/secret"
)

// The credentials of a remote server: a bearer token and a custom header.
const (
	secretToken  = "tok-0123456789-secret"
	secretHeader = "team-0123456789-secret"
)

func credentials(url string) Remote {
	return Remote{URL: secret.Plain(url), Headers: map[string]secret.String{"X-Team": secret.Plain(secretHeader)}, BearerToken: secret.Plain(secretToken)}
}

// leaks returns the requests of log that carry a credential.
func leaks(log *seen) []string {
	var out []string
	for _, r := range log.all() {
		for name, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, secretToken) || strings.Contains(v, secretHeader) {
					out = append(out, fmt.Sprintf("%s %s: %s: %s", r.Method, r.Path, name, v))
				}
			}
		}
	}
	return out
}

// TestCredentialsStayWithOrigin is the attack of a server that sends its
// client elsewhere: a redirect, or the endpoint event of HTTP+SSE naming
// another origin. The other origin, a server that records what it
// receives, must get neither the token nor the headers; the dial fails,
// naming both origins.
func TestCredentialsStayWithOrigin(t *testing.T) {
	tests := []struct {
		name string
		// origin is the configured server, given the URL of the other one.
		origin func(other string) http.Handler
		want   string
	}{
		{
			name: "a 307 of the POST to another port",
			origin: func(other string) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, other+"/mcp", http.StatusTemporaryRedirect)
				})
			},
			want: "redirected to another origin",
		},
		{
			name: "a 308 of the POST to another port",
			origin: func(other string) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, other+"/mcp", http.StatusPermanentRedirect)
				})
			},
			want: "redirected to another origin",
		},
		{
			name: "the POST refused, the SSE GET redirected to another port",
			origin: func(other string) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost {
						http.Error(w, "use SSE", http.StatusMethodNotAllowed)
						return
					}
					http.Redirect(w, r, other+"/sse", http.StatusFound)
				})
			},
			want: "redirected to another origin",
		},
		{
			name: "an HTTP+SSE endpoint event naming another port",
			origin: func(other string) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost {
						http.Error(w, "use SSE", http.StatusMethodNotAllowed)
						return
					}
					w.Header().Set("Content-Type", "text/event-stream")
					fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?sessionid=1\n\n", other)
					w.(http.Flusher).Flush()
					<-r.Context().Done()
				})
			},
			want: "named an endpoint at another origin",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var otherLog seen
			// The other origin is a working MCP server of either
			// transport: nothing but the origin check stops the client.
			mux := http.NewServeMux()
			mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil))
			sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil)
			mux.Handle("/sse", sse)
			mux.Handle("/messages", sse)
			other := httpServer(t, otherLog.wrap(mux))
			origin := httpServer(t, tt.origin(other))

			s, err := Dial(testContext(t), credentials(origin+"/mcp"), 10*time.Second)
			if err == nil {
				s.Close()
			}
			if got := leaks(&otherLog); len(got) > 0 {
				t.Errorf("the other origin received the credentials:\n%s", strings.Join(got, "\n"))
			}
			if err == nil {
				t.Fatal("Dial succeeded through another origin")
			}
			t.Logf("Dial: %v", err)
			for _, want := range []string{tt.want, origin, other} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestRedirectSameOrigin: a redirect within the configured origin (a path
// the server moved) is followed, with the credentials.
func TestRedirectSameOrigin(t *testing.T) {
	var log seen
	mux := http.NewServeMux()
	mux.Handle("/new", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil))
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/new", http.StatusPermanentRedirect)
	})
	base := httpServer(t, log.wrap(mux))
	s := dial(t, credentials(base+"/old"))
	if got := echo(t, s, "moved"); got != "Echo: moved" {
		t.Errorf("echo = %q", got)
	}
	for _, r := range log.all() {
		if r.Path == "/new" && r.Header.Get("Authorization") != "Bearer "+secretToken {
			t.Errorf("%s %s: Authorization %q", r.Method, r.Path, r.Header.Get("Authorization"))
		}
	}
}

// recordingProxy is an HTTP proxy that records the requests it receives
// (in proxy form, or CONNECT) and answers each with 502, or, for CONNECT,
// opens the tunnel and records the first bytes sent through it.
type recordingProxy struct {
	seen
	mu     sync.Mutex
	tunnel []byte
}

func (p *recordingProxy) handler(t *testing.T) http.Handler {
	return p.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			io.Copy(io.Discard, r.Body)
			http.Error(w, "no", http.StatusBadGateway)
			return
		}
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n")
		rw.Flush()
		b := make([]byte, 5)
		n, _ := io.ReadFull(bufio.NewReader(conn), b)
		p.mu.Lock()
		p.tunnel = b[:n]
		p.mu.Unlock()
	}))
}

// TestPlainHTTP: over plain http, the credentials and every message
// travel in clear. A server that is not on this machine is refused
// without allow_http; none of its requests leaves (here, to the proxy
// the environment names); with allow_http, credentials still never go
// in clear to a proxy.
func TestPlainHTTP(t *testing.T) {
	tests := []struct {
		name      string
		remote    Remote
		want      string // in the error
		requests  int    // that the proxy receives
		credsSent bool   // the requests carry credentials
	}{
		{
			name:   "a private address, without the opt-in",
			remote: credentials("http://10.1.2.3/mcp"),
			want:   "plain http to 10.1.2.3",
		},
		{
			name:   "a host name, without the opt-in",
			remote: credentials("http://mcp.example.invalid:8080/mcp"),
			want:   "plain http to mcp.example.invalid:8080",
		},
		{
			name:   "with the opt-in and credentials, through a proxy",
			remote: func() Remote { r := credentials("http://10.1.2.3/mcp"); r.AllowHTTP = true; return r }(),
			want:   "through the proxy",
		},
		{
			name:     "with the opt-in and no credentials, through a proxy",
			remote:   Remote{URL: secret.Plain("http://10.1.2.3/mcp"), AllowHTTP: true},
			want:     "Bad Gateway",
			requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p recordingProxy
			r := tt.remote
			r.Environ = []string{"HTTP_PROXY=" + httpServer(t, p.handler(t))}
			s, err := Dial(testContext(t), r, 10*time.Second)
			if err == nil {
				s.Close()
				t.Fatal("Dial succeeded")
			}
			t.Logf("Dial: %v", err)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("the error %q does not say %q", err, tt.want)
			}
			if got := leaks(&p.seen); len(got) > 0 {
				t.Errorf("the proxy received the credentials:\n%s", strings.Join(got, "\n"))
			}
			if got := len(p.all()); tt.requests == 0 && got > 0 || tt.requests > 0 && got == 0 {
				t.Errorf("the proxy received %d requests, want %d", got, tt.requests)
			}
		})
	}
}

// TestLoopbackHTTP: plain http to this machine needs no opt-in.
func TestLoopbackHTTP(t *testing.T) {
	base := httpServer(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil))
	port := base[strings.LastIndex(base, ":")+1:]
	for _, host := range []string{"127.0.0.1", "localhost", "127.1.2.3", "LOCALHOST."} {
		t.Run(host, func(t *testing.T) {
			if host == "127.1.2.3" || host == "LOCALHOST." {
				// Linux routes all of 127/8 to lo; the server listens on
				// 127.0.0.1 alone, so only the check is asked.
				if err := checkOrigin(Remote{URL: secret.Plain("http://" + host + ":" + port + "/mcp")}); err != nil {
					t.Errorf("checkOrigin: %v", err)
				}
				return
			}
			s := dial(t, credentials("http://"+host+":"+port+"/mcp"))
			if got := echo(t, s, host); got != "Echo: "+host {
				t.Errorf("echo = %q", got)
			}
		})
	}
	if err := checkOrigin(Remote{URL: secret.Plain("http://[::1]:1/mcp")}); err != nil {
		t.Errorf("checkOrigin([::1]): %v", err)
	}
}

// TestHTTPSProxyTunnels checks what the transport does with a proxy for an
// https server: the proxy gets a CONNECT, which carries neither the token
// nor the headers, and then only TLS.
func TestHTTPSProxyTunnels(t *testing.T) {
	var p recordingProxy
	r := credentials("https://mcp.example.invalid/mcp")
	r.Environ = []string{"HTTPS_PROXY=" + httpServer(t, p.handler(t))}
	if s, err := Dial(testContext(t), r, 10*time.Second); err == nil {
		s.Close()
		t.Fatal("Dial succeeded through a tunnel to nowhere")
	}
	reqs := p.all()
	if len(reqs) == 0 {
		t.Fatal("the proxy received no request")
	}
	for _, r := range reqs {
		if r.Method != http.MethodConnect {
			t.Errorf("the proxy received %s %s, want CONNECT only", r.Method, r.Path)
		}
	}
	if got := leaks(&p.seen); len(got) > 0 {
		t.Errorf("the proxy received the credentials:\n%s", strings.Join(got, "\n"))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.tunnel) == 0 || p.tunnel[0] != 0x16 { // a TLS handshake record
		t.Errorf("the tunnel carried %q, want a TLS handshake", p.tunnel)
	}
}
