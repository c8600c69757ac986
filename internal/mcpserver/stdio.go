package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/internal/pollfile"
	"github.com/strata-config/strata/internal/termtext"
)

// MaxLine bounds one JSON-RPC message read from the client; a longer line
// is answered with an error and skipped.
const MaxLine = 16 << 20

// IdentityMethod is seed 002's identity method, which a server answers
// beside MCP: {"server_id": UUID, "tools_count": N, "protocol_version":
// "1.0"}; the UUID is derived from the catalog's fingerprint.
const IdentityMethod = "server/identity"

// stdio is the server's side of newline-delimited JSON-RPC over a reader
// and a writer, as MCP's stdio transport, made robust: a line that is not
// JSON is answered with a parse error (-32700) and the session goes on; a
// request other than initialize and ping before initialize is answered
// with an invalid-request error (-32600); server/identity is answered here,
// beside the SDK, which knows no such method.
type stdio struct {
	in       io.Reader
	out      io.Writer
	identity func() any // the answer to server/identity
}

// Connect implements mcp.Transport.
func (t *stdio) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{t: t, in: t.in, lines: make(chan lineOrErr), closed: make(chan struct{}), answered: make(chan struct{}, 1)}
	if f, ok := t.in.(*os.File); ok {
		// A pipe is read in the poller (see pollfile), through a file of
		// the connection's own.
		if p := pollfile.Reopen(f); p != nil {
			c.in, c.own = p, p
		}
	}
	go c.readLoop()
	return c, nil
}

type lineOrErr struct {
	line []byte
	err  error
}

type stdioConn struct {
	t      *stdio
	in     io.Reader // t.in, or a file of its own for reading it
	own    *os.File  // that file, closed with the connection
	lines  chan lineOrErr
	wmu    sync.Mutex
	closed chan struct{}
	once   sync.Once

	initialized bool // read only by Read's goroutine

	// pending are the ids of the requests passed to the SDK and not yet
	// answered: when the input ends, they are answered before the
	// connection ends (`printf ... | strata serve` gets its answers).
	pmu      sync.Mutex
	pending  map[any]bool
	answered chan struct{} // signalled when an answer is written
}

// readLoop reads lines until the input ends, so that Close unblocks Read.
func (c *stdioConn) readLoop() {
	if c.own != nil {
		defer c.own.Close()
	}
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, err := readLine(r, MaxLine)
		select {
		case c.lines <- lineOrErr{line, err}:
		case <-c.closed:
			return
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			return
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes; a longer one is read to
// its end and dropped, with errLineTooLong.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			if len(line) > 0 && err == io.EOF && !tooLong {
				return line, nil // a last line without a newline
			}
			return nil, err
		case tooLong:
			return nil, errLineTooLong
		}
		return line, nil
	}
}

// Read returns the next message for the SDK, answering here what is
// answered here.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l lineOrErr
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if errors.Is(l.err, errLineTooLong) {
			c.reply(nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("the message is longer than %d bytes", MaxLine)})
			continue
		}
		if l.err != nil {
			c.drain(ctx)
			return nil, l.err
		}
		line := trimSpace(l.line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			c.reply(nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the line is not JSON"})
			continue
		}
		msg, err := decode(line)
		if err != nil {
			c.reply(idOf(line), &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error()})
			continue
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg, nil // a response to a request of ours
		}
		switch {
		case req.Method == "initialize" || req.Method == "server/discover":
			// server/discover is the stateless handshake of protocol
			// 2026-07-28, in place of initialize.
			c.initialized = true
		case req.Method == IdentityMethod && req.IsCall():
			c.replyResult(req.ID, c.t.identity())
			continue
		case !c.initialized && req.IsCall() && req.Method != "ping":
			c.reply(req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: the session is not initialized; send initialize first"})
			continue
		case req.Method == "notifications/cancelled":
			// A cancelled request may go unanswered.
			var p struct {
				ID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.ID); err == nil {
					c.settle(id)
				}
			}
		}
		if req.IsCall() {
			c.pmu.Lock()
			if c.pending == nil {
				c.pending = map[any]bool{}
			}
			c.pending[req.ID.Raw()] = true
			c.pmu.Unlock()
		}
		return msg, nil
	}
}

// settle forgets a request once it is answered (or cancelled).
func (c *stdioConn) settle(id jsonrpc.ID) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.pending[id.Raw()] {
		delete(c.pending, id.Raw())
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
}

// drain waits until every request read is answered, the connection is
// closed or ctx ends: the input ended, but the answers still go out.
func (c *stdioConn) drain(ctx context.Context) {
	for {
		c.pmu.Lock()
		n := len(c.pending)
		c.pmu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}

// decode decodes a message. Requests and notifications, nearly all a
// client sends, are decoded here: the SDK's decoder (jsonrpc.DecodeMessage)
// gives its JSON decoder a new 32 KiB buffer for each of the two values it
// decodes, however small the message. Anything else, and anything unusual
// in a request (an id that is not an integer or a string, a null, a
// jsonrpc other than "2.0" as written), goes to the SDK's decoder, so that
// its answer, and its error, are the SDK's own. A fuzz test holds the two
// to the same result.
func decode(line []byte) (jsonrpc.Message, error) {
	if req, ok := decodeRequest(line); ok {
		return req, nil
	}
	return jsonrpc.DecodeMessage(line)
}

// decodeRequest decodes a request or a notification whose members are
// plain: ok is false for anything it leaves to the SDK.
func decodeRequest(line []byte) (req *jsonrpc.Request, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return nil, false
	}
	method, params := m["method"], m["params"]
	if string(m["jsonrpc"]) != `"2.0"` || len(method) == 0 || method[0] != '"' || string(params) == "null" {
		return nil, false
	}
	req = &jsonrpc.Request{Params: params}
	if json.Unmarshal(method, &req.Method) != nil {
		return nil, false
	}
	if raw, has := m["id"]; has {
		id, ok := plainID(raw)
		if !ok {
			return nil, false
		}
		req.ID = id
	}
	return req, true
}

// plainID reads an id that is a string, or an integer that a float64
// holds exactly (the SDK reads numbers as float64).
func plainID(raw json.RawMessage) (jsonrpc.ID, bool) {
	var v any
	switch {
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc.ID{}, false
		}
		v = s
	default:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) || string(raw) == "-0" {
			return jsonrpc.ID{}, false
		}
		v = float64(n)
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil
}

// idOf finds the id of a message that does not decode, for the error.
func idOf(line []byte) *jsonrpc.ID {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || m.ID == nil {
		return nil
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return nil
	}
	return &id
}

// reply writes an error response; a nil id is written as null.
func (c *stdioConn) reply(id any, e *jsonrpc.Error) {
	c.write(map[string]any{"jsonrpc": "2.0", "id": rawID(id), "error": e})
}

func (c *stdioConn) replyResult(id jsonrpc.ID, result any) {
	c.write(map[string]any{"jsonrpc": "2.0", "id": id.Raw(), "result": result})
}

func rawID(id any) any {
	switch id := id.(type) {
	case *jsonrpc.ID:
		if id == nil {
			return nil
		}
		return id.Raw()
	case jsonrpc.ID:
		return id.Raw()
	}
	return nil
}

func (c *stdioConn) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.t.out.Write(termtext.JSON(append(b, '\n')))
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if res, ok := msg.(*jsonrpc.Response); ok {
		defer c.settle(res.ID)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	// What servers, files and clients wrote, with what a terminal acts on
	// escaped: the same JSON to the client (see escaped, over HTTP).
	_, err = c.t.out.Write(termtext.JSON(append(b, '\n')))
	return err
}

// Close implements mcp.Connection.
func (c *stdioConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		if c.own != nil {
			// A read of a file in the poller ends when it is closed.
			_ = c.own.Close()
		}
	})
	return nil
}

// SessionID implements mcp.Connection.
func (c *stdioConn) SessionID() string { return "" }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}
