package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// IdentityMethod is seed 002's identity method: a server that answers it
// says who it is by its tools, and a client that cached its tools under
// that identity need not list them again while it stays the same.
const IdentityMethod = "server/identity"

// Identity is a server's answer to server/identity.
type Identity struct {
	// ServerID is a UUID that stays the same while the server's tools do.
	ServerID        string `json:"server_id"`
	ToolsCount      int    `json:"tools_count"`
	ProtocolVersion string `json:"protocol_version"`
}

// Same reports whether the server says it is the one of o: the same id
// and the same number of tools.
func (id Identity) Same(o Identity) bool {
	return id.ServerID == o.ServerID && id.ToolsCount == o.ToolsCount
}

// ErrNoIdentity is the error of a server that does not answer
// server/identity, or answers it with something that is not an identity.
var ErrNoIdentity = errors.New("the server does not answer " + IdentityMethod)

// Identity asks the server who it is (seed 002's server/identity).
//
// The SDK sends no request of a method it does not know, and has no
// generic request, so strata sends this one itself, beside the SDK:
//
//   - over stdio and the older HTTP+SSE transport, strata writes the
//     request on the SDK's connection, under an id of its own ("strata/N",
//     where the SDK's are numbers), and takes the response off the
//     connection as it is read, before the SDK sees it, which would drop a
//     response to a request it did not send;
//   - over streamable HTTP, where the connection must stay the SDK's own
//     (it learns the session's state through methods a wrapper cannot
//     forward), strata posts the request to the endpoint itself, with the
//     session's id and protocol version and the configured headers, and
//     reads its response (JSON, or an event stream); the SDK never sees
//     either.
func (s *Session) Identity(ctx context.Context) (_ *Identity, err error) {
	defer s.hide(&err)
	if s.raw == nil {
		return nil, fmt.Errorf("%w: this transport cannot send it", ErrNoIdentity)
	}
	result, err := s.raw.call(ctx, IdentityMethod)
	switch {
	case err == nil:
	case errors.Is(err, ErrNoIdentity) || ctx.Err() != nil:
		return nil, err
	default:
		// A server may refuse the request itself (the SDK's HTTP+SSE
		// handler answers a method it does not know with 400).
		return nil, fmt.Errorf("%w: %w", ErrNoIdentity, err)
	}
	var id Identity
	if err := json.Unmarshal(result, &id); err != nil || id.ServerID == "" {
		return nil, fmt.Errorf("%w: its answer has no server_id: %.200s", ErrNoIdentity, result)
	}
	return &id, nil
}

// rawCaller sends a request that the SDK does not know, beside it, and
// returns the result.
type rawCaller interface {
	call(ctx context.Context, method string) (json.RawMessage, error)
}

// rawPrefix begins the ids of the requests strata sends beside the SDK.
const rawPrefix = "strata/"

// rpcError is the error of a JSON-RPC error response to a request strata
// sent beside the SDK: the server does not answer that method.
func rpcError(method string, e *jsonrpc.Error) error {
	return fmt.Errorf("%w: %s answered %d %s", ErrNoIdentity, method, e.Code, e.Message)
}

// pending are the requests strata wrote on a connection, waiting for
// their responses.
type pending struct {
	mu      sync.Mutex
	next    uint64
	waiting map[string]chan *jsonrpc.Response
	ended   chan struct{}
	once    sync.Once
}

func (p *pending) add() (string, chan *jsonrpc.Response) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	id := fmt.Sprintf("%s%d", rawPrefix, p.next)
	ch := make(chan *jsonrpc.Response, 1)
	if p.waiting == nil {
		p.waiting = map[string]chan *jsonrpc.Response{}
	}
	p.waiting[id] = ch
	return id, ch
}

func (p *pending) remove(id string) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
}

// deliver hands a response to the request strata wrote; false says it
// answers none of them (it is the SDK's).
func (p *pending) deliver(r *jsonrpc.Response) bool {
	id, ok := r.ID.Raw().(string)
	if !ok || !strings.HasPrefix(id, rawPrefix) {
		return false
	}
	p.mu.Lock()
	ch := p.waiting[id]
	delete(p.waiting, id)
	p.mu.Unlock()
	if ch != nil {
		ch <- r
	}
	return true // strata's, even when no one waits any more
}

// end fails the requests waiting, and those to come: the connection
// ended.
func (p *pending) end() { p.once.Do(func() { close(p.ended) }) }

// call writes a request on the connection and waits for its response.
func (c *tapConn) call(ctx context.Context, method string) (json.RawMessage, error) {
	id, ch := c.pending.add()
	defer c.pending.remove(id)
	jid, err := jsonrpc.MakeID(id)
	if err != nil {
		return nil, err
	}
	if err := c.Connection.Write(ctx, &jsonrpc.Request{ID: jid, Method: method}); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			var e *jsonrpc.Error
			if errors.As(r.Error, &e) {
				return nil, rpcError(method, e)
			}
			return nil, fmt.Errorf("%w: %v", ErrNoIdentity, r.Error)
		}
		return r.Result, nil
	case <-c.pending.ended:
		return nil, fmt.Errorf("%s: the connection ended", method)
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// httpCaller posts requests to a streamable HTTP endpoint beside the SDK,
// in its session.
type httpCaller struct {
	client *http.Client
	url    string
	cs     func() *mcp.ClientSession
	max    int
	next   atomic.Uint64
}

func (h *httpCaller) call(ctx context.Context, method string) (json.RawMessage, error) {
	id := fmt.Sprintf("%s%d", rawPrefix, h.next.Add(1))
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if cs := h.cs(); cs != nil {
		if sid := cs.ID(); sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		if ir := cs.InitializeResult(); ir != nil && ir.ProtocolVersion != "" {
			req.Header.Set("Mcp-Protocol-Version", ir.ProtocolVersion)
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s answered %s", ErrNoIdentity, method, statusText(resp.StatusCode))
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var found *rawResponse
	switch mt {
	case "application/json":
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		found = responseOf(b, id)
	case "text/event-stream":
		err = eachEvent(resp.Body, h.max, func(data []byte) bool {
			found = responseOf(data, id)
			return found == nil
		})
		if err != nil && found == nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
	default:
		return nil, fmt.Errorf("%w: %s answered with %q", ErrNoIdentity, method, mt)
	}
	switch {
	case found == nil:
		return nil, fmt.Errorf("%w: %s got no response", ErrNoIdentity, method)
	case found.Error != nil:
		return nil, rpcError(method, found.Error)
	}
	return found.Result, nil
}

// rawResponse is a JSON-RPC response as read off the wire.
type rawResponse struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// responseOf returns the response to the request id in one JSON-RPC
// message, or nil when the message is something else.
func responseOf(msg []byte, id string) *rawResponse {
	var r rawResponse
	if json.Unmarshal(msg, &r) != nil || r.ID != id || (r.Result == nil && r.Error == nil) {
		return nil
	}
	return &r
}

// errEventTooLong is the error of an event stream with a line longer than
// the bound.
var errEventTooLong = errors.New("an event of the stream is too long")

// eachEvent reads a stream of server-sent events and calls fn with the
// data of each event (its data lines joined by newlines), until fn
// returns false or the stream ends. Lines end with LF or CRLF; fields
// other than data, and comments, are skipped; an event the stream ends in
// before its blank line is dropped, as the format says; a line or an
// event longer than max ends the stream with an error.
func eachEvent(r io.Reader, max int, fn func(data []byte) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), max+2)
	var data []byte
	have := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > max {
			return errEventTooLong
		}
		switch {
		case len(line) == 0:
			if have && !fn(data) {
				return nil
			}
			data, have = data[:0], false
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			if have {
				data = append(data, '\n')
			}
			if len(data)+len(v) > max {
				return errEventTooLong
			}
			data, have = append(data, v...), true
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return errEventTooLong
		}
		return err
	}
	return nil // an event the stream ends in is not whole: not dispatched
}
