package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/secret"
)

// identityHandler answers server/identity in front of the SDK's streamable
// handler, as JSON or as an event stream (form), and passes everything
// else on.
func identityHandler(form string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(body, &m) == nil && m.Method == IdentityMethod {
				res := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"server_id":"0e9a1f52-1d3c-8a4e-9b7f-3c2d1e0f4a5b","tools_count":1,"protocol_version":"1.0"}}`, m.ID)
				if form == "json" {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, res)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				// A comment, an event of another request, then the
				// response, its data split over two lines.
				io.WriteString(w, ": hello\r\n\r\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
				half := strings.Index(res, `"result"`)
				io.WriteString(w, "id: 7\ndata: "+res[:half]+"\ndata:"+res[half:]+"\n\n")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

var wantIdentity = &Identity{ServerID: "0e9a1f52-1d3c-8a4e-9b7f-3c2d1e0f4a5b", ToolsCount: 1, ProtocolVersion: "1.0"}

// TestIdentityHTTP: over streamable HTTP, server/identity is posted beside
// the SDK, in its session, with the configured headers, and its response
// is read as JSON or as an event stream; a server that does not know the
// method answers with an error, which is ErrNoIdentity; the session goes
// on either way.
func TestIdentityHTTP(t *testing.T) {
	for _, form := range []string{"json", "event-stream", "none"} {
		t.Run(form, func(t *testing.T) {
			var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil)
			if form != "none" {
				h = identityHandler(form, h)
			}
			var rec seen
			s := dial(t, Remote{URL: secret.Plain(httpServer(t, rec.wrap(h))), Headers: map[string]secret.String{"X-Team": secret.Plain("a")}, BearerToken: secret.Plain("t0k3n")})
			id, err := s.Identity(testContext(t))
			switch {
			case form == "none":
				if !errors.Is(err, ErrNoIdentity) {
					t.Errorf("Identity: %v, %v; want ErrNoIdentity", id, err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if diff := cmp.Diff(wantIdentity, id); diff != "" {
					t.Errorf("identity (-want +got):\n%s", diff)
				}
			}
			if got := echo(t, s, "still here"); got != "Echo: still here" {
				t.Errorf("after: %q", got)
			}
			// The request went with the configured headers, and with the
			// session's protocol version.
			found := false
			for _, r := range rec.all() {
				if r.Method == http.MethodPost && r.Header.Get("Mcp-Protocol-Version") != "" && r.Header.Get("X-Team") == "a" && r.Header.Get("Authorization") == "Bearer t0k3n" {
					found = true
				}
			}
			if !found {
				t.Errorf("no POST with the headers: %+v", rec.all())
			}
		})
	}
}

// TestIdentityConnection: over stdio (mcpfake, a real process), the older
// HTTP+SSE transport and in memory, server/identity is written on the
// SDK's connection and its response taken off it; a server that does not
// know the method (an error response; the SDK's HTTP+SSE handler refuses
// the post) makes it ErrNoIdentity, and the session goes on.
func TestIdentityConnection(t *testing.T) {
	sessions := map[string]func(t *testing.T) *Session{
		"stdio": func(t *testing.T) *Session { return start(t, fake(t, "-tools", "1")) },
		"sse": func(t *testing.T) *Session {
			return dial(t, Remote{URL: secret.Plain(httpServer(t, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return echoServer() }, nil)))})
		},
		"memory": func(t *testing.T) *Session { return serve(t, echoServer()) },
	}
	for name, open := range sessions {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			for range 2 { // the id of the second is not the first's
				id, err := s.Identity(testContext(t))
				if !errors.Is(err, ErrNoIdentity) || id != nil {
					t.Errorf("Identity: %v, %v; want ErrNoIdentity", id, err)
				}
			}
			if tools, _, err := s.Tools(testContext(t), Budget{}); err != nil || len(tools) != 1 {
				t.Errorf("after: %v, %v", tools, err)
			}
		})
	}
}

func TestEachEvent(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		max      int
		stopAt   int // fn returns false at this event (1-based); 0: never
		want     []string
		wantErr  error
	}{
		{name: "one event", in: "data: {}\n\n", want: []string{"{}"}},
		{name: "lines joined", in: "data: a\ndata:b\ndata:  c\n\n", want: []string{"a\nb\n c"}},
		{name: "crlf", in: "data: a\r\n\r\ndata: b\r\n\r\n", want: []string{"a", "b"}},
		{name: "other fields and comments", in: ": c\nevent: message\nid: 1\nretry: 5\ndata: x\n\n", want: []string{"x"}},
		{name: "blank lines between", in: "\n\ndata: x\n\n\n\ndata: y\n\n", want: []string{"x", "y"}},
		{name: "empty data", in: "data:\n\n", want: []string{""}},
		{name: "no data", in: "event: ping\n\n", want: nil},
		{name: "last event cut off", in: "data: x\n\ndata: y\n", want: []string{"x"}},
		{name: "stop", in: "data: x\n\ndata: y\n\n", stopAt: 1, want: []string{"x"}},
		{name: "line too long", in: "data: " + strings.Repeat("x", 20) + "\n\n", max: 10, wantErr: errEventTooLong},
		{name: "event too long", in: "data: 123456\ndata: 123456\n\n", max: 10, wantErr: errEventTooLong},
		{name: "at the bound", in: "data:1234\n\n", max: 9, want: []string{"1234"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			max := tt.max
			if max == 0 {
				max = 1 << 10
			}
			var got []string
			err := eachEvent(strings.NewReader(tt.in), max, func(data []byte) bool {
				got = append(got, string(data))
				return len(got) != tt.stopAt
			})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzEachEvent: reading any stream ends, gives no event longer than the
// bound, and gives one only for a stream with a data line.
func FuzzEachEvent(f *testing.F) {
	for _, s := range []string{"data: {}\n\n", "data: a\r\ndata: b\r\n\r\n", ": c\nevent: x\ndata:\n\n", "data: x", "\n\n\r\n", "data:" + strings.Repeat("y", 40) + "\n\n"} {
		f.Add([]byte(s), 16)
	}
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<16 {
			max = 16
		}
		n := 0
		_ = eachEvent(bytes.NewReader(in), max, func(data []byte) bool {
			n++
			if len(data) > max {
				t.Fatalf("an event of %d bytes, over the bound %d", len(data), max)
			}
			return true
		})
		if n > 0 && !bytes.Contains(in, []byte("data:")) {
			t.Fatalf("%d events from a stream without data", n)
		}
	})
}

// FuzzResponseOf: a message gives a response only when it is one, to the
// request asked for.
func FuzzResponseOf(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":"strata/1","result":{}}`), "strata/1")
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), "strata/1")
	f.Add([]byte(`{"jsonrpc":"2.0","id":"strata/1","error":{"code":-32601,"message":"no"}}`), "strata/1")
	f.Add([]byte(`{"jsonrpc":"2.0","method":"x","id":"strata/1"}`), "strata/1")
	f.Fuzz(func(t *testing.T, msg []byte, id string) {
		r := responseOf(msg, id)
		if r == nil {
			return
		}
		if r.ID != id || (r.Result == nil && r.Error == nil) || !json.Valid(msg) {
			t.Fatalf("response %+v of %q for id %q", r, msg, id)
		}
	})
}
