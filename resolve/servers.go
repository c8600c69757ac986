package resolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/mcpclient"
)

// Servers keeps MCP servers running between resolutions and calls, for a
// host that lives longer than one resolution (strata serve): a server
// starts once, on the first resolution that needs its tools or the first
// call of one of them, and keeps running until [Servers.Close] or until
// the config no longer names it.
//
// A server started for a call lists its tools on the way; when they differ
// from what the cache held (the cache answered a resolution without
// starting anything: stale while revalidating), the cache is updated and
// OnChange is called, so that the host can resolve again. The same happens
// when a running server says its tools changed.
//
// The zero Servers is ready to use. A Servers must not be copied after
// first use.
type Servers struct {
	// OnChange, when not nil, is called with the name of a server whose
	// tools changed, from a goroutine of its own.
	OnChange func(server string)

	mu     sync.Mutex
	live   map[string]*liveServer // by server identity
	closed bool
}

// liveServer is a running server, or one starting.
type liveServer struct {
	name  string
	ready chan struct{} // closed once started, or failed
	sess  *mcpclient.Session
	err   error

	mu     sync.Mutex // serializes listings (the session reads one at a time)
	answer mcpAnswer  // its tools, as last listed
	key    cacheKey   // its cache key, when keyErr is nil
	keyErr error
}

// errServersClosed is the error of a server asked for after Close.
var errServersClosed = errors.New("the servers are closed")

// Close stops every server.
func (p *Servers) Close() error {
	p.mu.Lock()
	live := p.live
	p.live, p.closed = nil, true
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range live {
		wg.Go(func() {
			<-l.ready
			if l.sess != nil {
				_ = l.sess.Close()
			}
		})
	}
	wg.Wait()
	return nil
}

// retain stops the servers whose identity is not in keep.
func (p *Servers) retain(keep map[string]bool) {
	p.mu.Lock()
	var stop []*liveServer
	for id, l := range p.live {
		if !keep[id] {
			stop = append(stop, l)
			delete(p.live, id)
		}
	}
	p.mu.Unlock()
	for _, l := range stop {
		go func() {
			<-l.ready
			if l.sess != nil {
				_ = l.sess.Close()
			}
		}()
	}
}

// forget removes l, once its connection ended.
func (p *Servers) forget(id string, l *liveServer) {
	p.mu.Lock()
	if p.live[id] == l {
		delete(p.live, id)
	}
	p.mu.Unlock()
}

// serverID is what identifies a running server: everything it was started
// with.
func (s *session) serverID(name string, srv config.MCPServer) string {
	b, _ := json.Marshal(struct {
		Name, Command string
		Args, Env     []string
		Dir           string
	}{name, s.lookPath(s.absolute(srv.Command)), srv.Args, s.serverEnv(srv), s.serverDir(srv)})
	return string(b)
}

// liveServer returns the running server name of the pool, starting it (and
// listing its tools) when it is not running; started says it was.
func (s *session) liveServer(ctx context.Context, name string, srv config.MCPServer) (l *liveServer, started bool, err error) {
	p := s.r.Servers
	id := s.serverID(name, srv)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, errServersClosed
	}
	l = p.live[id]
	if l == nil {
		l = &liveServer{name: name, ready: make(chan struct{})}
		if p.live == nil {
			p.live = map[string]*liveServer{}
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

	l.key, l.keyErr = s.mcpKey(srv)
	l.sess, l.err = s.startServer(ctx, name, srv, mcpclient.DefaultGrace)
	if l.err == nil {
		l.answer, l.err = s.list(ctx, l.sess, srv)
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
	go s.watch(p, id, l, srv)
	return l, true, nil
}

// watch follows a running server: when it says its tools changed, they are
// listed again and compared; when its connection ends, it leaves the pool.
func (s *session) watch(p *Servers, id string, l *liveServer, srv config.MCPServer) {
	for {
		select {
		case <-l.sess.Done():
			p.forget(id, l)
			return
		case <-l.sess.Changes():
			ctx, cancel := context.WithTimeout(context.Background(), toolTimeout(srv))
			l.mu.Lock()
			a, err := s.list(ctx, l.sess, srv)
			if err == nil {
				l.answer = a
			}
			l.mu.Unlock()
			cancel()
			if err == nil {
				s.revalidate(l, a)
			}
		}
	}
}

// revalidate compares a server's listing with the cached one; when they
// differ, the cache takes the new one and the pool's OnChange is told. It
// reports whether they differed.
func (s *session) revalidate(l *liveServer, a mcpAnswer) bool {
	if l.keyErr != nil || s.r.MCPTransport != nil {
		return false // nothing cached to compare with
	}
	answer, err := json.Marshal(a)
	if err != nil {
		return false
	}
	cached, ok := s.r.Cache.get(l.key)
	if ok && jsonv.Equal(jsonv.MustParse(string(cached)), jsonv.MustParse(string(answer))) {
		return false
	}
	_ = s.r.Cache.put(l.key, answer)
	if !ok {
		return false // nothing was cached: nothing resolved from it
	}
	if f := s.r.Servers.OnChange; f != nil {
		go f(l.name)
	}
	return true
}

// CallMCP calls tool of the MCP server name, configured as srv, with args
// (a JSON object) and the _meta payload meta, under the server's tool
// timeout. With [Resolver.Servers], the server is started once and kept
// running (see [Servers]); without, it is started for the call and stopped
// after it.
func (r *Resolver) CallMCP(ctx context.Context, name string, srv config.MCPServer, tool string, args json.RawMessage, meta map[string]any) (*mcp.CallToolResult, error) {
	s := r.session(ctx)
	cctx, cancel := context.WithTimeout(ctx, toolTimeout(srv))
	defer cancel()
	var sess *mcpclient.Session
	if r.Servers != nil {
		l, started, err := s.liveServer(cctx, name, srv)
		if err != nil {
			return nil, fmt.Errorf("cannot start %s: %v", commandLine(srv), err)
		}
		if started {
			l.mu.Lock()
			a := l.answer
			l.mu.Unlock()
			s.revalidate(l, a)
		}
		sess = l.sess
	} else {
		var err error
		if sess, err = s.startServer(cctx, name, srv, mcpclient.DefaultGrace); err != nil {
			return nil, fmt.Errorf("cannot start %s: %v", commandLine(srv), err)
		}
		defer sess.Close()
	}
	res, err := sess.Call(cctx, tool, args, meta)
	if err != nil {
		select {
		case <-sess.Done():
			msg := fmt.Sprintf("the server %s ended during the call: %v", name, err)
			if last := sess.Stderr.LastLine(); last != "" {
				msg += "; it said: " + last
			}
			return nil, errors.New(msg)
		default:
		}
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("%s: no answer within %v", tool, toolTimeout(srv))
		}
		return nil, err
	}
	return res, nil
}
