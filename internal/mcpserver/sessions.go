package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionBound keeps the sessions of the HTTP server within max in all,
// and perToken for each token: a request that would open one more closes
// the session of that scope idle the longest (no request under way, an
// event stream included), and Warn is told; when there is none, the
// request is refused.
type sessionBound struct {
	max, perToken int
	server        *mcp.Server
	warn          func(error)
	// token is who sent a request (see gateway.Principal).
	token func(*http.Request) string

	mu       sync.Mutex
	open     map[string]*session // by id
	opening  map[string]int      // initializes under way, by token
	nOpening int
}

// session is an open session of the HTTP server.
type session struct {
	id, token string
	ss        *mcp.ServerSession
	busy      int       // its requests under way
	since     time.Time // the end of its last request
}

// serve serves r with h, the SDK's handler of sessions: a request of a
// session is its use; one without (an initialize) may open a session,
// within the bounds.
func (b *sessionBound) serve(h http.Handler, w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		defer b.use(id)()
		h.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost {
		h.ServeHTTP(w, r) // the SDK answers that it needs a session
		return
	}
	token := b.token(r)
	if !b.reserve(token) {
		w.Header().Set("Retry-After", "10")
		http.Error(w, fmt.Sprintf("Service Unavailable: strata keeps at most %d sessions (%d a token), and every one has a request under way; try again later", b.max, b.perToken), http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
	b.opened(token, w.Header().Get("Mcp-Session-Id"))
}

// use counts a request of the session id under way, until the function
// it returns is called.
func (b *sessionBound) use(id string) (done func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.open[id]
	if s == nil {
		return func() {} // the SDK answers: no such session
	}
	s.busy++
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		s.busy--
		s.since = time.Now()
	}
}

// reserve makes room for a session of token, closing the idlest ones
// past the bounds; false when there is no room.
func (b *sessionBound) reserve(token string) bool {
	b.mu.Lock()
	var closed []*session
	var why []string
	ok := true
	for {
		var s *session
		if b.count(token) >= b.perToken && b.perToken < b.max {
			s = b.idlest(token, true)
			why = append(why, fmt.Sprintf("%d sessions of one token", b.perToken))
		} else if len(b.open)+b.nOpening >= b.max {
			s = b.idlest("", false)
			why = append(why, fmt.Sprintf("%d sessions", b.max))
		} else {
			break
		}
		if s == nil {
			ok = false
			break
		}
		delete(b.open, s.id)
		closed = append(closed, s)
	}
	if ok {
		if b.opening == nil {
			b.opening = map[string]int{}
		}
		b.opening[token]++
		b.nOpening++
	}
	b.mu.Unlock()
	now := time.Now()
	for i, s := range closed {
		_ = s.ss.Close()
		b.warn(fmt.Errorf("closed the session %s, idle for %s, to open another: strata keeps at most %s over HTTP, and closes the one idle the longest to make room", s.id, now.Sub(s.since).Round(time.Second), why[i]))
	}
	return ok
}

// count is how many sessions token has, and opens.
func (b *sessionBound) count(token string) int {
	n := b.opening[token]
	for _, s := range b.open {
		if s.token == token {
			n++
		}
	}
	return n
}

// idlest is the session idle the longest, of token alone when only; nil
// when each has a request under way.
func (b *sessionBound) idlest(token string, only bool) *session {
	var idlest *session
	for _, s := range b.open {
		if s.busy == 0 && (!only || s.token == token) && (idlest == nil || s.since.Before(idlest.since)) {
			idlest = s
		}
	}
	return idlest
}

// opened records the session id that a request of token opened ("" when
// it opened none), and forgets it when it ends.
func (b *sessionBound) opened(token, id string) {
	var ss *mcp.ServerSession
	if id != "" {
		for s := range b.server.Sessions() {
			if s.ID() == id {
				ss = s
				break
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.opening[token]--; b.opening[token] == 0 {
		delete(b.opening, token)
	}
	b.nOpening--
	if ss == nil || ss.InitializeParams() == nil {
		return // not opened, or closed since (its initialize failed)
	}
	if b.open == nil {
		b.open = map[string]*session{}
	}
	b.open[id] = &session{id: id, token: token, ss: ss, since: time.Now()}
	go func() {
		_ = ss.Wait()
		b.mu.Lock()
		defer b.mu.Unlock()
		if s := b.open[id]; s != nil && s.ss == ss {
			delete(b.open, id)
		}
	}()
}

// boundInitialize refuses an initialize whose params are larger than
// MaxInitializeParams: the session would keep them as long as it lasts.
func boundInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" {
			if b, err := json.Marshal(req.GetParams()); err == nil && len(b) > MaxInitializeParams {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("the params of initialize are %d bytes; strata keeps at most %d bytes of a client's initialize (its clientInfo and capabilities) for as long as its session lasts", len(b), MaxInitializeParams)}
			}
		}
		return next(ctx, method, req)
	}
}
