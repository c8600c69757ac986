package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/mcpclient"
)

// Servers keeps MCP servers running between resolutions and calls: a
// server starts once, on the first resolution that needs its tools or the
// first call of one of them, and keeps running until [Servers.Close] or
// until [Servers.Retain] no longer names it.
//
// A server started for a call lists its tools on the way; when they differ
// from what the cache held (the cache answered a resolution without
// starting anything: stale while revalidating), the cache is updated and
// OnChange is called, so that the host can resolve again. The same happens
// when a running server says its tools changed.
//
// A server that answers seed 002's server/identity is asked who it is
// when it is reached again (a running server listed again, a server
// started for a call whose tools are cached, a remote server checked on a
// warm resolution): while it says the same, its tools are those known, and
// tools/list is not sent.
//
// For a host that serves an MCP client (strata serve, see [Servers.Serve]),
// the servers relay for that client: they are declared its sampling and
// elicitation capabilities and pass its requests on, and their log
// messages and the progress of its calls go to it.
//
// The zero Servers is ready to use. A Servers must not be copied after
// first use; a nil *Servers starts a server for each listing or call and
// stops it after.
type Servers struct {
	// Cache keeps the servers' tools; nil keeps nothing.
	Cache *cache.Cache
	// OnChange, when not nil, is called with the name of a server whose
	// tools changed, from a goroutine of its own.
	OnChange func(server string)
	// OnOffersChange, when not nil, is called with the name of a server
	// that says its resources or prompts changed, from a goroutine of its
	// own.
	OnOffersChange func(server string)
	// OnUpdated, when not nil, is told the notifications/resources/updated
	// of the servers: the server's name and its URI of the resource.
	OnUpdated func(server, uri string)
	// OnCallFailed, when not nil, is told why a server that a call needed
	// did not start: the call's caller gets the error, which holds
	// nothing of the server's stderr, and the host's own user may be
	// shown it whole (mcpclient.StderrOf).
	OnCallFailed func(server string, err error)
	// RetryFirst and RetryMax bound the wait before a server whose start
	// failed is started again: RetryFirst after the first failure, twice
	// as long after each next one, at most RetryMax; 0 is
	// [DefaultRetryFirst] and [DefaultRetryMax].
	RetryFirst, RetryMax time.Duration

	mu     sync.Mutex
	live   map[string]*live    // by server identity
	failed map[string]*failure // the servers whose last start failed, by identity
	closed bool
	follow sync.WaitGroup   // the goroutines that follow running servers
	client Client           // the client served, if any
	level  mcp.LoggingLevel // the log level that client asked for
	subs   map[string]int   // subscriptions to resources, by server identity and URI
}

// Client is the MCP client a host serves, as the servers it is a client of
// reach it.
type Client struct {
	// Capabilities are the client's sampling and elicitation
	// capabilities: the servers started from now on are declared them
	// (see [Server].Client), and their requests go to the client.
	Capabilities mcpclient.Capabilities
	// Log is given the servers' log messages that come while no call of
	// the client is under way (those of a call go with the call).
	Log func(ctx context.Context, p *mcp.LoggingMessageParams)
	// ListRoots, when not nil, answers the servers' roots/list that come
	// while no call of the client is under way.
	ListRoots func(ctx context.Context) (*mcp.ListRootsResult, error)
	// Ask, when not nil, answers the requests of the server named server
	// (sampling, elicitation) that come while no call of the client is
	// under way: a host that calls the servers itself answers them (see
	// [mcpclient.Relay].Ask).
	Ask func(ctx context.Context, server string, req mcp.InputRequest) (mcp.InputResponse, error)
}

// ClientOf returns the client of a session of an MCP server strata runs
// (strata serve) that declared caps, as the servers relay for it: its
// sampling and elicitation capabilities, and its session for log
// messages.
func ClientOf(caps *mcp.ClientCapabilities, ss *mcp.ServerSession) Client {
	var c Client
	if caps != nil {
		c.Capabilities = mcpclient.Capabilities{Sampling: caps.Sampling, Elicitation: caps.Elicitation}
		if caps.RootsV2 != nil {
			c.Capabilities.Roots = &mcp.RootCapabilities{}
			c.ListRoots = func(ctx context.Context) (*mcp.ListRootsResult, error) { return ss.ListRoots(ctx, nil) }
		}
	}
	c.Log = func(ctx context.Context, p *mcp.LoggingMessageParams) { _ = ss.Log(ctx, p) }
	return c
}

// Serve makes c the client the servers relay for. It reports whether the
// capabilities declared to servers changed: the servers started before
// are not those that c reaches (a server may list other tools to it), and
// the host should resolve again, with specs that declare them.
func (p *Servers) Serve(c Client) (changed bool) {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old, _ := json.Marshal(p.client.Capabilities)
	now, _ := json.Marshal(c.Capabilities)
	p.client = c
	return string(old) != string(now)
}

// Declared returns the capabilities that the servers started now are
// declared: those of the client served, if any (see [Server].Client).
func (p *Servers) Declared() mcpclient.Capabilities {
	if p == nil {
		return mcpclient.Capabilities{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client.Capabilities
}

// SetLogLevel asks the running servers that declare logging for log
// messages of level and above, and the servers started later too: the
// client served asked for them.
func (p *Servers) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.level = level
	var running []*live
	for _, l := range p.live {
		select {
		case <-l.ready:
			running = append(running, l)
		default:
			// Starting, maybe with the level before: it is asked the
			// latest once it has started.
			p.follow.Go(func() {
				<-l.ready
				p.mu.Lock()
				latest := p.level
				p.mu.Unlock()
				if l.sess != nil {
					_ = l.sess.SetLogLevel(context.WithoutCancel(ctx), latest)
				}
			})
		}
	}
	p.mu.Unlock()
	for _, l := range running {
		if l.sess != nil {
			_ = l.sess.SetLogLevel(ctx, level)
		}
	}
}

// listRoots returns how the client served answers roots/list outside its
// calls, if it does (must hold p.mu).
func (p *Servers) listRoots() func(ctx context.Context) (*mcp.ListRootsResult, error) {
	f := p.client.ListRoots
	if f == nil {
		return nil
	}
	return func(ctx context.Context) (*mcp.ListRootsResult, error) {
		p.mu.Lock()
		g := p.client.ListRoots
		p.mu.Unlock()
		if g == nil {
			return nil, mcpclient.ErrNoClient
		}
		return g(ctx)
	}
}

// ask returns the server's [mcpclient.Relay].Ask: the client's Ask, for
// server, as it is when the server asks; nil when the client has none.
func (p *Servers) ask(server string) func(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	if p.client.Ask == nil {
		return nil
	}
	return func(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
		p.mu.Lock()
		f := p.client.Ask
		p.mu.Unlock()
		if f == nil {
			return nil, mcpclient.ErrNoClient
		}
		return f(ctx, server, req)
	}
}

// log passes a log message to the client served, if any.
func (p *Servers) log(ctx context.Context, m *mcp.LoggingMessageParams) {
	p.mu.Lock()
	f := p.client.Log
	p.mu.Unlock()
	if f != nil {
		f(ctx, m)
	}
}

// live is a running server, or one starting.
type live struct {
	spec  Server
	ready chan struct{} // closed once started, or failed
	since time.Time     // when it started
	sess  *mcpclient.Session
	err   error

	mu sync.Mutex // serializes listings (the session reads one at a time)
	// last is its last listing: the tools as texts, as the server listed
	// them (see mcpclient.ToolOf), read and never changed.
	last Answer
	// called says a call went to the server: it gets the grace of a
	// server that may have work to finish when it stops. A server that
	// only listed its tools (a one-shot strata resolve) is idle: it is
	// sent SIGTERM as its stdin closes, and has ListGrace to exit.
	called atomic.Bool
}

// keep keeps a as the server's last listing.
func (l *live) keep(a Answer) { l.last = a }

// answer returns the server's last listing, its tools in a slice of their
// own (their texts are shared, and read only).
func (l *live) answer() Answer {
	a := l.last
	a.Tools = slices.Clone(a.Tools)
	return a
}

// idle reports whether the server only listed its tools: it has nothing
// to finish when it stops.
func (l *live) idle() bool { return !l.called.Load() }

// State is the state of one running server, or one that failed to start
// (see [Servers.States]).
type State struct {
	Name string
	// State is "starting", "running" or "failed".
	State string
	// Err is why the last start of a server failed: that of a failed
	// server, and of one starting again after it failed.
	Err error
	// Failures counts the starts that failed in a row; Retry is the
	// earliest time a failed server is started again, when a client asks
	// for it (see [Servers.Want]).
	Failures int
	Retry    time.Time
}

// States returns the state of each server started or starting, by name,
// and of the last start of each that failed since (a server that ended
// is not listed: it starts again at the next call that needs it).
func (p *Servers) States() []State {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []State
	for id, l := range p.live {
		st := State{Name: l.spec.Name, State: "starting"}
		switch {
		case l.failedStart():
			continue // listed with the failures below: it leaves live just after
		case l.started():
			st.State = "running"
		default:
			if f := p.failed[id]; f != nil {
				st.Err, st.Failures = f.err, f.attempts
			}
		}
		out = append(out, st)
	}
	for id, f := range p.failed {
		if l := p.live[id]; l == nil || l.failedStart() {
			out = append(out, State{Name: f.spec.Name, State: "failed", Err: f.err, Failures: f.attempts, Retry: f.retry})
		}
	}
	return out
}

// started reports whether the start of l has ended, however it ended.
func (l *live) started() bool {
	select {
	case <-l.ready:
		return true
	default:
		return false
	}
}

// failedStart reports whether the start of l has ended and failed: its
// callers have been told (l.err is set before ready is closed).
func (l *live) failedStart() bool { return l.started() && l.err != nil }

// DefaultRetryFirst and DefaultRetryMax are the waits before a server
// whose start failed is started again: the first, and the longest (see
// [Servers].RetryFirst).
const (
	DefaultRetryFirst = time.Second
	DefaultRetryMax   = 30 * time.Second
)

// failure is a server whose last start failed. It is started again once
// its retry time has come, when a client asks for it ([Servers.Want], a
// call of one of its tools): a server nobody asks for is left alone, and
// one asked for by many clients is started once at a time.
type failure struct {
	spec     Server
	err      error     // why its last start failed
	attempts int       // the starts that failed in a row
	retry    time.Time // the earliest time it starts again
	timer    *time.Timer
}

// DownError is the error of a call, or a listing, of a server that is
// down: its last start failed (Err says why, and holds no secret and
// nothing of its stderr, see [Error]), and strata starts it again at
// Retry, or now, when Retry is zero.
type DownError struct {
	Server string
	Err    error
	Retry  time.Time
}

func (e *DownError) Error() string {
	when := "retrying now"
	if d := time.Until(e.Retry); !e.Retry.IsZero() && d > 0 {
		when = fmt.Sprintf("retrying in %ds", int((d+time.Second-1)/time.Second))
	}
	return fmt.Sprintf("server %s is down: %v, %s", e.Server, e.Err, when)
}

func (e *DownError) Unwrap() error { return e.Err }

// backoff is how long to wait after the nth start of a server in a row
// failed, with a tenth more at random (servers failed together are not
// started again together).
func (p *Servers) backoff(n int) time.Duration {
	first, most := p.RetryFirst, p.RetryMax
	if first <= 0 {
		first = DefaultRetryFirst
	}
	if most <= 0 {
		most = DefaultRetryMax
	}
	d := first
	for i := 1; i < n && d < most; i++ {
		d *= 2
	}
	d = min(d, most)
	return d + rand.N(d/10+1)
}

// Down returns the servers that are down, by name: their last start
// failed, and they are not running.
func (p *Servers) Down() []*DownError {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*DownError
	for id, f := range p.failed {
		e := &DownError{Server: f.spec.Name, Err: f.err, Retry: f.retry}
		if p.live[id] != nil {
			e.Retry = time.Time{} // starting again now
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *DownError) int { return strings.Compare(a.Server, b.Server) })
	return out
}

// Want says that a client asks for the tools of the servers named (of
// every server, when none is): each of them that is down is started
// again when its retry time comes, once, however many clients ask.
func (p *Servers) Want(servers ...string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	for id, f := range p.failed {
		if len(servers) > 0 && !slices.Contains(servers, f.spec.Name) {
			continue
		}
		p.arm(id, f)
	}
}

// arm starts the failed server f again at its retry time: now, when it
// has come (must hold p.mu).
func (p *Servers) arm(id string, f *failure) {
	if f.timer != nil || p.live[id] != nil {
		return // armed, or starting
	}
	d := time.Until(f.retry)
	if d <= 0 {
		p.launch(id, f.spec, func() *Answer { return p.cached(f.spec) })
		return
	}
	f.timer = time.AfterFunc(d, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.failed[id] != f || f.timer == nil {
			return // started since, stopped, or forgotten
		}
		f.timer = nil
		if !p.closed && p.live[id] == nil {
			p.launch(id, f.spec, func() *Answer { return p.cached(f.spec) })
		}
	})
}

// disarm stops the timer of f, if any (must hold p.mu).
func (f *failure) disarm() {
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
}

// errClosed is the error of a server asked for after Close.
var errClosed = errors.New("the servers are closed")

// Close stops every server.
func (p *Servers) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	all := p.live
	p.live, p.closed = nil, true
	for _, f := range p.failed {
		f.disarm()
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range all {
		wg.Go(func() { l.stop() })
	}
	wg.Wait()
	p.follow.Wait() // nothing of a server outlives Close, not a cache write
	return nil
}

func (l *live) stop() {
	<-l.ready
	if l.sess != nil {
		if l.idle() {
			l.sess.SetIdle(ListGrace)
		}
		_ = l.sess.Close()
	}
}

// Retain stops the servers whose identity ([Server.ID]) is not in keep.
func (p *Servers) Retain(keep map[string]bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	var stop []*live
	for id, l := range p.live {
		if !keep[id] {
			stop = append(stop, l)
			delete(p.live, id)
		}
	}
	for id, f := range p.failed {
		if !keep[id] {
			f.disarm()
			delete(p.failed, id) // configured otherwise now, or no longer
		}
	}
	p.mu.Unlock()
	for _, l := range stop {
		go l.stop()
	}
}

// forget removes l, once its connection ended, and reports whether it
// was there: a server that strata stopped (Close, Retain) was removed
// before.
func (p *Servers) forget(id string, l *live) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live[id] == l {
		delete(p.live, id)
		return true
	}
	return false
}

// Tools returns the tools of the server of s: listed again on the running
// server, or listed as it starts. started says it started now. known,
// when not nil, are the server's tools as last listed (cached): a server
// that starts now and says it is the one that gave them (seed 002's
// identity) is not asked for its tools; a running server is compared with
// its own last listing.
func (p *Servers) Tools(ctx context.Context, s Server, known *Answer) (a Answer, started bool, err error) {
	if p == nil {
		a, err := List(ctx, s, known)
		return a, true, err
	}
	l, started, err := p.get(ctx, s, func() *Answer { return known })
	if err != nil {
		return Answer{}, false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if started {
		return l.answer(), true, nil
	}
	last := l.answer()
	fresh, _, err := list(ctx, l.sess, s, &last)
	if err != nil {
		return last, false, nil
	}
	l.keep(fresh)
	return fresh, false, nil
}

// Call calls tool of the server of s with args (a JSON object) and the
// _meta payload meta, under the server's tool timeout. A server that the
// call starts has its tools compared with the cache (see [Servers]).
func (p *Servers) Call(ctx context.Context, s Server, tool string, args json.RawMessage, meta map[string]any) (*mcp.CallToolResult, error) {
	if p == nil {
		sess, err := Start(ctx, s, nil)
		if err != nil {
			return nil, startFailed(s, err)
		}
		defer sess.Close()
		return call(ctx, sess, s, tool, args, meta)
	}
	l, started, err := p.get(ctx, s, func() *Answer { return p.cached(s) })
	if err != nil {
		var down *DownError
		if f := p.OnCallFailed; f != nil && ctx.Err() == nil && err != errClosed && !errors.As(err, &down) {
			f(s.Name, err) // a server down since told it
		}
		return nil, err
	}
	l.called.Store(true)
	if started {
		l.mu.Lock()
		a := l.answer()
		l.mu.Unlock()
		p.revalidate(l, a)
	}
	return call(ctx, l.sess, s, tool, args, meta)
}

// cached returns the tools of the server of s that the cache holds, or
// nil (see [Cached]).
func (p *Servers) cached(s Server) *Answer { return Cached(p.Cache, s) }

// get returns the running server of s, starting it (and listing its tools,
// unless it says it is the server of the tools known returns) when it is
// not running; started says it was. A server whose last start failed is
// not started before its retry time: its [*DownError] says when, and it
// is started then (see [Servers.Want]).
//
// A server starts on a goroutine of its own, under no caller's context:
// it serves every caller after the first (a client that gave up on its
// call ends no start others wait for), and the requests it sends later
// are handled under no call's values (see [mcpclient.Downstream]). Its
// start is bounded by its startup timeout and listing by its tool
// timeout; each caller waits for it as long as its own context lets it.
func (p *Servers) get(ctx context.Context, s Server, known func() *Answer) (l *live, started bool, err error) {
	id := s.id()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, errClosed
	}
	l = p.live[id]
	if l == nil {
		if f := p.failed[id]; f != nil && time.Now().Before(f.retry) {
			p.arm(id, f)
			down := &DownError{Server: s.Name, Err: f.err, Retry: f.retry}
			p.mu.Unlock()
			return nil, false, down
		}
		l = p.launch(id, s, known)
		started = true
	}
	p.mu.Unlock()
	select {
	case <-l.ready:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	if l.err != nil {
		return nil, false, l.err
	}
	return l, started, nil
}

// launch starts the server of s, identified by id, on a goroutine of its
// own (must hold p.mu).
func (p *Servers) launch(id string, s Server, known func() *Answer) *live {
	l := &live{spec: s, ready: make(chan struct{})}
	if p.live == nil {
		p.live = map[string]*live{}
	}
	p.live[id] = l
	if f := p.failed[id]; f != nil {
		f.disarm()
	}
	relay := &mcpclient.Relay{Capabilities: s.Client, Name: s.Name, Level: p.level, Log: p.log, ListRoots: p.listRoots(), Ask: p.ask(s.Name), Updated: func(uri string) { p.updated(s.Name, uri) }}
	p.follow.Go(func() { p.start(id, l, relay, known) })
	return l
}

// start starts the server of l and lists its tools, then follows it.
func (p *Servers) start(id string, l *live, relay *mcpclient.Relay, known func() *Answer) {
	ctx := context.Background()
	l.since = time.Now()
	l.sess, l.err = Start(ctx, l.spec, relay)
	if l.err != nil {
		l.err = startFailed(l.spec, l.err)
	} else {
		var a Answer
		a, _, l.err = list(ctx, l.sess, l.spec, known())
		l.keep(a)
		if l.err != nil {
			_ = l.sess.Close()
			l.sess = nil
		}
	}
	p.mu.Lock()
	f := p.failed[id]
	recovered := false
	switch {
	case l.err != nil && p.live[id] == l: // not stopped meanwhile
		if f == nil {
			f = &failure{}
			if p.failed == nil {
				p.failed = map[string]*failure{}
			}
			p.failed[id] = f
		}
		f.spec, f.err = l.spec, l.err
		f.attempts++
		f.retry = time.Now().Add(p.backoff(f.attempts))
	case l.err == nil && f != nil:
		f.disarm()
		delete(p.failed, id)
		recovered = true
	}
	p.mu.Unlock()
	close(l.ready)
	if l.err != nil {
		p.forget(id, l)
		return
	}
	if recovered {
		// Its tools were left out, or served from the cache: the host
		// resolves again, and its clients see them.
		if f := p.OnChange; f != nil {
			go f(l.spec.Name)
		}
	}
	p.followServer(id, l)
}

// followServer follows a running server: when it says its tools changed,
// they are listed again and compared; when its connection ends, it leaves
// the set.
func (p *Servers) followServer(id string, l *live) {
	for {
		select {
		case <-l.sess.Done():
			if p.forget(id, l) { // it ended on its own
				p.renew(l)
			}
			return
		case <-l.sess.OffersChanged():
			if f := p.OnOffersChange; f != nil {
				go f(l.spec.Name)
			}
		case <-l.sess.Changes():
			l.mu.Lock()
			a, _, err := list(context.Background(), l.sess, l.spec, nil)
			if err == nil {
				l.keep(a)
			}
			l.mu.Unlock()
			if err == nil {
				p.revalidate(l, a)
			}
		}
	}
}

// renew starts the server of l again, once it ended, when clients are
// subscribed to its resources, and subscribes the new process to them:
// the clients go on getting their updates. A server that ended within
// renewAfter of its start is not started again (it would end again).
func (p *Servers) renew(l *live) {
	if time.Since(l.since) < renewAfter {
		return
	}
	prefix := l.spec.id() + "\x00"
	var uris []string
	p.mu.Lock()
	for k := range p.subs {
		if uri, ok := strings.CutPrefix(k, prefix); ok {
			uris = append(uris, uri)
		}
	}
	closed := p.closed
	p.mu.Unlock()
	if closed || len(uris) == 0 {
		return
	}
	slices.Sort(uris)
	p.follow.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), l.spec.Startup+time.Duration(len(uris))*l.spec.ToolTimeout)
		defer cancel()
		for _, uri := range uris {
			_, err := within(ctx, p, l.spec, "resources/subscribe", func(ctx context.Context, sess *mcpclient.Session) (struct{}, error) {
				return struct{}{}, sess.Subscribe(ctx, uri)
			})
			if err != nil && !isRPC(err) {
				return // it did not start, or ended again
			}
		}
	})
}

// renewAfter is how long a server must have run for [Servers.renew] to
// start it again.
const renewAfter = time.Second

// revalidate compares a server's listing with the cached one; when they
// differ, the cache takes the new one and OnChange is told.
func (p *Servers) revalidate(l *live, a Answer) {
	if l.spec.Key == nil || p.Cache == nil {
		return // nothing cached to compare with
	}
	put := func() {
		if answer, err := json.Marshal(a); err == nil {
			_ = p.Cache.Put(*l.spec.Key, answer)
		}
	}
	cached := p.cached(l.spec)
	if cached != nil && SameTools(*cached, a) {
		if (cached.Identity == nil) != (a.Identity == nil) || (a.Identity != nil && *a.Identity != *cached.Identity) {
			put() // the same tools, under the identity given now
		}
		return
	}
	put()
	if cached == nil {
		return // nothing was cached: nothing resolved from it
	}
	if f := p.OnChange; f != nil {
		go f(l.spec.Name)
	}
}
