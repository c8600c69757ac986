package gateway

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// MaxConns is the most connections a gateway keeps open at once, unless
// the process may open fewer files (see [NewConns]). A client keeps one
// or two (its event stream, and a request under way); each held open
// costs about 27 KB.
const MaxConns = 1024

// Conns bounds the connections an HTTP server keeps open, so that
// clients without the token cannot take them from those with it: when a
// connection comes and Max are open, the one that never carried an
// admitted request and was opened first is closed (a client that was
// refused, that sends half a request or nothing at all), else the one
// that carried admitted requests and has been idle the longest (its
// client opens another when it needs one); when every connection carries
// an admitted request under way, the new one is closed. Its Track is the
// server's ConnState, its Context the server's ConnContext, and a
// [Guard] in front of the server's handler marks the connections whose
// requests it admits. The zero value keeps no bound.
type Conns struct {
	Max int

	mu   sync.Mutex
	open map[net.Conn]*conn
	seq  uint64 // orders the events of Track
}

// conn is an open connection.
type conn struct {
	c        net.Conn
	opened   uint64      // the event that opened it
	idle     bool        // between requests
	since    uint64      // its last change between idle and active
	admitted atomic.Bool // a request on it was admitted
}

// NewConns returns the connection bound of a gateway in this process:
// MaxConns, or three quarters of the files the process may open
// (RLIMIT_NOFILE, where the system has one) when that is less, so that
// the connections never take the descriptors the rest of the process
// needs (its MCP servers' pipes, the files it reads).
func NewConns() *Conns {
	return &Conns{Max: connBound(openFiles())}
}

// connBound is the connection bound of a process that may open files
// files (0: unknown).
func connBound(files uint64) int {
	if files > 0 && files-files/4 < MaxConns {
		return int(files - files/4)
	}
	return MaxConns
}

type connKey struct{}

// Context records c in the context of its requests (http.Server's
// ConnContext, which net/http calls before ConnState's StateNew), where a
// Guard marks it admitted.
func (cs *Conns) Context(ctx context.Context, c net.Conn) context.Context {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return context.WithValue(ctx, connKey{}, cs.record(c))
}

// record is the record of c, made when it has none; cs.mu is held.
func (cs *Conns) record(c net.Conn) *conn {
	if cs.open == nil {
		cs.open = map[net.Conn]*conn{}
	}
	rec := cs.open[c]
	if rec == nil {
		cs.seq++
		rec = &conn{c: c, opened: cs.seq, since: cs.seq}
		cs.open[c] = rec
	}
	return rec
}

// Track follows the states of the connections (http.Server's ConnState),
// and closes one when a new one comes past Max.
func (cs *Conns) Track(c net.Conn, state http.ConnState) {
	cs.mu.Lock()
	cs.seq++
	now := cs.seq
	var victim net.Conn
	switch state {
	case http.StateNew:
		cs.record(c)
		if cs.Max > 0 && len(cs.open) > cs.Max {
			victim = cs.victim(c)
			delete(cs.open, victim)
		}
	case http.StateActive, http.StateIdle:
		if rec := cs.open[c]; rec != nil {
			rec.idle, rec.since = state == http.StateIdle, now
		}
	case http.StateHijacked, http.StateClosed:
		delete(cs.open, c)
	}
	cs.mu.Unlock()
	if victim != nil {
		_ = victim.Close()
	}
}

// victim is the connection to close when c came past Max: the oldest of
// those never admitted, else the one idle the longest of those admitted,
// else c itself (every other carries a request under way).
func (cs *Conns) victim(c net.Conn) net.Conn {
	var stranger, idle *conn
	for _, rec := range cs.open {
		switch {
		case rec.c == c:
		case !rec.admitted.Load():
			if stranger == nil || rec.opened < stranger.opened {
				stranger = rec
			}
		case rec.idle:
			if idle == nil || rec.since < idle.since {
				idle = rec
			}
		}
	}
	switch {
	case stranger != nil:
		return stranger.c
	case idle != nil:
		return idle.c
	}
	return c
}

// admit marks the connection of a request admitted: it is closed to make
// room only when idle, and after every connection never admitted.
func admit(ctx context.Context) {
	if rec, _ := ctx.Value(connKey{}).(*conn); rec != nil {
		rec.admitted.Store(true)
	}
}
