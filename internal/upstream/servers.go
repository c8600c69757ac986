package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/jsonv"
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
// The zero Servers is ready to use. A Servers must not be copied after
// first use; a nil *Servers starts a server for each listing or call and
// stops it after.
type Servers struct {
	// Cache keeps the servers' tools; nil keeps nothing.
	Cache *cache.Cache
	// OnChange, when not nil, is called with the name of a server whose
	// tools changed, from a goroutine of its own.
	OnChange func(server string)

	mu     sync.Mutex
	live   map[string]*live // by server identity
	closed bool
	follow sync.WaitGroup // the goroutines that follow running servers
}

// live is a running server, or one starting.
type live struct {
	spec  Spec
	ready chan struct{} // closed once started, or failed
	sess  *mcpclient.Session
	err   error

	mu     sync.Mutex // serializes listings (the session reads one at a time)
	answer Answer     // its tools, as last listed
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
		_ = l.sess.Close()
	}
}

// Retain stops the servers whose identity ([Spec.ID]) is not in keep.
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
	p.mu.Unlock()
	for _, l := range stop {
		go l.stop()
	}
}

// forget removes l, once its connection ended.
func (p *Servers) forget(id string, l *live) {
	p.mu.Lock()
	if p.live[id] == l {
		delete(p.live, id)
	}
	p.mu.Unlock()
}

// Tools returns the tools of the server of s: listed again on the running
// server, or listed as it starts. started says it started now.
func (p *Servers) Tools(ctx context.Context, s Spec) (a Answer, started bool, err error) {
	if p == nil {
		a, err := List(ctx, s)
		return a, true, err
	}
	l, started, err := p.get(ctx, s)
	if err != nil {
		return Answer{}, false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !started {
		if fresh, err := list(ctx, l.sess, s); err == nil {
			l.answer = fresh
		}
	}
	return l.answer, started, nil
}

// Call calls tool of the server of s with args (a JSON object) and the
// _meta payload meta, under the server's tool timeout. A server that the
// call starts has its tools compared with the cache (see [Servers]).
func (p *Servers) Call(ctx context.Context, s Spec, tool string, args json.RawMessage, meta map[string]any) (*mcp.CallToolResult, error) {
	if p == nil {
		sess, err := Start(ctx, s, mcpclient.DefaultGrace)
		if err != nil {
			return nil, fmt.Errorf("cannot start %s: %w", s.CommandLine(), err)
		}
		defer sess.Close()
		return call(ctx, sess, s, tool, args, meta)
	}
	l, started, err := p.get(ctx, s)
	if err != nil {
		return nil, err
	}
	if started {
		l.mu.Lock()
		a := l.answer
		l.mu.Unlock()
		p.revalidate(l, a)
	}
	return call(ctx, l.sess, s, tool, args, meta)
}

// get returns the running server of s, starting it (and listing its tools)
// when it is not running; started says it was.
func (p *Servers) get(ctx context.Context, s Spec) (l *live, started bool, err error) {
	id := s.id()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, errClosed
	}
	l = p.live[id]
	if l == nil {
		l = &live{spec: s, ready: make(chan struct{})}
		if p.live == nil {
			p.live = map[string]*live{}
		}
		p.live[id] = l
		started = true
	}
	p.mu.Unlock()
	if !started {
		select {
		case <-l.ready:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
		if l.err != nil {
			return nil, false, l.err
		}
		return l, false, nil
	}
	l.sess, l.err = Start(ctx, s, mcpclient.DefaultGrace)
	if l.err != nil {
		l.err = fmt.Errorf("cannot start %s: %w", s.CommandLine(), l.err)
	} else {
		l.answer, l.err = list(ctx, l.sess, s)
		if l.err != nil {
			_ = l.sess.Close()
			l.sess = nil
		}
	}
	close(l.ready)
	if l.err != nil {
		p.forget(id, l)
		return nil, false, l.err
	}
	p.follow.Go(func() { p.followServer(id, l) })
	return l, true, nil
}

// followServer follows a running server: when it says its tools changed,
// they are listed again and compared; when its connection ends, it leaves
// the set.
func (p *Servers) followServer(id string, l *live) {
	for {
		select {
		case <-l.sess.Done():
			p.forget(id, l)
			return
		case <-l.sess.Changes():
			l.mu.Lock()
			a, err := list(context.Background(), l.sess, l.spec)
			if err == nil {
				l.answer = a
			}
			l.mu.Unlock()
			if err == nil {
				p.revalidate(l, a)
			}
		}
	}
}

// revalidate compares a server's listing with the cached one; when they
// differ, the cache takes the new one and OnChange is told.
func (p *Servers) revalidate(l *live, a Answer) {
	if l.spec.Key == nil || p.Cache == nil {
		return // nothing cached to compare with
	}
	answer, err := json.Marshal(a)
	if err != nil {
		return
	}
	cached, ok := p.Cache.Get(*l.spec.Key)
	if ok && jsonv.Equal(jsonv.MustParse(string(cached)), jsonv.MustParse(string(answer))) {
		return
	}
	_ = p.Cache.Put(*l.spec.Key, answer)
	if !ok {
		return // nothing was cached: nothing resolved from it
	}
	if f := p.OnChange; f != nil {
		go f(l.spec.Name)
	}
}
