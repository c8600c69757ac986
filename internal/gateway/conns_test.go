package gateway

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeConn is a connection that records whether it was closed.
type fakeConn struct {
	net.Conn
	name   string
	closed *[]string
}

func (c *fakeConn) Close() error {
	*c.closed = append(*c.closed, c.name)
	return nil
}

// TestConnsClosesStrangersFirst: when a connection comes past the bound,
// the connections that never carried an admitted request go first, the
// oldest first; then those admitted that are idle, the longest idle
// first; a connection whose admitted request is under way never goes:
// when all are, the new one does.
func TestConnsClosesStrangersFirst(t *testing.T) {
	// Each step opens a connection, admits one (a request on it passed the
	// guard), or moves one between active and idle.
	type step struct{ op, conn string }
	tests := []struct {
		name  string
		max   int
		steps []step
		want  []string // closed, in order
	}{
		{
			name:  "within the bound",
			max:   3,
			steps: []step{{"open", "a"}, {"open", "b"}, {"open", "c"}},
		},
		{
			name:  "the oldest stranger",
			max:   2,
			steps: []step{{"open", "s1"}, {"open", "s2"}, {"open", "s3"}, {"open", "s4"}},
			want:  []string{"s1", "s2"},
		},
		{
			name: "strangers before idle admitted ones",
			max:  3,
			steps: []step{
				{"open", "real"}, {"active", "real"}, {"admit", "real"}, {"idle", "real"},
				{"open", "s1"}, {"open", "s2"}, {"open", "s3"}, {"open", "real2"},
			},
			want: []string{"s1", "s2"},
		},
		{
			name: "a stranger refused goes first, though it came after",
			max:  2,
			steps: []step{
				{"open", "real"}, {"active", "real"}, {"admit", "real"}, {"idle", "real"},
				{"open", "refused"}, {"active", "refused"}, {"idle", "refused"}, {"open", "new"},
			},
			want: []string{"refused"},
		},
		{
			name: "the longest idle admitted one, when there is no stranger",
			max:  2,
			steps: []step{
				{"open", "a"}, {"active", "a"}, {"admit", "a"}, {"idle", "a"},
				{"open", "b"}, {"active", "b"}, {"admit", "b"}, {"idle", "b"},
				{"active", "a"}, {"idle", "a"}, // a was used since
				{"open", "new"},
			},
			want: []string{"b"},
		},
		{
			name: "never one whose admitted request is under way",
			max:  2,
			steps: []step{
				{"open", "a"}, {"active", "a"}, {"admit", "a"},
				{"open", "b"}, {"active", "b"}, {"admit", "b"},
				{"open", "new"},
			},
			want: []string{"new"},
		},
		{
			name: "closed ones leave room",
			max:  2,
			steps: []step{
				{"open", "a"}, {"open", "b"}, {"closed", "a"}, {"open", "c"},
			},
		},
		{
			name:  "no bound",
			max:   0,
			steps: []step{{"open", "a"}, {"open", "b"}, {"open", "c"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := &Conns{Max: tt.max}
			var closed []string
			conns := map[string]*fakeConn{}
			ctxs := map[string]context.Context{}
			for _, s := range tt.steps {
				c := conns[s.conn]
				if c == nil {
					c = &fakeConn{name: s.conn, closed: &closed}
					conns[s.conn] = c
				}
				switch s.op {
				case "open": // in net/http's order
					ctxs[s.conn] = cs.Context(context.Background(), c)
					cs.Track(c, http.StateNew)
				case "admit":
					admit(ctxs[s.conn])
				case "active":
					cs.Track(c, http.StateActive)
				case "idle":
					cs.Track(c, http.StateIdle)
				case "closed":
					cs.Track(c, http.StateClosed)
				}
			}
			if diff := cmp.Diff(tt.want, closed); diff != "" {
				t.Errorf("closed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConnBound: the bound leaves a quarter of the process's descriptors
// to the rest of it.
func TestConnBound(t *testing.T) {
	for _, tt := range []struct {
		files uint64
		want  int
	}{
		{0, MaxConns},
		{256, 192},
		{1024, 768},
		{1 << 20, MaxConns},
		{^uint64(0), MaxConns},
	} {
		if got := connBound(tt.files); got != tt.want {
			t.Errorf("connBound(%d) = %d, want %d", tt.files, got, tt.want)
		}
	}
}

// TestConnsKeepAdmittedOnes: behind a Guard, in a real http.Server, the
// connection of a client with the token stays open while connections
// without it come past the bound, which close them, oldest first.
func TestConnsKeepAdmittedOnes(t *testing.T) {
	const token = "secret"
	cs := &Conns{Max: 2}
	g := &Guard{Token: token}
	srv := httptest.NewUnstartedServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	})))
	srv.Config.ConnState, srv.Config.ConnContext = cs.Track, cs.Context
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	deadline := time.Now().Add(time.Minute) // a safety net
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(deadline)
		return c
	}
	real := dial()
	br := bufio.NewReader(real)
	get := func() error {
		if _, err := io.WriteString(real, "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+token+"\r\n\r\n"); err != nil {
			return err
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return errors.New(res.Status)
		}
		_, err = io.Copy(io.Discard, res.Body)
		return err
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	var strangers []net.Conn
	for range 5 {
		strangers = append(strangers, dial())
	}
	// The fifth came past the bound with the first four: they are closed.
	for i, c := range strangers[:4] {
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("connection without the token %d: %v", i+1, err)
		}
	}
	if err := get(); err != nil {
		t.Errorf("the client with the token, on its connection: %v", err)
	}
}
