package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/http/httpproxy"

	"github.com/strata-config/strata/internal/origin"
	"github.com/strata-config/strata/secret"
)

// Remote is how to reach a server over HTTP. Its URL, headers and token
// are secrets where the config's were (see package secret): Dial is
// where their values are read, to send them, and the errors of the
// session show their references.
type Remote struct {
	// URL is the server's endpoint: its streamable HTTP endpoint, or the
	// SSE endpoint of a server that offers only the older HTTP+SSE
	// transport.
	URL secret.String
	// Headers are sent with every request. They never replace the
	// headers of the protocol itself (Content-Type, Accept,
	// Mcp-Session-Id, Mcp-Protocol-Version).
	Headers map[string]secret.String
	// BearerToken, when not empty, is sent as "Authorization: Bearer
	// <token>".
	BearerToken secret.String
	// Environ is the host's environment, in the form of os.Environ; its
	// proxy settings (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, in upper or
	// lower case) are used as net/http would use the process's. nil means
	// no proxy. Certificates are the system's, which Go reads from the
	// process's SSL_CERT_FILE and SSL_CERT_DIR.
	Environ []string
	// MaxMessage bounds what is read of one response that is not an event
	// stream, and of one server-sent event; 0 means [DefaultMaxMessage].
	MaxMessage int
	// Relay, when not nil, relays what the server sends for the client
	// strata serves.
	Relay *Relay `json:"-"`
	// AllowHTTP lets URL be plain http to a host other than this machine
	// (see [checkOrigin]); loopback needs no permission.
	AllowHTTP bool
	// Auth, when not nil, signs in to the server (MCP authorization): its
	// token is sent with every request that carries no Authorization of
	// its own, and a 401 or 403 of streamable HTTP goes to its Authorize,
	// after which the request is sent again once (the SDK's
	// StreamableClientTransport does that). Its token goes to the origin of
	// URL alone, as everything of the session.
	Auth auth.OAuthHandler `json:"-"`
}

// ReconnectRetries is how many times a broken event stream of a remote
// server is resumed before the session fails (the SDK's default is 5,
// about 20 seconds of backoff after a server died mid-call; 2 is about
// 3 seconds, which rides out a restart of a proxy in front of it).
const ReconnectRetries = 2

// DefaultMaxMessage is the default bound on one message from a remote
// server: a JSON response, or one server-sent event.
const DefaultMaxMessage = 16 << 20

// Transports a session runs over; see [Session.Transport].
const (
	TransportStdio      = "stdio"
	TransportStreamable = "streamable-http"
	TransportSSE        = "sse"
)

// Dial connects to the remote server r, waiting at most startup (0: no
// limit) for it to answer initialize. It tries streamable HTTP first; when
// the server refuses that with a 4xx status (other than 401 and 403, which
// are about credentials), it connects over the older HTTP+SSE transport,
// as the backwards compatibility section of the MCP specification
// describes: a GET of the same URL that opens an event stream whose first
// event names the endpoint to post to.
//
// Every request goes to the origin of r.URL (its scheme, host and port)
// and nowhere else: a redirect to another origin, or an HTTP+SSE endpoint
// at another, fails the request with an error that names both origins,
// before a byte is sent there (the body of a 307 would carry the message,
// the headers the credentials). Plain http goes only to this machine,
// unless r.AllowHTTP; and never with credentials through a proxy, which
// would read them.
//
// The session's Stderr stays empty; Close ends the HTTP session.
func Dial(ctx context.Context, r Remote, startup time.Duration) (*Session, error) {
	s, err := dialRemote(ctx, r, startup)
	if err != nil {
		return nil, secret.RedactError(err, r.secrets()...)
	}
	s.secrets = r.secrets()
	return s, nil
}

// secrets are what r sends that its errors may quote: its URL (net/http
// names it), its headers and its token.
func (r Remote) secrets() []secret.String {
	out := []secret.String{r.URL, r.BearerToken}
	for _, v := range r.Headers {
		out = append(out, v)
	}
	return out
}

func dialRemote(ctx context.Context, r Remote, startup time.Duration) (*Session, error) {
	endpoint := r.URL.Reveal()
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("not an http:// or https:// URL: %q", r.URL)
	}
	if err := checkOrigin(r); err != nil {
		return nil, err
	}
	maxMsg := r.MaxMessage
	if maxMsg <= 0 {
		maxMsg = DefaultMaxMessage
	}
	proxy := ProxyFrom(r.Environ)
	if err := checkProxy(r, u, proxy); err != nil {
		return nil, err
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = proxy
	// Concurrent calls are concurrent requests, each on a connection of
	// its own; net/http keeps 2 of them once they end and closes the
	// others, so that under load most calls dialled again.
	base.MaxIdleConnsPerHost = IdleConns
	base.MaxIdleConns = IdleConns
	tp := &tap{}
	g := &guard{origin: origin.Of(u)}
	headers := make(map[string]string, len(r.Headers))
	for k, v := range r.Headers {
		headers[k] = v.Reveal()
	}
	rt := &roundTripper{base: base, guard: g, headers: headers, token: r.BearerToken.Reveal(), auth: r.Auth, max: int64(maxMsg), tap: tp}
	client := &http.Client{Transport: rt, CheckRedirect: g.checkRedirect}

	cctx, cancel := withStartup(ctx, startup)
	defer cancel()
	s, err := connect(ctx, cctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxEventSize: maxMsg, MaxRetries: ReconnectRetries, OAuthHandler: r.Auth}, startup, tp, r.Relay)
	if err == nil {
		s.transport = TransportStreamable
		s.raw = &httpCaller{client: client, url: endpoint, cs: func() *mcp.ClientSession { return s.cs }, max: maxMsg}
		return s, nil
	}
	if refused := g.err(); refused != nil {
		return nil, refused
	}
	status, ok := rt.postStatus()
	switch {
	case ok || status == 0 || cctx.Err() != nil:
		return nil, err
	case (status == http.StatusUnauthorized || status == http.StatusForbidden) && r.Auth != nil:
		return nil, err // the sign-in's own error
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return nil, fmt.Errorf("the server answered %s: it needs credentials (a sign-in, a bearer token or headers)", statusText(status))
	case status < 400 || status >= 500:
		return nil, err
	}
	// A 4xx to the POST: a server of the HTTP+SSE transport.
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	// The connection of the older transport is the SDK's plain one, which
	// a tapConn may wrap, to send the requests the SDK does not know.
	sse := &tapTransport{Transport: &sseTransport{inner: &mcp.SSEClientTransport{Endpoint: endpoint, HTTPClient: client, MaxEventSize: maxMsg}, life: life, stop: stop}, tap: tp, fed: true}
	s, serr := connect(ctx, cctx, sse, startup, tp, r.Relay)
	if serr != nil {
		stop()
		if refused := g.err(); refused != nil {
			return nil, refused
		}
		if get := rt.getStatus(); get != 0 {
			return nil, fmt.Errorf("no MCP server at %s: a POST (streamable HTTP) answered %s and a GET (HTTP+SSE) %s", r.URL, statusText(status), statusText(get))
		}
		return nil, fmt.Errorf("a POST (streamable HTTP) answered %s, and over HTTP+SSE: %w", statusText(status), serr)
	}
	s.transport, s.stop, s.raw = TransportSSE, stop, sse.conn
	return s, nil
}

func statusText(code int) string { return fmt.Sprintf("%d %s", code, http.StatusText(code)) }

// checkOrigin refuses plain http to a host other than this machine, unless
// r allows it: the token, the headers and every message would cross the
// network in clear.
func checkOrigin(r Remote) error {
	u, err := url.Parse(r.URL.Reveal())
	if err != nil {
		return fmt.Errorf("not an http:// or https:// URL: %q", r.URL)
	}
	if origin.Clear(u) && !r.AllowHTTP {
		return fmt.Errorf("plain http to %s, which is not this machine, would send the token, the headers and every message in clear: use https, or allow_http = true for this server", u.Host)
	}
	return nil
}

// checkProxy refuses credentials in clear to a proxy: over plain http, a
// proxy receives each request whole, headers included (over https it
// receives a CONNECT and then only TLS).
func checkProxy(r Remote, u *url.URL, proxy func(*http.Request) (*url.URL, error)) error {
	if proxy == nil || !strings.EqualFold(u.Scheme, "http") || r.BearerToken.Empty() && len(r.Headers) == 0 {
		return nil
	}
	p, err := proxy(&http.Request{URL: u})
	if err != nil || p == nil {
		return err
	}
	return fmt.Errorf("plain http to %s goes through the proxy %s, which would read the token and the headers: use https, or leave the host out of the proxy with NO_PROXY", u.Host, p.Redacted())
}

// guard keeps every request of a session to the configured origin, and
// remembers the first it refused, which is what went wrong when a
// connection fails.
type guard struct {
	origin origin.Origin

	mu      sync.Mutex
	refused error
}

func (g *guard) refuse(err error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused == nil {
		g.refused = err
	}
	return err
}

func (g *guard) err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

// checkRedirect is the client's redirect policy: a redirect within the
// origin is followed (with the credentials), one to another origin fails.
func (g *guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if to := origin.Of(req.URL); to != g.origin {
		status := ""
		if req.Response != nil {
			status = " (" + statusText(req.Response.StatusCode) + ")"
		}
		return g.refuse(fmt.Errorf("the server at %s redirected to another origin, %s%s: strata sends a server's token, headers and messages only to the origin of its url; if the server moved, write its new url", g.origin, to, status))
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// check refuses a request to another origin than the configured one. A
// redirect was refused before (checkRedirect); what comes here is the
// endpoint an HTTP+SSE server named.
func (g *guard) check(req *http.Request) error {
	if to := origin.Of(req.URL); to != g.origin {
		return g.refuse(fmt.Errorf("the server at %s named an endpoint at another origin, %s: strata sends a server's token, headers and messages only to the origin of its url", g.origin, to))
	}
	return nil
}

// ProxyFrom returns the proxy function of environ's settings (nil when
// environ is nil): the proxies of the host, not of the process.
func ProxyFrom(environ []string) func(*http.Request) (*url.URL, error) {
	if environ == nil {
		return nil
	}
	get := func(names ...string) string {
		for _, n := range names {
			for i := len(environ) - 1; i >= 0; i-- {
				if k, v, ok := strings.Cut(environ[i], "="); ok && k == n && v != "" {
					return v
				}
			}
		}
		return ""
	}
	cfg := httpproxy.Config{
		HTTPProxy:  get("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: get("HTTPS_PROXY", "https_proxy"),
		NoProxy:    get("NO_PROXY", "no_proxy"),
	}
	proxy := cfg.ProxyFunc()
	return func(req *http.Request) (*url.URL, error) { return proxy(req.URL) }
}

// sseTransport connects over HTTP+SSE with an event stream that lives as
// long as the session: the context of Connect bounds only the wait for
// the stream's first event, not the stream, which life does.
type sseTransport struct {
	inner *mcp.SSEClientTransport
	life  context.Context
	stop  context.CancelFunc
}

func (t *sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	type result struct {
		c   mcp.Connection
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := t.inner.Connect(t.life)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.c, r.err
	case <-ctx.Done():
		t.stop()
		<-done
		return nil, ctx.Err()
	}
}

// roundTripper adds the configured headers to every request, bounds what
// is read of responses that are not event streams, shows the tap the raw
// messages of every response, and remembers the statuses that tell the
// transports apart.
type roundTripper struct {
	base    http.RoundTripper
	guard   *guard
	headers map[string]string
	token   string
	auth    auth.OAuthHandler
	max     int64
	tap     *tap

	mu     sync.Mutex
	post   int  // status of the latest POST
	postOK bool // a POST succeeded
	get    int  // status of the latest GET
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.guard.check(req); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if len(t.headers) > 0 || t.token != "" || t.auth != nil {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			if req.Header.Get(k) == "" {
				req.Header.Set(k, v)
			}
		}
		if t.token != "" && req.Header.Get("Authorization") == "" {
			req.Header.Set("Authorization", "Bearer "+t.token)
		}
		if t.auth != nil && req.Header.Get("Authorization") == "" {
			// What the SDK does not send (the requests strata sends
			// itself, the HTTP+SSE transport) carries the sign-in too.
			if ts, err := t.auth.TokenSource(req.Context()); err == nil && ts != nil {
				if tok, err := ts.Token(); err == nil && tok.AccessToken != "" {
					req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
				}
			}
		}
	}
	if t.auth != nil && req.Header.Get("Authorization") != "" && strings.EqualFold(req.URL.Scheme, "http") {
		// A sign-in's token, which came after Dial's check of the
		// proxy, never goes in clear through one either.
		if tp, ok := t.base.(*http.Transport); ok && tp.Proxy != nil {
			if p, err := tp.Proxy(req); err == nil && p != nil {
				if req.Body != nil {
					req.Body.Close()
				}
				return nil, fmt.Errorf("plain http to %s goes through the proxy %s, which would read the sign-in's token: use https, or leave the host out of the proxy with NO_PROXY", req.URL.Host, p.Redacted())
			}
		}
	}
	var d *drain
	if req.Method == http.MethodPost {
		d = newDrain(req.Context())
		req = req.WithContext(d.ctx)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		d.close()
		return nil, err
	}
	t.mu.Lock()
	switch req.Method {
	case http.MethodPost:
		t.post = resp.StatusCode
		t.postOK = t.postOK || resp.StatusCode/100 == 2
	case http.MethodGet:
		t.get = resp.StatusCode
	}
	t.mu.Unlock()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	stream := mt == "text/event-stream"
	if !stream {
		resp.Body = &limitedBody{r: resp.Body, left: t.max, max: t.max}
	}
	tb := &tapBody{r: resp.Body, tap: t.tap, stream: stream, max: int(t.max), drain: d}
	if req.Method == http.MethodPost {
		tb.ctx = req.Context() // the call's, with its Downstream if relayed
	}
	resp.Body = tb
	return resp, nil
}

// IdleConns is how many connections to a remote server are kept open
// between requests: as many as calls under way at once, up to this.
const IdleConns = 100

// Bounds of reading the rest of a call's event stream once its caller has
// its answer and has gone (see [drain]).
const (
	// DrainBytes is how much more is read: a server ends the stream
	// right after the response.
	DrainBytes = 64 << 10
	// DrainGrace is how long the end is waited for.
	DrainGrace = time.Second
)

// drain keeps the connection of a POST from being closed only because
// its caller's context ended after the answer was read. The response to a
// call may be an event stream, which the SDK reads under the call's
// context and which the server ends right after the call's response; the
// call returns as soon as the response is read, and its caller's context
// ends then (a call under a timeout cancels it), often before the SDK has
// read the stream's end. net/http then closes the connection rather than
// reuse it, and the next call dials again: a third of the calls through
// strata serve did, each leaving a connection in TIME_WAIT. So the request
// runs under a context of its own, which ends with the caller's while the
// response is awaited, and, once the response has been read, when the
// stream ends, after DrainBytes more or after DrainGrace.
type drain struct {
	ctx    context.Context
	cancel context.CancelFunc
	stop   func() bool // stops following the caller's context

	mu       sync.Mutex
	answered bool  // the stream carried the response
	gone     bool  // the caller's context ended
	left     int64 // what may still be read once both
	timer    *time.Timer
}

func newDrain(caller context.Context) *drain {
	d := &drain{left: DrainBytes}
	d.ctx, d.cancel = context.WithCancel(context.WithoutCancel(caller))
	d.stop = context.AfterFunc(caller, d.callerGone)
	return d
}

// callerGone ends the request now, unless its response has been read:
// then the rest of the stream is read within the bounds.
func (d *drain) callerGone() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.gone = true
	if !d.answered {
		d.cancel()
		return
	}
	d.timer = time.AfterFunc(DrainGrace, d.cancel)
}

// answer records that the stream carried the response.
func (d *drain) answer() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.answered = true
	d.mu.Unlock()
}

// read counts n bytes read, and ends the request once the drain has read
// more than DrainBytes.
func (d *drain) read(n int) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.gone && d.answered {
		if d.left -= int64(n); d.left < 0 {
			d.cancel()
		}
	}
}

// close ends the request, once its body is closed (or it failed).
func (d *drain) close() {
	if d == nil {
		return
	}
	d.stop()
	d.mu.Lock()
	if d.timer != nil {
		d.timer.Stop()
	}
	d.mu.Unlock()
	d.cancel()
}

// postStatus returns the status of the latest POST, and whether any POST
// succeeded.
func (t *roundTripper) postStatus() (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.post, t.postOK
}

func (t *roundTripper) getStatus() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.get
}

// ErrTooLarge is the error of reading a response longer than the bound of
// [Remote].MaxMessage.
var ErrTooLarge = errors.New("the server's response is too large")

// LimitBody returns r, which fails with [ErrTooLarge] rather than give
// more than max bytes (or cut what is longer).
func LimitBody(r io.ReadCloser, max int64) io.ReadCloser {
	return &limitedBody{r: r, left: max, max: max}
}

// limitedBody reads at most max bytes of a response, and fails rather
// than cut one that is longer.
type limitedBody struct {
	r         io.ReadCloser
	left, max int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(b.r, one[:]); n > 0 {
			return 0, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, b.max)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }

// tapBody shows the tap each JSON-RPC message of a response as the SDK
// reads it: the whole body of a JSON response, the data of each event of
// an event stream. The tap sees a message before the SDK has parsed it.
type tapBody struct {
	r      io.ReadCloser
	tap    *tap
	stream bool
	max    int
	buf    []byte // the JSON body, or the stream's current line
	data   []byte // the data of the stream's current event
	over   bool   // the message (or line) went over max: not kept
	broken bool   // the stream's current event went over max
	drain  *drain // the POST's, if it is one
	// ctx is the POST's context; event and retry are the name and retry
	// field of the stream's current event.
	ctx          context.Context
	event, retry string
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.drain.read(n)
	if b.tap != nil {
		if b.stream {
			b.lines(p[:n])
		} else {
			b.keep(p[:n])
			if err == io.EOF && !b.over {
				b.tap.seeRaw(b.buf)
			}
		}
	}
	return n, err
}

// closed tells the client of the call relayed over this POST, when it
// can be told ([StreamCloser]), that the server closed the call's event
// stream, asking to be polled (SEP-1699's close event): the client's
// stream is closed in turn, with the server's retry time, so that it
// resumes it then, as the server asked, while strata resumes the
// server's (the SDK does, with Last-Event-ID) and keeps the result for
// the client.
func (b *tapBody) closed() {
	if b.ctx == nil {
		return
	}
	sc, ok := DownstreamOf(b.ctx).(StreamCloser)
	if !ok {
		return
	}
	ms, _ := strconv.ParseInt(b.retry, 10, 64)
	sc.CloseStream(time.Duration(max(ms, 0)) * time.Millisecond)
}

func (b *tapBody) keep(p []byte) {
	if b.over || len(b.buf)+len(p) > b.max {
		b.over, b.buf = true, nil
		return
	}
	b.buf = append(b.buf, p...)
}

// lines follows the event stream: data lines are gathered, and a blank
// line ends an event (the format of server-sent events). An event with a
// line longer than max is not shown to the tap.
func (b *tapBody) lines(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.keep(p)
			return
		}
		b.keep(p[:i])
		p = p[i+1:]
		if b.over {
			b.broken = true
			b.buf, b.over = b.buf[:0], false
			continue
		}
		line := bytes.TrimSuffix(b.buf, []byte("\r"))
		switch {
		case len(line) == 0:
			if len(b.data) > 0 && !b.broken && b.tap.seeRaw(b.data) {
				b.drain.answer()
			}
			if b.event == "close" {
				b.closed()
			}
			b.data, b.broken, b.event, b.retry = b.data[:0], false, "", ""
		case bytes.HasPrefix(line, []byte("event:")):
			b.event = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("retry:")):
			b.retry = string(bytes.TrimSpace(line[len("retry:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			if len(b.data) > 0 {
				b.data = append(b.data, '\n')
			}
			b.data = append(b.data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
			if len(b.data) > b.max {
				b.data, b.broken = b.data[:0], true
			}
		}
		b.buf = b.buf[:0]
	}
}

func (b *tapBody) Close() error {
	err := b.r.Close()
	b.drain.close()
	return err
}
